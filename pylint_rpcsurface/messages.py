"""The messages: one table, the single source of truth for ids, symbols and texts.

The checker builds pylint's ``msgs`` dict from it, and the docs and tests read it too.
Every text starts with the RPC's name (or the registry's) in single quotes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

CHECKER_NAME = "rpcsurface"
# pylint reserves 51-99 for plugins; its own extensions use 55, 56, 60-63 and 90.
CHECKER_ID = "77"


@dataclass(frozen=True)
class MessageSpec:
    msgid: str
    symbol: str
    template: str
    description: str
    confidence: str  # the pylint confidence level the checker passes


MESSAGES: tuple[MessageSpec, ...] = (
    MessageSpec(
        "W7701",
        "rpc-unlisted",
        "'%s' is waited on by %s and answered only by %s, but %s does not list it",
        "A caller waits on an RPC that the handlers answer and the base handlers do "
        "not, and the registry lacks it.",
        "INFERENCE",
    ),
    MessageSpec(
        "W7702",
        "rpc-listed-unwaited",
        "'%s' is listed in %s, but no caller waits on it: %s",
        "The registry lists a name that no caller waits on: it is broadcast only "
        "without waiting, or never broadcast.",
        "INFERENCE",
    ),
    MessageSpec(
        "E7703",
        "rpc-listed-unanswered",
        "'%s' is listed in %s, but no handler answers it (%s)",
        "The registry lists a name that no handler answers.",
        "INFERENCE",
    ),
    MessageSpec(
        "W7704",
        "rpc-listed-in-base",
        "'%s' is listed in %s, but the base handler %s answers it already",
        "The registry lists a name that a base handler answers, so every runner "
        "answers it and it does not belong in the registry.",
        "INFERENCE",
    ),
    MessageSpec(
        "E7705",
        "rpc-unanswered",
        "'%s' is broadcast by %s, but no handler answers it (%s): %s",
        "A caller broadcasts a name that neither the handlers nor the base handlers "
        "answer. A waiting caller blocks forever; an unwaited one is silently skipped.",
        "INFERENCE",
    ),
    MessageSpec(
        "W7706",
        "rpc-name-uninferable",
        "'%s' does not infer to one str, so the RPC that %s broadcasts with %s() can't be checked",
        "A caller's dispatch call whose RPC name is not one inferable str. The "
        "checker refuses to guess.",
        "INFERENCE_FAILURE",
    ),
    MessageSpec(
        "W7707",
        "rpc-wait-uninferable",
        "'%s' is broadcast by %s with %s, which does not infer to a constant, so "
        "whether the caller waits can't be checked",
        "The wait keyword of a caller's dispatch call is not an inferable constant.",
        "INFERENCE_FAILURE",
    ),
    MessageSpec(
        "E7708",
        "rpc-registry-invalid",
        "'%s' %s",
        "The registry is missing, cannot be evaluated statically, or has a non-str or "
        "duplicate element.",
        "INFERENCE",
    ),
    MessageSpec(
        "E7709",
        "rpcsurface-config-error",
        "%s",
        "The [tool.rpcsurface] configuration is invalid or names a class or module "
        "that does not resolve under the source roots. The text names the TOML file, "
        "the key and what was expected.",
        "HIGH",
    ),
)

BY_SYMBOL: Mapping[str, MessageSpec] = MappingProxyType({spec.symbol: spec for spec in MESSAGES})


def render(symbol: str, args: tuple[str, ...]) -> str:
    """The message text pylint will print for *symbol* with *args*."""
    return BY_SYMBOL[symbol].template % args

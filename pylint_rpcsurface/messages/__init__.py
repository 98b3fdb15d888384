"""The messages: one table, the single source of truth for ids, symbols and texts.

The checker builds pylint's ``msgs`` dict from it, and the docs and tests read it too.
Every text starts with the RPC's name (or the registry's) in single quotes, and ends with
a pointer to the message's page (``MessageSpec.text``): the command that prints it, which
works in any project the package is installed for, where a path into this repository's
docs would name a file the user does not have.
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
    description: str  # what it does: pylint's --help-msg text and the docs' first section
    rationale: str  # why is this bad: the docs' second section
    confidence: str  # the pylint confidence level the checker passes
    default_enabled: bool = True  # False: opt-in, enabled by name or with --enable=rpcsurface
    # Keys of the configuration reference (docs/configuration.md) that decide whether
    # and where this message is given: the docs page's "Configuration" section.
    settings: tuple[str, ...] = ()

    @property
    def pointer(self) -> str:
        """The command that prints this message's page."""
        return f"rpcsurface explain {self.symbol}"

    @property
    def text(self) -> str:
        """The template pylint gets: the message's own text, then the pointer to its page."""
        return f"{self.template} ({self.pointer})"


MESSAGES: tuple[MessageSpec, ...] = (
    MessageSpec(
        "W7701",
        "rpc-unlisted",
        "'%s' is waited on by %s and answered only by %s, but %s does not list it",
        "A caller waits on an RPC that the handlers answer and the base handlers do "
        "not, and the registry lacks it.",
        "The registry is how the engine knows which RPCs only the specialised runner "
        "answers, for example to refuse a configuration whose runner can't answer its "
        "engine cores. A waited RPC missing from it escapes that check: the engine starts "
        "with a runner that skips the call, and the caller blocks forever.",
        "INFERENCE",
        settings=(
            "dispatch.method",
            "dispatch.waits",
            "surface.callers",
            "surface.handlers",
            "surface.base-handlers",
            "surface.registry",
        ),
    ),
    MessageSpec(
        "W7702",
        "rpc-listed-unwaited",
        "'%s' is listed in %s, but no caller waits on it: %s",
        "The registry lists a name that no caller waits on: it is broadcast only "
        "without waiting, or never broadcast.",
        "A registry entry that no caller waits on pins nothing: the check it feeds "
        "refuses configurations for an RPC nobody needs, and the list no longer says "
        "what the engine really depends on.",
        "INFERENCE",
        settings=(
            "dispatch.method",
            "dispatch.waits",
            "surface.callers",
            "surface.registry",
        ),
    ),
    MessageSpec(
        "E7703",
        "rpc-listed-unanswered",
        "'%s' is listed in %s, but no handler answers it (%s)",
        "The registry lists a name that no handler answers.",
        "No handler defines the name, so a caller that sends it is skipped by every "
        "worker. Usually a typo or a handler method that was renamed or removed.",
        "INFERENCE",
        settings=("surface.handlers", "surface.registry"),
    ),
    MessageSpec(
        "W7704",
        "rpc-listed-in-base",
        "'%s' is listed in %s, but the base handler %s answers it already",
        "The registry lists a name that a base handler answers, so every runner "
        "answers it and it does not belong in the registry.",
        "The registry lists what only the specialised handlers answer. A name the base "
        "handler answers is answered by every runner, so listing it makes the check that "
        "reads the registry refuse configurations that work.",
        "INFERENCE",
        settings=("surface.base-handlers", "surface.registry"),
    ),
    MessageSpec(
        "E7705",
        "rpc-unanswered",
        "'%s' is broadcast by %s, but no handler answers it (%s): %s",
        "A caller broadcasts a name that neither the handlers nor the base handlers "
        "answer. A waiting caller blocks forever; an unwaited one is silently skipped.",
        "The worker looks the name up with getattr(runner, name, None) and skips it when "
        "it is missing. A caller that waits for the reply then blocks forever; one that "
        "does not wait loses the call without a trace.",
        "INFERENCE",
        settings=(
            "dispatch.method",
            "surface.callers",
            "surface.handlers",
            "surface.base-handlers",
        ),
    ),
    MessageSpec(
        "W7706",
        "rpc-name-uninferable",
        "'%s' does not infer to one str, so the RPC that %s broadcasts with %s() can't be checked",
        "A caller's dispatch call whose RPC name is not one inferable str. The "
        "checker refuses to guess.",
        "Only a name known before the code runs can be checked against the handlers. An "
        "f-string, a parameter or a name chosen at run time hides the RPC: the checker "
        "says so instead of guessing, so a silent result always means a checked one.",
        "INFERENCE_FAILURE",
        settings=(
            "dispatch.method",
            "dispatch.name-arg",
            "dispatch.name-keyword",
            "surface.callers",
        ),
    ),
    MessageSpec(
        "W7707",
        "rpc-wait-uninferable",
        "'%s' is broadcast by %s with %s, which does not infer to a constant, so "
        "whether the caller waits can't be checked",
        "The wait keyword of a caller's dispatch call is not an inferable constant.",
        "Whether the caller waits decides which rules apply: a waited RPC must be "
        "answered and, if only the specialised handlers answer it, listed. An unknown "
        "flag leaves both open, so the checker says so instead of guessing.",
        "INFERENCE_FAILURE",
        settings=("dispatch.waits", "surface.callers"),
    ),
    MessageSpec(
        "E7708",
        "rpc-registry-invalid",
        "'%s' %s",
        "The registry is missing, cannot be evaluated statically, or has a non-str or "
        "duplicate element.",
        "A registry that can't be read statically can't be checked, and one with a "
        "duplicate or a non-str element is wrong whatever the code does.",
        "INFERENCE",
        settings=("source-roots", "surface.registry"),
    ),
    MessageSpec(
        "E7709",
        "rpcsurface-config-error",
        "%s",
        "The [tool.rpcsurface] configuration is invalid or names a class or module "
        "that does not resolve under the source roots. The text names the TOML file, "
        "the key and what was expected.",
        "A surface defined by a name that does not resolve would be checked against "
        "nothing, and every result would be silently wrong. The checker refuses instead.",
        "HIGH",
        settings=("source-roots", "dispatch", "surface"),
    ),
    MessageSpec(
        "E7710",
        "rpc-waited-none-reply",
        "'%s' is waited on by %s, but its handler %s never returns anything but None, "
        "and None replies are dropped: the caller blocks forever",
        "With drops-none, a caller waits on an RPC whose handler can never return "
        "anything but None: every return is bare, returns None or a value that infers to "
        "None, or the body falls off its end. A handler that raises on its other paths is "
        "not reported.",
        "A worker that forwards a reply only if it is not None never answers this call, "
        "and the caller, waiting on the reply queue without a timeout, blocks forever. "
        "Every registry check stays green: the name is answered, it just never replies.",
        "INFERENCE",
        settings=(
            "dispatch.drops-none",
            "dispatch.waits",
            "surface.handlers",
            "surface.base-handlers",
        ),
    ),
    MessageSpec(
        "W7711",
        "rpc-waited-maybe-none",
        "'%s' is waited on by %s, but its handler %s may return None (at %s), and None "
        "replies are dropped: on that path the caller blocks forever",
        "Opt-in (off by default). With drops-none, a caller waits on an RPC whose handler "
        "returns a value on some paths and None on others. It is off by default because "
        "many handlers return None on purpose on ranks whose replies are dropped anyway "
        "(for example `if self.rank != 0: return None`). Enable it with "
        "--enable=rpc-waited-maybe-none.",
        "On the path that returns None the worker sends no reply and the waiting caller "
        "blocks forever. When that path runs only on ranks whose replies nobody reads, it "
        "is harmless, which is why the message is opt-in.",
        "INFERENCE",
        settings=(
            "dispatch.drops-none",
            "dispatch.waits",
            "surface.handlers",
            "surface.base-handlers",
        ),
        default_enabled=False,
    ),
    MessageSpec(
        "W7712",
        "rpc-unwaited-reply",
        "'%s' is sent without waiting by %s, but its handler %s returns a value (at %s), "
        "and replies share one queue: the stale reply answers the next waited call",
        "With shared-reply-queue, a caller sends an RPC without waiting for it, and its "
        "handler returns something other than None. A known benign shape is an `exit` "
        "sent last, after which nothing waits: silence one site with "
        "`# pylint: disable=rpc-unwaited-reply` on the line of its name argument.",
        "Replies share one FIFO queue without a request id, and a non-None reply is always "
        "sent. Nobody reads this one, so the next caller that waits reads it as its own "
        "reply, and every later waited call gets the reply of the call before it.",
        "INFERENCE",
        settings=(
            "dispatch.shared-reply-queue",
            "dispatch.waits",
            "surface.handlers",
            "surface.base-handlers",
        ),
    ),
    MessageSpec(
        "E7713",
        "rpc-reply-arity",
        "'%s' reply is unpacked into %s values by %s, but its handler %s returns a tuple "
        "of %s at %s",
        "A caller unpacks the reply into N names, and every return of the handler is a "
        "tuple of another length M. A handler whose returns have different shapes is not "
        "judged.",
        "Unpacking raises ValueError in the caller every time the RPC is waited on: after "
        "the workers did the work, so a slow step is lost too.",
        "INFERENCE",
        settings=("dispatch.method", "surface.handlers", "surface.base-handlers", "helper-depth"),
    ),
    MessageSpec(
        "E7714",
        "rpc-handler-signature",
        "'%s' is sent by %s with %s, but its handler %s takes %s: %s",
        "The arguments a dispatch call forwards can't bind to the handler's signature "
        "(self left out): too many positional arguments, a missing required argument, or "
        "an unknown keyword. By default the positional arguments after the name are "
        "forwarded; with args-from and kwargs-from, the tuple and the dict in those "
        "keywords. A call with *args or **kwargs, or a decorated handler, is not judged.",
        "The worker calls the handler with the forwarded arguments and gets a TypeError: "
        "the worker loop dies or skips the call, and a waiting caller blocks forever.",
        "INFERENCE",
        settings=(
            "dispatch.args-from",
            "dispatch.kwargs-from",
            "dispatch.name-arg",
            "surface.handlers",
        ),
    ),
)

BY_SYMBOL: Mapping[str, MessageSpec] = MappingProxyType({spec.symbol: spec for spec in MESSAGES})


def render(symbol: str, args: tuple[str, ...]) -> str:
    """The message text pylint will print for *symbol* with *args*, with the pointer."""
    return BY_SYMBOL[symbol].text % args

"""The model of an RPC surface: plain, immutable facts and the findings derived from them.

Nothing here knows about astroid or pylint. The derivation (``derive.py``) is a pure
function from these facts to findings, which keeps it easy to test and (later) to cache.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Location:
    """A span in a source file, in pylint's convention.

    ``path`` is the file's real path. Lines are 1-based; columns are 0-based UTF-8 byte
    offsets, as astroid and pylint report them.
    """

    path: str
    line: int
    col: int
    end_line: int | None
    end_col: int | None


@dataclass(frozen=True)
class Broadcast:
    """One dispatch call site: ``<expr>.call_func(<name>, ..., wait_out=<flag>)``.

    ``rpc`` is ``None`` when the name does not infer to one str; ``waited`` is ``None``
    when the wait flag does not infer to a constant. Neither is ever guessed.
    """

    call: Location
    name_at: Location  # the name argument, or the call when there is none
    method: str
    rpc: str | None
    name_source: str
    waited: bool | None
    wait_at: Location | None  # the wait keyword's value, when that is what is unknown
    wait_source: str | None

    @property
    def wait_state(self) -> str:
        if self.waited is None:
            return "unknown"
        return "waited" if self.waited else "unwaited"


@dataclass(frozen=True)
class CallerBroadcast:
    """A broadcast and every caller class whose own code runs it."""

    broadcast: Broadcast
    callers: tuple[str, ...]  # fully qualified names, sorted


@dataclass(frozen=True)
class Answers:
    """The names a set of handler classes answer.

    ``complete`` is False when some ancestor of a handler could not be resolved: its
    names are then unknown, and no finding may claim that a name is unanswered.
    """

    classes: tuple[str, ...]
    names: frozenset[str]
    complete: bool


@dataclass(frozen=True)
class RegistryElement:
    value: str | None  # None when the element is not a str
    source: str
    location: Location


@dataclass(frozen=True)
class Registry:
    """A registry constant and its elements, or the reason it can't be read."""

    qualname: str
    location: Location  # the assignment's target, or the registry module
    elements: tuple[RegistryElement, ...]
    problem: str | None = None


@dataclass(frozen=True)
class SurfaceFacts:
    """Everything the derivation needs to judge one configured surface."""

    name: str
    callers: tuple[str, ...]  # configured callers and every subclass found, sorted
    callers_complete: bool
    broadcasts: tuple[CallerBroadcast, ...]
    handlers: Answers
    base_handlers: Answers
    registry: Registry | None
    root: str  # the project folder, for relative paths in message texts


@dataclass(frozen=True, order=True)
class Finding:
    """A message to report: sorted by location, then symbol, for deterministic output."""

    location: Location
    symbol: str
    args: tuple[str, ...]
    confidence: str  # the name of a pylint confidence level, e.g. "INFERENCE"

"""Which RPC name a place in the source is, and where that name is sent and answered.

Pure questions of the facts one analysis computed (``engine.Facts``), for the language
server's go to definition, find references and hover: no astroid here. A name belongs to
one surface or proxy table (its *table*): the same string sent on two surfaces is two
names, each answered by its own handlers.

Places are in :class:`Location`'s convention (1-based lines, 0-based UTF-8 byte columns).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pylint_rpcsurface.model import HandlerMethod, Location
from pylint_rpcsurface.sources import path_keys

if TYPE_CHECKING:
    from pylint_rpcsurface.engine import Facts

__all__ = ["RpcName", "handler_definitions", "names_at", "send_sites"]

SENT = "sent"
HANDLER = "handler"
OTHER = "other"  # a table entry's value, a registry element


@dataclass(frozen=True, order=True)
class RpcName:
    """One RPC name of one configured surface or proxy table."""

    table: str  # the surface's or proxy table's name, as configured
    rpc: str


@dataclass(frozen=True)
class _Mention:
    name: RpcName
    at: Location
    kind: str  # SENT (a send site), HANDLER (a handler method's def) or OTHER
    # The identifier the place is asked about by, when the place holds more than the name:
    # a proxy call spans its receiver and arguments, and only its attribute is the name.
    word: str | None = None


def _mentions(facts: Facts) -> Iterator[_Mention]:
    """Every place the facts tie to an RPC name: the name sent at each send site, each
    handler method's ``def``, each table entry's value and each registry element."""
    for surface in facts.surfaces:
        for site in surface.broadcasts:
            rpc = site.broadcast.rpc
            if rpc is not None:
                yield _Mention(RpcName(surface.name, rpc), site.broadcast.name_at, SENT)
        yield from _handler_mentions(surface.name, surface.handler_methods)
        for table in surface.tables:
            for entry in table.entries:
                yield _Mention(RpcName(surface.name, entry.key), entry.at, OTHER)
        if surface.registry is not None:
            for element in surface.registry.elements:
                if element.value is not None:
                    name = RpcName(surface.name, element.value)
                    yield _Mention(name, element.location, OTHER)
    for proxy in facts.proxies:
        for call in proxy.calls:
            if call.rpc is not None:
                yield _Mention(RpcName(proxy.name, call.rpc), call.at, SENT, call.source)
        yield from _handler_mentions(proxy.name, proxy.methods)


def _handler_mentions(table: str, methods: tuple[HandlerMethod, ...]) -> Iterator[_Mention]:
    for method in methods:
        yield _Mention(RpcName(table, method.rpc), method.at, HANDLER)


def _contains(at: Location, paths: frozenset[str], line: int, col: int) -> bool:
    if at.path not in paths:
        return False
    end_line = at.line if at.end_line is None else at.end_line
    end_col = at.col if at.end_col is None else at.end_col
    return (at.line, at.col) <= (line, col) <= (end_line, end_col)


def _span(at: Location) -> tuple[int, int]:
    """How far a place reaches, to prefer the innermost of places that nest (a name sent
    inside a proxy call's arguments)."""
    return ((at.end_line or at.line) - at.line, (at.end_col or at.col) - at.col)


def names_at(facts: Facts, path: str, line: int, col: int, word: str | None) -> tuple[RpcName, ...]:
    """The RPC names written at (*line*, *col*) of *path*, where the identifier *word* is
    (None: none is): those of the innermost place there, one per surface that knows it (a
    caller that sends on two surfaces), sorted. Empty where no name is."""
    paths = frozenset(path_keys(path))
    here = [
        m for m in _mentions(facts) if _contains(m.at, paths, line, col) and m.word in (None, word)
    ]
    if not here:
        return ()
    innermost = min(_span(m.at) for m in here)
    return tuple(sorted({m.name for m in here if _span(m.at) == innermost}))


def send_sites(facts: Facts, names: tuple[RpcName, ...]) -> tuple[Location, ...]:
    """Every place that sends one of *names*, sorted."""
    return _places(facts, names, SENT)


def handler_definitions(facts: Facts, names: tuple[RpcName, ...]) -> tuple[Location, ...]:
    """The ``def`` of every handler method that answers one of *names*, sorted."""
    return _places(facts, names, HANDLER)


def _places(facts: Facts, names: tuple[RpcName, ...], kind: str) -> tuple[Location, ...]:
    wanted = set(names)
    return tuple(sorted({m.at for m in _mentions(facts) if m.kind == kind and m.name in wanted}))

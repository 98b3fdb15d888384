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

__all__ = [
    "Mention",
    "RpcName",
    "answered_names",
    "handler_definitions",
    "mentions_of",
    "names_at",
    "send_sites",
    "unnamed_sends",
]

SENT = "sent"
HANDLER = "handler"
TABLE = "table"  # a table entry's value
REGISTRY = "registry"  # a registry element


@dataclass(frozen=True, order=True)
class RpcName:
    """One RPC name of one configured surface or proxy table."""

    table: str  # the surface's or proxy table's name, as configured
    rpc: str


@dataclass(frozen=True)
class Mention:
    """A place that holds an RPC name, and what kind of place it is."""

    name: RpcName
    at: Location
    kind: str  # SENT (a send site), HANDLER (a handler method's def), TABLE or REGISTRY
    # The identifier the place is asked about by, when the place holds more than the name:
    # a proxy call spans its receiver and arguments, and only its attribute is the name.
    word: str | None = None


def _mentions(facts: Facts) -> Iterator[Mention]:
    """Every place the facts tie to an RPC name: the name sent at each send site, each
    handler method's ``def``, each table entry's value and each registry element."""
    for surface in facts.surfaces:
        for site in surface.broadcasts:
            rpc = site.broadcast.rpc
            if rpc is not None:
                yield Mention(RpcName(surface.name, rpc), site.broadcast.name_at, SENT)
        yield from _handler_mentions(surface.name, surface.handler_methods)
        for table in surface.tables:
            for entry in table.entries:
                yield Mention(RpcName(surface.name, entry.key), entry.at, TABLE)
        if surface.registry is not None:
            for element in surface.registry.elements:
                if element.value is not None:
                    name = RpcName(surface.name, element.value)
                    yield Mention(name, element.location, REGISTRY)
    for proxy in facts.proxies:
        for call in proxy.calls:
            if call.rpc is not None:
                yield Mention(RpcName(proxy.name, call.rpc), call.at, SENT, call.source)
        yield from _handler_mentions(proxy.name, proxy.methods)


def _handler_mentions(table: str, methods: tuple[HandlerMethod, ...]) -> Iterator[Mention]:
    for method in methods:
        yield Mention(RpcName(table, method.rpc), method.at, HANDLER)


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


def mentions_of(facts: Facts, names: tuple[RpcName, ...]) -> tuple[Mention, ...]:
    """Every place that holds one of *names*, or a name held at one of those places (a send
    site on two surfaces holds both surfaces' names: changing it changes both), sorted by
    place."""
    every = tuple(_mentions(facts))
    wanted = set(names)
    while True:
        places = {m.at for m in every if m.name in wanted}
        grown = wanted | {m.name for m in every if m.at in places}
        if grown == wanted:
            break
        wanted = grown
    return tuple(sorted((m for m in every if m.name in wanted), key=lambda m: (m.at, m.kind)))


def answered_names(facts: Facts, table: str) -> tuple[str, ...]:
    """The names a handler method of *table* answers, sorted."""
    return tuple(
        sorted({m.name.rpc for m in _mentions(facts) if (m.kind, m.name.table) == (HANDLER, table)})
    )


def unnamed_sends(facts: Facts, tables: frozenset[str]) -> tuple[Location, ...]:
    """The places of *tables* whose name the analysis can't read: a send site whose name
    does not infer to one str, a registry element that is not a str, sorted."""
    places: set[Location] = set()
    for surface in facts.surfaces:
        if surface.name not in tables:
            continue
        places.update(s.broadcast.name_at for s in surface.broadcasts if s.broadcast.rpc is None)
        if surface.registry is not None:
            places.update(e.location for e in surface.registry.elements if e.value is None)
    for proxy in facts.proxies:
        if proxy.name in tables:
            places.update(call.at for call in proxy.calls if call.rpc is None)
    return tuple(sorted(places))


def _places(facts: Facts, names: tuple[RpcName, ...], kind: str) -> tuple[Location, ...]:
    wanted = set(names)
    return tuple(sorted({m.at for m in _mentions(facts) if m.kind == kind and m.name in wanted}))

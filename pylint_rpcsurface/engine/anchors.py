"""Positions in a piece's value, kept with the function they were read from.

A piece that read a function alone (its "def Q" level, see :mod:`.digests`) depends on
the function's text, not on where it starts: lines inserted above it leave the piece as
it was. The positions its value holds are the same places in that text, so each is
stored with an anchor, where the function started when the piece was computed (an
``at Q`` dependency, which is no digest), and moved with the function when the piece is
reused. A position outside every function the piece read alone makes the piece depend
on its module's whole body instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any, Literal

from pylint_rpcsurface.engine.memo import Dependency
from pylint_rpcsurface.model import Location

__all__ = ["ANCHOR", "anchor_of", "positions", "read_spans", "reanchored"]

# The level of an anchor: "at Q", with "index start end" where the digest would be.
ANCHOR = "at "

# A module's function spans by name (ModuleDigests' second half).
Spans = Mapping[str, tuple[tuple[int, int], ...]]
# The spans of the functions a piece read alone: (start, end, name, which definition).
ReadSpan = tuple[int, int, str, int]


def read_spans(levels: set[str], spans: Spans) -> list[ReadSpan] | None:
    """The spans of the functions whose "def Q" is among *levels* (what a piece read of
    one module), innermost first; None when it read the module's whole body."""
    if "body" in levels:
        return None
    found = [
        (start, end, level[4:], index)
        for level in levels
        if level.startswith("def ")
        for index, (start, end) in enumerate(spans.get(level[4:], ()))
    ]
    return sorted(found, key=lambda span: span[1] - span[0])


def anchor_of(
    spans: list[ReadSpan] | None, path: str, line: int
) -> Dependency | Literal[""] | None:
    """How a position at *line* of *path* is kept, given :func:`read_spans`: "" when the
    piece read the module's whole body (the position holds while the body does); the
    anchor of the innermost function read alone that spans it; None when neither, so
    that the piece must depend on the whole body."""
    if spans is None:
        return ""
    for start, end, name, index in spans:
        if start <= line <= end:
            return (path, f"{ANCHOR}{name}", f"{index} {start} {end}")
    return None


def reanchored(value: Any, anchors: Sequence[Dependency], spans_of: Callable[[str], Spans]) -> Any:
    """*value* with each position an anchor holds moved by as many lines as the anchor's
    function has moved since (*spans_of* gives a module's spans now)."""
    moves: dict[str, list[tuple[int, int, int]]] = {}
    for path, level, where in anchors:
        index, start, end = (int(part) for part in where.split())
        spans = spans_of(path).get(level[len(ANCHOR) :], ())
        if index >= len(spans):
            raise LookupError(f"{level} of {path} is gone: the module changed")
        shift = spans[index][0] - start
        if shift:
            moves.setdefault(path, []).append((start, end, shift))
    if not moves:
        return value
    for found in moves.values():
        found.sort(key=lambda move: move[1] - move[0])  # the innermost first

    def moved(location: Location) -> Location:
        for start, end, shift in moves.get(location.path, ()):
            if start <= location.line <= end:
                end_line = location.end_line
                return replace(
                    location,
                    line=location.line + shift,
                    end_line=None if end_line is None else end_line + shift,
                )
        return location

    return _map_locations(value, moved)


def _map_locations(value: Any, moved: Callable[[Location], Location]) -> Any:
    """*value* with every Location it holds, at any depth, replaced by *moved*'s."""
    if isinstance(value, Location):
        return moved(value)
    if isinstance(value, tuple):
        return tuple(_map_locations(item, moved) for item in value)
    if isinstance(value, list):
        return [_map_locations(item, moved) for item in value]
    if isinstance(value, frozenset):
        return frozenset(_map_locations(item, moved) for item in value)
    if isinstance(value, dict):
        return {_map_locations(k, moved): _map_locations(v, moved) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _map_locations(getattr(value, f.name), moved) for f in fields(value)}
        return replace(value, **changes)
    return value


def positions(value: Any) -> Iterator[tuple[str, int]]:
    """The (path, line) of every Location *value* holds, at any depth."""
    if isinstance(value, Location):
        yield (value.path, value.line)
    elif isinstance(value, (tuple, list, frozenset)):
        for item in value:
            yield from positions(item)
    elif isinstance(value, dict):
        for item in value.items():
            yield from positions(item)
    elif is_dataclass(value) and not isinstance(value, type):
        for field in fields(value):
            yield from positions(getattr(value, field.name))

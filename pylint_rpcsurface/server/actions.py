"""The edits a diagnostic's code actions offer, as text: no protocol here.

The registry's is ``rpcsurface fix``'s rewrite of the registries in that file; a
mistyped name's are the closest names the surface answers; every finding's is pylint's
pragma on its line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from pylint_rpcsurface.commands.fix.edit import Refused, rewrite
from pylint_rpcsurface.commands.fix.plan import plan
from pylint_rpcsurface.model import Finding, SurfaceFacts

__all__ = ["REGISTRY_SYMBOLS", "LineSpan", "closest", "disable_pragma", "registry_rewrite"]

REGISTRY_SYMBOLS = frozenset({"rpc-unlisted", "rpc-listed-unwaited"})
_MOST_SUGGESTED = 3
_PRAGMA = re.compile(r"#\s*pylint:\s*disable=(?P<symbols>[\w\-, ]+)$")


@dataclass(frozen=True)
class LineSpan:
    """Lines *first* to *last* (0-based, *last* excluded) to read *text*."""

    first: int
    last: int
    text: str


def closest(name: str, answered: Iterable[str]) -> list[str]:
    """The answered names closest to *name*, at most three, the closest first."""
    return difflib.get_close_matches(name, list(answered), n=_MOST_SUGGESTED)


def disable_pragma(line: str, symbol: str) -> tuple[int, str]:
    """Where on *line* (a character offset) to insert what, for pylint to silence *symbol*
    there: a pragma at the end, or the symbol added to one that ends the line."""
    body = line.rstrip("\r\n")
    pragma = _PRAGMA.search(body)
    if pragma is not None:
        return len(body.rstrip()), f",{symbol}"
    return len(body), f"  # pylint: disable={symbol}"


def registry_rewrite(
    finding: Finding,
    *,
    surfaces: tuple[SurfaceFacts, ...],
    findings: tuple[Finding, ...],
    silenced: Collection[Finding],
    text_of: Callable[[str], str],
    line_length: int,
) -> tuple[str, tuple[str, ...], LineSpan | str] | None:
    """What ``rpcsurface fix`` writes in the file of the registry *finding* is about: the
    file, the registries it rewrites there, and the lines that change, or why it can't
    (a str); None when fix changes nothing for it. *text_of* gives a file's current
    text."""
    targets, _ = plan(surfaces, findings, silenced)
    mine = [t for t in targets if set(t.surfaces) & set(finding.surfaces)]
    if not mine:
        return None
    path = mine[0].path
    in_file = [t for t in targets if t.path == path]
    names = tuple(t.qualname for t in in_file)
    before = text_of(path)
    after = before
    refusals = []
    for target in in_file:  # each refused one left as it is, as fix leaves it
        try:
            after = rewrite(after, target.attribute, target.qualname, target.wanted, line_length)
        except Refused as refused:
            refusals.append(f"{target.qualname} (line {refused.line}): {refused.why}")
    if after == before:
        return (path, names, "; ".join(refusals)) if refusals else None
    return path, names, _changed_lines(before, after)


def _changed_lines(before: str, after: str) -> LineSpan:
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    first = 0
    while first < min(len(old), len(new)) and old[first] == new[first]:
        first += 1
    tail = 0
    while tail < min(len(old), len(new)) - first and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return LineSpan(first, len(old) - tail, "".join(new[first : len(new) - tail]))

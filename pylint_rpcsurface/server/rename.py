"""What renaming an RPC name changes, or why it can't be done safely.

Every place the analysis ties to the name (``engine.lookup``) must be written as a literal
the rename can edit: a send site's string, a handler method's ``def``, a table entry's
string key, a registry's string element. Anything else (a name held by a variable or a
constant, an f-string, an enum member or a class, a proxy's attribute, a name the
analysis can't read) is a refusal that names the place, never a partial edit.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pylint_rpcsurface.engine import Facts
from pylint_rpcsurface.engine.lookup import (
    HANDLER,
    REGISTRY,
    TABLE,
    Mention,
    RpcName,
    mentions_of,
    unnamed_sends,
)
from pylint_rpcsurface.model import Location

__all__ = ["Refused", "Replacement", "renaming", "valid_name"]

# A string literal the rename can edit: no prefix (an f-string, bytes), one kind of quote.
_LITERAL = re.compile(r"""(?P<quote>["'])(?P<text>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)""")
_DEF = re.compile(r"(?:async\s+)?def\s+(?P<text>[A-Za-z_][A-Za-z0-9_]*)")
# A table entry's string key before its value on the value's line: ``"name": <value>``.
_KEY_BEFORE = re.compile(r"""(?P<quote>["'])(?P<text>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)\s*:\s*$""")


class Refused(Exception):
    """The rename can't be made safely; the message says where and why."""


@dataclass(frozen=True)
class Replacement:
    """*at* (on one line) is to read *text*."""

    at: Location
    text: str


def valid_name(name: str) -> bool:
    """Whether *name* can name a handler method: a Python identifier, not a keyword."""
    return name.isidentifier() and not keyword.iskeyword(name)


def renaming(
    facts: Facts,
    names: tuple[RpcName, ...],
    new: str | None,
    lines_of: Callable[[str], Sequence[str]],
) -> tuple[Replacement, ...]:
    """Every edit that renames *names* (and the names sharing a place with them) to *new*,
    reading each file's current text with *lines_of*; raises :class:`Refused`. With *new*
    None, whether every place can be edited: each edit keeps the old name."""
    if new is not None and not valid_name(new):
        raise Refused(f"{new!r} is not a Python identifier, which a handler method's name must be")
    mentions = mentions_of(facts, names)
    olds = sorted({m.name.rpc for m in mentions})
    if len(olds) != 1 or not valid_name(olds[0]):
        raise Refused(
            f"{', '.join(olds)} is not one str name (an enum member or a class sent through "
            "a table is renamed in Python, not here)"
        )
    old = olds[0]
    tables = frozenset(m.name.table for m in mentions)
    for at in unnamed_sends(facts, tables):
        raise Refused(f"{_place(at)}: a name built at run time, which may be {old!r}")
    if new is not None and mentions_of(facts, tuple(RpcName(t, new) for t in sorted(tables))):
        raise Refused(f"{new!r} is already an RPC name of {', '.join(sorted(tables))}")
    edits: dict[Location, str] = {}
    for mention in mentions:
        for at in _edited(mention, old, lines_of, mentions):
            edits[at] = old if new is None else new
    return tuple(Replacement(at, text) for at, text in sorted(edits.items()))


def _edited(
    mention: Mention,
    old: str,
    lines_of: Callable[[str], Sequence[str]],
    mentions: tuple[Mention, ...],
) -> tuple[Location, ...]:
    """The places at *mention* that hold *old* and are to change; raises :class:`Refused`."""
    at = mention.at
    if mention.word is not None:
        raise Refused(
            f"{_place(at)}: a proxy's attribute call ({mention.word}), which the rename "
            "does not edit"
        )
    line = _line(at, lines_of)
    if line is None or at.end_line not in (None, at.line):
        raise Refused(f"{_place(at)}: the name spans lines")
    held = line.encode("utf-8")[at.col : at.end_col].decode("utf-8", errors="replace")
    if mention.kind == HANDLER:
        return _in_def(mention, old, held, mentions)
    literal = _LITERAL.fullmatch(held)
    if mention.kind == TABLE:
        before = line.encode("utf-8")[: at.col].decode("utf-8", errors="replace")
        key = _KEY_BEFORE.search(before)
        if key is None or key["text"] != old:
            raise Refused(f"{_place(at)}: a table entry whose key is not the string {old!r}")
        keys = (_name_at(at, len(before[: key.start("text")].encode("utf-8")), old),)
        # A value naming the handler by the old name follows its def, which is renamed.
        same = literal is not None and literal["text"] == old
        return (*keys, _name_at(at, at.col + 1, old)) if same else keys
    if literal is None or literal["text"] != old:
        what = "registry element" if mention.kind == REGISTRY else "send site"
        raise Refused(f"{_place(at)}: the {what} holds {held!r}, {_why(held)}")
    return (_name_at(at, at.col + 1, old),)


def _in_def(
    mention: Mention, old: str, held: str, mentions: tuple[Mention, ...]
) -> tuple[Location, ...]:
    at = mention.at
    match = _DEF.fullmatch(held)
    if match is not None and match["text"] == old:
        return (_name_at(at, (at.end_col or at.col) - len(old.encode("utf-8")), old),)
    # A method named otherwise is reached through a table entry, whose key changes.
    if any(m.kind == TABLE and m.name == mention.name for m in mentions):
        return ()
    raise Refused(
        f"{_place(at)}: the handler is named {held!r}, not {old!r}, and no table entry names it"
    )


def _why(held: str) -> str:
    if re.match(r"""[A-Za-z]+["']""", held):
        return "an f-string or a prefixed string the rename does not edit"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", held):
        return "a variable or a constant defined elsewhere: rename its value there"
    return "not a string literal the rename can edit"


def _name_at(at: Location, col: int, name: str) -> Location:
    """*name* written from byte *col* of *at*'s line."""
    return Location(at.path, at.line, col, at.line, col + len(name.encode("utf-8")))


def _line(at: Location, lines_of: Callable[[str], Sequence[str]]) -> str | None:
    lines = lines_of(at.path)
    return lines[at.line - 1].rstrip("\r\n") if 0 < at.line <= len(lines) else None


def _place(at: Location) -> str:
    return f"{at.path}:{at.line}"

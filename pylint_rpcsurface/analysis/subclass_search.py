"""The subclass search: the configured callers and every subclass of them, anywhere under
the source roots, reading only the files that may define one.

A class can only name its base, directly or through an alias, if the base's name (or the
alias) appears in its file's text, so a word search over the text picks the few files
worth reading (:func:`..subclasses.words_held`). Each subclass or alias found adds its
name to the search, until nothing new turns up. The search itself reads no module: it is
given what each file holds (its words, the callers it defines) by the queries that keep
those between runs (``engine.queries``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pylint_rpcsurface.analysis.subclasses import CallerClassFacts, ModuleCallers
from pylint_rpcsurface.model import Location, UnknownCallers

__all__ = ["CallerFamily", "Searched", "caller_family"]

# What the word search knows of one file: the words asked of it, those it holds, and
# why it can't be decoded (or None).
Searched = tuple[frozenset[str], frozenset[str], str | None]

_R = TypeVar("_R", bound=Hashable)


@dataclass(frozen=True)
class CallerFamily(Generic[_R]):
    """The callers found, each with where it is defined and the configured callers it
    descends from, and what may hold more (each with where and why)."""

    classes: dict[str, tuple[_R, frozenset[str]]]
    unknown: tuple[UnknownCallers, ...]


def caller_family(
    configured: Mapping[str, tuple[_R, frozenset[str]]],
    files: Sequence[str],
    *,
    unreadable: Callable[[str], str | None],
    searched: Callable[[str, set[str]], Searched],
    module_callers: Callable[[str], ModuleCallers],
    ref_of: Callable[[str, CallerClassFacts], _R],
) -> CallerFamily[_R]:
    """The *configured* callers (by fully qualified name: where each is, and the
    configured callers it is, itself included, or descends from) and all their subclasses.

    *files* are the project's; *unreadable* says why one can't be read, *searched* what
    it holds of a set of words, *module_callers* the callers it defines (its subclasses
    of configured callers, and its aliases); *ref_of* where one of them is defined.
    """
    # A configured caller is also a member of every surface that configures one of its
    # bases: naming it in one surface must not take it out of another.
    found: dict[str, tuple[_R, frozenset[str]]] = dict(configured)
    words = {name.rsplit(".", 1)[-1] for name in configured}
    parsed: set[str] = set()
    unknown: list[UnknownCallers] = []
    # A file that is not read (a FIFO, one over the size cap), or whose text can't be
    # decoded (so the search can't see its words), may name a caller too.
    unread = {p: r for p in files if (r := unreadable(p)) is not None}
    undecodable = {p for p in files if p not in unread and searched(p, words)[2]}
    done: set[str] = set()
    aliases: list[tuple[str, str]] = []  # (alias, name) of every module read so far
    while words - done:
        # A file that didn't mention the words of earlier rounds can only match a new one.
        new = words - done
        done.update(new)
        batch = [
            p
            for p in files
            if p not in parsed and (p in unread or p in undecodable or searched(p, new)[1] & new)
        ]
        for path in batch:
            parsed.add(path)
            if path in unread:
                where = Location(path, 1, 0, None, None)
                unknown.append(UnknownCallers("unread", where, unread[path]))
                continue
            module = module_callers(path)
            if not module.parsed:
                # It names a caller but can't be parsed (pylint reports the syntax error
                # when it lints it) or decoded: a subclass in it is unknown, not absent.
                line, reason = module.failure or (None, "can't be built")
                where = Location(path, line or 1, 0, None, None)
                unknown.append(UnknownCallers("unparsed", where, reason))
                continue
            for open_class in module.open_classes:
                unknown.append(UnknownCallers("open-class", open_class.location, open_class.reason))
            for cls in module.classes:
                ref = ref_of(path, cls)
                name = cls.qualname
                if name in found and found[name][0] != ref:
                    # Another definition that can run (if/else, try/except): judged too,
                    # under a name that says which one it is.
                    name = f"{name} (line {cls.line})"
                if name in found:
                    continue
                if cls.descends_from:
                    found[name] = (ref, cls.descends_from)
                    words.add(cls.name)
            aliases.extend(module.aliases)
        _add_aliases(words, aliases)
    return CallerFamily(found, tuple(sorted(unknown, key=lambda u: u.location)))


def _add_aliases(words: set[str], aliases: Sequence[tuple[str, str]]) -> None:
    """Add to *words* every alias of one of them, then every alias of those, until
    nothing new turns up: ``A = Core; B = A`` in one module, a chain across modules
    (``from x import A as B``), an alias of a subclass found later in the search (its
    module may have been read before the subclass's). Each round adds at least one of
    the finitely many alias names or stops, so a cycle (``A = B; B = A``) ends too."""
    while new := {alias for alias, aliased in aliases if aliased in words} - words:
        words.update(new)

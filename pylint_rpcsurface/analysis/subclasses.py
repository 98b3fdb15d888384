"""Finding every subclass of the configured callers anywhere under the source roots.

Parsing every file to look for subclasses would cost as much as running pylint on the
whole tree. A class can only name its base, directly or through an alias, if the base's
name (or the alias) appears in the file's text, so a word search over the raw text picks
the few files worth parsing. Each subclass or alias found adds its name to the search,
until nothing new turns up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from astroid import nodes

from pylint_rpcsurface.analysis.branches import can_run
from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.modules import BuildFailure


@dataclass(frozen=True)
class CallerClass:
    cls: nodes.ClassDef
    configured: frozenset[str]  # the configured callers it is or descends from


@dataclass(frozen=True)
class CallerFamily:
    """The callers found, and what may hold more: the files that could not be built
    (each with why), and the classes whose starred bases do not infer."""

    classes: dict[str, CallerClass]
    unparsed: tuple[BuildFailure, ...]
    open_classes: tuple[nodes.ClassDef, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether every caller is known: nothing may hold one that was not found."""
        return not self.unparsed and not self.open_classes


def find_caller_classes(
    index: ClassIndex, configured: Mapping[str, nodes.ClassDef]
) -> CallerFamily:
    """The configured callers and all their subclasses, by fully qualified name."""
    store = index.store
    # A configured caller is also a member of every surface that configures one of its
    # bases: naming it in one surface must not take it out of another.
    found = {
        name: CallerClass(cls, frozenset({name}) | _configured_ancestors(cls, index, configured))
        for name, cls in configured.items()
    }
    words = {name.rsplit(".", 1)[-1] for name in configured}
    parsed: set[str] = set()
    unparsed: list[BuildFailure] = []
    open_classes: list[nodes.ClassDef] = []
    files = store.python_files()
    searched: set[str] = set()
    while words - searched:
        # A file that didn't mention the words of earlier rounds can only match a new one.
        new = words - searched
        searched.update(new)
        # A file that is not read (a FIFO, one over the size cap), or whose text can't
        # be decoded (so the search can't see its words), may name a caller too.
        batch = [
            p
            for p in files
            if p not in parsed
            and (
                store.unreadable(p) is not None
                or _mentions(store.text(p), new)
                or store.undecodable(p) is not None
            )
        ]
        for path in batch:
            parsed.add(path)
            module = store.module(path)
            if module is None:
                # It names a caller but can't be parsed (pylint reports the syntax error
                # when it lints it), decoded, or read at all: a subclass in it would be
                # unknown, not absent.
                failure = store.failure(path)
                unparsed.append(failure or BuildFailure(path, None, "can't be built"))
                continue
            for cls in module.nodes_of_class(nodes.ClassDef):
                if not can_run(cls):
                    continue  # a TYPE_CHECKING stub, a dead branch, a replaced definition
                name = index.qualname(cls)
                if name in found and found[name].cls is not cls:
                    # Another definition that can run (if/else, try/except): judged too,
                    # under a name that says which one it is.
                    name = f"{name} (line {cls.lineno})"
                if name in found:
                    continue
                descends_from = _configured_ancestors(cls, index, configured.keys())
                if descends_from:
                    found[name] = CallerClass(cls, descends_from)
                    words.add(cls.name)
                elif index.may_derive_from_anything(cls):
                    # class C(*BASES) with BASES unknown: C may be a caller, or not.
                    open_classes.append(cls)
            words.update(_aliases(module, words))
    return CallerFamily(found, tuple(unparsed), tuple(open_classes))


def _mentions(text: str, words: set[str]) -> bool:
    """Whether *text* holds one of *words* as a whole word.

    A plain substring test first: it is many times faster than the regular expression,
    and most files mention none of the words at all.
    """
    if not any(word in text for word in words):
        return False
    return _word_pattern(words).search(text) is not None


def _word_pattern(words: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(word) for word in sorted(words))
    return re.compile(rf"\b(?:{alternatives})\b")


def _configured_ancestors(
    cls: nodes.ClassDef, index: ClassIndex, configured: Iterable[str]
) -> frozenset[str]:
    order, _ = index.linearize(cls)
    ancestors = {index.qualname(a) for a in order[1:]}
    return frozenset(ancestors.intersection(configured))


def _aliases(module: nodes.Module, words: set[str]) -> set[str]:
    """Names this module binds to one of *words*: ``import X as Y``, ``Y = X``, and
    ``BASES = (X, ...)``, which ``class C(*BASES)`` derives from."""
    aliases: set[str] = set()
    for node in module.nodes_of_class((nodes.Import, nodes.ImportFrom, nodes.Assign)):
        if isinstance(node, nodes.Assign):
            value = node.value
            values = value.elts if isinstance(value, (nodes.Tuple, nodes.List)) else [value]
            if any(
                _named(element) in words for element in values if isinstance(element, nodes.NodeNG)
            ):
                aliases.update(t.name for t in node.targets if isinstance(t, nodes.AssignName))
            continue
        for imported, alias in node.names:
            if alias and imported.rsplit(".", 1)[-1] in words:
                aliases.add(alias)
    return aliases - words


def _named(value: nodes.NodeNG) -> str:
    """The name a ``Name`` or ``Attribute`` expression ends in, or ''."""
    if isinstance(value, nodes.Name):
        return value.name
    return value.attrname if isinstance(value, nodes.Attribute) else ""

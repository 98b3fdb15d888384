"""Finding every subclass of the configured callers anywhere under the source roots.

Parsing every file to look for subclasses would cost as much as running pylint on the
whole tree. A class can only name its base, directly or through an alias, if the base's
name (or the alias) appears in the file's text, so a word search over the raw text picks
the few files worth parsing. Each subclass or alias found adds its name to the search,
until nothing new turns up.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from astroid import nodes

from pylint_rpcsurface.analysis.branches import can_run, live_bindings
from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.definitions import definition_name
from pylint_rpcsurface.analysis.helper_calls import bases_of_python_itself
from pylint_rpcsurface.analysis.inference import (
    infer_unique,
    location_of,
    name_bindings,
)
from pylint_rpcsurface.analysis.syntax import all_statements
from pylint_rpcsurface.model import Location


@dataclass(frozen=True)
class CallerClassFacts:
    """A class that descends from a configured caller, where it is defined."""

    qualname: str
    name: str
    line: int
    col: int
    within: str  # its name in its module, and which definition of it (definition_name)
    index: int
    descends_from: frozenset[str]  # the configured callers it descends from


@dataclass(frozen=True)
class OpenClass:
    """A class that may be a caller, or not: why, and where it is defined."""

    name: str
    location: Location
    reason: str


@dataclass(frozen=True)
class ModuleCallers:
    """What one module holds for the caller search: the classes in it that descend from a
    configured caller, its aliases (``import X as Y``, ``Y = X``, ``BASES = (X, ...)``) as
    (alias, name), and the classes that may derive from anything.

    *failure* says why a module that could not be built (it doesn't parse, or can't be
    decoded) was not read: a caller in it would be unknown, not absent."""

    parsed: bool
    classes: tuple[CallerClassFacts, ...]
    aliases: tuple[tuple[str, str], ...]
    open_classes: tuple[OpenClass, ...] = ()
    failure: tuple[int | None, str] | None = None  # (line, reason)


def callers_in_module(
    module: nodes.Module,
    index: ClassIndex,
    configured: Iterable[str],
    lineage_of: Callable[[nodes.ClassDef], Lineage] | None = None,
) -> ModuleCallers:
    """The classes of *module* that can run and descend from one of *configured*, and
    its aliases.

    The search over the whole tree (the engine's) calls this for each module whose text
    names a caller; a module is read once, whatever the words of the round.
    *lineage_of* gives a class's :func:`lineage` (the engine's, from a piece of each
    class's own: a statement added in a method leaves its classes' lineages as they
    were, and reading them again would build their bases' modules).
    """
    configured = frozenset(configured)
    if lineage_of is None:
        lineage_of = partial(lineage, index=index, configured=configured)
    found: list[CallerClassFacts] = []
    open_classes: list[OpenClass] = []
    # One walk of the module's statements for both: its classes, and the statements that
    # make aliases (the piece that calls this reads the module's whole body anyway).
    read = [
        node for node in all_statements(module) if isinstance(node, (nodes.ClassDef, *_ALIASING))
    ]
    for cls in read:
        if not isinstance(cls, nodes.ClassDef):
            continue
        if not can_run(cls):
            continue  # a TYPE_CHECKING stub, a dead branch, a replaced definition
        if bases_of_python_itself(cls, index.store.tree):
            # A builtin's or the standard library's class never derives from the
            # project's: inferring the bases would build them (enum, typing) for nothing.
            continue
        descends_from, open_base = lineage_of(cls)
        if descends_from:
            found.append(
                CallerClassFacts(
                    index.qualname(cls),
                    cls.name,
                    cls.lineno or 0,
                    cls.col_offset or 0,
                    *definition_name(cls),
                    descends_from,
                )
            )
            continue
        reason = (
            f"class {cls.name} derives from a starred base that does not infer"
            if open_base
            else _why_it_may_be_a_caller(cls, index, configured)
        )
        at = location_of(cls)
        if reason is not None and at is not None:
            open_classes.append(OpenClass(cls.name, at, reason))
    aliasing = [node for node in read if isinstance(node, _ALIASING)]
    return ModuleCallers(True, tuple(found), tuple(_alias_pairs(aliasing)), tuple(open_classes))


def _why_it_may_be_a_caller(
    cls: nodes.ClassDef, index: ClassIndex, configured: frozenset[str]
) -> str | None:
    """Why *cls*, found to descend from no caller and from no starred base that does
    not infer (:func:`lineage`), may still be one, or None.

    ``class C(Base)`` where Base is a caller in one branch and another class in the
    other (``if flag: Base = Core`` / ``else: Base = object``) is a caller in one world
    and not in the other."""
    for base in cls.bases:
        if not isinstance(base, nodes.Name):
            continue
        looked_up = name_bindings(base)
        if looked_up is None:
            continue
        live = live_bindings(looked_up[1])
        if len(live) < 2:
            continue  # one binding: the MRO followed it
        for binding in live:
            value = binding if isinstance(binding, nodes.ClassDef) else infer_unique(binding)
            if not isinstance(value, nodes.ClassDef):
                continue
            if index.qualname(value) in configured or configured_ancestors(
                value, index, configured
            ):
                line = binding.lineno or "?"
                return (
                    f"class {cls.name} derives from {base.name}, which is a caller in one "
                    f"branch (line {line}) and may be another class in the others"
                )
    return None


# The shortest ending of a round's words worth looking for first: a shorter one is in
# almost every file, and looking for it only adds a scan.
_SHARED_MIN = 4

WordGroups = tuple[tuple[str, frozenset[str]], ...]


def word_groups(words: Iterable[str]) -> WordGroups:
    """*words* in groups, each with an ending all its words share ('' for a word alone).

    A file that lacks a group's ending holds none of its words: a family's names often
    end alike (``PrefillEngineCore``, ``DecodeEngineCore``), so one scan for the ending
    stands for a scan per name in most files. The ending the most words share is taken
    first (the longer of two as shared), until no two words left share one of at least
    :data:`_SHARED_MIN` characters."""
    left = set(words)
    groups: list[tuple[str, frozenset[str]]] = []
    while len(left) >= 2:
        counts = Counter(
            word[-size:] for word in left for size in range(_SHARED_MIN, len(word) + 1)
        )
        shared = [part for part, count in counts.items() if count >= 2]
        if not shared:
            break
        part = max(shared, key=lambda ending: (counts[ending], len(ending), ending))
        members = frozenset(word for word in left if word.endswith(part))
        groups.append((part, members))
        left -= members
    groups.extend(("", frozenset({word})) for word in sorted(left))
    return tuple(groups)


def words_held(text: str, groups: WordGroups) -> frozenset[str]:
    """The words of *groups* (:func:`word_groups`) that *text* holds as whole words.

    Plain substring tests first, a group's ending and then one word at a time: they are
    many times faster than the regular expression, and most files mention none of the
    words at all.
    """
    return frozenset(
        word
        for ending, members in groups
        if ending in text
        for word in members
        if word in text and re.search(rf"\b{re.escape(word)}\b", text) is not None
    )


def configured_ancestors(
    cls: nodes.ClassDef, index: ClassIndex, configured: Iterable[str]
) -> frozenset[str]:
    """The configured callers among the ancestors of *cls*."""
    order, _ = index.linearize(cls)
    ancestors = {index.qualname(a) for a in order[1:]}
    return frozenset(ancestors.intersection(configured))


# What a class's method resolution order says of it for the caller search: the
# configured callers among its ancestors, and whether it or an ancestor has a starred
# base that does not infer (it may then derive from any class, a caller too).
Lineage = tuple[frozenset[str], bool]


def lineage(cls: nodes.ClassDef, index: ClassIndex, configured: Iterable[str]) -> Lineage:
    """*cls*'s :data:`Lineage`: both read from its order alone, which inferring its
    bases, and theirs, gives."""
    return (configured_ancestors(cls, index, configured), index.may_derive_from_anything(cls))


_ALIASING = (nodes.Import, nodes.ImportFrom, nodes.Assign, nodes.Return)


def _alias_pairs(statements: Iterable[nodes.NodeNG]) -> list[tuple[str, str]]:
    """The names a module's *statements* (its imports, assignments and returns) bind to
    another name: ``import X as Y``, ``Y = X``, ``Y = a.X`` and ``Y = (X, ...)``, as
    (Y, X); the search keeps those whose X is one of its words.

    A function that returns a name is its alias too (``def make_base(): return X``), and
    a name bound to a call is the called name's (``Base = make_base()``): a class whose
    base comes from such a factory is then searched for in the files that name the
    factory, though they never name X.

    Inside a function, an assignment binds a local: ``engine = Core(...)`` there is an
    instance, no alias of ``Core``, unless the function returns that name."""
    statements = list(statements)
    returned = {
        (id(node.scope()), node.value.name)
        for node in statements
        if isinstance(node, nodes.Return) and isinstance(node.value, nodes.Name)
    }
    pairs: list[tuple[str, str]] = []
    for node in statements:
        if isinstance(node, nodes.Return):
            function = node.scope()
            named = _named(node.value) if isinstance(node.value, nodes.NodeNG) else ""
            if named and isinstance(function, nodes.FunctionDef):
                pairs.append((function.name, named))
            continue
        if isinstance(node, nodes.Assign):
            value = node.value
            if isinstance(value, nodes.Call):
                value = value.func  # Base = make_base(): an alias of what make_base gives
            # BASES = (X, ...): class C(*BASES) derives from X.
            values = value.elts if isinstance(value, (nodes.Tuple, nodes.List)) else [value]
            for element in values:
                named = _named(element) if isinstance(element, nodes.NodeNG) else ""
                if named:
                    pairs.extend(
                        (t.name, named)
                        for t in node.targets
                        if isinstance(t, nodes.AssignName) and _binds_for_others(t, returned)
                    )
            continue
        if isinstance(node, (nodes.Import, nodes.ImportFrom)):
            for imported, alias in node.names:
                if alias:
                    pairs.append((alias, imported.rsplit(".", 1)[-1]))
    return pairs


def _binds_for_others(target: nodes.AssignName, returned: set[tuple[int, str]]) -> bool:
    """Whether assigning to *target* binds a name other code can see: at module or class
    level, or a local its function returns."""
    scope = target.scope()
    if isinstance(scope, (nodes.Module, nodes.ClassDef)):
        return True
    return (id(scope), target.name) in returned


def _named(value: nodes.NodeNG) -> str:
    """The name a ``Name`` or ``Attribute`` expression ends in, or ''."""
    if isinstance(value, nodes.Name):
        return value.name
    return value.attrname if isinstance(value, nodes.Attribute) else ""

"""A class's members as its own module binds them, while the project is analysed.

astroid, when it builds a module that assigns an attribute of a class or of an instance
(``Runner.beta = _beta``, ``runner.x = 1``), adds that assignment to the class's
``locals`` or ``instance_attrs``, wherever the class lives. Which modules happen to be
built would then decide what a class has: a whole-tree ``pylint .`` builds every module
before the analysis, ``pylint core.py`` one, ``rpcsurface check`` the ones its subclass
search parses. A monkeypatch in an example folder (``RayPPOTrainer.fit = fit``) would
replace the method the class defines, whose findings would vanish in the modes that built
the example, and a patch adding a method would answer a name in them alone.

:class:`AssignedElsewhere` takes every such assignment made from another module out of
the class while the project is analysed, those made before (by pylint's builds, by an
earlier run in the process) and those the analysis's own builds make, and puts each back
where it was on exit: a class's members are the ones its own module binds, in every
mode, and astroid's state after the analysis is the one pylint's other checkers had.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from astroid import bases, nodes
from astroid.builder import AstroidBuilder

from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS

__all__ = ["AssignedElsewhere"]

# The members astroid adds an attribute assignment to: a class's own (``Cls.x = ...``)
# and its instances' (``obj.x = ...``), a module's (``module.x = ...``).
_MEMBERS = ("locals", "instance_attrs")

# The attribute noted on a module or class once it holds no assignment from elsewhere:
# how many bindings it then had, and a module's classes (:meth:`AssignedElsewhere.take_from`).
# Scanning every module and class of astroid's cache is the cost in a long-lived process,
# where the same ones are seen run after run: astroid only ever adds bindings, so the
# same counts later mean nothing was added since.
_SCANNED_AT = "_rpcsurface_scanned_at"

Scope = nodes.Module | nodes.ClassDef


def _counted(scope: Scope) -> tuple[int, ...]:
    """How many bindings each of *scope*'s members has (summed in C)."""
    return tuple(
        sum(map(len, dict.values(getattr(scope, members))))
        for members in _MEMBERS
        if hasattr(scope, members)
    )


def _classes_in(module: nodes.Module) -> tuple[nodes.ClassDef, ...]:
    """The classes *module* defines: at its top level, nested in classes, under ``if`` or
    ``try``."""
    found: dict[int, nodes.ClassDef] = {}
    scopes: list[Scope] = [module]
    while scopes:
        scope = scopes.pop()
        for bindings in list(dict.values(scope.locals)):
            for binding in bindings:
                if isinstance(binding, nodes.ClassDef) and id(binding) not in found:
                    found[id(binding)] = binding
                    scopes.append(binding)
    return tuple(found.values())


@dataclass(frozen=True)
class _Taken:
    """An assignment taken out of *scope*'s *members* (``locals`` or ``instance_attrs``),
    at *index* of the bindings of *name*."""

    scope: Scope
    members: str
    name: str
    index: int
    node: nodes.AssignAttr


class AssignedElsewhere:
    """Takes the assignments to a class's or a module's attributes made from another
    module out of it, and puts them back (see the module's docstring)."""

    def __init__(self) -> None:
        self._taken: list[_Taken] = []
        self._builders_own: Any = None

    def take_from(self, modules: Iterable[object]) -> None:
        """Take the assignments made from elsewhere out of every one of *modules*
        (astroid's cache) and of their classes."""
        for module in modules:
            if not isinstance(module, nodes.Module):
                continue
            noted = module.__dict__.get(_SCANNED_AT)
            if noted is None or noted[0] != _counted(module):
                self._take_from(module, None)
                noted = (_counted(module), _classes_in(module))
                setattr(module, _SCANNED_AT, noted)
            for klass in noted[1]:
                if klass.__dict__.get(_SCANNED_AT) != _counted(klass):
                    self._take_from(klass, None)
                    setattr(klass, _SCANNED_AT, _counted(klass))

    def start(self) -> None:
        """From now on, each assignment astroid adds to a class or a module of another
        module while it builds a module is taken out of it again."""
        builders_own = AstroidBuilder.delayed_assattr
        self._builders_own = builders_own

        def delayed_assattr(builder: AstroidBuilder, node: nodes.AssignAttr) -> None:
            builders_own(builder, node)
            self._taken_after(node)

        setattr(AstroidBuilder, "delayed_assattr", delayed_assattr)  # noqa: B010

    def restore(self) -> bool:
        """Stop taking, and put every assignment taken back where it was; whether any was
        (what astroid inferred or looked up without it must then be forgotten)."""
        if self._builders_own is not None:
            setattr(AstroidBuilder, "delayed_assattr", self._builders_own)  # noqa: B010
            self._builders_own = None
        taken = self._taken
        self._taken = []
        for item in reversed(taken):
            members = getattr(item.scope, item.members)
            dict.setdefault(members, item.name, []).insert(item.index, item.node)
        return bool(taken)

    @property
    def taken(self) -> bool:
        """Whether any assignment is out of its class or module now."""
        return bool(self._taken)

    def _taken_after(self, node: nodes.AssignAttr) -> None:
        """Take *node* out of the class or module astroid just added it to, if that is of
        another module: astroid adds it to what its target infers to, so the same
        inference (its cache answers) says where."""
        try:
            targets = list(node.expr.infer())
        except INFERENCE_ERRORS:
            return
        for target in targets:
            scope = target._proxied if isinstance(target, bases.Instance) else target  # pylint: disable=protected-access
            if isinstance(scope, (nodes.ClassDef, nodes.Module)):
                self._take_from(scope, node.attrname)

    def _take_from(self, scope: Scope, name: str | None) -> None:
        """Take out of *scope* the assignments made from another module, to *name* or
        (None) to any attribute."""
        own = scope.root()
        for members in _MEMBERS:
            mapping = getattr(scope, members, None)
            if mapping is None:
                continue
            # dict's own methods: a class split by recording_reads would count a read.
            if name is None:
                found = list(dict.items(mapping))
            else:
                found = [(name, dict.get(mapping, name) or [])]
            for attribute, bindings in found:
                elsewhere = [
                    index
                    for index, binding in enumerate(bindings)
                    if isinstance(binding, nodes.AssignAttr) and binding.root() is not own
                ]
                if not elsewhere:
                    continue
                for index in elsewhere:
                    self._taken.append(_Taken(scope, members, attribute, index, bindings[index]))
                bindings[:] = [b for i, b in enumerate(bindings) if i not in elsewhere]
                if not bindings:
                    dict.__delitem__(mapping, attribute)

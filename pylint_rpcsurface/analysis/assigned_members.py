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

# The members astroid adds an attribute assignment to: the class's own (``Cls.x = ...``)
# and its instances' (``obj.x = ...``).
_MEMBERS = ("locals", "instance_attrs")


@dataclass(frozen=True)
class _Taken:
    """An assignment taken out of *klass*'s *members* (``locals`` or ``instance_attrs``),
    at *index* of the bindings of *name*."""

    klass: nodes.ClassDef
    members: str
    name: str
    index: int
    node: nodes.AssignAttr


class AssignedElsewhere:
    """Takes the assignments to a class's attributes made from another module out of the
    class, and puts them back (see the module's docstring)."""

    def __init__(self) -> None:
        self._taken: list[_Taken] = []
        self._builders_own: Any = None

    def take_from(self, modules: Iterable[object]) -> None:
        """Take the assignments made from elsewhere out of every class of *modules*
        (astroid's cache): at module level, nested in classes, under ``if`` or ``try``."""
        seen: set[int] = set()
        for module in modules:
            if not isinstance(module, nodes.Module):
                continue
            scopes: list[nodes.LocalsDictNodeNG] = [module]
            while scopes:
                scope = scopes.pop()
                for bindings in list(dict.values(scope.locals)):
                    for binding in bindings:
                        if isinstance(binding, nodes.ClassDef) and id(binding) not in seen:
                            seen.add(id(binding))
                            self._take_from_class(binding, None)
                            scopes.append(binding)

    def start(self) -> None:
        """From now on, each assignment astroid adds to a class of another module while it
        builds a module is taken out of the class again."""
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
            members = getattr(item.klass, item.members)
            dict.setdefault(members, item.name, []).insert(item.index, item.node)
        return bool(taken)

    @property
    def taken(self) -> bool:
        """Whether any assignment is out of its class now."""
        return bool(self._taken)

    def _taken_after(self, node: nodes.AssignAttr) -> None:
        """Take *node* out of the class astroid just added it to, if that class is of
        another module: astroid adds it to what its target infers to, so the same
        inference (its cache answers) says where."""
        try:
            targets = list(node.expr.infer())
        except INFERENCE_ERRORS:
            return
        for target in targets:
            klass = target._proxied if isinstance(target, bases.Instance) else target  # pylint: disable=protected-access
            if isinstance(klass, nodes.ClassDef):
                self._take_from_class(klass, node.attrname)

    def _take_from_class(self, klass: nodes.ClassDef, name: str | None) -> None:
        """Take out of *klass* the assignments made from another module, to *name* or
        (None) to any attribute."""
        own = klass.root()
        for members in _MEMBERS:
            mapping = getattr(klass, members)
            # dict's own methods: a class split by recording_reads would count a read.
            names = list(dict.keys(mapping)) if name is None else [name]
            for attribute in names:
                bindings = dict.get(mapping, attribute)
                if not bindings:
                    continue
                kept = []
                for index, binding in enumerate(bindings):
                    if isinstance(binding, nodes.AssignAttr) and binding.root() is not own:
                        self._taken.append(_Taken(klass, members, attribute, index, binding))
                    else:
                        kept.append(binding)
                if len(kept) != len(bindings):
                    bindings[:] = kept
                    if not kept:
                        dict.__delitem__(mapping, attribute)

"""The callers of a surface: the classes whose own code sends to its handlers.

A caller written in ``callers`` brings every subclass with it, and the checker judges a
class's calls by the tables of its nearest configured ancestor (the most specific
caller). ATOM's engine cores share a base, ``EngineCore`` (``runner_cls = ModelRunner``);
the RapidServe cores (``runner_cls = RapidServeModelRunner``) and a sibling that holds
another runner are its subclasses. The base's receive side, read for the whole hierarchy,
reaches all three runners; read for each class alone, it reaches the one runner that class
binds. Where the classes disagree, each class whose own receive side reaches other
handlers than its nearest written ancestor's is written as a caller of its own: the base
of ``ModelRunner``, the RapidServe cores of theirs, the sibling of its runner.

Reading a class alone: ``self`` in a method of the class or of one of its bases is that
class (not a subclass), ``self.attr`` is the class attribute its MRO finds first (and the
``self.attr = ...`` of its MRO), and what a sibling's methods pass to a function is not
what this class passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from astroid import nodes

from pylint_rpcsurface.discovery.evidence import Found, Receivers
from pylint_rpcsurface.discovery.readers import CallerReader, RunMethodHelpers
from pylint_rpcsurface.discovery.reading import Group, Site, Worker, class_of, is_method

# A hierarchy with more classes than this is kept whole: reading each class alone would
# cost a receive side per class.
_MAX_CLASSES = 16


class ExactReceivers(Receivers):
    """The receivers as one class *exact* of the hierarchy *family* reads them."""

    def __init__(self, base: Receivers, exact: nodes.ClassDef, family: set[int]) -> None:  # pylint: disable=super-init-not-called
        self.__dict__.update(base.__dict__)
        self._memo = {}
        self._active = set()
        self.exact = exact
        self.order = [exact, *self._ancestors(exact)]
        self.mine = {id(c) for c in self.order}
        self.family = family

    def _own_self(self, node: nodes.NodeNG) -> bool:
        """Whether *node* is in a method of one of *exact*'s bases, where astroid would
        read ``self`` as that base."""
        owner = class_of(node)
        return owner is not None and owner is not self.exact and id(owner) in self.mine

    def _inferred(self, node: nodes.NodeNG, classes: bool) -> Found:
        if any(n.name == "self" for n in node.nodes_of_class(nodes.Name)) and self._own_self(node):
            return {}  # structural reading only: astroid's self is the base
        return super()._inferred(node, classes)

    def _attribute(self, attribute: nodes.Attribute, depth: int, classes: bool) -> Found:
        expr = attribute.expr
        owner = class_of(attribute)
        if not (
            isinstance(expr, nodes.Name)
            and expr.name == "self"
            and owner is not None
            and id(owner) in self.mine
        ):
            return super()._attribute(attribute, depth, classes)
        found: Found = {}
        class_level = True
        for klass in self.order:
            for value, annotation, at_class in _bindings(klass, attribute.attrname):
                if at_class and not class_level:
                    continue  # overridden by a class earlier in the MRO
                if annotation is not None:
                    found.update(self._annotated(annotation, classes))
                if value is not None:
                    found.update(self._read(value, depth, classes=classes))
            if any(at for _, _, at in _bindings(klass, attribute.attrname)):
                class_level = False
        return found

    def _parameter(
        self, binding: nodes.AssignName, arguments: nodes.Arguments, depth: int, classes: bool
    ) -> Found:
        function = arguments.parent
        if (
            not classes
            and isinstance(function, nodes.FunctionDef)
            and is_method(function)
            and function.type == "method"
            and arguments.args
            and arguments.args[0] is binding
            and id(function.parent) in self.mine
        ):
            return {
                id(self.exact): (
                    self.exact,
                    f"{self.where(function)}: self in {self.exact.name}.{function.name}()",
                )
            }
        return super()._parameter(binding, arguments, depth, classes)

    def _passed(self, function: nodes.FunctionDef, index: int, param: str) -> list[nodes.NodeNG]:
        kept = []
        for arg in super()._passed(function, index, param):
            owner = class_of(arg)
            if owner is not None and id(owner) in self.family and id(owner) not in self.mine:
                continue  # a sibling's (or a subclass's) call: not this class's code
            kept.append(arg)
        return kept


def _bindings(
    klass: nodes.ClassDef, attrname: str
) -> list[tuple[nodes.NodeNG | None, nodes.NodeNG | None, bool]]:
    """(value, annotation, at class level) of each binding of *attrname* in *klass*:
    ``attr = value`` in its body, ``self.attr = value`` in its methods."""
    found: list[tuple[nodes.NodeNG | None, nodes.NodeNG | None, bool]] = []
    for binding in klass.locals.get(attrname, []):
        parent = binding.parent
        if isinstance(binding, nodes.AssignName) and isinstance(parent, nodes.AnnAssign):
            found.append((parent.value, parent.annotation, True))
        elif (
            isinstance(binding, nodes.AssignName)
            and isinstance(parent, nodes.Assign)
            and binding in parent.targets
        ):
            found.append((parent.value, None, True))
    instance: object = klass.instance_attrs.get(attrname, [])
    for binding in instance if isinstance(instance, list) else []:
        parent = binding.parent
        if isinstance(parent, nodes.AnnAssign):
            found.append((parent.value, parent.annotation, False))
        elif isinstance(parent, nodes.Assign) and binding in parent.targets:
            found.append((parent.value, None, False))
    return found


@dataclass
class Part:
    """A subtree of a caller hierarchy whose classes send to the same handlers."""

    top: nodes.ClassDef
    handlers: list[nodes.ClassDef]
    names: set[str]
    site: Site
    proven: Found


class CallerSplit:
    """Splits a caller hierarchy whose classes send to different handlers into the
    subtrees that agree, reading each class alone with *discovery*'s own readers."""

    def __init__(self, discovery: CallerReader) -> None:
        self.discovery = discovery

    def split_callers(
        self,
        root: nodes.ClassDef,
        groups: list[Group],
        sites: dict[int, list[Site]],
        workers: list[Worker],
        helpers: RunMethodHelpers,
    ) -> list[Part] | None:
        """The parts *root*'s hierarchy splits into, or None when it is one: every class
        of it whose receive side is read alone reaches the same handlers. *sites* are the
        hierarchy's call sites by group index."""
        members = [root, *self.discovery.receivers.subclasses.get(id(root), [])]
        if len(members) < 2 or len(members) > _MAX_CLASSES:
            return None
        family = {id(c) for c in members}
        reached: dict[int, tuple[tuple[int, ...], Found, set[str]]] = {}
        for cls in members:
            order = {id(c) for c in [cls, *self.discovery.receivers._ancestors(cls)]}  # pylint: disable=protected-access
            mine = {
                i: [s for s in group_sites if s.owner is not None and id(s.owner) in order]
                for i, group_sites in sites.items()
            }
            mine = {i: s for i, s in mine.items() if s}
            names = {s.name for group_sites in mine.values() for s in group_sites}
            if not names:
                continue
            with self.discovery.reading_as(cls, family):
                sides = [
                    self.discovery.receive_side(
                        groups[i], workers, helpers, self.discovery.senders_for(cls, groups[i], s)
                    )
                    for i, s in sorted(mine.items())
                ]
                proven = self.discovery.proven(cls, sides)
            handlers = self.discovery.among(proven, names) if proven else []
            if handlers and self.discovery.admitted(handlers, proven):
                handlers = []  # an annotation admitting several: which one is not known
            if handlers:  # unread alone: no evidence that it sends elsewhere
                reached[id(cls)] = (tuple(sorted(id(h) for h in handlers)), proven, names)
        if len({plan for plan, _, _ in reached.values()}) < 2:
            return None
        return self._parts(root, members, reached, sites)

    def _parts(
        self,
        root: nodes.ClassDef,
        members: list[nodes.ClassDef],
        reached: dict[int, tuple[tuple[int, ...], Found, set[str]]],
        sites: dict[int, list[Site]],
    ) -> list[Part]:
        """The classes written as callers, each of the handlers its own calls reach: a
        class is written when its nearest written ancestors reach other handlers (or it
        has none), so that the checker's most specific caller, the nearest configured
        ancestor, judges each class's calls by the table of the handlers it reaches."""
        ancestors = self.discovery.receivers._ancestors  # pylint: disable=protected-access
        by_id = {id(c): c for c in members}
        # Bases first: a class is decided after every class it descends from.
        ordered = sorted(
            (c for c in members if id(c) in reached),
            key=lambda c: sum(1 for base in ancestors(c) if id(base) in by_id),
        )
        written: list[nodes.ClassDef] = []
        judged_by: dict[int, list[nodes.ClassDef]] = {}
        for cls in ordered:
            nearest = _nearest(cls, written, ancestors)
            if not nearest or any(reached[id(n)][0] != reached[id(cls)][0] for n in nearest):
                written.append(cls)
                nearest = [cls]
            judged_by[id(cls)] = nearest
        parts = []
        for top in written:
            judged = [i for i, nearest in judged_by.items() if any(n is top for n in nearest)]
            plan, proven, names = reached[id(top)][0], dict(reached[id(top)][1]), set()
            for i in judged:
                proven.update(reached[i][1])
                names |= reached[i][2]
            handlers = [proven[i][0] for i in plan]
            own = [s for group_sites in sites.values() for s in group_sites if s.owner is top]
            every = [s for group_sites in sites.values() for s in group_sites]
            site = (own or [s for s in every if s.name in names] or every)[0]
            parts.append(Part(top, handlers, names, site, proven))
        described = "; ".join(
            f"{by_id[i].name}: "
            + ", ".join(sorted(reached[i][1][h][0].name for h in reached[i][0]))
            for i in sorted(reached, key=lambda i: self.discovery.qualname(by_id[i]))
        )
        discovery = self.discovery
        discovery.notes.append(
            f"{discovery.where(root)}: the classes of {discovery.qualname(root)}'s hierarchy "
            f"send to different handlers ({described}): "
            + ", ".join(sorted(discovery.qualname(p.top) for p in parts))
            + " are each written as the caller of the handlers its own calls reach (the "
            "nearest configured ancestor's table judges a class's calls)"
        )
        return parts


def _nearest(
    cls: nodes.ClassDef,
    written: list[nodes.ClassDef],
    ancestors: Callable[[nodes.ClassDef], list[nodes.ClassDef]],
) -> list[nodes.ClassDef]:
    """The classes of *written* nearest to *cls* among itself and its ancestors, as the
    checker reads the most specific caller: one is nearer than another when it descends
    from it."""
    mine = [c for c in written if c is cls or any(c is a for a in ancestors(cls))]
    return [
        c for c in mine if not any(o is not c and any(c is a for a in ancestors(o)) for o in mine)
    ]

"""What the syntax alone tells of a node, with no inference."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeGuard

from astroid import nodes

__all__ = [
    "MUTATORS",
    "all_statements",
    "appended",
    "builtin_call",
    "changed_in_place",
    "changes_in_place",
]

# The fields that hold statements, in the order astroid's get_children gives them.
_STATEMENT_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")
# The nodes that hold statements: statements, and a match's cases (which are not).
_HOLDERS = (nodes.Module, nodes.MatchCase)


def all_statements(node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """Every statement under *node*, at any depth, in the order ``nodes_of_class`` gives
    them: a function's, a class's, a branch's, a handler's, a case's.

    A statement lies only in another's (or a module's, or a case's) lists of statements,
    never in an expression, so the walk reads those lists alone: it never goes through
    the expressions, which are most of a module's nodes, nor through ``get_children``."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is not node:
            yield current
        if not (current.is_statement or isinstance(current, _HOLDERS)):
            continue
        held: list[nodes.NodeNG] = []
        for name in _STATEMENT_FIELDS:
            value = getattr(current, name, None)
            if isinstance(value, list):
                held.extend(value)
        stack.extend(reversed(held))


def builtin_call(node: object, name: str, *arities: int) -> TypeGuard[nodes.Call]:
    """Whether *node* calls *name* by its bare name (``getattr(obj, "x")``), without
    keywords and with as many positional arguments as one of *arities*."""
    return (
        isinstance(node, nodes.Call)
        and isinstance(node.func, nodes.Name)
        and node.func.name == name
        and len(node.args) in arities
        and not node.keywords
    )


def appended(scope: nodes.NodeNG, name: str) -> Iterator[nodes.NodeNG]:
    """The argument of each ``name.append(x)`` call in *scope*, in source order: the
    elements of a list filled in place, which astroid's inference does not follow."""
    for call in scope.nodes_of_class(nodes.Call):
        func = call.func
        if (
            isinstance(func, nodes.Attribute)
            and func.attrname == "append"
            and isinstance(func.expr, nodes.Name)
            and func.expr.name == name
            and len(call.args) == 1
            and not call.keywords
        ):
            yield call.args[0]


# Methods that change a list, set or dict in place: astroid's inference does not see them.
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "remove",
        "discard",
        "pop",
        "popitem",
        "clear",
        "setdefault",
        "sort",
        "reverse",
        "__setitem__",
        "__delitem__",
        "__iadd__",
        "__ior__",
    }
)


def changed_in_place(
    scope: nodes.NodeNG, name: str | None, *, attributes: bool = False, in_classes: bool = False
) -> nodes.NodeNG | None:
    """The first in-place change in *scope* of the container bound to *name* (of any
    container when *name* is None): ``x.append(...)``, ``x[k] = ...``, ``del x[k]``,
    ``x += ...`` and the like, which astroid's inference does not follow. With
    *attributes*, an attribute of that name counts too (``self.x[k] = ...``); with
    *in_classes*, the bodies of classes in *scope* are looked in as well."""
    return next(changes_in_place(scope, name, attributes=attributes, in_classes=in_classes), None)


def changes_in_place(
    scope: nodes.NodeNG, name: str | None, *, attributes: bool = False, in_classes: bool = False
) -> Iterator[nodes.NodeNG]:
    """Every in-place change :func:`changed_in_place` looks for, in source order."""

    def names_it(target: nodes.NodeNG) -> bool:
        if name is None:
            return True
        if isinstance(target, (nodes.Name, nodes.AssignName)):
            return target.name == name
        return (
            attributes
            and isinstance(target, (nodes.Attribute, nodes.AssignAttr))
            and target.attrname == name
        )

    skipped = None if in_classes else (nodes.ClassDef,)
    for node in scope.nodes_of_class(
        (nodes.Call, nodes.Subscript, nodes.AugAssign), skip_klass=skipped
    ):
        if isinstance(node, nodes.Call):
            func = node.func
            if not (isinstance(func, nodes.Attribute) and func.attrname in MUTATORS):
                continue
            target: nodes.NodeNG = func.expr
        elif isinstance(node, nodes.Subscript):
            if node.ctx is None or node.ctx.name == "Load":
                continue
            target = node.value
        else:
            target = node.target
        if names_it(target):
            yield node


def before_options(target: nodes.NodeNG) -> nodes.NodeNG:
    """What a Ray call's ``.remote`` is taken on, past an ``.options(...)`` between them:
    ``<x>`` of ``<x>.options(...).remote(...)``, else *target* itself."""
    if (
        isinstance(target, nodes.Call)
        and isinstance(target.func, nodes.Attribute)
        and target.func.attrname == "options"
    ):
        return target.func.expr
    return target

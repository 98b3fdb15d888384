"""What the syntax alone tells of a node, with no inference."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any, TypeGuard, TypeVar, overload

from astroid import nodes

__all__ = [
    "MUTATORS",
    "all_statements",
    "appended",
    "builtin_call",
    "changed_in_place",
    "changes_in_place",
    "nodes_of",
    "walked",
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


# The node classes whose get_children gives their fields' nodes in the order of
# ``_astroid_fields``, a list's items in turn, a None left out: for these the walk below
# reads the fields itself, without the generator get_children makes for every node.
# tests/test_syntax_walk.py holds each to astroid's own on every kind of statement.
_FIELDS_IN_ORDER: tuple[type[nodes.NodeNG], ...] = (
    nodes.AnnAssign, nodes.Assert, nodes.Assign, nodes.AssignAttr, nodes.AssignName,
    nodes.AsyncFor, nodes.Attribute, nodes.AugAssign, nodes.Await, nodes.BinOp,
    nodes.BoolOp, nodes.Break, nodes.Call, nodes.Comprehension, nodes.Const,
    nodes.Continue, nodes.Decorators, nodes.DelAttr, nodes.DelName, nodes.Delete,
    nodes.DictComp, nodes.ExceptHandler, nodes.Expr, nodes.For, nodes.FormattedValue,
    nodes.GeneratorExp, nodes.Global, nodes.If, nodes.IfExp, nodes.Import,
    nodes.ImportFrom, nodes.JoinedStr, nodes.Keyword, nodes.Lambda, nodes.List,
    nodes.ListComp, nodes.Name, nodes.Nonlocal, nodes.Pass, nodes.Raise, nodes.Return,
    nodes.Set, nodes.SetComp, nodes.Slice, nodes.Starred, nodes.Subscript, nodes.Try,
    nodes.Tuple, nodes.UnaryOp, nodes.While, nodes.Yield, nodes.YieldFrom,
)  # fmt: skip
# Those whose get_children leaves a field out (a docstring) or gives them in another
# order: the fields it gives, in its order.
_FIELDS_GIVEN: dict[type[nodes.NodeNG], tuple[str, ...]] = {
    nodes.FunctionDef: ("decorators", "args", "returns", "type_params", "body"),
    nodes.AsyncFunctionDef: ("decorators", "args", "returns", "type_params", "body"),
    nodes.ClassDef: ("decorators", "bases", "keywords", "type_params", "body"),
    nodes.Module: ("body",),
}
# Each class's fields, last first (the walk pushes them on a stack); any class not here
# (a match statement's nodes, a dict's items in pairs...) is read by its get_children.
_PUSHED: dict[type[nodes.NodeNG], tuple[str, ...]] = {
    # Private to astroid (its own get_children reads it); tests/test_syntax_walk.py.
    **{kind: tuple(reversed(kind._astroid_fields)) for kind in _FIELDS_IN_ORDER},  # pylint: disable=protected-access
    **{kind: tuple(reversed(fields)) for kind, fields in _FIELDS_GIVEN.items()},
}

# The functions whose body :func:`walked` marks (the fields of each end with ``body``).
_FUNCTIONS = (nodes.FunctionDef, nodes.AsyncFunctionDef)

_Node = TypeVar("_Node", bound=nodes.NodeNG)


@overload
def nodes_of(root: nodes.NodeNG, kinds: type[_Node]) -> Iterator[_Node]: ...


@overload
def nodes_of(root: nodes.NodeNG, kinds: tuple[type[nodes.NodeNG], ...]) -> Iterator[Any]: ...


def nodes_of(
    root: nodes.NodeNG, kinds: type[nodes.NodeNG] | tuple[type[nodes.NodeNG], ...]
) -> Iterator[Any]:
    """``root.nodes_of_class(kinds)``: *root* and every node under it of *kinds*, in the
    same order, walked without nesting a generator per level (astroid's passes each node
    up through one generator per ancestor: most of a walk of a whole module). A node's
    children are all read as the walk leaves it for them, where astroid's reads each as
    it comes to it: a node a transform puts in its parent's place meanwhile is not
    walked, so its callers infer nothing while they walk (inferring runs transforms)."""
    pushed = _PUSHED
    stack: list[Any] = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if isinstance(node, kinds):
            yield node
        fields = pushed.get(type(node))
        if fields is None:
            children = list(node.get_children())
            children.reverse()
            stack.extend(children)
            continue
        for field in fields:
            value = getattr(node, field)
            if value is None:
                continue
            if type(value) in (list, tuple):  # pylint: disable=unidiomatic-typecheck
                for item in reversed(value):
                    if item is not None:
                        push(item)
            else:
                push(value)


class _BodyMark:
    """Where a function's body starts or ends in :func:`walked`'s order."""

    __slots__ = ("function", "start")

    def __init__(self, function: nodes.FunctionDef, *, start: bool) -> None:
        self.function = function
        self.start = start


def walked(
    root: nodes.NodeNG, every: dict[int, nodes.NodeNG] | None = None
) -> tuple[list[nodes.NodeNG], dict[int, tuple[int, int]]]:
    """``list(nodes_of(root, nodes.NodeNG))``, and where the nodes of each function's
    body under *root* lie in it, by the function's id: ``order[start:end]`` is every
    node of its body statements, nested functions' and lambdas' included, in
    :func:`nodes_of`'s order. A function's body is the last of the fields the walk
    reads, so its nodes follow each other, after those of its decorators and
    arguments. One walk of a module gives the discovery every node it collects, and the
    body of each function it then reads. A field's list goes on the stack whole, its
    items taken off as the walk comes to it.

    *every*, given, gets each node astroid's transforms walk reaches (every field of
    ``_astroid_fields``), by id: those of the order, and those ``get_children`` leaves
    out (a docstring's node, an argument's type comment, with what is under it)."""
    readers = _READERS
    order: list[nodes.NodeNG] = []
    bodies: dict[int, tuple[int, int]] = {}
    starts: dict[int, int] = {}
    stack: list[Any] = [root]
    pop, push, extend, add = stack.pop, stack.append, stack.extend, order.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is list or kind is tuple:
            extend(reversed(node))
        elif kind is _BodyMark:
            if node.start:
                starts[id(node.function)] = len(order)
            else:
                bodies[id(node.function)] = (starts.pop(id(node.function)), len(order))
        elif node is not None:
            read = readers.get(kind)
            if read is None and isinstance(node, (list, tuple)):
                # A list of a class of its own: a class's body whose reads are recorded.
                extend(reversed(node))
                continue
            add(node)
            if every is not None:
                every[id(node)] = node
                unwalked = _UNWALKED.get(kind)
                if unwalked is not None:
                    _every_under(unwalked(node), every)
            if read is None:
                children = list(node.get_children())
                children.reverse()
                extend(children)
            elif kind in _FUNCTIONS:
                # The body is read last, so pushed first, between its two marks.
                push(_BodyMark(node, start=False))
                push(node.body)
                push(_BodyMark(node, start=True))
                extend(read(node)[1:])
            else:
                extend(read(node))
    return order, bodies


def _fields_reader(fields: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """What reads the values of *fields* of a node as one tuple, in their order."""
    if len(fields) > 1:
        return operator.attrgetter(*fields)
    if not fields:
        return lambda node: ()
    one = operator.attrgetter(fields[0])
    return lambda node: (one(node),)


# For each node class nodes_of reads by its fields, what reads them, last first.
_READERS = {kind: _fields_reader(fields) for kind, fields in _PUSHED.items()}

# The fields astroid's transforms walk (``_astroid_fields``) that get_children, so
# :func:`walked`'s order, leaves out, by node class: a docstring's node, and an argument's
# type comment. tests/test_syntax_walk.py holds the nodes so reached to the fields' own on
# every kind of node.
_UNWALKED = {
    kind: _fields_reader(fields)
    for kind, fields in (
        (nodes.Module, ("doc_node",)),
        (nodes.ClassDef, ("doc_node",)),
        (nodes.FunctionDef, ("doc_node",)),
        (nodes.AsyncFunctionDef, ("doc_node",)),
        (nodes.Arguments, ("type_comment_args", "type_comment_kwonlyargs",
                           "type_comment_posonlyargs")),
    )
}  # fmt: skip


def _every_under(values: tuple[Any, ...], every: dict[int, nodes.NodeNG]) -> None:
    """Each node of *values* (nodes, lists of them, None), and every node under each by
    its fields, into *every* by id."""
    stack: list[Any] = list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, nodes.NodeNG):
            every[id(value)] = value
            # Private to astroid (its transforms' walk reads it); tests/test_private_hooks.py.
            stack.extend(getattr(value, field) for field in value._astroid_fields)  # pylint: disable=protected-access


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

    for node, target in _changes(scope, in_classes=in_classes):
        if names_it(target):
            yield node


def first_changes_in_place(scope: nodes.NodeNG) -> dict[str, nodes.NodeNG]:
    """name -> :func:`changed_in_place` of *scope* and that name, for every name at once,
    in one walk: a module with a thousand constants is walked once, not once each."""
    first: dict[str, nodes.NodeNG] = {}
    for node, target in _changes(scope, in_classes=False):
        if isinstance(target, (nodes.Name, nodes.AssignName)):
            first.setdefault(target.name, node)
    return first


def _changes(
    scope: nodes.NodeNG, *, in_classes: bool
) -> Iterator[tuple[nodes.NodeNG, nodes.NodeNG]]:
    """Each in-place change in *scope* (in the bodies of its classes too, with
    *in_classes*), in source order, and the container it changes."""
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
        yield node, target


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

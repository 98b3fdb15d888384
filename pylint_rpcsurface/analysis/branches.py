"""Which definitions of a module-level (or class-level) name can run.

A class may be defined under ``try``/``except``, ``if``/``else``, ``if TYPE_CHECKING:`` or
a version check. Of its bindings, the ones that can run are those

* not in a dead branch: the body of ``if TYPE_CHECKING:`` (false at run time), a branch
  of a constant test, or of a ``sys.version_info`` comparison that is false for the
  Python running the analysis (the one pylint runs on); and
* not overridden: a later binding in the same block, or in a block that holds this one,
  always runs after it and replaces it. Bindings in other branches (``if`` and ``else``,
  ``try`` and ``except``) are alternatives: either may be the one that ran.

Tests are only ever read, never run: a comparison of ``sys.version_info`` with a tuple of
integers is the one thing evaluated, against this interpreter's version.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from astroid import nodes

_COMPARE: Mapping[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = MappingProxyType(
    {
        "<": operator.lt,
        "<=": operator.le,
        ">": operator.gt,
        ">=": operator.ge,
        "==": operator.eq,
        "!=": operator.ne,
    }
)

Branch = tuple[int, str]  # (id of an If/Try/loop/with node, which of its blocks)


def static_truth(test: nodes.NodeNG) -> bool | None:
    """The value *test* certainly has at run time, or None when it is not known."""
    if isinstance(test, nodes.Const):
        return bool(test.value)
    if _is_type_checking(test):
        return False
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = static_truth(test.operand)
        return None if inner is None else not inner
    if isinstance(test, nodes.BoolOp):
        values = [static_truth(value) for value in test.values]
        if test.op == "and":
            return False if False in values else (True if all(values) else None)
        return True if True in values else (False if all(v is False for v in values) else None)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        return _version_check(test)
    return None


def _is_type_checking(test: nodes.NodeNG) -> bool:
    if isinstance(test, nodes.Name):
        return test.name == "TYPE_CHECKING"
    return isinstance(test, nodes.Attribute) and test.attrname == "TYPE_CHECKING"


def _version_check(test: nodes.Compare) -> bool | None:
    operator_name, right = test.ops[0]
    left = test.left
    length: int | None = None
    if isinstance(left, nodes.Subscript) and isinstance(left.slice, nodes.Slice):
        upper = left.slice.upper
        if left.slice.lower is not None or not isinstance(upper, nodes.Const):
            return None
        if not isinstance(upper.value, int):
            return None
        length, left = upper.value, left.value
    if not (
        isinstance(left, nodes.Attribute)
        and left.attrname == "version_info"
        and isinstance(left.expr, nodes.Name)
        and left.expr.name == "sys"
    ):
        return None
    if not isinstance(right, nodes.Tuple) or operator_name not in _COMPARE:
        return None
    wanted = []
    for element in right.elts:
        value = element.value if isinstance(element, nodes.Const) else None
        if not isinstance(value, int) or isinstance(value, bool):  # True is no version part
            return None
        wanted.append(value)
    running: tuple[int, ...] = tuple(int(part) for part in sys.version_info[:3])
    if length is not None:
        running = running[:length]
    return _COMPARE[operator_name](running, tuple(wanted))


def branch_path(node: nodes.NodeNG) -> tuple[list[Branch], bool]:
    """The blocks holding *node*, outermost first, up to its scope; and whether one of
    them is a branch that never runs."""
    path: list[Branch] = []
    dead = False
    child = node
    parent = node.parent
    scope = parent.scope() if parent is not None else None
    while parent is not None and parent is not scope:
        block = _block_of(parent, child)
        if block is not None:
            path.append((id(parent), block))
            if isinstance(parent, nodes.If):
                truth = static_truth(parent.test)
                dead = dead or (truth is False and block == "body")
                dead = dead or (truth is True and block == "orelse")
        child, parent = parent, parent.parent
    path.reverse()
    return path, dead


def _block_of(parent: nodes.NodeNG, child: nodes.NodeNG) -> str | None:
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and child in block:
            if field == "handlers":
                return f"handlers[{block.index(child)}]"
            return field
    return None


def _statement(binding: nodes.NodeNG) -> nodes.NodeNG:
    return (
        binding if isinstance(binding, (nodes.ClassDef, nodes.FunctionDef)) else binding.statement()
    )


def live_bindings(bindings: Sequence[object]) -> list[nodes.NodeNG]:
    """The bindings of one name that can run: none in a dead branch, none overridden by a
    later binding that always runs after it."""
    facts = []
    for binding in bindings:
        if not isinstance(binding, nodes.NodeNG):
            continue
        statement = _statement(binding)
        path, dead = branch_path(statement)
        if not dead:
            facts.append((binding, statement, path))
    live = []
    for binding, statement, path in facts:
        overridden = any(
            later is not statement
            and (later.fromlineno or 0) > (statement.fromlineno or 0)
            and later_path == path[: len(later_path)]
            for _, later, later_path in facts
        )
        if not overridden:
            live.append(binding)
    return live


def can_run(cls: nodes.ClassDef) -> bool:
    """Whether this definition of a class can be the one its scope binds at run time."""
    scope = cls.parent.scope() if cls.parent is not None else None
    bindings = scope.locals.get(cls.name, []) if scope is not None else []
    return any(binding is cls for binding in live_bindings(bindings))

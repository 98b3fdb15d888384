"""How a worker tests the callable ``getattr(obj, name, None)`` gave it for None.

Either it leaves the loop's body when the callable is None (``if func is None:
continue``, ``if not func: return``, ``if func is None or ...: raise``), or it calls it
only where it is not None (``if func is not None: out = func(*args)``, ``if func and
...:``, the ``else`` of ``if func is None:``). A test of either kind is a test of None;
only when there is neither is the None default called.
"""

from __future__ import annotations

from astroid import nodes

from pylint_rpcsurface.analysis.syntax import builtin_call
from pylint_rpcsurface.discovery.reading import FunctionBody


def compares_to_none(test: nodes.NodeNG, name: str, operators: tuple[str, ...]) -> bool:
    """Whether *test* is ``name <op> None`` for one of *operators*, or a chain that
    begins so."""
    return (
        isinstance(test, nodes.Compare)
        and isinstance(test.left, nodes.Name)
        and test.left.name == name
        and test.ops[0][0] in operators
        and isinstance(test.ops[0][1], nodes.Const)
        and test.ops[0][1].value is None
    )


def _compares(test: nodes.NodeNG, name: str, operators: tuple[str, ...]) -> bool:
    """Whether *test* is ``name <op> None`` alone, not in a chain."""
    return (
        isinstance(test, nodes.Compare)
        and len(test.ops) == 1
        and compares_to_none(test, name, operators)
    )


def is_none(test: nodes.NodeNG, name: str) -> bool:
    """Whether *test* is true whenever *name* is None: ``name is None``, ``not name``,
    or an ``or`` one of whose operands is."""
    if _compares(test, name, ("is", "==")):
        return True
    if (
        isinstance(test, nodes.UnaryOp)
        and test.op == "not"
        and isinstance(test.operand, nodes.Name)
        and test.operand.name == name
    ):
        return True
    return (
        isinstance(test, nodes.BoolOp)
        and test.op == "or"
        and any(is_none(value, name) for value in test.values)
    )


def is_not_none(test: nodes.NodeNG, name: str) -> bool:
    """Whether *test* is false whenever *name* is None: ``name is not None``, ``name``,
    ``callable(name)``, or an ``and`` one of whose operands is."""
    if _compares(test, name, ("is not", "!=")):
        return True
    if isinstance(test, nodes.Name) and test.name == name:
        return True
    if (
        builtin_call(test, "callable", 1)
        and isinstance(test.args[0], nodes.Name)
        and test.args[0].name == name
    ):
        return True
    return (
        isinstance(test, nodes.BoolOp)
        and test.op == "and"
        and any(is_not_none(value, name) for value in test.values)
    )


def _guard(call: nodes.Call, function: nodes.FunctionDef, name: str) -> nodes.If | None:
    """The ``if`` that lets *call* run only when *name* is not None."""
    child: nodes.NodeNG = call
    parent = call.parent
    while parent is not None and parent is not function:
        if isinstance(parent, nodes.If) and child is not parent.test:
            if child in parent.body and is_not_none(parent.test, name):
                return parent
            if child in parent.orelse and is_none(parent.test, name):
                return parent
        child, parent = parent, parent.parent
    return None


def guarded(body: FunctionBody, name: str) -> nodes.If | None:
    """The test of None that every call of *name* in the function of *body* runs under,
    or None (no call, or one that runs whatever *name* is)."""
    function = body.function
    guards: list[nodes.If] = []
    for call in body.own_nodes(nodes.Call):
        if isinstance(call.func, nodes.Name) and call.func.name == name:
            guard = _guard(call, function, name)
            if guard is None:
                return None
            guards.append(guard)
    return min(guards, key=lambda g: g.lineno or 0) if guards else None

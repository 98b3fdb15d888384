"""Names a worker loop answers itself, before it looks a name up on its object.

nano-vllm-voxcpm's server loop reads ``method_name = cmd["type"]``, then
``if method_name == "stop":`` sets a flag and returns its reply, and only after that runs
``getattr(srv, method_name)(...)``: no handler answers ``stop``, the loop does. Such a
name is what the surface key ``answered-before-lookup`` lists. It is proven only by the
shape of the receive function:

* the test compares the very name looked up (a local name bound once in the function) with
  string literals: ``name == "stop"``, ``"stop" == name``, ``name in ("a", "b")``, or an
  ``or`` of those;
* the test comes before the lookup: an ``if`` earlier in one of the blocks holding it
  whose branch leaves without falling through to it (it ends in ``return``, ``continue``
  or ``break``), or an ``if`` whose ``else`` holds it;
* the branch answers the way a looked-up name is answered: it returns a value (not None)
  where the lookup's result is returned too, or it sends (``put``, ``send``...) where the
  lookup's result is sent.

Anything else (a test on another name, after the lookup, a branch that only skips) proves
nothing, and nothing is written.
"""

from __future__ import annotations

from typing import TypeGuard

from astroid import nodes

from pylint_rpcsurface.discovery.reading import SEND_CALLS, call_name, names_in

_LEAVES = (nodes.Return, nodes.Continue, nodes.Break)


def answered_before(
    function: nodes.FunctionDef, lookup: nodes.Call
) -> tuple[tuple[str, ...], nodes.If | None]:
    """The names *function* answers itself before the ``getattr`` call *lookup*, sorted,
    and the first test that proves them (None when there is none)."""
    name = lookup.args[1] if len(lookup.args) > 1 else None
    if not isinstance(name, nodes.Name) or _bindings(function, name.name) > 1:
        return (), None
    result = _result(lookup)
    found: set[str] = set()
    proof: nodes.If | None = None
    node: nodes.NodeNG = lookup
    while node is not function and node.parent is not None:
        parent = node.parent
        tests: list[nodes.If] = []
        if isinstance(parent, nodes.If) and node in parent.orelse:
            tests.append(parent)
        block = _block_of(parent, node)
        if block is not None:
            earlier = block[: block.index(node)]
            tests.extend(
                s
                for s in earlier
                if isinstance(s, nodes.If) and s.body and isinstance(s.body[-1], _LEAVES)
            )
        for test in tests:
            names = _compared(test.test, name.name)
            if names and _answers(test.body, function, lookup, result):
                found.update(names)
                proof = proof or test
        node = parent
    return tuple(sorted(found)), proof


def _bindings(function: nodes.FunctionDef, name: str) -> int:
    """How many times *function*'s own code binds *name* (a parameter counts once)."""
    count = sum(1 for arg in function.args.arguments if arg.name == name)
    for statement in function.body:
        for bound in statement.nodes_of_class(nodes.AssignName):
            if bound.name == name and bound.scope() is function:
                count += 1
    return count


def _block_of(parent: nodes.NodeNG, node: nodes.NodeNG) -> list[nodes.NodeNG] | None:
    """The statement list of *parent* that holds *node*, if any."""
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is node for s in block):
            return block
    return None


def _compared(test: nodes.NodeNG, name: str) -> set[str]:
    """The literals *test* is true for, when it compares *name* with str literals only."""
    if isinstance(test, nodes.BoolOp) and test.op == "or":
        parts = [_compared(value, name) for value in test.values]
        return set().union(*parts) if all(parts) else set()
    if not isinstance(test, nodes.Compare) or len(test.ops) != 1:
        return set()
    operator, right = test.ops[0]
    left = test.left
    if operator == "==":
        if _is_name(left, name) and _is_str(right):
            return {right.value}
        if _is_name(right, name) and _is_str(left):
            return {left.value}
    if operator != "in" or not _is_name(left, name):
        return set()
    literals = right.elts if isinstance(right, (nodes.Tuple, nodes.List, nodes.Set)) else []
    return {e.value for e in literals if _is_str(e)} if all(map(_is_str, literals)) else set()


def _is_name(node: nodes.NodeNG, name: str) -> bool:
    return isinstance(node, nodes.Name) and node.name == name


def _is_str(node: object) -> TypeGuard[nodes.Const]:
    return isinstance(node, nodes.Const) and isinstance(node.value, str)


def _result(lookup: nodes.Call) -> str | None:
    """The name the looked-up method's result is bound to: ``ret = getattr(o, n)(...)``."""
    call = lookup.parent
    if isinstance(call, nodes.Call) and call.func is lookup:
        assign = call.parent
        if isinstance(assign, nodes.Assign) and len(assign.targets) == 1:
            target = assign.targets[0]
            if isinstance(target, nodes.AssignName):
                return target.name
    return None


def _carries(value: nodes.NodeNG | None, lookup: nodes.Call, result: str | None) -> bool:
    """Whether *value* holds the lookup's reply: the call itself or the name bound to it."""
    if value is None:
        return False
    return any(n is lookup for n in value.nodes_of_class(nodes.Call)) or (
        result is not None and result in names_in(value)
    )


def _answers(
    body: list[nodes.NodeNG], function: nodes.FunctionDef, lookup: nodes.Call, result: str | None
) -> bool:
    """Whether *body* replies as the lookup's path does: returns a value where the
    lookup's result is returned, or sends where it is sent."""
    last = body[-1]
    if (
        isinstance(last, nodes.Return)
        and last.value is not None
        and not (isinstance(last.value, nodes.Const) and last.value.value is None)
    ):
        returns = [
            r for r in _own(function, nodes.Return) if isinstance(r, nodes.Return) and r is not last
        ]
        if any(_carries(r.value, lookup, result) for r in returns):
            return True
    sends = [c for c in _own(function, nodes.Call) if isinstance(c, nodes.Call) and _is_send(c)]
    if not any(any(_carries(arg, lookup, result) for arg in c.args) for c in sends):
        return False
    return any(_is_send(c) for statement in body for c in statement.nodes_of_class(nodes.Call))


def _own(function: nodes.FunctionDef, kind: type[nodes.NodeNG]) -> list[nodes.NodeNG]:
    """The nodes of *kind* in *function*'s own scope (not in a nested function)."""
    return [
        n
        for statement in function.body
        for n in statement.nodes_of_class(kind)
        if n.scope() is function
    ]


def _is_send(call: nodes.NodeNG) -> bool:
    return (
        isinstance(call, nodes.Call)
        and isinstance(call.func, nodes.Attribute)
        and call_name(call) in SEND_CALLS
    )

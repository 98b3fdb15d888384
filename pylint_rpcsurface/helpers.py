"""Helpers a caller's code calls: their broadcasts count as the caller's.

A helper is a module-level function, a staticmethod or a classmethod that the code calls,
directly or through other helpers, where astroid resolves the call to one function. The
walk is breadth-first, so each helper is reached by its shortest chain; it never enters
a helper twice (recursion terminates) and stops after ``depth`` calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from astroid import bases, nodes

from pylint_rpcsurface.classes import INFERENCE_ERRORS, location_of
from pylint_rpcsurface.model import HelperStep

Code = nodes.FunctionDef | nodes.Lambda


def _body(code: Code) -> list[nodes.NodeNG]:
    return list(code.body) if isinstance(code, nodes.FunctionDef) else [code.body]


def _is_helper(function: nodes.NodeNG) -> bool:
    if not isinstance(function, nodes.FunctionDef):
        return False
    if isinstance(function.parent, nodes.Module):
        return True
    return function.type in ("staticmethod", "classmethod")


def _unbound(value: object) -> object:
    """A bound or unbound method's FunctionDef; anything else as it is."""
    if isinstance(value, bases.UnboundMethod):
        # astroid's proxies expose what they wrap only as _proxied.
        return value._proxied  # pylint: disable=protected-access
    return value


def _callee(call: nodes.Call) -> nodes.FunctionDef | None:
    """The one function *call* calls, by inference; a bound method counts as its def."""
    try:
        values = list(call.func.infer())
    except INFERENCE_ERRORS:
        return None
    functions = {id(f): f for f in map(_unbound, values)}
    if len(functions) != 1:
        return None
    (function,) = functions.values()
    return function if isinstance(function, nodes.FunctionDef) else None


def helper_calls(code: Code) -> Iterator[tuple[nodes.FunctionDef, HelperStep]]:
    """The helpers *code* calls where astroid resolves the callee, in source order."""
    for statement in _body(code):
        for call in statement.nodes_of_class(nodes.Call):
            target = _callee(call)
            if not isinstance(target, nodes.FunctionDef) or not _is_helper(target):
                continue
            at = location_of(call)
            if at is None or location_of(target) is None:
                continue  # a builtin or a function astroid made up
            yield target, HelperStep(target.name, at)


Calls = Callable[[Code], list[tuple[nodes.FunctionDef, HelperStep]]]


def _all_helper_calls(code: Code) -> list[tuple[nodes.FunctionDef, HelperStep]]:
    return list(helper_calls(code))


def reached_helpers(
    code: Code,
    depth: int,
    own: frozenset[int] = frozenset(),
    calls: Calls = _all_helper_calls,
) -> list[tuple[nodes.FunctionDef, tuple[HelperStep, ...]]]:
    """Every helper *code* reaches within *depth* calls, with the chain that reaches it.

    *own* holds the ids of code already counted as the caller's own (its staticmethods
    and classmethods): those are not helpers of it. *calls* gives the helper calls of
    one function (a cache of :func:`helper_calls` may be passed).
    """
    reached: list[tuple[nodes.FunctionDef, tuple[HelperStep, ...]]] = []
    seen: set[int] = {id(code), *own}
    frontier: list[tuple[Code, tuple[HelperStep, ...]]] = [(code, ())]
    for _ in range(depth):
        following: list[tuple[Code, tuple[HelperStep, ...]]] = []
        for current, chain in frontier:
            for helper, step in calls(current):
                if id(helper) in seen:
                    continue
                seen.add(id(helper))
                reached.append((helper, (*chain, step)))
                following.append((helper, (*chain, step)))
        frontier = following
        if not frontier:
            break
    return reached

"""A worker loop that gets the name, or the looked-up callable, through a helper.

ATOM's busy loop reads ``func_name, args = self.get_func()``, where ``get_func()`` is a
method of the same class that dequeues the request and returns the name. The receive is
in the helper, the lookup and the reply in the loop: the loop's facts (``drops-none``,
``shared-reply-queue``) are read from the loop once the helper's result is known to carry
the received name. A helper may also do the lookup itself and return the callable
(``func, args = self.get_func()`` with ``getattr(self.runner, name, None)`` in it): the
loop then calls what the helper looked up.

A helper is a method of the loop's own class (``self.get_func()``) or a project function
(``get_func(queue)``), and only what it returns is followed: one step, no guess about what
else it might do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeGuard

from astroid import nodes
from astroid.exceptions import AttributeInferenceError

from pylint_rpcsurface.analysis.helper_calls import reaches_only_python_itself
from pylint_rpcsurface.analysis.inference import (
    inferred_values,
    name_bindings,
    named_definition,
)
from pylint_rpcsurface.discovery.reading import (
    FunctionBodies,
    FunctionBody,
    is_getattr,
    names_in,
)
from pylint_rpcsurface.sources import SourceTree


@dataclass(frozen=True)
class LoopHelpers:
    """The functions whose result a loop may get a received name or a looked-up callable
    from (:func:`may_hand_back`): by id, and the names a loop calls them by."""

    ids: frozenset[int]
    names: frozenset[str]

    @classmethod
    def of(cls, functions: Iterable[nodes.FunctionDef]) -> LoopHelpers:
        chosen = list(functions)
        return cls(frozenset(id(f) for f in chosen), frozenset(f.name for f in chosen))


def helper_of(
    function: nodes.FunctionDef, call: nodes.Call, helpers: LoopHelpers, tree: SourceTree
) -> nodes.FunctionDef | None:
    """The helper *call* (in *function*) calls: a method of *function*'s own class called
    on ``self``, or a project function called by its name (or imported under another),
    when it is one of *helpers*. A function held in a local (``get = next_request``,
    ``get()``) or an attribute is called by no helper's name: no helper call.

    A name bound only to builtins, to the standard library (that no file under *tree*'s
    roots shadows) or to class statements is not inferred: astroid would give those
    objects, or the classes and their instances, never a function of the project, and
    asking it builds their modules and runs the classes' transforms (``inspect`` for
    ``Signature(...)``, a dataclass's) for nothing. Nor is a name the look-up and the
    imports bind to one ``def`` (undecorated): astroid infers it to that function."""
    if not helpers.ids:
        return None
    func = call.func
    if isinstance(func, nodes.Attribute):
        owner = function.parent
        if not (
            isinstance(func.expr, nodes.Name)
            and func.expr.name == "self"
            and isinstance(owner, nodes.ClassDef)
        ):
            return None
        bindings = owner.locals.get(func.attrname, [])
        found = bindings[-1] if bindings else None
        return found if _a_helper(found, function, helpers) else None
    if not isinstance(func, nodes.Name):
        return None
    if reaches_only_python_itself(call, tree) or _only_classes(func):
        return None
    defined = named_definition(func)
    if defined is not None:
        return defined if _a_helper(defined, function, helpers) else None
    if not _a_helper_s_name(func, helpers.names):
        return None
    for value in inferred_values(func)[:4]:
        if _a_helper(value, function, helpers):
            return value
    return None


def _a_helper(
    found: object, function: nodes.FunctionDef, helpers: LoopHelpers
) -> TypeGuard[nodes.FunctionDef]:
    return (
        isinstance(found, nodes.FunctionDef) and id(found) in helpers.ids and found is not function
    )


def _a_helper_s_name(name: nodes.Name, names: frozenset[str]) -> bool:
    """Whether *name* is one of *names*, or imports one under another name (``from m
    import next_request as get``)."""
    if name.name in names:
        return True
    looked_up = name_bindings(name)
    for binding in looked_up[1] if looked_up is not None else ():
        if isinstance(binding, nodes.ImportFrom):
            try:
                original = binding.real_name(name.name)
            except AttributeInferenceError:
                continue
            if original in names:
                return True
    return False


def may_hand_back(helper: nodes.FunctionDef, received: set[str], body: FunctionBody) -> bool:
    """Whether a loop calling *helper* may get from it a name it received (*received*,
    :func:`returned`) or the callable it looked one up to (``getattr`` of a received name,
    assigned and returned): what :func:`received_through` and :func:`looked_up_through`
    follow. No other helper changes what they find, so no call of one is inferred."""
    if not received:
        return False
    return returned(helper, received) is not None or any(_lookups_returned(helper, received, body))


def _lookups_returned(
    helper: nodes.FunctionDef, received: set[str], body: FunctionBody
) -> Iterator[tuple[str, nodes.Call, nodes.NodeNG]]:
    """(the local, the getattr, the value returned) for each ``local = getattr(obj, n)``
    of *helper* (*body*), *n* one of the names it *received*, whose ``return`` carries
    the local."""
    for bound, lookup, _read in body.assignments:
        if not (is_getattr(lookup) and names_in(lookup.args[1]) & received) or len(bound) != 1:
            continue
        back = returned(helper, set(bound))
        if back is not None and back.value is not None:
            yield bound[0], lookup, back.value


def _only_classes(name: nodes.Name) -> bool:
    """Whether astroid's look-up binds *name* to class statements and nothing else."""
    found = name_bindings(name)
    return (
        found is not None
        and bool(found[1])
        and all(isinstance(binding, nodes.ClassDef) for binding in found[1])
    )


def returned(helper: nodes.FunctionDef, names: set[str]) -> nodes.Return | None:
    """A ``return`` of *helper* whose value carries one of *names*."""
    for node in helper.nodes_of_class(nodes.Return):
        if node.scope() is helper and node.value is not None and names_in(node.value) & names:
            return node
    return None


# What bound_from_helpers gives: (the names bound, the helper, the names it received).
HelperBindings = list[tuple[list[str], nodes.FunctionDef, set[str]]]


def received_through(body: FunctionBody, bindings: HelperBindings) -> set[str]:
    """The names of the function of *body* bound from a helper's result that carries a
    name the helper received (``func_name, args = self.get_func()``), and those bound
    from them; *bindings* are :func:`bound_from_helpers`'s for the function."""
    seeds: set[str] = set()
    for targets, helper, received in bindings:
        if returned(helper, received) is not None:
            seeds.update(targets)
    return body.tainted(seeds) if seeds else set()


def looked_up_through(
    bindings: HelperBindings, bodies: FunctionBodies
) -> dict[str, tuple[nodes.FunctionDef, nodes.Call]]:
    """name -> (helper, its getattr) for each local of a function bound to the callable a
    helper looked up by a received name and returns (``func, args = self.get_func()``);
    *bindings* are :func:`bound_from_helpers`'s for the function, *bodies* the helpers'."""
    found: dict[str, tuple[nodes.FunctionDef, nodes.Call]] = {}
    for targets, helper, received in bindings:
        for local, lookup, value in _lookups_returned(helper, received, bodies(helper)):
            position = _position(value, local)
            if position == -1 and len(targets) == 1:
                found[targets[0]] = (helper, lookup)
            elif position is not None and 0 <= position < len(targets) and len(targets) > 1:
                found[targets[position]] = (helper, lookup)
    return found


def bound_from_helpers(
    body: FunctionBody,
    received_in: Callable[[nodes.FunctionDef], set[str]],
    helpers: LoopHelpers,
    tree: SourceTree,
) -> HelperBindings:
    """(the names bound, the helper, the names it received) for each assignment in the
    function of *body* from a call to one of *helpers* (:func:`helper_of`) that receives a
    name. It infers what each call calls: its callers read it once a function."""
    found: HelperBindings = []
    for targets, value, _read in body.assignments:
        if not isinstance(value, nodes.Call):
            continue
        helper = helper_of(body.function, value, helpers, tree)
        if helper is None:
            continue
        received = received_in(helper)
        if received:
            found.append((targets, helper, received))
    return found


def _position(value: nodes.NodeNG, name: str) -> int | None:
    """Where *name* is in a returned tuple (``return func, args``: 0), -1 when the value
    is the name itself, None when it is neither."""
    if isinstance(value, nodes.Name) and value.name == name:
        return -1
    if isinstance(value, nodes.Tuple):
        for index, element in enumerate(value.elts):
            if isinstance(element, nodes.Name) and element.name == name:
                return index
    return None

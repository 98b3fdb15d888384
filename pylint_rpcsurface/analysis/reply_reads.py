"""Whether a value is read: where it is, or, handed back by ``return``, by its callers.

A proxy's reply always arrives (Ray sends None as any other value), so a None reply
matters only where the caller reads it. :func:`value_fate` says what becomes of a value
where it is made: discarded (a statement of its own, or bound to a local nothing reads
after it), read (any other use: assigned and then read, indexed, compared, passed on,
awaited), or handed back by a ``return`` of the function it is in, whose callers decide.
:func:`call_fates` reads one module's calls of such a function: what becomes of each
call's value, the same way.

Nothing here guesses which way a value goes: a return from a lambda or a nested function,
from a generator, or from a function whose decorators may change what it returns, is
read (who calls it is not known); so is a bound method passed on rather than called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from astroid import bases, nodes

from pylint_rpcsurface.analysis.decorators import all_transparent
from pylint_rpcsurface.analysis.inference import inferred_values, location_of
from pylint_rpcsurface.model import Location

__all__ = ["Fate", "Transparent", "call_fates", "keeps_replies", "value_fate"]

# What becomes of a value: read (True), discarded (False), or handed back by ``return``
# of the function named, defined at the place given, whose callers decide.
Fate = bool | tuple[str, Location]

# Whether a function's decorators keep what it returns (``decorators.all_transparent``).
Transparent = Callable[[nodes.FunctionDef], bool]


def keeps_replies(function: nodes.FunctionDef) -> bool:
    """Whether *function*'s decorators keep what it returns, none configured as such."""
    return all_transparent(function, ())


def value_fate(node: nodes.NodeNG, transparent: Transparent) -> Fate:
    """What becomes of the value of the expression *node* where it is made."""
    parent = node.parent
    if isinstance(parent, nodes.Await) and parent.value is node:
        node, parent = parent, parent.parent  # the awaited value is the call's reply
    if isinstance(parent, nodes.Expr):
        return False
    if isinstance(parent, nodes.Return):
        return _returned_by(parent, transparent)
    if (
        isinstance(parent, nodes.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], nodes.AssignName)
    ):
        name = parent.targets[0].name
        line = parent.lineno or 0
        scope = parent.scope()
        reads = [
            read
            for read in scope.nodes_of_class(nodes.Name)
            if read.name == name and (read.lineno or 0) >= line
        ]
        if not reads:
            return False
        if all(read.scope() is scope and isinstance(read.parent, nodes.Return) for read in reads):
            return _returned_by(parent, transparent)  # result = ray.get(...); return result
    return True


def _returned_by(node: nodes.NodeNG, transparent: Transparent) -> Fate:
    """The function a ``return`` in which *node* is hands its value back from, when its
    callers can be found by its name: a method or a module-level function, neither a
    generator nor a coroutine-maker's wrapper, with decorators that keep its replies."""
    function = node.scope()
    if (
        not isinstance(function, nodes.FunctionDef)
        or not isinstance(function.parent, nodes.ClassDef | nodes.Module)
        or function.is_generator()
        or not transparent(function)
    ):
        return True
    at = location_of(function)
    return True if at is None else (function.name, at)


def call_fates(
    module: nodes.Module, target: tuple[str, Location], transparent: Transparent
) -> set[tuple[Fate, Location | None]]:
    """What becomes of the value of each call in *module* that may be of the function
    *target* (its name and place), and where the call is: one whose callee infers to it,
    or does not infer at all (a call written with its name, which nothing shows is of
    another function). A reference to it that is not called (a bound method passed on)
    is read."""
    name, at = target
    found: set[tuple[Fate, Location | None]] = set()
    for node in module.nodes_of_class((nodes.Attribute, nodes.Name)):
        written = node.attrname if isinstance(node, nodes.Attribute) else node.name
        if written != name:
            continue
        values = inferred_values(node)
        ours = any(_is_function(value, name, at) for value in values)
        call = node.parent
        if not isinstance(call, nodes.Call) or call.func is not node:
            if ours:
                found.add((True, location_of(node)))  # passed on, not called here
        elif ours or not _known(values):
            found.add((value_fate(call, transparent), location_of(call)))
    return found


def _known(values: Sequence[object]) -> bool:
    """Whether inference found what a callee is: some value, none of them unknown."""
    return bool(values) and all(isinstance(value, nodes.NodeNG | bases.Proxy) for value in values)


def _is_function(value: object, name: str, at: Location) -> bool:
    """Whether *value* is the function *name* defined at *at*, bound or not."""
    while isinstance(value, bases.UnboundMethod):  # a bound method too
        value = value._proxied  # pylint: disable=protected-access
    return isinstance(value, nodes.FunctionDef) and value.name == name and location_of(value) == at

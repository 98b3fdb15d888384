"""Generic groups: a caller class whose handler is a constructor parameter.

With ``handler-param`` a proxy table's caller (OpenRLHF's ``PPORayActorGroup``) is one
class for every role: the class behind its receivers is the one its constructor got as
that parameter (``PPORayActorGroup(n, g, ActorModelRayActor)``). Which names a handler
must answer then depends on which group methods are called on which instance, so each
method's requirements are read here (the proxy calls in it, and the methods it calls on
``self``), and so are the places an instance is built and used:

- a *construction* is a call that infers to a group class; the argument bound to the
  parameter (positionally, by keyword, or its default) must infer to exactly one class;
- an *instance call* is ``C(...).M(...)``, or ``g.M(...)`` where every binding of the
  local ``g`` in its scope is a plain assignment of a construction or of ``None``.

Nothing else ties a call to a construction: a group passed as a parameter, held in a
list, an attribute or a loop variable is not judged (never guessed). Such a call is an
*untied call* (:func:`untied_calls`) when its receiver is shown to be a group all the same:
a value astroid infers it to is an instance of a group class, or, where astroid stops, a
call in the module passes a group as that parameter, or the loop runs over a list whose
elements (displayed, or appended) are groups. It is named, never judged; a receiver that
is shown to be no group, or nothing at all, is left alone. So is an instance call on a
construction whose argument for the parameter is not one class of the project
(``Group(*args)``): :func:`bound_argument` says None, and the call is named the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from astroid import bases, nodes

from pylint_rpcsurface.analysis.classes import effective_bindings
from pylint_rpcsurface.analysis.inference import (
    class_of_instance,
    infer_unique,
    inferred_values,
    name_bindings,
)
from pylint_rpcsurface.analysis.proxies import proxy_calls
from pylint_rpcsurface.analysis.syntax import appended, builtin_call
from pylint_rpcsurface.model import ProxyCall

__all__ = [
    "MethodNeeds",
    "bound_argument",
    "init_of",
    "init_params",
    "instance_calls",
    "method_needs",
    "untied_calls",
]

# One method of a group class, as its MRO gives it: its name, the proxy calls in it
# (nested code included), and the names it calls on ``self``.
MethodNeeds = tuple[str, tuple[ProxyCall, ...], tuple[str, ...]]
# A construction: the call, and the group class it builds.
Construction = tuple[nodes.Call, nodes.ClassDef]


def _positional(arguments: nodes.Arguments) -> list[nodes.AssignName]:
    """The parameters *arguments* takes by position, ``self`` (if any) included."""
    return [*(arguments.posonlyargs or []), *(arguments.args or [])]


def init_of(order: list[nodes.ClassDef]) -> nodes.FunctionDef | None:
    """The ``__init__`` a class whose MRO is *order* runs, or None (``object``'s)."""
    for klass in order:
        bindings = klass.locals.get("__init__")
        if bindings:
            binding = bindings[-1]
            return binding if isinstance(binding, nodes.FunctionDef) else None
    return None


def init_params(init: nodes.FunctionDef) -> tuple[str, ...]:
    """The parameters *init* takes by name, ``self`` left out."""
    positional = _positional(init.args)[1:]
    return tuple(arg.name for arg in [*positional, *(init.args.kwonlyargs or [])])


def bound_argument(call: nodes.Call, init: nodes.FunctionDef, param: str) -> nodes.NodeNG | None:
    """The expression *call* binds to *init*'s parameter *param* (its default when the
    call passes none), or None when ``*args`` or ``**kwargs`` hide which one it is."""
    args = init.args
    posonly = [arg.name for arg in (args.posonlyargs or [])]
    positional = [*posonly, *(arg.name for arg in (args.args or []))][1:]
    if param in positional:
        index = positional.index(param)
        passed = call.args[: index + 1]
        if any(isinstance(arg, nodes.Starred) for arg in passed):
            return None
        if len(call.args) > index:
            return call.args[index]
    for keyword in call.keywords or []:
        if keyword.arg is None:
            return None  # **kwargs may carry it
        if keyword.arg == param and param not in posonly[1:]:
            return keyword.value
    if param in positional:
        defaults = args.defaults or []
        first_default = len(positional) - len(defaults)
        index = positional.index(param)
        return defaults[index - first_default] if index >= first_default else None
    kwonly = [arg.name for arg in (args.kwonlyargs or [])]
    if param in kwonly:
        default = (args.kw_defaults or [])[kwonly.index(param)]
        return default if isinstance(default, nodes.NodeNG) else None
    return None


def method_needs(
    order: list[nodes.ClassDef], receivers: frozenset[str], remote: bool
) -> list[MethodNeeds]:
    """Each method of a class whose MRO is *order* (its effective definition), with the
    proxy calls it makes and the methods it calls on ``self``, by name."""
    found: list[MethodNeeds] = []
    for name, bindings in effective_bindings(order):
        method = bindings[-1]
        if not isinstance(method, nodes.FunctionDef):
            continue
        calls = sorted(proxy_calls(method, receivers, remote), key=lambda c: (c.at, c.source))
        found.append((name, tuple(calls), tuple(sorted(_self_calls(method)))))
    return sorted(found, key=lambda entry: entry[0])


def _self_calls(method: nodes.FunctionDef) -> set[str]:
    """The names *method* calls on its first parameter (``self.M(...)``)."""
    positional = _positional(method.args)
    if not positional:
        return set()
    own = positional[0].name
    return {
        call.func.attrname
        for call in method.nodes_of_class(nodes.Call)
        if isinstance(call.func, nodes.Attribute)
        and isinstance(call.func.expr, nodes.Name)
        and call.func.expr.name == own
    }


def instance_calls(
    module: nodes.Module, names: frozenset[str], group_of: Callable[[nodes.ClassDef], bool]
) -> Iterator[tuple[nodes.Call, str, list[Construction]]]:
    """Each call of a group method on an instance built in *module* (the call, the
    method's name, and the constructions the instance may be), a construction itself
    being a call of ``__init__``. *names* are the group classes' names, as a call of one
    is written; *group_of* says whether a class is one of them."""
    constructed = _constructions(names, group_of)
    for call in module.nodes_of_class(nodes.Call):
        group = constructed(call)
        if group is not None:
            yield call, "__init__", [(call, group)]
            continue
        if not isinstance(call.func, nodes.Attribute):
            continue
        held = _held(call.func.expr, constructed)
        if held:
            yield call, call.func.attrname, held


def untied_calls(
    module: nodes.Module,
    names: frozenset[str],
    group_of: Callable[[nodes.ClassDef], bool],
    methods: frozenset[str],
) -> Iterator[tuple[nodes.Call, str, list[nodes.ClassDef]]]:
    """Each call of one of the group *methods* in *module* that no construction is tied
    to (:func:`instance_calls` does not give it) but whose receiver is shown to be a group
    (:func:`_receiver_groups`): the call, the method's name, and the group classes it may
    be. ``self.M()`` in a group class's own method is left out: its requirements are the
    caller's own."""
    constructed = _constructions(names, group_of)
    for call in module.nodes_of_class(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute) or func.attrname not in methods:
            continue
        if constructed(call) is not None or _held(func.expr, constructed):
            continue  # a construction, or an instance call: judged
        if _own_self(func.expr, group_of):
            continue
        groups = _receiver_groups(func.expr, module, group_of)
        if groups:
            yield call, func.attrname, groups


def _constructions(
    names: frozenset[str], group_of: Callable[[nodes.ClassDef], bool]
) -> Callable[[nodes.NodeNG], nodes.ClassDef | None]:
    """A function that says which group class a node constructs, or None."""
    known: dict[int, nodes.ClassDef | None] = {}

    def constructed(node: nodes.NodeNG) -> nodes.ClassDef | None:
        if not isinstance(node, nodes.Call):
            return None
        func = node.func
        written = func.name if isinstance(func, nodes.Name) else None
        if isinstance(func, nodes.Attribute):
            written = func.attrname
        if written not in names:
            return None  # not named as a group class: the only calls worth inferring
        if id(node) not in known:
            value = infer_unique(func)
            known[id(node)] = (
                value if isinstance(value, nodes.ClassDef) and group_of(value) else None
            )
        return known[id(node)]

    return constructed


def _own_self(node: nodes.NodeNG, group_of: Callable[[nodes.ClassDef], bool]) -> bool:
    """Whether *node* names the first parameter of a method of a group class (nested
    functions in it included: :func:`method_needs` follows their self calls too)."""
    looked_up = name_bindings(node) if isinstance(node, nodes.Name) else None
    if looked_up is None:
        return False
    _, bindings = looked_up
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Arguments):
        return False
    function = bindings[0].parent.parent
    if not isinstance(function, nodes.FunctionDef) or not isinstance(
        function.parent, nodes.ClassDef
    ):
        return False
    positional = _positional(function.args)
    return bool(positional) and positional[0] is bindings[0] and group_of(function.parent)


def _groups_among(
    values: Sequence[object], group_of: Callable[[nodes.ClassDef], bool]
) -> list[nodes.ClassDef]:
    """The group classes of which some of *values* are instances."""
    found: list[nodes.ClassDef] = []
    for value in values:
        klass = class_of_instance(value)
        if klass is not None and group_of(klass) and klass not in found:
            found.append(klass)
    return found


def _receiver_groups(
    node: nodes.NodeNG, module: nodes.Module, group_of: Callable[[nodes.ClassDef], bool]
) -> list[nodes.ClassDef]:
    """The group classes *node* is shown to hold an instance of: some value astroid
    infers it to, or, for a local astroid can't follow, some binding of it: a parameter
    of a module-level function or a method that a call in *module* passes a group, or a
    loop variable
    over a list (directly, or as ``zip``'s or ``enumerate``'s argument) a group is
    displayed in or appended to."""
    found = _groups_among(inferred_values(node), group_of)
    looked_up = name_bindings(node) if not found and isinstance(node, nodes.Name) else None
    if looked_up is None:
        return found
    for binding in looked_up[1]:
        if not isinstance(binding, nodes.AssignName):
            continue
        for value in _parameter_values(binding, module) + _loop_values(binding):
            for klass in _groups_among(inferred_values(value), group_of):
                if klass not in found:
                    found.append(klass)
    return found


def _parameter_values(binding: nodes.AssignName, module: nodes.Module) -> list[nodes.NodeNG]:
    """The arguments the calls in *module* of a module-level function, or of a method
    called on an instance (``obj.m(g)``, ``self.m(g)``), pass as its parameter *binding*
    (by position or keyword)."""
    arguments = binding.parent
    if not isinstance(arguments, nodes.Arguments):
        return []
    function = arguments.parent
    if not isinstance(function, nodes.FunctionDef):
        return []
    positional = [a.name for a in _positional(arguments)]
    if isinstance(function.parent, nodes.ClassDef) and function.type == "method":
        positional = positional[1:]  # the instance is bound: the call passes the rest
    elif not isinstance(function.parent, nodes.Module):
        return []
    found: list[nodes.NodeNG] = []
    for call in module.nodes_of_class(nodes.Call):
        if not _calls(call, function):
            continue
        if binding.name in positional:
            index = positional.index(binding.name)
            passed = call.args[: index + 1]
            if len(passed) > index and not any(isinstance(a, nodes.Starred) for a in passed):
                found.append(call.args[index])
                continue
        found.extend(k.value for k in call.keywords or [] if k.arg == binding.name)
    return found


def _calls(call: nodes.Call, function: nodes.FunctionDef) -> bool:
    """Whether *call* calls *function*: by its name, or, for a method, as a method of an
    instance (a bound method astroid infers the callee to)."""
    func = call.func
    if isinstance(func, nodes.Name):
        return func.name == function.name and infer_unique(func) is function
    if not isinstance(func, nodes.Attribute) or func.attrname != function.name:
        return False
    if not isinstance(function.parent, nodes.ClassDef):
        return False
    values = inferred_values(func)
    return bool(values) and all(_method_of(value) is function for value in values)


def _method_of(value: object) -> nodes.NodeNG | None:
    """The definition of the bound method *value*, or None: astroid wraps a method's
    definition in an UnboundMethod, and that in the BoundMethod."""
    if not isinstance(value, bases.BoundMethod):
        return None
    unbound = value._proxied  # pylint: disable=protected-access
    if not isinstance(unbound, bases.UnboundMethod):
        return None
    definition = unbound._proxied  # pylint: disable=protected-access
    return definition if isinstance(definition, nodes.NodeNG) else None


def _loop_values(binding: nodes.AssignName) -> list[nodes.NodeNG]:
    """The elements of the list a loop variable *binding* runs over: ``for x in L``,
    ``for x, y in zip(L, M)`` (``x`` runs over L), ``for i, x in enumerate(L)``."""
    target: nodes.NodeNG = binding
    parent = binding.parent
    position = None
    if isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.For):
        position = parent.elts.index(binding)
        target, parent = parent, parent.parent
    if not isinstance(parent, nodes.For) or parent.target is not target:
        return []
    iterated = parent.iter
    if position is None:
        return _elements(iterated)
    if builtin_call(iterated, "zip", *range(position + 1, position + 9)):
        return _elements(iterated.args[position])
    if position == 1 and builtin_call(iterated, "enumerate", 1):
        return _elements(iterated.args[0])
    return []


def _elements(node: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The elements of a list display *node*, or of the local it names: those of the
    displays assigned to it, and the arguments of its ``append`` calls in its scope."""
    if isinstance(node, (nodes.List, nodes.Tuple, nodes.Set)):
        return [elt for elt in node.elts if isinstance(elt, nodes.NodeNG)]
    if not isinstance(node, nodes.Name) or (looked_up := name_bindings(node)) is None:
        return []
    scope, bindings = looked_up
    found: list[nodes.NodeNG] = []
    for binding in bindings:
        parent = binding.parent
        if isinstance(parent, nodes.Assign) and isinstance(parent.value, (nodes.List, nodes.Tuple)):
            found.extend(elt for elt in parent.value.elts if isinstance(elt, nodes.NodeNG))
    found.extend(appended(scope, node.name))
    return found


def _held(
    node: nodes.NodeNG, constructed: Callable[[nodes.NodeNG], nodes.ClassDef | None]
) -> list[Construction]:
    """The constructions *node* holds: itself, or every binding of the local it names."""
    group = constructed(node)
    if group is not None:
        assert isinstance(node, nodes.Call)
        return [(node, group)]
    looked_up = name_bindings(node) if isinstance(node, nodes.Name) else None
    if looked_up is None:
        return []
    found: list[Construction] = []
    for binding in looked_up[1]:
        parent = binding.parent
        if (
            not isinstance(binding, nodes.AssignName)
            or not isinstance(parent, nodes.Assign)
            or len(parent.targets) != 1
            or parent.targets[0] is not binding
        ):
            return []  # a parameter, a loop variable, an unpacking: not tied to one
        value = parent.value
        if isinstance(value, nodes.Const) and value.value is None:
            continue  # the group is absent on that path: nothing is called
        group = constructed(value)
        if group is None:
            return []
        assert isinstance(value, nodes.Call)
        found.append((value, group))
    return found

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
list, an attribute or a loop variable is not judged (never guessed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from astroid import nodes

from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, infer_unique
from pylint_rpcsurface.analysis.proxies import proxy_calls
from pylint_rpcsurface.model import ProxyCall

__all__ = [
    "MethodNeeds",
    "bound_argument",
    "init_of",
    "init_params",
    "instance_calls",
    "method_needs",
]

# One method of a group class, as its MRO gives it: its name, the proxy calls in it
# (nested code included), and the names it calls on ``self``.
MethodNeeds = tuple[str, tuple[ProxyCall, ...], tuple[str, ...]]
# A construction: the call, and the group class it builds.
Construction = tuple[nodes.Call, nodes.ClassDef]


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
    args = init.args
    positional = [*(args.posonlyargs or []), *(args.args or [])][1:]
    return tuple(arg.name for arg in [*positional, *(args.kwonlyargs or [])])


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
    seen: set[str] = set()
    found: list[MethodNeeds] = []
    for klass in order:
        for name, bindings in klass.locals.items():
            if name in seen:
                continue
            seen.add(name)
            method = bindings[-1]
            if not isinstance(method, nodes.FunctionDef):
                continue
            calls = sorted(proxy_calls(method, receivers, remote), key=lambda c: (c.at, c.source))
            found.append((name, tuple(calls), tuple(sorted(_self_calls(method)))))
    return sorted(found, key=lambda entry: entry[0])


def _self_calls(method: nodes.FunctionDef) -> set[str]:
    """The names *method* calls on its first parameter (``self.M(...)``)."""
    positional = [*(method.args.posonlyargs or []), *(method.args.args or [])]
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


def _held(
    node: nodes.NodeNG, constructed: Callable[[nodes.NodeNG], nodes.ClassDef | None]
) -> list[Construction]:
    """The constructions *node* holds: itself, or every binding of the local it names."""
    group = constructed(node)
    if group is not None:
        assert isinstance(node, nodes.Call)
        return [(node, group)]
    if not isinstance(node, nodes.Name):
        return []
    try:
        _, bindings = node.lookup(node.name)
    except (*INFERENCE_ERRORS, AttributeError, KeyError):
        return []
    found: list[Construction] = []
    for binding in bindings:
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

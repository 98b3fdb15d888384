"""Attribute-proxy RPCs: the name is the attribute called on a proxy.

A proxy is a Ray actor handle or a worker group that a caller holds in one of the
configured *receivers* (``self._actor_handlers``). An element of a receiver is a proxy
too: the target of a ``for`` loop or a comprehension over it (or over ``enumerate`` or
``zip`` of it), a subscript of it, and a local name every binding of which is one of
these. A call on a proxy is ``<proxy>.<name>(...)``, or, with ``remote``,
``<proxy>.<name>.remote(...)`` and ``<proxy>.<name>.options(...).remote(...)``;
``getattr(<proxy>, "<name>")`` stands for ``<proxy>.<name>``.

A call is waited with ``remote = false`` always; with ``remote``, where its result reaches
``ray.get`` (recognised by the qualified name of its import, never by importing ray), by
the same reader a ``waited-by`` dispatch form uses (:func:`..broadcasts.waiter_of`).

Nothing here guesses: a local bound from a proxy on one path and from something else on
another is not a proxy; a ``getattr`` whose name does not infer to one str is a call whose
name is unknown (``rpc`` None), reported as such by the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from astroid import nodes

from pylint_rpcsurface.analysis.broadcasts import unpacked_by, waiter_of
from pylint_rpcsurface.analysis.classes import binds_at_class_level, effective_bindings
from pylint_rpcsurface.analysis.conditions import conditions_of
from pylint_rpcsurface.analysis.decorators import qualified_name
from pylint_rpcsurface.analysis.inference import (
    infer_unique,
    location_of,
    name_bindings,
)
from pylint_rpcsurface.analysis.reply_reads import Fate, Transparent, keeps_replies, value_fate
from pylint_rpcsurface.analysis.syntax import before_options, builtin_call
from pylint_rpcsurface.model import ProxyCall, Sent

__all__ = ["exposed_names", "proxy_calls", "receivers_in"]

_T = TypeVar("_T", bound=Hashable)
_MAX_DEPTH = 16  # how many bindings deep a local is followed back to a receiver
_NO_RECEIVER = ""
_RAY_GET = frozenset({"ray.get"})  # the waiter of a Ray object ref


def proxy_calls(
    code: nodes.NodeNG,
    receivers: frozenset[str],
    remote: bool,
    transparent: Transparent = keeps_replies,
) -> list[ProxyCall]:
    """The proxy calls in *code* (a function or lambda, nested code included); a
    function's decorators keep what it returns where *transparent* says so (a reply it
    returns is then its callers' to read)."""
    label = _code_label(code)
    found: list[ProxyCall] = []
    for call in code.nodes_of_class(nodes.Call):
        read = _read_call(call, receivers, remote)
        if read is None:
            continue
        rpc, source, receiver, by_getattr_default = read
        at = location_of(call)
        if at is None:
            continue
        guarded = by_getattr_default or (rpc is not None and _under_hasattr(call, rpc, receivers))
        waited, fate, unpacked = _wait(call, remote, transparent)
        found.append(
            ProxyCall(
                at,
                rpc,
                source,
                receiver,
                label,
                guarded,
                _sent(call),
                waited=waited,
                reply_used=fate is not False,
                unpacked=unpacked,
                returned_by=fate if isinstance(fate, tuple) else None,
                conditions=conditions_of(call),
            )
        )
    return found


def _wait(
    call: nodes.Call, remote: bool, transparent: Transparent
) -> tuple[bool | None, Fate, int | None]:
    """Whether *call* is waited, what becomes of its waited reply (:func:`value_fate`),
    and how many names it is unpacked into. With ``remote``, the reply is ``ray.get``'s
    value; that value is this call's own reply (so its unpacking counts) only when the
    call is ray.get's one argument as it is, not a list or comprehension of replies."""
    if not remote:
        return True, value_fate(call, transparent), unpacked_by(call)
    waited, waiter, alone = waiter_of(call, _RAY_GET)
    if waited is not True or waiter is None:
        return waited, False, None
    return True, value_fate(waiter, transparent), unpacked_by(waiter) if alone else None


def receivers_in(code: nodes.NodeNG, receivers: frozenset[str]) -> frozenset[str]:
    """Which of *receivers* *code* names, as written."""
    found = set()
    for node in code.nodes_of_class(
        (nodes.Name, nodes.Attribute, nodes.AssignName, nodes.AssignAttr)
    ):
        text = node.as_string()
        if text in receivers:
            found.add(text)
    return frozenset(found)


def _sent(call: nodes.Call) -> Sent | None:
    """The arguments *call* passes on to the handler's method; None with ``*args`` or
    ``**kwargs``, which may carry anything."""
    if any(isinstance(arg, nodes.Starred) for arg in call.args):
        return None
    keywords = call.keywords or []
    if any(keyword.arg is None for keyword in keywords):
        return None
    return Sent(len(call.args), tuple(str(keyword.arg) for keyword in keywords))


def _code_label(code: nodes.NodeNG) -> str:
    """``Class.method`` of the method or function holding *code*, nested code included."""
    function: nodes.NodeNG | None = code
    outermost: nodes.FunctionDef | None = None
    while function is not None and not isinstance(function, nodes.Module | nodes.ClassDef):
        if isinstance(function, nodes.FunctionDef):
            outermost = function
        function = function.parent
    if outermost is None:
        return "<lambda>"
    if isinstance(function, nodes.ClassDef):
        return f"{function.name}.{outermost.name}"
    return outermost.name


# A proxy call read: the name (None when unknown), the name as written, the receiver it
# comes from, and whether a getattr default guards it.
_Read = tuple[str | None, str, str, bool]


def _read_call(call: nodes.Call, receivers: frozenset[str], remote: bool) -> _Read | None:
    func = call.func
    if remote:
        if not isinstance(func, nodes.Attribute) or func.attrname != "remote":
            return None
        # <proxy>.<name>.remote(...), or <proxy>.<name>.options(...).remote(...)
        return _read_member(before_options(func.expr), receivers)
    return _read_member(func, receivers)


def _read_member(node: nodes.NodeNG, receivers: frozenset[str], depth: int = 0) -> _Read | None:
    """``<proxy>.<name>`` or ``getattr(<proxy>, <name>[, default])`` read, or a local name
    every binding of which is the same such read (``method = getattr(actor, name)``)."""
    if isinstance(node, nodes.Name):
        return _local_member(node, receivers, depth)
    if isinstance(node, nodes.Attribute):
        receiver = _receiver_of(node.expr, receivers, 0)
        if receiver is None:
            return None
        return (node.attrname, node.attrname, receiver, False)
    if builtin_call(node, "getattr", 2, 3):
        receiver = _receiver_of(node.args[0], receivers, 0)
        if receiver is None:
            return None
        name_node = node.args[1]
        value = infer_unique(name_node)
        rpc = (
            value.value if isinstance(value, nodes.Const) and isinstance(value.value, str) else None
        )
        return (rpc, name_node.as_string(), receiver, len(node.args) == 3)
    return None


def _local_member(name: nodes.Name, receivers: frozenset[str], depth: int) -> _Read | None:
    """The member read every binding of the local *name* is, or None: a parameter, a
    binding from anything else, or two bindings that read different members."""
    if depth > _MAX_DEPTH:
        return None

    def read(binding: nodes.AssignName) -> _Read | None:
        parent = binding.parent
        if not isinstance(parent, nodes.Assign) or parent.targets != [binding]:
            return None
        return _read_member(parent.value, receivers, depth + 1)

    return _every_binding(name, read)


def _receiver_of(node: nodes.NodeNG, receivers: frozenset[str], depth: int) -> str | None:
    """The configured receiver whose proxy (or element) *node* holds, or None."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, (nodes.Name, nodes.Attribute)):
        text = node.as_string()
        if text in receivers:
            return text
    if isinstance(node, nodes.Subscript):
        return _receiver_of(node.value, receivers, depth + 1)
    if isinstance(node, nodes.Name):
        return _local_receiver(node, receivers, depth)
    return None


def _local_receiver(name: nodes.Name, receivers: frozenset[str], depth: int) -> str | None:
    """The receiver every binding of the local *name* takes its value from, or None."""
    return _every_binding(name, lambda binding: _binding_receiver(binding, receivers, depth + 1))


def _every_binding(
    name: nodes.Name, value_of: Callable[[nodes.AssignName], _T | None]
) -> _T | None:
    """The one value *value_of* gives for every binding of the local *name*, or None: a
    binding that is no assignment (a parameter, an import, a def), one it gives None
    for, or two bindings that give different values (nothing is proved then)."""
    looked_up = name_bindings(name)
    if looked_up is None:
        return None
    found: set[_T] = set()
    for binding in looked_up[1]:
        if not isinstance(binding, nodes.AssignName):
            return None
        value = value_of(binding)
        if value is None:
            return None
        found.add(value)
    return found.pop() if len(found) == 1 else None


def _binding_receiver(
    binding: nodes.AssignName, receivers: frozenset[str], depth: int
) -> str | None:
    target: nodes.NodeNG = binding
    position: list[int] = []
    parent = binding.parent
    while isinstance(parent, nodes.Tuple | nodes.List):
        position.append(parent.elts.index(target))
        target, parent = parent, parent.parent
    if isinstance(parent, nodes.Assign) and not position:
        return _receiver_of(parent.value, receivers, depth)
    if isinstance(parent, nodes.For | nodes.Comprehension) and parent.target is target:
        return _element_receiver(parent.iter, list(reversed(position)), receivers, depth)
    return None


def _element_receiver(
    iterated: nodes.NodeNG, position: list[int], receivers: frozenset[str], depth: int
) -> str | None:
    """The receiver an element of *iterated* at *position* (unpacked) comes from."""
    if not position:
        return _receiver_of(iterated, receivers, depth)
    if isinstance(iterated, nodes.Call) and isinstance(iterated.func, nodes.Name):
        if iterated.keywords or any(isinstance(a, nodes.Starred) for a in iterated.args):
            return None
        if iterated.func.name == "enumerate" and len(iterated.args) == 1 and position[0] == 1:
            return _element_receiver(iterated.args[0], position[1:], receivers, depth + 1)
        if iterated.func.name == "zip" and position[0] < len(iterated.args):
            return _element_receiver(iterated.args[position[0]], position[1:], receivers, depth + 1)
    return None


def _under_hasattr(call: nodes.Call, rpc: str, receivers: frozenset[str]) -> bool:
    """Whether *call* runs only where ``hasattr(<proxy>, "<rpc>")`` was true: in the body
    of an ``if`` (or the true branch of a conditional expression) testing it."""
    child: nodes.NodeNG = call
    parent = call.parent
    while parent is not None and not isinstance(parent, nodes.Module):
        if isinstance(parent, nodes.If | nodes.IfExp):
            body = parent.body if isinstance(parent.body, list) else [parent.body]
            if any(child is part for part in body) and _tests_hasattr(parent.test, rpc, receivers):
                return True
        if isinstance(parent, nodes.BoolOp) and parent.op == "and":
            before = parent.values[: parent.values.index(child)] if child in parent.values else []
            if any(_tests_hasattr(value, rpc, receivers) for value in before):
                return True
        child, parent = parent, parent.parent
    return False


def _tests_hasattr(test: nodes.NodeNG, rpc: str, receivers: frozenset[str]) -> bool:
    for call in _and_terms(test):
        if (
            builtin_call(call, "hasattr", 2)
            and isinstance(call.args[1], nodes.Const)
            and call.args[1].value == rpc
            and _receiver_of(call.args[0], receivers, 0) is not None
        ):
            return True
    return False


def _and_terms(test: nodes.NodeNG) -> Iterable[nodes.NodeNG]:
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        for value in test.values:
            yield from _and_terms(value)
    else:
        yield test


def exposed_names(
    order: list[nodes.ClassDef],
    exposed_by: str | None,
    qualname: Callable[[nodes.ClassDef | nodes.FunctionDef], str],
) -> frozenset[str]:
    """The names a class whose MRO is *order* answers: every name bound at class level,
    or with *exposed_by*, the methods whose effective definition (by MRO) carries that
    decorator (``@register`` or ``@register(...)``)."""
    names: set[str] = set()
    for name, bindings in effective_bindings(order):
        if exposed_by is None:
            if any(binds_at_class_level(b) for b in bindings):
                names.add(name)
            continue
        binding = bindings[-1]
        if isinstance(binding, nodes.FunctionDef) and _decorated_by(binding, exposed_by, qualname):
            names.add(name)
    return frozenset(names)


def _decorated_by(
    method: nodes.FunctionDef,
    wanted: str,
    qualname: Callable[[nodes.ClassDef | nodes.FunctionDef], str],
) -> bool:
    decorators = method.decorators.nodes if method.decorators else []
    for decorator in decorators:
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        if qualified_name(target) == wanted:
            return True
        value = infer_unique(target)
        if isinstance(value, nodes.FunctionDef | nodes.ClassDef) and qualname(value) == wanted:
            return True
    return False

"""Which decorators leave a handler's signature and reply as written.

A decorator is transparent when

* its fully qualified name is listed (``transparent-decorators``: ``torch.inference_mode``,
  ``functools.lru_cache`` and the like), written bare or called
  (``@torch.inference_mode()``); the name is read from the module's imports, never by
  importing anything; or
* astroid shows it is a function (or a factory returning one) that returns a wrapper
  defined inside it, which passes its own ``*args`` and ``**kwargs`` (after any leading
  positional parameters, in order) to the wrapped function and returns what that call
  returns on every path: ``functools.wraps`` on the wrapper or not.

``staticmethod`` and ``classmethod`` are read as what they are. Any other decorator may
replace the method: its handler's signature and replies are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable

from astroid import nodes

from pylint_rpcsurface.analysis.handlers import can_complete, own_returns
from pylint_rpcsurface.analysis.inference import infer_unique, name_bindings

_BUILTIN = ("staticmethod", "classmethod")


def all_transparent(method: nodes.FunctionDef, listed: Iterable[str]) -> bool:
    """Whether every decorator of *method* keeps its signature and its replies."""
    names = frozenset(listed)
    decorators = method.decorators.nodes if method.decorators else []
    return all(_transparent(decorator, names) for decorator in decorators)


def _transparent(decorator: nodes.NodeNG, listed: frozenset[str]) -> bool:
    if isinstance(decorator, nodes.Name) and decorator.name in _BUILTIN:
        return True
    target = decorator.func if isinstance(decorator, nodes.Call) else decorator
    name = qualified_name(target)
    if name is not None and name in listed:
        return True
    return _wraps_through(decorator)


def qualified_name(node: nodes.NodeNG) -> str | None:
    """``torch.inference_mode`` for ``torch.inference_mode``, ``th.inference_mode`` after
    ``import torch as th``, or ``inference_mode`` after ``from torch import
    inference_mode``; None when the expression is not a dotted name of an import."""
    parts: list[str] = []
    while isinstance(node, nodes.Attribute):
        parts.append(node.attrname)
        node = node.expr
    if not isinstance(node, nodes.Name):
        return None
    looked_up = name_bindings(node)
    if looked_up is None:
        return None
    bindings = looked_up[1]
    if len(bindings) != 1:
        return None
    binding = bindings[0]
    base: str | None = None
    if isinstance(binding, nodes.Import):
        for imported, alias in binding.names:
            if (alias or imported.split(".", 1)[0]) == node.name:
                base = imported if alias else imported.split(".", 1)[0]
    elif isinstance(binding, nodes.ImportFrom) and not binding.level:
        for imported, alias in binding.names:
            if (alias or imported) == node.name:
                base = f"{binding.modname}.{imported}"
    if base is None:
        return None
    return ".".join([base, *reversed(parts)])


def _wraps_through(decorator: nodes.NodeNG) -> bool:
    """A decorator astroid shows to return a pass-through wrapper of the function."""
    if isinstance(decorator, nodes.Call):
        factory = infer_unique(decorator.func)
        if not isinstance(factory, nodes.FunctionDef):
            return False
        inner = _returned_def(factory)
        return inner is not None and _is_pass_through_decorator(inner)
    function = infer_unique(decorator)
    return isinstance(function, nodes.FunctionDef) and _is_pass_through_decorator(function)


def _returned_def(function: nodes.FunctionDef) -> nodes.FunctionDef | None:
    """The function defined inside *function* that every return of it returns."""
    returns = _own_returns(function)
    found: nodes.FunctionDef | None = None
    for statement in returns:
        value = statement.value
        if not isinstance(value, nodes.Name):
            return None
        defined = [
            d for d in function.locals.get(value.name, []) if isinstance(d, nodes.FunctionDef)
        ]
        if len(function.locals.get(value.name, [])) != 1 or len(defined) != 1:
            return None
        if found is not None and found is not defined[0]:
            return None
        found = defined[0]
    return found


def _is_pass_through_decorator(decorator: nodes.FunctionDef) -> bool:
    arguments = decorator.args
    if arguments.args is None or len(arguments.args) != 1 or arguments.vararg or arguments.kwarg:
        return False
    wrapped = arguments.args[0].name
    wrapper = _returned_def(decorator)
    return wrapper is not None and _passes_through(wrapper, wrapped)


def _passes_through(wrapper: nodes.FunctionDef, wrapped: str) -> bool:
    """``def w(a, *args, **kwargs): ...; return wrapped(a, *args, **kwargs)`` on every path."""
    arguments = wrapper.args
    if arguments.args is None or not arguments.vararg or not arguments.kwarg:
        return False
    if arguments.kwonlyargs or arguments.posonlyargs or arguments.defaults:
        return False
    leading = [argument.name for argument in arguments.args]
    returns = _own_returns(wrapper)
    if not returns or _can_fall_off(wrapper):
        return False
    for statement in returns:
        call = statement.value
        if not (
            isinstance(call, nodes.Call)
            and isinstance(call.func, nodes.Name)
            and call.func.name == wrapped
        ):
            return False
        passed = call.args or []
        if len(passed) != len(leading) + 1:
            return False
        for argument, name in zip(passed[:-1], leading, strict=True):
            if not (isinstance(argument, nodes.Name) and argument.name == name):
                return False
        star = passed[-1]
        if not (
            isinstance(star, nodes.Starred)
            and isinstance(star.value, nodes.Name)
            and star.value.name == arguments.vararg
        ):
            return False
        keywords = call.keywords or []
        if not (
            len(keywords) == 1
            and keywords[0].arg is None
            and isinstance(keywords[0].value, nodes.Name)
            and keywords[0].value.name == arguments.kwarg
        ):
            return False
    return True


def _own_returns(function: nodes.FunctionDef) -> list[nodes.Return]:
    return list(own_returns(function))


def _can_fall_off(function: nodes.FunctionDef) -> bool:
    return can_complete(function.body)

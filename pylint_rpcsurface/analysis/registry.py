"""Reading a registry constant: its elements, each with the place it is written.

astroid's own evaluation of ``frozenset(...)`` or ``set(...)`` makes up element nodes
with no position, so a finding about one element could not point at it. This evaluator
follows the syntax instead (literals, ``*``/``**`` unpacking, ``+`` and ``|``, the
builtin constructors, names through inference) and falls back on astroid's inference
only for what the syntax does not show, reporting such elements at the assignment.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence

import astroid
from astroid import nodes, objects
from astroid.builder import AstroidBuilder

from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, infer_unique, location_of
from pylint_rpcsurface.analysis.registry_literal import CONSTRUCTORS, assigned_value, str_literals
from pylint_rpcsurface.analysis.syntax import changed_in_place
from pylint_rpcsurface.model import Location, Registry, RegistryElement
from pylint_rpcsurface.sources import as_identifiers, python_lines

_CONSTRUCTORS = frozenset(f"builtins.{name}" for name in CONSTRUCTORS)
_MAX_DEPTH = 40


class _Refused(Exception):
    """The value can't be evaluated statically; the message says why."""


def read_registry(
    module: nodes.Module,
    attribute: str,
    qualname: str,
    changes: Mapping[str, nodes.NodeNG] | None = None,
) -> Registry:
    """The registry *attribute* of *module* holds; *changes*, given, are the module's
    in-place changes by name (:func:`.syntax.first_changes_in_place`), read once for all
    its constants by a caller reading many."""
    module_at = Location(module.file or "", 1, 0, None, None)
    bindings = [b for b in module.locals.get(attribute, []) if isinstance(b, nodes.NodeNG)]
    if not bindings:
        return Registry(qualname, module_at, (), f"is not defined in module {module.name}")
    target_at = location_of(bindings[0]) or module_at
    if len(bindings) > 1:
        lines = ", ".join(str(b.lineno) for b in bindings)
        return Registry(
            qualname,
            target_at,
            (),
            f"is bound {len(bindings)} times (lines {lines}); expected one module-level assignment",
        )
    binding = bindings[0]
    value = _assigned_value(binding, module, attribute)
    try:
        if value is None:
            raise _Refused("is not assigned a value that can be read")
        mutated = changed_in_place(module, attribute) if changes is None else changes.get(attribute)
        if mutated is not None:
            raise _Refused(f"it is changed in place on line {mutated.lineno}")
        elements = _elements(value, target_at, 0)
    except _Refused as refusal:
        return Registry(qualname, target_at, (), f"can't be evaluated statically: {refusal}")
    return Registry(qualname, target_at, tuple(elements))


def read_registry_alone(
    text: str, path: str, modname: str, attribute: str, qualname: str
) -> Registry | None:
    """:func:`read_registry` on the registry's own statement, built alone, when nothing
    else in the module can bear on it; None otherwise (then the module is built whole).

    That holds when the registry is assigned at the top level a tuple, list or set of
    string literals, its name is written nowhere else in the module (no other binding, no
    change in place, no use), and no ``import *`` could bind it. The other statements
    then cannot change what :func:`read_registry` finds, and building them (a dataclass
    there makes astroid build the standard library's ``dataclasses``) is most of the cost
    of reading the registry. The statement keeps its lines and columns, and the module
    its name and path, so astroid's transforms by module name apply as to the whole.
    """
    words = as_identifiers(text)  # a fullwidth spelling is the same name
    if len(re.findall(rf"(?<!\w){re.escape(attribute)}(?!\w)", words)) != 1:
        return None
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in ast.walk(tree)
    ):
        return None
    statement = next(
        (s for s in tree.body if str_literals(assigned_value(s, attribute)) is not None), None
    )
    if statement is None or statement.col_offset != 0 or statement.end_lineno is None:
        return None
    lines = python_lines(text)
    kept = range(statement.lineno - 1, statement.end_lineno)
    alone = "".join(line if number in kept else "\n" for number, line in enumerate(lines))
    return read_registry_text(alone, path, modname, attribute, qualname)


def read_registry_text(
    text: str, path: str, modname: str, attribute: str, qualname: str
) -> Registry | None:
    """:func:`read_registry` on *text* built as module *modname* on its own, without
    leaving it in astroid's cache; None when astroid can't build it. ``rpcsurface fix``
    reads each rewrite back with this, so what it writes is what the checker reads."""
    cache = astroid.MANAGER.astroid_cache
    held = cache.get(modname)
    try:
        module = AstroidBuilder(astroid.MANAGER).string_build(text, modname, path)
    except (astroid.AstroidBuildingError, RecursionError, ValueError):
        return None
    finally:
        # Never the module of that name for anyone else: it is this text's alone.
        # (astroid keeps the first module built under a name: one held before stays.)
        if held is None:
            cache.pop(modname, None)
        else:
            cache[modname] = held
    return read_registry(module, attribute, qualname)


def _assigned_value(
    binding: nodes.NodeNG, module: nodes.Module, attribute: str
) -> nodes.NodeNG | None:
    parent = binding.parent
    if (
        isinstance(parent, (nodes.Assign, nodes.AnnAssign))
        and parent.value is not None
        and (isinstance(parent, nodes.AnnAssign) or parent.targets == [binding])
    ):
        return parent.value
    # Imports, unpacking and the like: let inference find the value.
    try:
        values = list(module.igetattr(attribute))
    except INFERENCE_ERRORS:
        return None
    first = values[0] if len(values) == 1 else None
    return first if isinstance(first, nodes.NodeNG) else None


def _elements(node: object, fallback: Location, depth: int) -> list[RegistryElement]:
    if not isinstance(node, nodes.NodeNG):
        raise _Refused("a value is not known")
    if depth > _MAX_DEPTH:
        raise _Refused("it is nested too deeply")
    if isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)):
        return _sequence(node.elts, fallback, depth)
    if isinstance(node, nodes.Dict):
        found: list[RegistryElement] = []
        for key, value in node.items:
            if isinstance(key, nodes.DictUnpack):
                found.extend(_elements(value, fallback, depth + 1))
            else:
                found.append(_element(key, fallback))
        return found
    if isinstance(node, nodes.BinOp) and node.op in ("+", "|"):
        return _elements(node.left, fallback, depth + 1) + _elements(
            node.right, fallback, depth + 1
        )
    if isinstance(node, nodes.Call):
        constructed = _constructor_argument(node)
        if constructed is not None:
            return [] if constructed is node else _elements(constructed, fallback, depth + 1)
    if isinstance(node, nodes.Call):
        _refuse_mutating_function(node)
    inferred = infer_unique(node)
    if inferred is None:
        raise _Refused(f"'{node.as_string()}' does not infer to one value")
    if isinstance(inferred, objects.FrozenSet):  # made up by astroid's brain: no places
        return _sequence(inferred.elts, location_of(node) or fallback, depth + 1)
    if inferred is node or not isinstance(
        inferred, (nodes.Tuple, nodes.List, nodes.Set, nodes.Dict)
    ):
        kind = (
            type(inferred).__name__
            if not isinstance(inferred, nodes.Const)
            else repr(inferred.value)
        )
        raise _Refused(f"'{node.as_string()}' is {kind}, not a tuple, list, set or dict of str")
    # Elements astroid made up carry no place of their own; they fall back to the
    # assignment, which is where the user can act on them.
    return _elements(inferred, location_of(node) or fallback, depth + 1)


def _refuse_mutating_function(call: nodes.Call) -> None:
    """A registry computed by a function that changes a container in place (a list built
    with ``append``, say) would be read as astroid sees it, before the changes: a guess."""
    func = infer_unique(call.func)
    if isinstance(func, nodes.FunctionDef) and func.root().qname() != "builtins":
        mutated = changed_in_place(func, None)
        if mutated is not None:
            raise _Refused(
                f"'{call.as_string()}' builds it with in-place changes (line {mutated.lineno})"
            )


def _sequence(elts: Sequence[object], fallback: Location, depth: int) -> list[RegistryElement]:
    found: list[RegistryElement] = []
    for elt in elts:
        if isinstance(elt, nodes.Starred):
            found.extend(_elements(elt.value, fallback, depth + 1))
        else:
            found.append(_element(elt, fallback))
    return found


def _constructor_argument(call: nodes.Call) -> nodes.NodeNG | None:
    """For ``frozenset(x)``-like calls of a builtin, *x* (the call itself when empty)."""
    func = infer_unique(call.func)
    if not isinstance(func, (nodes.ClassDef, nodes.FunctionDef)):
        return None
    if func.qname() not in _CONSTRUCTORS or call.keywords:
        return None
    if not call.args:
        return call
    if len(call.args) == 1 and not isinstance(call.args[0], nodes.Starred):
        return call.args[0]
    return None


def _element(node: object, fallback: Location) -> RegistryElement:
    if not isinstance(node, nodes.NodeNG):
        raise _Refused("an element is not known")
    value = node if isinstance(node, nodes.Const) else infer_unique(node)
    at = location_of(node) or fallback
    if isinstance(value, nodes.Const) and isinstance(value.value, str):
        return RegistryElement(value.value, node.as_string(), at)
    return RegistryElement(None, node.as_string(), at)

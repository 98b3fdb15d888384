"""Inference that never guesses: one inferred value or none, and where a node is written.

All inference goes through :func:`infer_unique`: a value is used only when astroid infers
exactly one, so nothing downstream ever works from a guess.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import astroid
from astroid import bases, nodes, util
from astroid.typing import InferenceResult

from pylint_rpcsurface.model import Location
from pylint_rpcsurface.sources import real

# A class's (or function's) fully qualified name, by the source tree's module names
# (``ClassIndex.qualname``): astroid's own ``qname()`` takes the name the module was
# built under, which for a file pylint lints alone may be its bare file name.
QualnameOf = Callable[[nodes.ClassDef | nodes.FunctionDef], str]

# Inference can fail in many ways on half-typed or adversarial code; all of them mean
# "not known", none of them may escape as a traceback.
INFERENCE_ERRORS = (astroid.AstroidError, RecursionError, StopIteration, ValueError, TypeError)


def name_bindings(name: nodes.Name) -> tuple[nodes.NodeNG, list[nodes.NodeNG]] | None:
    """The scope *name* is bound in and its bindings there, as astroid's look-up gives
    them; None when the look-up fails (a name no scope binds, a broken tree)."""
    try:
        scope, bindings = name.lookup(name.name)
    except (*INFERENCE_ERRORS, AttributeError, KeyError):
        return None
    return scope, list(bindings)


def inferred_values(node: nodes.NodeNG) -> list[InferenceResult]:
    """Every value astroid infers *node* to; none when inference fails, which, like an
    empty answer, proves nothing."""
    try:
        return list(node.infer())
    except INFERENCE_ERRORS:
        return []


def infer_unique(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The one value *node* infers to, or None when it is unknown or ambiguous."""
    values = inferred_values(node)
    if not values or any(value is util.Uninferable for value in values):
        return None
    first = values[0]
    if not isinstance(first, nodes.NodeNG):
        return None
    if all(value is first for value in values):
        return first
    if isinstance(first, nodes.Const) and all(
        isinstance(v, nodes.Const) and type(v.value) is type(first.value) and v.value == first.value
        for v in values
    ):
        return first
    return None


def location_of(node: nodes.NodeNG) -> Location | None:
    """Where *node* is written, or None for nodes astroid made up (brains, builtins).

    The path is the module's own: a module of the project is built from the path the
    source tree knows it by (``SourceTree.key``), which a link under the roots keeps.
    """
    root = node.root()
    path = getattr(root, "file", None)
    if not isinstance(root, nodes.Module) or not path or node.lineno is None:
        return None
    path = os.path.normpath(path) if os.path.isabs(path) else real(path)
    position = getattr(node, "position", None)
    if position is not None:  # ClassDef/FunctionDef: the name, not the whole body
        return Location(
            path,
            position.lineno,
            position.col_offset,
            position.end_lineno,
            position.end_col_offset,
        )
    return Location(path, node.lineno, node.col_offset or 0, node.end_lineno, node.end_col_offset)


# The enum classes of the standard library that a key's enum class may derive from.
_ENUM_BASES = frozenset(
    f"enum.{name}" for name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum")
)


def is_enum(klass: nodes.ClassDef) -> bool:
    """Whether *klass* derives from one of the standard library's enum classes."""
    try:
        return any(ancestor.qname() in _ENUM_BASES for ancestor in klass.ancestors())
    except INFERENCE_ERRORS:
        return False


def instance_class(node: nodes.NodeNG) -> nodes.ClassDef | None:
    """The class of the one instance *node* infers to; None for anything else (a class,
    several values, a value that does not infer)."""
    values = inferred_values(node)
    return class_of_instance(values[0]) if len(values) == 1 else None


def class_of_instance(value: object) -> nodes.ClassDef | None:
    """The class *value*, an inferred value, is an instance of; None for anything else
    (a class, a literal: astroid's literals are instances of builtins)."""
    if not isinstance(value, bases.Instance) or isinstance(value, nodes.NodeNG):
        return None
    klass = value._proxied  # pylint: disable=protected-access
    return klass if isinstance(klass, nodes.ClassDef) else None


def enum_member_key(node: nodes.NodeNG, qualname_of: QualnameOf) -> str | None:
    """The key an enum member written ``E.M`` stands for, ``<E's qualified name>.M``, when
    *E* infers to one enum class that binds *M* to a value; None for anything else (a
    name bound to a member, a method of the enum, an enum that does not infer)."""
    if not isinstance(node, nodes.Attribute):
        return None
    klass = infer_unique(node.expr)
    if not isinstance(klass, nodes.ClassDef) or not is_enum(klass):
        return None
    # astroid's enum brain binds each member to an instance it makes, whose parent is the
    # member's assignment; a method or a bare annotation is no member.
    bindings = klass.locals.get(node.attrname, [])
    assigned = [getattr(b, "parent", None) for b in bindings]
    if not assigned or not all(
        isinstance(a, (nodes.Assign, nodes.AnnAssign)) and a.value is not None for a in assigned
    ):
        return None
    return f"{qualname_of(klass)}.{node.attrname}"


def imported_dotted_name(node: nodes.NodeNG) -> str | None:
    """The dotted name of what *node* is, by astroid's look-up and the imports alone:
    ``builtins.property`` for a name no scope binds, ``contextlib.contextmanager`` for
    ``contextmanager`` bound only by ``from contextlib import contextmanager``, or for
    ``contextlib.contextmanager`` with ``contextlib`` bound only by ``import
    contextlib``; None for anything else (a relative import, a name bound twice)."""
    if isinstance(node, nodes.Name):
        looked_up = name_bindings(node)
        names = {_imported_as(binding, node.name) for binding in (looked_up or (0, []))[1]}
    elif isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name):
        looked_up = name_bindings(node.expr)
        modules = {
            _module_imported_as(binding, node.expr.name) for binding in (looked_up or (0, []))[1]
        }
        names = {None if module is None else f"{module}.{node.attrname}" for module in modules}
    else:
        return None
    if len(names) != 1:
        return None
    (name,) = names
    return name


def _imported_as(binding: nodes.NodeNG, name: str) -> str | None:
    """What *binding* binds *name* to: ``module.real_name`` for an absolute ``from``
    import, ``builtins.name`` for astroid's builtins module, else None."""
    if binding.root().name == "builtins" and binding.root() is not binding:
        return f"builtins.{name}"
    if isinstance(binding, nodes.ImportFrom) and binding.modname and not binding.level:
        for imported, alias in binding.names:
            if (alias or imported) == name and imported != "*":
                return f"{binding.modname}.{imported}"
    return None


def _module_imported_as(binding: nodes.NodeNG, name: str) -> str | None:
    """The module an ``import`` statement *binding* binds *name* to, else None."""
    if isinstance(binding, nodes.Import):
        for imported, alias in binding.names:
            if alias == name or (alias is None and imported == name):
                return imported
    return None

"""Inference that never guesses: one inferred value or none, and where a node is written.

All inference goes through :func:`infer_unique`: a value is used only when astroid infers
exactly one, so nothing downstream ever works from a guess.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Sequence

import astroid
from astroid import bases, nodes, util
from astroid.exceptions import AttributeInferenceError
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


# Where a lean build keeps the top-level names of the project's packages on a module it
# built (:mod:`.lean_build`): what the syntax-level readers below need to know that an
# import of the standard library is not shadowed by the project.
PROJECT_NAMES = "_rpcsurface_project_names"


def project_names_of(node: nodes.NodeNG) -> Container[str] | None:
    """The project's top-level names, when *node* lies in a module the lean build built."""
    found: Container[str] | None = node.root().__dict__.get(PROJECT_NAMES)
    return found


def enum_class_by_syntax(node: nodes.NodeNG) -> nodes.ClassDef | None:
    """The enum class *node* names, by the look-up and imports alone: a name bound (here
    or through ``from`` imports) to one class statement of a lean module, every base of
    which is one of the standard library's enum classes by its imports alone (``class
    RequestType(enum.Enum)``), with no keyword (no metaclass), and no package of the
    project's named ``enum``. astroid infers the name to that class, and it derives from
    the base (:func:`is_enum`); inferring it would first run the class's transforms,
    which build ``enum``. None for anything else, for inference to tell."""
    if not isinstance(node, nodes.Name):
        return None
    klass = named_class(node)
    if klass is None or not klass.bases or klass.keywords:
        return None
    names = project_names_of(klass)
    if names is None or "enum" in names:
        return None
    bases_named = [
        imported_dotted_name(b) if isinstance(b, nodes.NodeNG) else None for b in klass.bases
    ]
    return klass if all(name in _ENUM_BASES for name in bases_named) else None


def enum_member_class(node: nodes.NodeNG) -> nodes.ClassDef | None:
    """The class of the enum member ``E.M`` *node* is, where the syntax tells it: ``E`` an
    enum class by :func:`enum_class_by_syntax` and ``M`` one of its members, a public name
    its body assigns a value. astroid's enum brain infers such a member to an instance
    of the class (never to a str, nor to anything callable); None for anything else,
    for inference to tell."""
    if not isinstance(node, nodes.Attribute) or node.attrname.startswith("_"):
        return None
    klass = enum_class_by_syntax(node.expr)
    return klass if klass is not None and _is_member(klass, node.attrname) else None


def enum_member_by_syntax(node: nodes.NodeNG, qualname_of: QualnameOf) -> str | None:
    """:func:`enum_member_key` of the member :func:`enum_member_class` tells; else None."""
    klass = enum_member_class(node)
    return None if klass is None else f"{qualname_of(klass)}.{getattr(node, 'attrname', '')}"


def enum_member_key(node: nodes.NodeNG, qualname_of: QualnameOf) -> str | None:
    """The key an enum member written ``E.M`` stands for, ``<E's qualified name>.M``, when
    *E* is one enum class that binds *M* to a value (by :func:`enum_member_by_syntax`,
    else by inference); None for anything else (a name bound to a member, a method of
    the enum, an enum that does not infer)."""
    if not isinstance(node, nodes.Attribute):
        return None
    told = enum_member_by_syntax(node, qualname_of)
    if told is not None:
        return told
    klass = infer_unique(node.expr)
    if not isinstance(klass, nodes.ClassDef) or not is_enum(klass):
        return None
    return f"{qualname_of(klass)}.{node.attrname}" if _is_member(klass, node.attrname) else None


def _is_member(klass: nodes.ClassDef, name: str) -> bool:
    """Whether the enum class *klass* binds *name* to a member: astroid's enum brain binds
    each member to an instance it makes, whose parent is the member's assignment; a
    method or a bare annotation is no member."""
    bindings = klass.locals.get(name, [])
    assigned = [getattr(b, "parent", None) for b in bindings]
    return bool(assigned) and all(
        isinstance(a, (nodes.Assign, nodes.AnnAssign)) and a.value is not None for a in assigned
    )


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


def named_class(name: nodes.Name) -> nodes.ClassDef | None:
    """The one class statement *name* is bound to, by the look-up and imports alone."""
    looked_up = name_bindings(name)
    bindings = None if looked_up is None else looked_up[1]
    return one_class(bindings or [], name.name, hops=3)


def one_class(bindings: Sequence[object], name: str, hops: int) -> nodes.ClassDef | None:
    """The one class statement *bindings* of *name* come to, following ``from`` imports
    up to *hops* modules."""
    found = one_definition(bindings, name, hops)
    return found if isinstance(found, nodes.ClassDef) else None


def named_definition(name: nodes.Name) -> nodes.ClassDef | nodes.FunctionDef | None:
    """The one class or undecorated function statement *name* is bound to, by the
    look-up and imports alone: what astroid infers it to (a decorated ``def`` may infer
    to a property)."""
    looked_up = name_bindings(name)
    bindings = None if looked_up is None else looked_up[1]
    return one_definition(bindings or [], name.name, hops=3)


def one_definition(
    bindings: Sequence[object], name: str, hops: int
) -> nodes.ClassDef | nodes.FunctionDef | None:
    """The one class or undecorated function statement *bindings* of *name* come to,
    following ``from`` imports up to *hops* modules."""
    if len(bindings) != 1:
        return None
    (binding,) = bindings
    if isinstance(binding, nodes.ClassDef):
        return binding
    if isinstance(binding, nodes.FunctionDef):
        return None if binding.decorators else binding
    followed = imported_binding(binding, name) if hops else None
    return None if followed is None else one_definition(followed[1], followed[0], hops - 1)


def imported_binding(binding: object, name: str) -> tuple[str, Sequence[object]] | None:
    """What *name*, bound by ``from m import ...`` (*binding*), stands for: its name in
    ``m`` and ``m``'s own bindings of it, as astroid's inference reads them; None for
    another binding, a module that can't be built, or the importing module itself
    (astroid looks past its own bindings then)."""
    if not isinstance(binding, nodes.ImportFrom):
        return None
    try:
        original = binding.real_name(name)
        module = binding.do_import_module()
    except (*INFERENCE_ERRORS, AttributeInferenceError):
        return None
    if module is binding.root():
        return None
    return original, module.locals.get(original, ())

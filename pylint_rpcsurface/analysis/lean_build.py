"""The project's modules built for the analysis without astroid's steps after parsing
that no query may need: its transforms' walk of every node, and the inference of every
``self.x = ...`` target.

astroid, once it has parsed a module, infers the object of every attribute assignment
(to add it to a class's ``instance_attrs``: for ``self``, the class's slots and
metaclass, so its bases and their modules) and walks every node past its brains'
predicates (an enum's bases, a dataclass's decorators, a builtin call's name), and those
build the standard library's modules in turn. On a real engine that is most of a cold
run, and nearly all of it is about nodes the analysis never infers.

Under a :class:`LeanBuilds` block each module of the project astroid builds is *lean*:

* a node's transforms run when the node is first inferred, together with those of the
  classes around it (a dataclass's or an enum's own transform before any of its members
  is looked up), unless inferring the node reads nothing of those classes (a constant, a
  module's ``logger``, a parameter other than a method's first);
* a method's ``self.x = ...`` (a plain method's first argument, bound once) is added to
  its class's ``instance_attrs`` when anything first reads them (:class:`PendingAttrs`);
  every other attribute assignment is added as astroid adds it;
* a transform that gives its node back keeps astroid's cached inferences, which astroid
  empties for any transform that returns a node (:func:`_inferences_kept_unless_replaced`).

What is inferred is then what a full build infers. On exit every lean module leaves
astroid's cache: pylint's other checkers, in the same process, build it again in full
when they need it. ``RPCSURFACE_BUILD=full`` builds every module in full, the reference
the tests compare the lean build with.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any

import astroid.transforms
from astroid import bases, nodes
from astroid.builder import AstroidBuilder
from astroid.manager import AstroidManager
from astroid.rebuilder import TreeRebuilder

from pylint_rpcsurface.analysis.inference import (
    PROJECT_NAMES,
    imported_dotted_name,
    name_bindings,
    project_names_of,
)
from pylint_rpcsurface.analysis.syntax import walked

__all__ = [
    "BUILD_ENV",
    "LeanBuilds",
    "PendingAttrs",
    "decorator_name",
    "function_type",
    "infers_to_no_class",
    "lean_wanted",
    "method_type_by_syntax",
    "replacements",
    "walk_at_build",
]

BUILD_ENV = "RPCSURFACE_BUILD"  # "full": astroid's whole post-build for every module

# The attribute of a method the lean build knows to be one by its decorators: the names
# of the project's top-level packages (no decorator's module may be one of them).
_KNOWN_TYPE = "_rpcsurface_known_method"

# The attribute a lean module carries: its nodes from the parse whose transforms have not
# run, by id (held, so that no node made later can take an id of theirs).
_LEAN = "_rpcsurface_lean"
# The attribute a module being built carries while a block without positions decides, once,
# whether its classes and functions get astroid's position of their name.
_UNPLACED = "_rpcsurface_unplaced"
# The attribute of a lean module counting the nodes its transforms replaced in its tree.
_REPLACED = "_rpcsurface_replaced"
# The attribute of a lean module holding the walk of its tree the lean build made, while
# the block that built it lasts.
_WALKED = "_rpcsurface_walked"
# The attribute of a class of a lean module telling whether none of its bases can make it a
# metaclass.
_PLAIN_BASES = "_rpcsurface_plain_bases"


def replacements(module: nodes.Module) -> int:
    """How many nodes of *module* a transform has put another node in place of since it
    was built lean: a walk of its tree made before holds them no longer."""
    return int(module.__dict__.get(_REPLACED, 0))


def walk_at_build(
    module: nodes.Module,
) -> tuple[list[nodes.NodeNG], dict[int, tuple[int, int]]] | None:
    """The walk of *module* (:func:`.syntax.walked`) its lean build made, while it still
    holds: in the block that built it, no transform having put a node in place of one of
    its tree since. Else None."""
    held = module.__dict__.get(_WALKED)
    return held if held is not None and replacements(module) == 0 else None


def built_lean(module: nodes.Module) -> bool:
    """Whether *module* was built lean (its deferred work is done only while an analysis
    runs: it can't be kept for another)."""
    return _LEAN in module.__dict__


def lean_wanted() -> bool:
    """Whether the project's modules are built lean (unless ``RPCSURFACE_BUILD=full``)."""
    return os.environ.get(BUILD_ENV, "").strip().lower() != "full"


class PendingAttrs(dict[str, Any]):
    """A class's ``instance_attrs`` whose methods' ``self.x = ...`` are added by *fill*
    before the first read.

    Every read goes through a method of the dict this class overrides; the fill runs
    once, first thing, and what it adds goes through ``setdefault`` like astroid's own.
    Code reading the dict through ``dict``'s own functions (the assignments taken back
    by :mod:`.assigned_members` count them so) sees what is there, filled or not."""

    def __init__(self, current: dict[str, Any], fill: Callable[[], None]) -> None:
        super().__init__(current)
        self._fill: Callable[[], None] | None = fill

    def filled(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill()

    def __getitem__(self, key: str) -> Any:
        self.filled()
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.filled()
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self.filled()
        return super().__iter__()

    def __len__(self) -> int:
        self.filled()
        return super().__len__()

    def get(self, key: str, default: Any = None) -> Any:
        self.filled()
        return super().get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.filled()
        return super().setdefault(key, default)

    def keys(self) -> Any:
        self.filled()
        return super().keys()

    def values(self) -> Any:
        self.filled()
        return super().values()

    def items(self) -> Any:
        self.filled()
        return super().items()

    def copy(self) -> dict[str, Any]:
        self.filled()
        return dict(super().items())

    def __eq__(self, other: object) -> bool:
        self.filled()
        return super().__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        self.filled()
        return super().__repr__()


# Methods whose first argument astroid takes for the class, undecorated.
_CLASS_FIRST = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


# Decorators that leave a method one whose first argument astroid infers to an instance
# of its class (its FunctionDef.type stays "method": they are no classmethod or
# staticmethod, nor return one), by the module that defines them and their name there.
# tests/test_lean_decorated_methods.py holds each to astroid's own answer on this Python.
_KEEP_A_METHOD = frozenset(
    {
        "abc.abstractmethod",
        "builtins.property",
        "contextlib.asynccontextmanager",
        "contextlib.contextmanager",
    }
)


# Decorators whose qualified name astroid gives (``decoratornames()``, inferring each) is
# the dotted name they are imported by: a lean module's function decorated by these alone
# is told its decorators' names by the syntax (:func:`decorator_names_by_syntax`).
# tests/test_lean_decorator_names.py holds each to astroid's own answer on this Python.
_NAMED_AS_IMPORTED = _KEEP_A_METHOD | frozenset(
    {"builtins.classmethod", "builtins.staticmethod", "functools.cached_property"}
)


def _self_class(target: nodes.NodeNG, project_names: Container[str]) -> nodes.ClassDef | None:
    """The class whose instance *target* is, where that is plain from the syntax: a
    method's first argument, bound nowhere else in it, the method undecorated (or by
    decorators of :data:`_KEEP_A_METHOD` alone) and the only binding of its name in a
    class none of whose bases may make it a metaclass. Else None: astroid infers what an
    assignment to it assigns to at build (a decorator's module is built to tell)."""
    if not isinstance(target, nodes.Name):
        return None
    method = target.scope()
    klass = method.parent
    if not isinstance(method, nodes.FunctionDef) or not isinstance(klass, nodes.ClassDef):
        return None
    if method.name in _CLASS_FIRST:
        return None
    bindings = klass.locals.get(method.name)
    if bindings != [method] and not _a_property_accessor(method, bindings, project_names):
        return None
    if (
        method.decorators is not None
        and bindings == [method]
        and not _decorated_as_a_method(method, project_names)
    ):
        return None
    positional = [*method.args.posonlyargs, *(method.args.args or ())]
    if not positional or positional[0].name != target.name:
        return None
    if method.locals.get(target.name) != [positional[0]]:
        return None
    if klass.keywords or not _plain_bases(klass):
        return None
    return klass


def _plain_bases(klass: nodes.ClassDef) -> bool:
    """Whether no base of *klass* can make it a metaclass (:func:`_plain_base`), read once
    a class: :func:`_self_class` asks it of every ``self.x = ...`` of its methods."""
    plain = klass.__dict__.get(_PLAIN_BASES)
    if plain is None:
        plain = klass.__dict__[_PLAIN_BASES] = all(_plain_base(base) for base in klass.bases)
    return bool(plain)


def _a_property_accessor(
    method: nodes.FunctionDef, bindings: Sequence[object] | None, project_names: Container[str]
) -> bool:
    """Whether *method* is one of the functions of a property its class defines by
    ``@property`` and then ``@<name>.setter`` or ``@<name>.deleter`` (*bindings*, its
    name's in the class): each a method to astroid, whose decorator, inferred, is no
    classmethod or staticmethod (a property's accessor makes a property). A setter's
    ``self.x = ...`` then waits as a plain method's does: astroid's own build asks the
    class's ``__slots__`` for it, which infers every base (vLLM 0.7.3's ``MedusaConfig``,
    a ``transformers.PretrainedConfig``, built the whole of ``transformers``)."""
    if not bindings or not any(binding is method for binding in bindings):
        return False
    getter, *accessors = bindings
    if not (
        isinstance(getter, nodes.FunctionDef)
        and getter.decorators is not None
        and len(getter.decorators.nodes) == 1
        and _decorator_names(getter, project_names) == {"builtins.property"}
    ):
        return False
    for accessor in accessors:
        if not isinstance(accessor, nodes.FunctionDef) or accessor.decorators is None:
            return False
        decorators = accessor.decorators.nodes
        if not (
            len(decorators) == 1
            and isinstance(decorators[0], nodes.Attribute)
            and decorators[0].attrname in ("setter", "deleter")
            and isinstance(decorators[0].expr, nodes.Name)
            and decorators[0].expr.name == method.name
        ):
            return False
    return True


def infers_to_no_class(expression: nodes.NodeNG) -> bool:
    """Whether astroid infers *expression*, in a lean module, to no class statement
    standing alone, told by the syntax: a name bound only by ``import m`` (a module), as
    a named parameter other than a method's first (astroid gives a call's argument, or
    the default and Uninferable), or as a plain method's first (an instance of its class,
    :func:`_self_class`). Inferring ``self`` runs its class's transforms (a dataclass's
    builds ``dataclasses``), and ``asyncio`` builds the package, for an answer the syntax
    gives."""
    if not isinstance(expression, nodes.Name):
        return False
    project_names = project_names_of(expression)
    looked_up = name_bindings(expression)
    if project_names is None or looked_up is None or len(looked_up[1]) != 1:
        return False
    scope, (binding,) = looked_up
    if isinstance(binding, nodes.Import) or _a_parameter_not_first(binding, scope):
        return True
    return _self_class(expression, project_names) is not None


def _plain_base(base: object, seen: frozenset[int] = frozenset()) -> bool:
    """Whether *base* can't make its class a metaclass. A name the look-up binds to class
    statements alone (of the module) can't where none of theirs is named ``type`` and
    none of their bases can, as astroid's ``ClassDef.type`` finds (``class
    Registry(Singleton)`` with ``class Singleton(type)``: astroid infers ``self`` in
    ``Registry``'s methods to the class, so ``self.x = ...`` joins its members at once).
    Any other name (an import) can't by its look: not ``type``, no "meta" in it."""
    if isinstance(base, nodes.Subscript):
        return _plain_base(base.value, seen)
    if isinstance(base, nodes.Name):
        looked_up = name_bindings(base)
        found = looked_up[1] if looked_up is not None else []
        classes = [binding for binding in found if isinstance(binding, nodes.ClassDef)]
        if found and len(classes) == len(found):
            return all(_plain_class(klass, seen) for klass in classes)
        name = base.name
    elif isinstance(base, nodes.Attribute):
        name = base.attrname
    else:
        return False
    return name != "type" and "meta" not in name.lower()


def _plain_class(klass: nodes.ClassDef, seen: frozenset[int]) -> bool:
    """Whether the class statement *klass*, a base, can't make a class a metaclass."""
    if id(klass) in seen:
        return True  # its bases come back to it: astroid finds no metaclass in a cycle
    if klass.name == "type":
        return False
    inside = seen | {id(klass)}
    return all(_plain_base(base, inside) for base in klass.bases)


def _known_as_a_method(method: nodes.FunctionDef, project_names: Container[str]) -> None:
    """Tell astroid the type of *method* (a function of a lean module) where its syntax
    tells it (:func:`_type_by_syntax`), so that reading it (to infer a method's first
    argument, or its call through an instance) does not infer its decorators (building
    ``contextlib`` for a ``@contextmanager``): astroid's ``FunctionDef.type`` gives the
    same. While reads are recorded, :func:`method_type_by_syntax` tells it instead, its
    look-ups recorded."""
    told = _type_by_syntax(method, project_names)
    if told is not None:
        method.__dict__[_KNOWN_TYPE] = project_names
        method.__dict__["type"] = told  # astroid's cached_property keeps it there


def method_type_by_syntax(method: nodes.FunctionDef) -> str | None:
    """The type of a function the lean build told astroid (:func:`_known_as_a_method`)
    while its decorators still resolve to :data:`_KEEP_A_METHOD` alone; else None, for
    astroid to tell."""
    project_names = method.__dict__.get(_KNOWN_TYPE)
    if project_names is None:
        return None
    return _type_by_syntax(method, project_names)


def _type_by_syntax(function: nodes.FunctionDef, project_names: Container[str]) -> str | None:
    """astroid's ``FunctionDef.type`` for *function*, decorated by :data:`_KEEP_A_METHOD`
    alone, none of them spelled ``classmethod`` or ``staticmethod`` (astroid reads that
    spelling before any look-up): what it gives undecorated, as none of them makes a
    classmethod or a staticmethod. Else (no decorator, or another) None."""
    if function.decorators is None:
        return None
    for decorator in function.decorators.nodes:
        spelled = getattr(decorator, "name", None) or getattr(decorator, "attrname", None)
        if spelled in ("classmethod", "staticmethod"):
            return None
    if function.parent is None or not _decorated_as_a_method(function, project_names):
        return None
    if not isinstance(function.parent.frame(), nodes.ClassDef):
        return "function"
    return "classmethod" if function.name in _CLASS_FIRST else "method"


def _decorated_as_a_method(method: nodes.FunctionDef, project_names: Container[str]) -> bool:
    """Whether every decorator of *method* (which has some) is one of
    :data:`_KEEP_A_METHOD`, by the look-up and imports alone."""
    return _decorator_names(method, project_names) <= _KEEP_A_METHOD


def function_type(compute: Callable[[nodes.FunctionDef], str], node: nodes.FunctionDef) -> str:
    """astroid's ``FunctionDef.type`` (*compute*), told by the syntax for a method the lean
    build knows to be one (its look-ups of the decorators' names recorded, as inference's
    would be), without inferring the decorators."""
    return method_type_by_syntax(node) or compute(node)


def decorator_names_by_syntax(
    function: nodes.FunctionDef, project_names: Container[str]
) -> set[str] | None:
    """What astroid's ``decoratornames()`` gives for *function* of a lean module, decorated
    only by :data:`_NAMED_AS_IMPORTED` (no ``f = staticmethod(f)`` in its class either),
    told by the look-ups and imports alone; else None, for astroid to infer.

    astroid asks it of every function a class's attribute look-up finds (is it a property's
    setter?): inferring ``@contextmanager`` built ``contextlib``, ``abc`` and ``functools``
    for LMDeploy 0.7.3's ``get_device_manager().context(...)``."""
    if function.decorators is None or _LEAN not in function.root().__dict__:
        return None
    if function.extra_decorators:
        return None
    names = _decorator_names(function, project_names)
    # A decorator the look-up and imports do not name (None) is never among them.
    if not names <= _NAMED_AS_IMPORTED:
        return None
    return {name for name in names if name is not None}


def _decorator_names(function: nodes.FunctionDef, project_names: Container[str]) -> set[str | None]:
    """:func:`decorator_name` of each decorator of *function* (None for one the look-up
    and the imports don't name)."""
    decorators = function.decorators.nodes if function.decorators is not None else []
    return {decorator_name(d, project_names) for d in decorators}


def property_by_names(names: set[str]) -> bool:
    """astroid's ``bases._is_property`` for a function whose decorators are
    :data:`_NAMED_AS_IMPORTED` alone, named *names*: by their names, as astroid first
    tells it; its last test, a decorator inferred to a subclass of ``property``, holds for
    none of them but ``property`` itself, which the names tell already."""
    # Read by astroid before it infers; tests/test_private_hooks.py checks the shape relied on.
    known = bases.PROPERTIES
    possible = bases.POSSIBLE_PROPERTIES
    return bool(known & names) or any(name.split(".")[-1] in possible for name in names)


def decorator_name(decorator: nodes.NodeNG, project_names: Container[str]) -> str | None:
    """:func:`.inference.imported_dotted_name` of *decorator*; None as well for a module a
    package of the project's may shadow."""
    name = imported_dotted_name(decorator)
    if name is None or name.partition(".")[0] in project_names:
        return None
    return name


class LeanBuilds:
    """Within :meth:`active`, the modules named under *project_names* astroid builds are
    lean (see the module's docstring); with *standard_library*, the standard library's
    too, but for a module a transform of astroid's applies to as a whole (a brain's
    module extender adds names its look-ups must find before anything is inferred).
    Without *positions*, a lean module's classes and functions get no ``position`` (the
    span of their keyword and name, which astroid finds by tokenizing each header again):
    only a message's columns read it, and ``init``, which has none, spent 8% and 10% of
    its time finding them on vLLM 0.7.3 and LMDeploy 0.18.0."""

    def __init__(
        self,
        manager: AstroidManager,
        project_names: Container[str],
        taken_out: list[nodes.Module],
        forget_inferences: Callable[[], None],
        *,
        standard_library: bool = False,
        positions: bool = True,
    ) -> None:
        self._manager = manager
        self._positions = positions
        # Empties astroid's inference and look-up caches (the module store's own).
        self._forget_inferences = forget_inferences
        self._project_names = project_names
        self._standard_library = standard_library
        self._lean: list[nodes.Module] = []
        # Told of the lean modules taken out of astroid's cache on exit: what the block
        # built and left there (a module built on its own and dropped at once is not).
        self._taken_out = taken_out

    def _is_lean(self, module: nodes.Module) -> bool:
        if module.file is None:
            return False
        top = module.name.partition(".")[0]
        if top in self._project_names:
            return True
        return (
            self._standard_library
            and top in sys.stdlib_module_names
            and not self._module_transformed(module)
        )

    def _module_transformed(self, module: nodes.Module) -> bool:
        """Whether a transform of astroid's applies to *module* itself (its brains'
        module extenders: ``hashlib``, ``collections`` ...)."""
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        visitor = self._manager._transform  # pylint: disable=protected-access
        return any(
            predicate is None or predicate(module)
            for _, predicate in visitor.transforms.get(nodes.Module, ())
        )

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Build the project's modules lean in this block (unless
        ``RPCSURFACE_BUILD=full``); on exit, none stays in astroid's cache, and what was
        inferred through them is forgotten."""
        if not lean_wanted():
            yield
            return
        post_build = AstroidBuilder.__dict__["_post_build"]
        infer = nodes.NodeNG.__dict__["infer"]
        decoratornames = nodes.FunctionDef.__dict__["decoratornames"]
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        is_property = bases._is_property  # pylint: disable=protected-access
        is_lean, defer, transformed = self._is_lean, self._defer, self._transformed
        project_names = self._project_names
        held_before = dict(self._manager.astroid_cache)

        def lean_post_build(
            builder: AstroidBuilder, module: nodes.Module, rebuilder: Any, encoding: str
        ) -> nodes.Module:
            if not is_lean(module):
                return post_build(builder, module, rebuilder, encoding)  # type: ignore[no-any-return]
            # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
            deferred = rebuilder._delayed_assattr  # pylint: disable=protected-access
            rebuilder._delayed_assattr = []  # pylint: disable=protected-access
            applying = builder._apply_transforms  # pylint: disable=protected-access
            builder._apply_transforms = False  # pylint: disable=protected-access
            try:
                module = post_build(builder, module, rebuilder, encoding)
            finally:
                builder._apply_transforms = applying  # pylint: disable=protected-access
            defer(builder, module, deferred)
            return module

        def lean_infer(node: nodes.NodeNG, *args: Any, **kwargs: Any) -> Any:
            return infer(transformed(node), *args, **kwargs)

        def lean_decoratornames(function: nodes.FunctionDef, context: Any = None) -> set[str]:
            named = decorator_names_by_syntax(function, project_names)
            return named if named is not None else decoratornames(function, context)

        def lean_is_property(method: Any, context: Any = None) -> bool:
            # A bound or unbound method: astroid's proxies expose the function as _proxied.
            function = getattr(method, "_proxied", method)
            named = (
                decorator_names_by_syntax(function, project_names)
                if isinstance(function, nodes.FunctionDef)
                else None
            )
            return property_by_names(named) if named is not None else is_property(method, context)

        lean_infer.__wrapped__ = infer  # type: ignore[attr-defined]
        setattr(AstroidBuilder, "_post_build", lean_post_build)  # noqa: B010
        setattr(nodes.NodeNG, "infer", lean_infer)  # noqa: B010
        setattr(nodes.FunctionDef, "decoratornames", lean_decoratornames)  # noqa: B010
        setattr(bases, "_is_property", lean_is_property)  # noqa: B010
        try:
            with (
                contextlib.nullcontext() if self._positions else self._unplaced(),
                _inferences_kept_unless_replaced(),
            ):
                yield
        finally:
            setattr(AstroidBuilder, "_post_build", post_build)  # noqa: B010
            setattr(nodes.NodeNG, "infer", infer)  # noqa: B010
            setattr(nodes.FunctionDef, "decoratornames", decoratornames)  # noqa: B010
            setattr(bases, "_is_property", is_property)  # noqa: B010
            self._leave_cache(held_before)

    @contextlib.contextmanager
    def _unplaced(self) -> Iterator[None]:
        """No class or function of a lean module built in this block gets a position."""
        is_lean = self._is_lean
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        position_info = TreeRebuilder.__dict__["_get_position_info"]

        def lean_position_info(rebuilder: TreeRebuilder, node: Any, parent: Any) -> Any:
            module = parent.root()
            unplaced = module.__dict__.get(_UNPLACED)
            if unplaced is None:
                # Asked of the module as the rebuilder made it, its name and file set: a
                # brain's module extender, which keeps it full, is chosen by its name.
                unplaced = module.__dict__[_UNPLACED] = is_lean(module)
            return None if unplaced else position_info(rebuilder, node, parent)

        setattr(TreeRebuilder, "_get_position_info", lean_position_info)  # noqa: B010
        try:
            yield
        finally:
            setattr(TreeRebuilder, "_get_position_info", position_info)  # noqa: B010

    def _defer(
        self, builder: AstroidBuilder, module: nodes.Module, deferred: list[nodes.AssignAttr]
    ) -> None:
        """Add *module*'s attribute assignments astroid would have, those made through a
        plain method's ``self`` to come when a class's members are first read."""
        own: dict[int, list[nodes.AssignAttr]] = {}
        through: list[nodes.AssignAttr] = []
        parsed, classes, decorated = _parsed_nodes(module)
        module.__dict__[PROJECT_NAMES] = self._project_names
        for function in decorated:
            _known_as_a_method(function, self._project_names)
        for node in deferred:
            klass = _self_class(node.expr, self._project_names)
            if klass is not None:
                own.setdefault(id(klass), []).append(node)
            elif _through_local(node, self._project_names):
                through.append(node)
            else:
                # The class attribute, not the instance's copy: astroid's hook wraps it.
                AstroidBuilder.delayed_assattr(builder, node)
        # ``self.a.b = ...`` or ``msg.status = ...`` assigns to what ``self.a`` or ``msg``
        # is: an instance of any class of the module (one of another module is taken
        # back out, :mod:`.assigned_members`), so reading any of their members adds
        # them, after that class's own.
        shared = _Assigning(builder, through)
        for klass in classes if through else ():
            if id(klass) not in own:
                own[id(klass)] = []
        for klass in classes:
            assigned = own.get(id(klass))
            if assigned is not None:
                _fill_on_first_read(klass, _Assigning(builder, assigned, then=shared))
        setattr(module, _LEAN, parsed)
        self._lean.append(module)

    def _transformed(self, node: nodes.NodeNG) -> nodes.NodeNG:
        """*node*, its transforms and those of the classes around it run if it came from
        the parse of a lean module and they haven't (the classes' only when inferring it
        may read them, :func:`_reads_no_class_around`): what astroid's walk would have
        made of it. Nodes made later (by a transform, by inference) are never walked by
        astroid, so never transformed here either."""
        pending: dict[int, nodes.NodeNG] | None = node.root().__dict__.get(_LEAN)
        if not pending or id(node) not in pending:
            return node
        classes = _enclosing_classes(node)
        if classes and not _reads_no_class_around(node, classes[0]):
            for klass in classes:
                if pending.pop(id(klass), None) is not None:
                    self._transform(klass)
        # A class's transform may have inferred, so transformed, the node itself.
        return node if pending.pop(id(node), None) is None else self._transform(node)

    def _transform(self, node: nodes.NodeNG) -> Any:
        """astroid's transforms of *node*; a replacement takes its place in its parent."""
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        visitor = self._manager._transform  # pylint: disable=protected-access
        replacement: Any = visitor._transform(node)  # pylint: disable=protected-access
        if replacement is not node and node.parent is not None:
            module = node.root()
            module.__dict__[_REPLACED] = replacements(module) + 1
            _replace_child(node.parent, node, replacement)
        return replacement

    def _leave_cache(self, held_before: dict[str, nodes.Module]) -> None:
        """Take every lean module out of astroid's cache, giving back the module it held
        under that name before (pylint's, which its checkers read), and forget what was
        inferred through them: pylint's checkers build their own. The walk each one's
        build made is let go: a long-lived process keeps the modules it may build again."""
        lean, self._lean = self._lean, []
        if not lean:
            return
        for module in lean:
            module.__dict__.pop(_WALKED, None)  # read within the block alone
        cache = self._manager.astroid_cache
        held = [module for module in lean if cache.get(module.name) is module]
        for module in held:
            before = held_before.get(module.name)
            if before is None or _LEAN in before.__dict__:
                del cache[module.name]
            else:
                cache[module.name] = before
        self._taken_out.extend(held)
        self._forget_inferences()


class _Assigning:
    """Adds *assigned* as astroid's build would (once), then *then*'s."""

    def __init__(
        self,
        builder: AstroidBuilder,
        assigned: list[nodes.AssignAttr],
        then: _Assigning | None = None,
    ) -> None:
        self._builder = builder
        self._assigned: list[nodes.AssignAttr] | None = assigned
        self._then = then

    def __call__(self) -> None:
        assigned, self._assigned = self._assigned, None
        for node in assigned or ():
            # The class attribute, not the instance's copy: astroid's hook wraps it.
            AstroidBuilder.delayed_assattr(self._builder, node)
        if self._then is not None:
            self._then()


def _fill_on_first_read(klass: nodes.ClassDef, fill: Callable[[], None]) -> None:
    """Run *fill* when *klass*'s ``instance_attrs`` are first read: astroid's own dict
    becomes a :class:`PendingAttrs`; one that tells the recorder its reads
    (:mod:`.member_reads`, a top-level class split before the build) waits for it."""
    members = klass.instance_attrs
    if type(members) is dict:  # pylint: disable=unidiomatic-typecheck
        # astroid's own attribute, a dict it reads through the methods overridden.
        setattr(klass, "instance_attrs", PendingAttrs(members, fill))  # noqa: B010
    elif callable(getattr(members, "wait_for", None)):
        members.wait_for(fill)  # type: ignore[attr-defined]
    else:
        fill()  # a shape this does not know: as astroid's build, at once


def _through_local(node: nodes.AssignAttr, project_names: Container[str]) -> bool:
    """Whether *node* assigns to an attribute of what a function's own name holds (its
    parameter or local: ``msg.status = ...``, ``self.a.b = ...``), not a class's first
    argument in a method astroid may read as the class itself (``cls.x = ...``)."""
    target = node.expr
    while isinstance(target, nodes.Attribute):
        target = target.expr
    if not isinstance(target, nodes.Name):
        return False
    scope, _ = target.lookup(target.name)
    if not isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        return False
    positional = [*scope.args.posonlyargs, *(scope.args.args or ())]
    first = positional[0].name if positional else None
    in_class = isinstance(scope.parent, nodes.ClassDef)
    if in_class and isinstance(scope, nodes.FunctionDef) and _static_by_spelling(scope):
        return True  # its first argument is a parameter like any other to astroid
    return not (in_class and first == target.name and _self_class(target, project_names) is None)


def _static_by_spelling(method: nodes.FunctionDef) -> bool:
    """Whether astroid's ``FunctionDef.type`` of *method* is ``staticmethod`` by the
    spelling alone, as astroid tells it before it infers anything: no ``m =
    descriptor(m)`` in its class, not a name astroid makes a classmethod, and its first
    decorator spelled ``staticmethod`` (or ``builtins.staticmethod``). astroid then
    infers its first argument as any parameter, never as the class or its instance: an
    assignment to its attribute waits as a plain function's does (LMDeploy 0.18.0's
    ``ConfigBuilder.update_engine_config(engine_config)`` built the engine's
    configuration dataclass, ``copy`` and ``typing`` at once)."""
    if method.decorators is None or method.extra_decorators or method.name in _CLASS_FIRST:
        return False
    first = method.decorators.nodes[0]
    if isinstance(first, nodes.Name):
        return first.name == "staticmethod"
    return (
        isinstance(first, nodes.Attribute)
        and isinstance(first.expr, nodes.Name)
        and first.expr.name == "builtins"
        and first.attrname == "staticmethod"
    )


def _parsed_nodes(
    module: nodes.Module,
) -> tuple[dict[int, nodes.NodeNG], list[nodes.ClassDef], list[nodes.FunctionDef]]:
    """Every node of *module*'s tree as astroid's transforms walk it (every field of each
    node), by id; its classes, at any depth, in the order of the text; and its decorated
    functions. One walk (:func:`.syntax.walked`) serves all three, and is kept for the
    discovery (:func:`walk_at_build`), which would walk every module again."""
    found: dict[int, nodes.NodeNG] = {}
    order, bodies = walked(module, found)
    module.__dict__[_WALKED] = (order, bodies)
    classes = [node for node in order if isinstance(node, nodes.ClassDef)]
    decorated = [
        node
        for node in order
        if isinstance(node, nodes.FunctionDef) and node.decorators is not None
    ]
    return found, classes, decorated


@contextlib.contextmanager
def _inferences_kept_unless_replaced() -> Iterator[None]:
    """In this block, a transform that gives back the node it was given (an inference
    tip's: it only tells astroid how to infer the node) leaves astroid's cached
    inferences in place; one that gives another node empties them, as astroid does for
    every transform that returns anything.

    astroid empties them to drop what was inferred of a node a transform replaced. A
    lean module's transforms run when its nodes are first inferred, before the node
    itself is (:meth:`LeanBuilds._transformed`), so nothing cached was inferred of it: an
    inference tip is set before any answer that would have used it. Emptying the cache
    there only made the readers infer again what they had: ``init`` emptied it 1,795
    times on vLLM 0.7.3, and took 8% longer (7% on LMDeploy 0.18.0)."""
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    invalidate = astroid.transforms.__dict__["_invalidate_cache"]

    def unless_given_back() -> None:
        # The caller is the visitor's _transform: ``node`` the node it was given, ``ret``
        # what the transform returned. Anything else empties the cache, as astroid would.
        transforming = sys._getframe(1).f_locals  # pylint: disable=protected-access
        if "node" not in transforming or transforming.get("ret") is not transforming["node"]:
            invalidate()

    setattr(astroid.transforms, "_invalidate_cache", unless_given_back)  # noqa: B010
    try:
        yield
    finally:
        setattr(astroid.transforms, "_invalidate_cache", invalidate)  # noqa: B010


def _reads_no_class_around(node: nodes.NodeNG, outermost: nodes.ClassDef) -> bool:
    """Whether inferring *node* reads nothing of the classes around it, which a class's
    transform could change: a constant, or a name (or its attributes) that astroid's
    look-up finds bound outside *outermost*, the outermost of them (a module's
    ``logger``, a builtin), or only as a parameter other than a method's first. Every
    node of theirs its inference reaches is inferred in turn, and their transforms run
    then. A method's ``self`` is bound inside, and reaches its class through its scope
    instead: the classes around it are transformed first."""
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, nodes.AssignName):
        return _a_parameter_not_first(node, node.scope())  # a parameter, as a binding
    while isinstance(node, nodes.Attribute):
        node = node.expr  # logger.warning: what logger is, then its attribute
    if not isinstance(node, nodes.Name):
        return False
    looked_up = name_bindings(node)
    if looked_up is None:
        return False
    scope, bindings = looked_up
    if scope is not outermost and not outermost.parent_of(scope):
        return True
    return bool(bindings) and all(_a_parameter_not_first(binding, scope) for binding in bindings)


def _a_parameter_not_first(binding: nodes.NodeNG, scope: nodes.NodeNG) -> bool:
    """Whether *binding* is a parameter of the function *scope*, other than a method's
    first: astroid infers it to what a call passes or to its default, each inferred in
    turn, never from the class (a method's ``self`` or ``cls`` is)."""
    if not isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        return False
    if not isinstance(binding, nodes.AssignName) or binding.parent is not scope.args:
        return False
    positional = [*scope.args.posonlyargs, *(scope.args.args or ())]
    # A lambda in a class's body (``f = lambda self: ...``) is a method to astroid too.
    around = scope.parent.scope() if scope.parent is not None else None
    in_class = isinstance(around, nodes.ClassDef)
    return not (in_class and positional and positional[0] is binding)


def _enclosing_classes(node: nodes.NodeNG) -> list[nodes.ClassDef]:
    """The classes *node* lies in (itself included), outermost first."""
    found = []
    current: nodes.NodeNG | None = node
    while current is not None:
        if isinstance(current, nodes.ClassDef) and current is not node:
            found.append(current)
        current = current.parent
    return found[::-1]


def _replace_child(parent: nodes.NodeNG, old: nodes.NodeNG, new: nodes.NodeNG) -> None:
    """Put *new* where *old* is among *parent*'s fields, as astroid's walk does."""
    for field in parent._astroid_fields:  # pylint: disable=protected-access
        value = getattr(parent, field)
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list) and any(child is old for child in value):
            value[:] = [new if child is old else child for child in value]
            return
        if isinstance(value, tuple) and any(child is old for child in value):
            setattr(parent, field, tuple(new if child is old else child for child in value))
            return

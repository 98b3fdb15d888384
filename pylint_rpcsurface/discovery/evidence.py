"""Structural evidence of a receiver: the classes the object a received name is looked up
on is bound to, read from the code (never from how many of the names a class defines).

An object reaches a class when astroid infers it to an instance of the class, or when a
binding in the code says so: ``self.worker = Worker(...)``, ``srv = Impl()``, a parameter
annotated with the class (the class or any subclass in the project), a parameter filled at
its call sites (``Process(target=loop, args=(runner_cls, ...))`` included) with such an
object, ``runner_cls(rank)`` where ``runner_cls`` is bound to classes the same way, or a
Ray actor handle made by ``Cls.remote(...)``, ``Cls.options(...).remote(...)`` or
``ray.remote(Cls)``, or a class named by a closed set of string literals
(:mod:`.qualnames`). Each class found carries where it was bound (``file:line: what``).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable

from astroid import bases, nodes

from pylint_rpcsurface.analysis.conditions import conditions_of
from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, inferred_values
from pylint_rpcsurface.analysis.syntax import appended, before_options, nodes_of
from pylint_rpcsurface.discovery.qualnames import NOT_COVERED, QualnameStrings
from pylint_rpcsurface.discovery.reading import (
    class_of,
    is_dunder,
    is_method,
    positional_params,
)

# How many steps a chain may take (a name to its binding, a parameter to its call site, a
# list to its element are one each): deep enough for an actor made in a list comprehension
# passed through a trainer's attribute to a helper's loop, bounded so a large tree stays
# cheap.
_DEPTH = 10
# A function called from more places than this is a utility: its call sites prove nothing
# about one loop's object, and reading them all would be slow.
_MAX_SITES = 12
# The calls that start a function in a new process or thread, with `target=` and `args=`.
_STARTERS = frozenset({"Process", "Thread", "start_new_thread"})

# Annotations of containers whose elements (a dict's values) are read as the container.
_CONTAINERS = frozenset(
    {"List", "list", "Sequence", "Iterable", "Set", "set", "Tuple", "tuple", "Dict", "dict"}
)

Found = dict[int, tuple[nodes.ClassDef, str]]
# What the evidence of a Ray actor handle says: the actor was made from the class.
ACTOR_MADE = "an actor made from"


class Receivers:
    """The classes an expression is bound to, with the evidence of each."""

    def __init__(
        self,
        classes: list[nodes.ClassDef],
        calls: dict[str, list[nodes.Call]],
        ancestors: Callable[[nodes.ClassDef], list[nodes.ClassDef]],
        where: Callable[[nodes.NodeNG], str],
        modules: set[int] | None = None,
        *,
        qualnames: QualnameStrings | None = None,
    ) -> None:
        self.classes = {id(c): c for c in classes}
        self.qualnames = qualnames  # the classes named by strings, when read
        self.modules = modules or set()  # the project's modules: whose functions are read
        self.calls = calls
        self.where = where
        self._ancestors = ancestors
        self.subclasses: dict[int, list[nodes.ClassDef]] = defaultdict(list)
        for cls in classes:
            for base in ancestors(cls):
                self.subclasses[id(base)].append(cls)
        self._memo: dict[tuple[int, bool], Found] = {}
        self._active: set[tuple[int, bool]] = set()
        # Read under a condition (:meth:`guarded`): a binding in a method of one of the
        # classes *guarded_in* (whose ``self`` the condition tests) that runs only under
        # one of these conditions (``conditions_of`` forms) is not followed, and
        # astroid's inference, which merges every branch, is not asked.
        self.contradicted: frozenset[str] = frozenset()
        self.guarded_in: frozenset[int] = frozenset()
        self.structural_only = False
        self._methods: frozenset[str] | None = None

    def guarded(self, contradicted: frozenset[str], family: frozenset[int]) -> Receivers:
        """These receivers read structurally only, skipping the bindings in the methods
        of the classes *family* (by id) that run under one of the *contradicted*
        conditions."""
        reading = copy.copy(self)
        reading._memo, reading._active = {}, set()
        reading.contradicted, reading.guarded_in = contradicted, family
        reading.structural_only = True
        return reading

    def _contradicted(self, node: nodes.NodeNG) -> bool:
        if not self.contradicted:
            return False
        owner = class_of(node)
        return (
            owner is not None
            and id(owner) in self.guarded_in
            and bool(self.contradicted.intersection(conditions_of(node)))
        )

    def may_define(self, name: str) -> bool:
        """Whether an object these receivers find may have a method *name*: a project
        class, or a class in its order, binds it last to a function. A dunder always
        may: astroid's transforms add ``__init__`` and the like to a class's own names
        when it is first inferred, after the others were read."""
        if self._methods is None:
            self._methods = frozenset(
                attribute
                for cls in self.classes.values()
                for klass in (cls, *self._ancestors(cls))
                for attribute, bindings in klass.locals.items()
                if bindings and isinstance(bindings[-1], nodes.FunctionDef)
            )
        return name in self._methods or is_dunder(name)

    # -- entry points ---------------------------------------------------------

    def instances(self, node: nodes.NodeNG, depth: int = _DEPTH) -> Found:
        """The classes *node* holds an instance of."""
        return self._read(node, depth, classes=False)

    def class_values(self, node: nodes.NodeNG, depth: int = _DEPTH) -> Found:
        """The classes *node* is (a class object: ``runner_cls``)."""
        return self._read(node, depth, classes=True)

    # -- the reading ------------------------------------------------------------

    def _read(self, node: nodes.NodeNG, depth: int, *, classes: bool) -> Found:
        key = (id(node), classes)
        if key in self._memo:
            return self._memo[key]
        if depth <= 0 or key in self._active:
            return {}
        if self._contradicted(node):
            return {}
        self._active.add(key)
        try:
            found = {} if self.structural_only else self._inferred(node, classes)
            found.update(self._structural(node, depth - 1, classes))
        finally:
            self._active.discard(key)
        self._memo[key] = found
        return found

    def _project(self, cls: object) -> nodes.ClassDef | None:
        return cls if isinstance(cls, nodes.ClassDef) and id(cls) in self.classes else None

    def _inferred(self, node: nodes.NodeNG, classes: bool) -> Found:
        found: Found = {}
        if not isinstance(node, (nodes.Name, nodes.Attribute, nodes.Call)):
            return found
        for value in inferred_values(node)[:8]:
            cls = None
            if classes and isinstance(value, nodes.ClassDef):
                cls = self._project(value)
            elif not classes and isinstance(value, bases.Instance):
                cls = self._project(value._proxied)  # pylint: disable=protected-access
            if cls is not None:
                found[id(cls)] = (
                    cls,
                    f"{self.where(node)}: {_short(node)} infers to "
                    + (cls.name if classes else f"an instance of {cls.name}"),
                )
        return found

    def _structural(self, node: nodes.NodeNG, depth: int, classes: bool) -> Found:
        if isinstance(node, nodes.IfExp):
            return {
                **self._read(node.body, depth, classes=classes),
                **self._read(node.orelse, depth, classes=classes),
            }
        if isinstance(node, nodes.BoolOp):
            merged: Found = {}
            for value in node.values:
                merged.update(self._read(value, depth, classes=classes))
            return merged
        if isinstance(node, (nodes.List, nodes.Tuple, nodes.Set)) and not classes:
            merged = {}
            for element in node.elts:
                if isinstance(element, nodes.NodeNG):
                    merged.update(self._read(element, depth, classes=False))
            return merged
        if isinstance(node, (nodes.ListComp, nodes.GeneratorExp, nodes.SetComp)):
            return self._read(node.elt, depth, classes=classes) if not classes else {}
        if isinstance(node, nodes.Subscript):
            return self._read(node.value, depth, classes=classes)
        if isinstance(node, nodes.Call):
            if classes:  # ray.remote(Cls), ray.remote(num_gpus=1)(Cls): the class, an actor
                made = _is_ray_remote(node) or (
                    isinstance(node.func, nodes.Call) and _is_ray_remote(node.func)
                )
                if made:
                    return self._read(node.args[0], depth, classes=True) if node.args else {}
                # resolve_obj_by_qualname(config.runner_qualname): the classes its strings name
                resolved = self.qualnames.resolved(node) if self.qualnames is not None else []
                return {id(cls): (cls, evidence) for cls, evidence in resolved}
            return self._call(node, depth)
        if isinstance(node, nodes.Name):
            return self._name(node, depth, classes)
        if isinstance(node, nodes.Attribute):
            return self._attribute(node, depth, classes)
        return {}

    def _call(self, call: nodes.Call, depth: int) -> Found:
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname == "remote":
            # Cls.remote(...), Cls.options(...).remote(...), ray.remote(Cls).remote(...)
            made = self._read(before_options(func.expr), depth, classes=True)
            return {
                k: (cls, f"{self.where(call)}: {ACTOR_MADE} {cls.name}: {_short(call)}")
                for k, (cls, _) in made.items()
            }
        if isinstance(func, nodes.Call) and _is_ray_remote(func):
            return {}  # ray.remote(num_gpus=1)(Cls) is a class, not an instance
        if _is_ray_remote(call):
            return {}
        made = self._read(func, depth, classes=True)
        found: Found = {
            k: (
                cls,
                f"{self.where(call)}: constructed: {_short(call)}"
                # A class named by a string keeps its evidence: which strings, and that
                # one from outside the project is not covered.
                + (f", {named}" if NOT_COVERED in named else ""),
            )
            for k, (cls, named) in made.items()
        }
        if not found:
            # A project function's result: what it returns (`self.workers =
            # self._init_workers_ray(...)`, which returns the actors it made).
            for callee in self._callees(func):
                for returned in callee.nodes_of_class(nodes.Return):
                    if returned.value is not None and returned.scope() is callee:
                        found.update(self._read(returned.value, depth, classes=False))
        return found

    def _callees(self, func: nodes.NodeNG) -> list[nodes.FunctionDef]:
        callees = []
        for value in inferred_values(func)[:4]:
            function = function_of(value)
            if function is not None and id(function.root()) in self.modules:
                callees.append(function)
        return callees

    def _name(self, name: nodes.Name, depth: int, classes: bool) -> Found:
        try:
            _, bindings = name.lookup(name.name)
        except (*INFERENCE_ERRORS, AttributeError, KeyError):
            return {}
        found: Found = {}
        for binding in bindings[:6]:
            if isinstance(binding, nodes.ClassDef) and classes:
                cls = self._project(binding)
                if cls is not None:
                    found[id(cls)] = (cls, f"{self.where(name)}: names the class {cls.name}")
                continue
            if isinstance(binding, nodes.ImportFrom) and classes:
                for cls in self._imported(binding, name.name):
                    found[id(cls)] = (cls, f"{self.where(name)}: names the class {cls.name}")
                continue
            if not isinstance(binding, nodes.AssignName):
                continue
            parent = binding.parent
            if isinstance(parent, nodes.Arguments):
                found.update(self._parameter(binding, parent, depth, classes))
            elif isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is not None:
                if isinstance(parent, nodes.AnnAssign):
                    found.update(self._annotated(parent.annotation, classes))
                if binding in _direct_targets(parent):
                    found.update(self._read(parent.value, depth, classes=classes))
            elif (
                isinstance(parent, (nodes.For, nodes.Comprehension))
                and parent.target is binding
                and not classes
            ):
                found.update(self._read(parent.iter, depth, classes=False))
        if not classes:
            # A list filled in place: `workers.append(worker)`.
            for element in appended(name.scope(), name.name):
                found.update(self._read(element, depth, classes=False))
        return found

    def _imported(self, binding: nodes.ImportFrom, name: str) -> list[nodes.ClassDef]:
        """The project classes ``from module import Cls [as name]`` binds to *name*
        (a decorator such as ``@ray.remote`` hides the class from inference)."""
        module = (binding.modname or "").rsplit(".", 1)[-1]
        found: list[nodes.ClassDef] = []
        for original, alias in binding.names:
            if (alias or original) != name:
                continue
            found.extend(
                cls
                for cls in self.classes.values()
                if cls.name == original and cls.root().name.rsplit(".", 1)[-1] == module
            )
        return found

    def _attribute(self, attribute: nodes.Attribute, depth: int, classes: bool) -> Found:
        owners: list[nodes.ClassDef] = []
        expr = attribute.expr
        if isinstance(expr, nodes.Name) and expr.name == "self":
            frame = attribute.frame()
            if isinstance(frame, nodes.FunctionDef) and is_method(frame):
                owner = self._project(frame.parent)
                if owner is not None:
                    owners = [owner, *self.subclasses.get(id(owner), [])]
        else:
            owners = [cls for cls, _ in self._read(expr, depth, classes=False).values()]
        annotated: Found = {}
        valued: Found = {}
        # Whether each binding with a value holds None or an object constructed from
        # classes read: then the annotation (``self.worker: WorkerBase | None = None``)
        # says nothing of which class beyond what the constructions prove.
        constructed = True
        for owner in owners[:8]:
            for klass in [owner, *self._ancestors(owner)]:
                for value, annotation in attribute_bindings(klass, attribute.attrname):
                    if annotation is not None:
                        annotated.update(self._annotated(annotation, classes))
                    if value is None:
                        constructed = False  # declared, filled elsewhere (a field)
                        continue
                    read = self._read(value, depth, classes=classes)
                    if not (
                        (isinstance(value, nodes.Const) and value.value is None)
                        or (isinstance(value, nodes.Call) and read)
                    ):
                        constructed = False
                    valued.update(read)
        if (
            annotated
            and valued
            and constructed
            and self.qualnames is not None
            and not self.qualnames.written_unread(attribute.attrname)
        ):
            return valued
        return {**annotated, **valued}

    def _parameter(
        self, binding: nodes.AssignName, arguments: nodes.Arguments, depth: int, classes: bool
    ) -> Found:
        found: Found = {}
        for argument, annotation in zip(arguments.args or [], arguments.annotations, strict=False):
            if argument is binding and annotation is not None:
                found.update(self._annotated(annotation, classes))
        function = arguments.parent
        if not isinstance(function, nodes.FunctionDef):
            return found
        if (
            not classes
            and is_method(function)
            and arguments.args
            and arguments.args[0] is binding
            and function.type == "method"
        ):
            # `self`: an instance of the class defining the method, or of a subclass.
            owner = self._project(function.parent)
            if owner is not None:
                for member in [owner, *self.subclasses.get(id(owner), [])]:
                    found[id(member)] = (
                        member,
                        f"{self.where(function)}: self in {owner.name}.{function.name}()",
                    )
            return found
        params = positional_params(function)
        if binding.name not in params:
            return found
        index = params.index(binding.name)
        for arg in self._passed(function, index, binding.name):
            found.update(self._read(arg, depth, classes=classes))
        return found

    def _passed(self, function: nodes.FunctionDef, index: int, param: str) -> list[nodes.NodeNG]:
        """What the call sites of *function* pass for its parameter *param* (at *index*)."""
        name = function.name
        target: nodes.FunctionDef | nodes.ClassDef = function
        if name == "__init__" and isinstance(function.parent, nodes.ClassDef):
            name, target = function.parent.name, function.parent
        sites = self.calls.get(name, [])
        passed: list[nodes.NodeNG] = []
        if len(sites) <= _MAX_SITES:
            for call in sites:
                if self._calls(call, target):
                    passed.extend(_argument(call.args, call.keywords, index, param))
        for starter in _STARTERS:
            for call in self.calls.get(starter, []):
                keywords = {k.arg: k.value for k in call.keywords or ()}
                started = keywords.get("target")
                if not (
                    (isinstance(started, nodes.Name) and _names(started, function))
                    or (isinstance(started, nodes.Attribute) and started.attrname == function.name)
                ):
                    continue
                args = keywords.get("args")
                if isinstance(args, (nodes.Tuple, nodes.List)):
                    elements = [e for e in args.elts if isinstance(e, nodes.NodeNG)]
                    passed.extend(_argument(elements, None, index, param))
        return passed

    def _calls(self, call: nodes.Call, target: nodes.FunctionDef | nodes.ClassDef) -> bool:
        """Whether *call* calls *target* (a function or method, or a class constructed):
        a call site of another function of the same name passes nothing to it."""
        func = call.func
        if isinstance(func, nodes.Name):
            return _names(func, target)
        if not isinstance(func, nodes.Attribute):
            return False
        expr = func.expr
        if isinstance(expr, nodes.Name) and expr.name in ("self", "cls"):
            owner = target.parent if isinstance(target, nodes.FunctionDef) else None
            frame = call.frame()
            caller = frame.parent if isinstance(frame, nodes.FunctionDef) else None
            return (
                isinstance(owner, nodes.ClassDef)
                and isinstance(caller, nodes.ClassDef)
                and (
                    caller is owner
                    or any(c is owner for c in self._ancestors(caller))
                    or any(c is caller for c in self._ancestors(owner))
                )
            )
        if isinstance(expr, nodes.Name) and _is_module(expr):
            return True  # module.function(...), module.Class(...)
        values = inferred_values(func)
        callee = target if isinstance(target, nodes.FunctionDef) else None
        return any(
            value is target or (callee is not None and function_of(value) is callee)
            for value in values[:4]
        )

    def _annotated(self, annotation: nodes.NodeNG, classes: bool) -> Found:
        """The project classes an annotation names (``X``, ``Optional[X]``, ``X | None``,
        ``type[X]``, ``"X"``): the class and its subclasses, any of which it admits."""
        found: Found = {}
        for name in _annotation_names(annotation, classes):
            for value in inferred_values(name)[:4]:
                cls = self._project(value)
                if cls is None:
                    continue
                for member in [cls, *self.subclasses.get(id(cls), [])]:
                    found[id(member)] = (
                        member,
                        f"{self.where(annotation)}: annotated {_short(annotation)}",
                    )
        return found


def function_of(value: object) -> nodes.FunctionDef | None:
    """The function a value astroid inferred is: itself, or a bound or unbound method's."""
    for _ in range(3):
        if isinstance(value, nodes.FunctionDef):
            return value
        value = getattr(value, "_proxied", None)
    return None


def bound_to(used: nodes.Name) -> set[tuple[str, str]]:
    """(name, module) of what *used* is bound to: a function or class by its module,
    an imported one by the last part of the module it is imported from (``*part``)."""
    try:
        _, bindings = used.lookup(used.name)
    except (*INFERENCE_ERRORS, AttributeError, KeyError):
        return set()
    found: set[tuple[str, str]] = set()
    for binding in bindings:
        if isinstance(binding, (nodes.FunctionDef, nodes.ClassDef)):
            found.add((binding.name, binding.root().name))
        elif isinstance(binding, nodes.ImportFrom):
            module = (binding.modname or "").rsplit(".", 1)[-1]
            found.update(
                (original, f"*{module}")
                for original, alias in binding.names
                if (alias or original) == used.name
            )
    return found


class ImportAliases:
    """The names each module imports under another (``from m import a as b``), noted as
    a walk meets its imports: original -> aliases, by module."""

    def __init__(self) -> None:
        self._by_module: dict[int, dict[str, set[str]]] = {}

    def note(self, node: nodes.ImportFrom) -> None:
        mine = self._by_module.setdefault(id(node.root()), {})
        for original, alias in node.names:
            if alias:
                mine.setdefault(original, set()).add(alias)

    def of(self, module: nodes.Module, original: str) -> set[str]:
        """The aliases *module* imports *original* under."""
        if id(module) not in self._by_module:  # a module the walk did not meet
            for node in nodes_of(module, nodes.ImportFrom):
                self.note(node)
            self._by_module.setdefault(id(module), {})
        return self._by_module[id(module)].get(original, set())


class Namings:
    """Whether code names a module-level function or class: a name in it bound to the
    target, or imported from the target's module under the target's name (by
    :func:`bound_to`). Only a name spelled as the target, or as an alias its module
    imports the target's name under, can be: bound_to gives a definition's own name and
    an import's original one. So only those names are looked up, not every name of a
    class of a thousand lines."""

    def __init__(self, aliases: ImportAliases) -> None:
        self._aliases = aliases
        self._used: dict[int, dict[str, list[nodes.Name]]] = {}
        self._known: dict[tuple[int, int], bool] = {}

    def __call__(self, code: nodes.NodeNG, target: nodes.NodeNG) -> bool:
        key = (id(code), id(target))
        if key not in self._known:
            self._known[key] = self._names(code, target)
        return self._known[key]

    def _names(self, code: nodes.NodeNG, target: nodes.NodeNG) -> bool:
        name = str(getattr(target, "name", ""))
        module = target.root().name
        wanted = {(name, module), (name, f"*{module.rsplit('.', 1)[-1]}")}
        spellings = {name, *self._aliases.of(code.root(), name)}
        used = self._used_in(code)
        return any(wanted & bound_to(n) for spelt in spellings for n in used.get(spelt, ()))

    def _used_in(self, code: nodes.NodeNG) -> dict[str, list[nodes.Name]]:
        if id(code) not in self._used:
            used: dict[str, list[nodes.Name]] = {}
            for node in nodes_of(code, nodes.Name):
                used.setdefault(node.name, []).append(node)
            self._used[id(code)] = used
        return self._used[id(code)]


def looked_up_on(at: str, obj: nodes.NodeNG, found: Found) -> Found:
    """*found*, each evidence prefixed with where the name is looked up on *obj*."""
    shown = " ".join(obj.as_string().split())
    return {
        key: (cls, f"{at}: the name is looked up on {shown}, bound by {evidence}")
        for key, (cls, evidence) in found.items()
    }


def _names(name: nodes.Name, target: nodes.FunctionDef | nodes.ClassDef) -> bool:
    """Whether *name* is bound to *target*, or imported from its module under its name."""
    try:
        _, bindings = name.lookup(name.name)
    except (*INFERENCE_ERRORS, AttributeError, KeyError):
        return False
    module = target.root().name.rsplit(".", 1)[-1]
    for binding in bindings:
        if binding is target:
            return True
        if (
            isinstance(binding, nodes.ImportFrom)
            and (binding.modname or "").rsplit(".", 1)[-1] == module
            and any(
                original == target.name and (alias or original) == name.name
                for original, alias in binding.names
            )
        ):
            return True
    return False


def _is_module(name: nodes.Name) -> bool:
    """Whether *name* is bound by an import (``import pkg.mod as mod``)."""
    try:
        _, bindings = name.lookup(name.name)
    except (*INFERENCE_ERRORS, AttributeError, KeyError):
        return False
    return bool(bindings) and all(isinstance(b, (nodes.Import, nodes.ImportFrom)) for b in bindings)


def _argument(
    args: list[nodes.NodeNG], keywords: list[nodes.Keyword] | None, index: int, param: str
) -> list[nodes.NodeNG]:
    if len(args) > index and not any(isinstance(a, nodes.Starred) for a in args[: index + 1]):
        return [args[index]]
    for passed in keywords or ():
        if passed.arg == param:
            return [passed.value]
    return []


def _annotation_names(annotation: nodes.NodeNG, classes: bool) -> list[nodes.NodeNG]:
    """The names an annotation admits: for an instance, ``X`` in ``X``, ``Optional[X]``,
    ``X | None``; for a class, ``X`` in ``type[X]`` / ``Type[X]``."""
    if isinstance(annotation, nodes.BinOp) and annotation.op == "|":
        return [
            *_annotation_names(annotation.left, classes),
            *_annotation_names(annotation.right, classes),
        ]
    if isinstance(annotation, nodes.Subscript):
        outer = annotation.value
        outer_name = outer.attrname if isinstance(outer, nodes.Attribute) else None
        if isinstance(outer, nodes.Name):
            outer_name = outer.name
        inner = annotation.slice
        inners: list[nodes.NodeNG] = [
            e
            for e in (inner.elts if isinstance(inner, nodes.Tuple) else [inner])
            if isinstance(e, nodes.NodeNG)
        ]
        if outer_name in ("type", "Type"):
            return inners if classes else []
        if outer_name in ("Optional", "Union"):
            return [n for i in inners for n in _annotation_names(i, classes)]
        if outer_name in _CONTAINERS and inners:
            # A list of workers reads as a worker, as a list display does.
            return [n for i in inners[-1:] for n in _annotation_names(i, classes)]
        return []
    if classes:
        return []
    if isinstance(annotation, (nodes.Name, nodes.Attribute)):
        return [annotation]
    return []


def _direct_targets(assign: nodes.Assign | nodes.AnnAssign) -> list[nodes.NodeNG]:
    """The targets bound to the whole value (not an element of an unpacked tuple)."""
    if isinstance(assign, nodes.AnnAssign):
        return [assign.target]
    return list(assign.targets)


def attribute_bindings(
    klass: nodes.ClassDef, attrname: str
) -> list[tuple[nodes.NodeNG | None, nodes.NodeNG | None]]:
    """(value, annotation) of each ``self.attr = value`` in *klass*'s methods and each
    class-level ``attr = value``."""
    found: list[tuple[nodes.NodeNG | None, nodes.NodeNG | None]] = []
    for binding in klass.locals.get(attrname, []):
        parent = binding.parent
        if isinstance(binding, nodes.AssignName) and isinstance(
            parent, (nodes.Assign, nodes.AnnAssign)
        ):
            if isinstance(parent, nodes.AnnAssign):
                found.append((parent.value, parent.annotation))
            elif binding in parent.targets:
                found.append((parent.value, None))
    instance_bindings: object = klass.instance_attrs.get(attrname, [])
    if not isinstance(instance_bindings, list):
        return found
    for binding in instance_bindings:
        parent = binding.parent
        if isinstance(parent, nodes.AnnAssign):
            found.append((parent.value, parent.annotation))
        elif isinstance(parent, nodes.Assign) and binding in parent.targets:
            found.append((parent.value, None))
    return found


def _is_ray_remote(call: nodes.Call) -> bool:
    func = call.func
    return (
        isinstance(func, nodes.Attribute)
        and func.attrname == "remote"
        and isinstance(func.expr, nodes.Name)
        and func.expr.name == "ray"
    )


def _short(node: nodes.NodeNG) -> str:
    text = " ".join(node.as_string().split())
    return text if len(text) <= 60 else text[:57] + "..."

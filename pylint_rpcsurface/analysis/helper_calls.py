"""Helpers a caller's code calls: their broadcasts count as the caller's.

A helper is a module-level function, a staticmethod or a classmethod that the code calls,
directly or through other helpers, where astroid resolves the call to one function. The
walk is breadth-first, so each helper is reached by its shortest chain; it never enters
a helper twice (recursion terminates) and stops after ``depth`` calls.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TypeVar

from astroid import bases, nodes
from astroid.exceptions import AttributeInferenceError

from pylint_rpcsurface.analysis.broadcasts import Code, calls_in
from pylint_rpcsurface.analysis.inference import (
    INFERENCE_ERRORS,
    imported_binding,
    imported_dotted_name,
    inferred_values,
    location_of,
    name_bindings,
    named_class,
)
from pylint_rpcsurface.analysis.library_text import LibraryText
from pylint_rpcsurface.model import HelperStep
from pylint_rpcsurface.sources import SourceTree


def _is_helper(function: nodes.NodeNG) -> bool:
    if not isinstance(function, nodes.FunctionDef):
        return False
    if isinstance(function.parent, nodes.Module):
        return True
    return function.type in ("staticmethod", "classmethod")


def _unbound(value: object) -> object:
    """A bound or unbound method's FunctionDef; anything else as it is."""
    if isinstance(value, bases.UnboundMethod):
        # astroid's proxies expose what they wrap only as _proxied, which is private:
        # tests/test_private_hooks.py checks the shape relied on.
        return value._proxied  # pylint: disable=protected-access
    return value


def _callee(call: nodes.Call) -> nodes.FunctionDef | None:
    """The one function *call* calls, by inference; a bound method counts as its def."""
    named = _method_of_a_named_class(call.func)
    if named is not None:
        return named
    functions = {id(f): f for f in map(_unbound, inferred_values(call.func))}
    if len(functions) != 1:
        return None
    (function,) = functions.values()
    return function if isinstance(function, nodes.FunctionDef) else None


def reaches_only_python_itself(call: nodes.Call, tree: SourceTree) -> bool:
    """Whether *call* can only call a builtin or the standard library, by syntax alone.

    Neither ever dispatches an RPC, and inferring such calls is most of the cost of
    following helpers (``logger.info(...)`` builds the whole ``logging`` package). A call
    is skipped when the name its callee starts from (``f`` in ``f(...)``, ``m`` in
    ``m.f(...)``, ``logger`` in ``logger.info(...)``) is bound nowhere in the code's scopes
    (a builtin), or only by imports of standard-library modules that no file under the
    source roots shadows, or only by assignments (``logger = logging.getLogger(...)``,
    ``loop = asyncio.get_event_loop()``) of values that start from such names. A call on
    an attribute of ``self`` (``self.queue.put(...)``) is skipped when every value astroid
    may give that attribute is one too (see :func:`_reaches_an_attribute_of_python_itself`).
    Anything else is inferred.

    On the way from the callee to that name, and from each assigned value to its own,
    every call must give nothing of what it is given (:func:`_gives_nothing_back`), and
    no subscript may pick from a container: ``cast(T, x)``, ``getattr(x, "m")`` and
    ``copy.copy(x)`` hand back the project's own objects, whose methods may be helpers.
    """
    if not _gives_nothing_back(call.func, tree):
        return False
    root = _root_name(call.func)
    if root is None:
        return False
    if _only_a_parameter(root):
        return _reaches_an_attribute_of_python_itself(call, root, tree)
    if _bound_in_no_scope(root):
        return True  # a builtin, or unbound: the look-up would end in builtins
    bindings = _bindings(root)
    if bindings is None:
        return False
    method_of_root = isinstance(call.func, nodes.Attribute) and call.func.expr is root
    if method_of_root and _all_literals(bindings):
        return True
    return _all_python_itself(bindings, root.name, tree, hops=3)


# Values whose methods are the builtin types' own: ``out = []`` makes ``out.append(x)`` a
# list's method, whatever the list holds.
_LITERALS = (
    nodes.List,
    nodes.Tuple,
    nodes.Set,
    nodes.Dict,
    nodes.Const,
    nodes.JoinedStr,
    nodes.ListComp,
    nodes.SetComp,
    nodes.DictComp,
)


def _all_literals(bindings: list[nodes.NodeNG]) -> bool:
    """Whether every binding of the name ``name.method(...)`` calls on is a plain ``name =
    <literal>``: the method is then a builtin type's, which never dispatches.

    Only for the method itself: ``name[0]()`` or ``name.get(k)()`` call what the literal
    holds, which may be a helper, and are inferred."""
    return bool(bindings) and all(
        isinstance(binding, nodes.AssignName)
        and isinstance(binding.parent, nodes.Assign)
        and binding.parent.targets == [binding]
        and isinstance(binding.parent.value, _LITERALS)
        for binding in bindings
    )


def _root_name(expression: nodes.NodeNG | None) -> nodes.Name | None:
    """The name an expression starts from: ``a`` in ``a.b(c).d[0]``."""
    while isinstance(expression, (nodes.Attribute, nodes.Call, nodes.Subscript)):
        if isinstance(expression, nodes.Attribute):
            expression = expression.expr
        elif isinstance(expression, nodes.Call):
            expression = expression.func
        else:
            expression = expression.value
    return expression if isinstance(expression, nodes.Name) else None


def _only_a_parameter(name: nodes.Name) -> bool:
    """Whether *name*, used in the body of its own function or lambda, is bound there by
    a parameter and nothing else (``self`` in ``self.step()``, most of the calls read).

    astroid's look-up would then give that parameter alone, which starts from no import
    (so the answer is "infer it"): the look-up, the costliest part of the filter, is
    skipped. A name outside the body (in a default value or a decorator: Python looks
    those up around the function, whatever astroid does today), a dunder (a method's
    ``__class__``) and a name bound any other way too are left to the look-up.
    """
    if name.name.startswith("__"):
        return False
    scope = name.scope()
    if not isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        return False
    bindings = scope.locals.get(name.name)
    if (
        bindings is None
        or len(bindings) != 1
        or not isinstance(bindings[0].parent, nodes.Arguments)
    ):
        return False
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    node: nodes.NodeNG = name
    while node.parent is not scope:
        if node.parent is None:
            return False
        node = node.parent
    return any(node is statement for statement in body)


def _reaches_an_attribute_of_python_itself(
    call: nodes.Call, root: nodes.Name, tree: SourceTree
) -> bool:
    """Whether *call* calls, by attributes alone, an attribute of ``self.a`` (``a.m`` in
    ``self.a.m(...)``) where every value astroid may give ``self.a`` is a builtin's or
    the standard library's, as :func:`reaches_only_python_itself` tells for a name.

    *root* is a method's first parameter, bound by nothing else, so astroid infers it
    to an instance of the method's class (its ``_arguments_infer_argname``), and ``a``
    to what that class's :meth:`~astroid.nodes.ClassDef.instance_attr` lists: the
    ``x.a = value`` statements of its module and its bases' (those of other modules are
    not the class's, see :mod:`.assigned_members`). Each must be a plain assignment of
    a value of :func:`a_value_of_python_itself`, or of a literal when ``a``'s own method
    is called (``self.pending = []`` then ``self.pending.append(x)``). An attribute no
    statement assigns is left to astroid (its class-level binding may be a method, a
    property, an enum's member), unless no class binds it either: astroid then infers
    nothing. The statements read are what astroid's own look-up reads (a class's member
    ``a``, see :mod:`.member_reads`), so a piece's reads are the same.
    """
    attribute = root.parent
    if (
        not isinstance(attribute, nodes.Attribute)
        or attribute.expr is not root
        or attribute.attrname.startswith("__")
    ):
        return False
    steps = 0
    node: nodes.NodeNG = call.func
    while node is not attribute:
        if not isinstance(node, nodes.Attribute):
            return False  # a call or a subscript on the way: what it gives is unknown
        node = node.expr
        steps += 1
    if steps == 0:
        return False  # self.a(...) calls the value itself
    klass = _class_of_self(root)
    if klass is None:
        return False
    bindings = _instance_attribute(klass, attribute.attrname)
    if bindings is None:
        return False
    return all(
        isinstance(binding, nodes.AssignAttr)
        and _assigned_python_itself(binding, tree, method_of_value=steps == 1)
        for binding in bindings
    )


def _class_of_self(parameter: nodes.Name) -> nodes.ClassDef | None:
    """The class whose instance astroid infers *parameter* to: the first positional
    parameter of a plain method (``FunctionDef.type`` "method") of a class that is not a
    metaclass; None for anything else."""
    function = parameter.scope()
    klass = function.parent
    if not isinstance(function, nodes.FunctionDef) or not isinstance(klass, nodes.ClassDef):
        return None
    positional = [*function.args.posonlyargs, *(function.args.args or [])]
    if not positional or positional[0].name != parameter.name:
        return None
    try:
        if function.type != "method" or klass.type == "metaclass":
            return None
    except INFERENCE_ERRORS:
        return None
    return klass


def _instance_attribute(klass: nodes.ClassDef, name: str) -> list[nodes.NodeNG] | None:
    """The statements astroid reads for attribute *name* of an instance of *klass*:
    its instance attributes' assignments, else [] when no class in its order binds
    *name* either; None when some class does, or the look-up fails."""
    try:
        return list(klass.instance_attr(name))
    except AttributeInferenceError:
        pass
    except INFERENCE_ERRORS:
        return None
    try:
        klass.getattr(name, class_context=False)
    except AttributeInferenceError:
        return []
    except INFERENCE_ERRORS:
        return None
    return None


# The builtins whose result, given nothing, comes from where they are called: super()
# gives the class's bases (astroid infers their methods), the others its names.
_READING_THE_CALLER = frozenset(
    {"super", "globals", "locals", "vars", "dir", "eval", "exec", "__import__", "breakpoint"}
)


def a_value_of_python_itself(value: nodes.NodeNG, tree: SourceTree, hops: int = 3) -> bool:
    """Whether *value* is names, attributes and calls (``asyncio.Queue()``,
    ``asyncio.get_event_loop().create_task(self._run())``) from a name bound to a
    builtin, to an import of the standard library, or by plain assignments of such
    values (within *hops*), each call given only :func:`_harmless_arguments`.

    A call given a string may name a project object (``getattr(module, "name")``,
    ``importlib.import_module("app")``), and one given another value may return it."""
    node = value
    while not isinstance(node, nodes.Name):
        if isinstance(node, nodes.Attribute):
            node = node.expr
        elif isinstance(node, nodes.Call) and _harmless_arguments(node):
            node = node.func
        else:
            return False
    if _bound_in_no_scope(node):
        return node.name not in _READING_THE_CALLER
    bindings = _bindings(node)
    if not bindings:
        return False
    return all(
        _binds_python_itself(binding, node.name, tree, hops=1)
        if not isinstance(binding, nodes.AssignName)
        else hops > 1 and _assigned_python_itself(binding, tree, hops - 1)
        for binding in bindings
    )


def bases_of_python_itself(cls: nodes.ClassDef, tree: SourceTree) -> bool:
    """Whether every base of *cls* is, by syntax alone, a builtin or the standard
    library's (``enum.Enum``, ``NamedTuple``, ``Generic[T]``, ``threading.Thread``), as
    :func:`a_value_of_python_itself` tells a value: such a class derives from no class of
    the project, whatever its bases' own bases are. A class with no base derives from
    ``object`` alone."""
    for written in cls.bases:
        base = written
        while isinstance(base, nodes.Subscript):
            base = base.value  # Generic[T]: the class subscripted
        if not isinstance(base, nodes.NodeNG) or not a_value_of_python_itself(base, tree):
            return False
    return True


def _assigned_python_itself(
    target: nodes.AssignName | nodes.AssignAttr,
    tree: SourceTree,
    hops: int = 3,
    *,
    method_of_value: bool = False,
) -> bool:
    """Whether the one value a plain assignment binds to *target* is one of
    :func:`a_value_of_python_itself`, or a literal whose own method is called."""
    value = _assigned_value(target)
    if value is None:
        return False
    if isinstance(value, _LITERALS):
        return method_of_value
    return a_value_of_python_itself(value, tree, hops)


def _harmless_arguments(call: nodes.Call) -> bool:
    """Whether every argument of *call* is a constant other than a string or bytes, a
    builtin's name (``defaultdict(list)``), or a call of a method of ``self`` whose code
    returns no value (astroid infers such a call to None, as it does a coroutine's):
    nothing of the project's goes in."""
    values = [*call.args, *(keyword.value for keyword in call.keywords or ())]
    return all(
        (isinstance(value, nodes.Const) and not isinstance(value.value, (str, bytes)))
        or (
            isinstance(value, nodes.Name)
            and _bound_in_no_scope(value)
            and value.name not in _READING_THE_CALLER
        )
        or (isinstance(value, nodes.Call) and _returns_nothing(value))
        for value in values
    )


def _returns_nothing(call: nodes.Call) -> bool:
    """Whether *call* is ``self.m(...)``, *m* one undecorated plain method of the class
    (no instance attribute of that name) whose own code has no ``return`` with a value
    and no ``yield``."""
    method = _plain_method_called(call.func)
    if method is None:
        return False
    own = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
    return not any(
        node.value is not None for node in method.nodes_of_class((nodes.Return,), skip_klass=own)
    ) and not any(True for _ in method.nodes_of_class((nodes.Yield,), skip_klass=own))


def _plain_method_called(func: nodes.NodeNG) -> nodes.FunctionDef | None:
    """The method ``self.m`` (*func*) is where that is one undecorated plain method of the
    class of ``self`` (a method's first parameter, bound by nothing else), bound once in
    its order, with no instance attribute of that name: astroid infers ``self.m`` to
    it, bound. None for anything else."""
    if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)):
        return None
    root = func.expr
    klass = _class_of_self(root) if _only_a_parameter(root) else None
    return None if klass is None else _plain_method_of(klass, func.attrname)


def _plain_method_of(klass: nodes.ClassDef, name: str) -> nodes.FunctionDef | None:
    """The one undecorated plain method an instance of *klass* finds as *name* (no
    instance attribute of that name); None for anything else."""
    if name.startswith("__"):
        return None
    try:
        if _instance_attribute(klass, name) is not None:
            return None  # assigned to instances, or bound nowhere
        bindings = klass.getattr(name, class_context=False)
    except INFERENCE_ERRORS:
        return None
    if len(bindings) != 1 or not isinstance(bindings[0], nodes.FunctionDef):
        return None
    method = bindings[0]
    try:
        if method.decorators is not None or method.type != "method":
            return None
    except INFERENCE_ERRORS:
        return None
    return method


def calls_a_partial_of_a_method(call: nodes.Call, tree: SourceTree) -> bool:
    """Whether *call* is ``self.a(...)`` where every statement astroid reads for ``a``
    (see :func:`_reaches_an_attribute_of_python_itself`) is ``self.a =
    functools.partial(self.m, ...)``, *m* a plain method of the class
    (:func:`_plain_method_called`): calling the partial calls that method, and a method
    is never a helper (a module-level function, a staticmethod or a classmethod).

    astroid's ``functools`` brain, to tell, builds ``functools`` (the generated bench
    tree's ``self._record = partial(self._put_output, ...)``, called in many sending
    methods). A partial of anything else (a function, a staticmethod: a helper) is
    inferred."""
    func = call.func
    if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)):
        return False
    root = func.expr
    klass = _class_of_self(root) if _only_a_parameter(root) else None
    if klass is None or func.attrname.startswith("__"):
        return False
    try:
        bindings = _instance_attribute(klass, func.attrname)
    except INFERENCE_ERRORS:
        return False
    return bool(bindings) and all(
        isinstance(binding, nodes.AssignAttr) and _a_partial_of_a_method(binding, klass, tree)
        for binding in bindings or ()
    )


def _a_partial_of_a_method(
    binding: nodes.AssignAttr, klass: nodes.ClassDef, tree: SourceTree
) -> bool:
    """Whether *binding* is ``self.a = functools.partial(self.m, ...)`` in a method of
    *klass* or of a class in its order (a base's ``__init__``), ``m`` a plain method both
    where the assignment is read (the base's ``self``) and for an instance of *klass*:
    astroid may read ``self`` in the base's method as either."""
    value = _assigned_value(binding)
    if not isinstance(value, nodes.Call) or not value.args:
        return False
    if _standard_name(value.func, tree) != "functools.partial":
        return False
    wrapped = value.args[0]
    if not (isinstance(wrapped, nodes.Attribute) and isinstance(wrapped.expr, nodes.Name)):
        return False
    owner = _class_of_self(wrapped.expr) if _only_a_parameter(wrapped.expr) else None
    if owner is None:
        return False
    if owner is not klass:
        try:
            if all(owner is not ancestor for ancestor in klass.ancestors()):
                return False
        except INFERENCE_ERRORS:
            return False
    return (
        _plain_method_of(owner, wrapped.attrname) is not None
        and _plain_method_of(klass, wrapped.attrname) is not None
    )


def calls_a_class(call: nodes.Call) -> bool:
    """Whether *call* calls a class by its name (``EngineOutput(...)``), by the look-up
    alone: every binding astroid's look-up gives the name is a class statement, or an
    import of a name that the imported module binds to class statements only (followed
    through re-exports, up to three modules).

    Inference would give the class (or, through a brain, another class or an instance),
    never a function, so never a helper; but inferring it runs the class's transforms
    first (a dataclass's builds ``typing`` and what its fields name). The imports are
    followed as astroid's inference of the name follows them, to the imported module's own
    bindings of the name; the module is reached through astroid's manager, so the piece
    that asks depends on its interface, as it would through inference.
    """
    func = call.func
    if not isinstance(func, nodes.Name):
        return False
    bindings = _bindings(func)
    return bindings is not None and _all_classes(bindings, func.name, hops=3)


def _all_classes(bindings: Sequence[object], name: str, hops: int) -> bool:
    return bool(bindings) and all(_binds_a_class(b, name, hops) for b in bindings)


def _method_of_a_named_class(func: nodes.NodeNG) -> nodes.FunctionDef | None:
    """The method ``Class.method`` names, by the look-up alone, when inference would give
    that very def: ``Class`` is bound to one class statement (here or through imports, as
    :func:`calls_a_class` follows them) whose own body binds ``method`` once, to a ``def``
    with no decorator but ``classmethod`` or ``staticmethod``, and ``method`` is no
    dunder (astroid's brains make or replace those: a dataclass's ``__init__``).

    astroid finds a name the class's body binds there first, and infers a ``def`` to
    itself; but inferring ``Class`` would first run the class's transforms (a
    dataclass's build ``typing``: LMDeploy 0.7.3's ``SamplingParam.from_gen_config``)."""
    if (
        not isinstance(func, nodes.Attribute)
        or not isinstance(func.expr, nodes.Name)
        or func.attrname.startswith("__")
    ):
        return None
    klass = named_class(func.expr)
    if klass is None:
        return None
    bound = klass.locals.get(func.attrname, [])
    if len(bound) != 1 or not isinstance(bound[0], nodes.FunctionDef):
        return None
    method = bound[0]
    decorators = method.decorators.nodes if method.decorators else []
    if not all(
        isinstance(d, nodes.Name) and d.name in ("classmethod", "staticmethod") and _builtin(d)
        for d in decorators
    ):
        return None
    return method


def _builtin(name: nodes.Name) -> bool:
    """Whether *name* is the builtin it spells: bound in no scope around it."""
    return _bound_in_no_scope(name)


def _binds_a_class(binding: object, name: str, hops: int) -> bool:
    if isinstance(binding, nodes.ClassDef):
        return True
    followed = imported_binding(binding, name) if hops else None
    return followed is not None and _all_classes(followed[1], followed[0], hops - 1)


def reaches_only_libraries_sending_nothing(
    call: nodes.Call, tree: SourceTree, libraries: LibraryText
) -> bool:
    """Whether *call* calls, by the name its callee starts from, into installed libraries
    whose code reaches no dispatch call (:class:`.library_text.LibraryText`).

    The callee must be attributes of a name alone (``version.parse``, no call or
    subscript on the way: ``lib.identity(x).m`` may give back what it is handed), and
    the name must be bound, wherever astroid's look-up finds it, by absolute imports
    alone, each of a module outside the source roots and the standard library. The
    callee is then a value the library's own code binds (another module's assignments
    to it are not the module's, see :mod:`.assigned_members`), and so is every helper
    astroid could reach from it."""
    func: nodes.NodeNG = call.func
    while isinstance(func, nodes.Attribute):
        func = func.expr
    if not isinstance(func, nodes.Name):
        return False
    root = func
    if _only_a_parameter(root) or _bound_in_no_scope(root):
        return False
    bindings = _bindings(root)
    if not bindings:
        return False
    modules: list[str] = []
    for binding in bindings:
        if isinstance(binding, nodes.ImportFrom) and binding.modname and not binding.level:
            modules.append(binding.modname)
        elif isinstance(binding, nodes.Import):
            modules.extend(
                imported
                for imported, alias in binding.names
                if (alias or imported.partition(".")[0]) == root.name
            )
        else:
            return False
    return bool(modules) and all(
        module.partition(".")[0] not in sys.stdlib_module_names
        and not tree.locate(module.partition(".")[0])
        and libraries.sends_nothing(module)
        for module in modules
    )


def _bound_in_no_scope(name: nodes.Name) -> bool:
    """Whether no scope around *name*, its own and every one enclosing it up to the
    module (a class's included), binds it: astroid's look-up then ends in the builtins
    module (``len``, ``range``, or a name bound nowhere), and is skipped.

    Dunder names are left to the look-up: a module answers ``__name__`` and a method
    ``__class__`` itself.
    """
    if name.name.startswith("__"):
        return False
    scope: nodes.NodeNG | None = name.scope()
    while scope is not None:
        if name.name in getattr(scope, "locals", {name.name: ()}):
            return False
        parent = scope.parent
        if parent is None:
            return isinstance(scope, nodes.Module)
        scope = parent.scope()
    return False


def _bindings(name: nodes.Name | None) -> list[nodes.NodeNG] | None:
    """What *name* may be bound to where it is used (astroid's look-up), or None."""
    if name is None:
        return None
    looked_up = name_bindings(name)
    return None if looked_up is None else looked_up[1]


def _only_python_itself(name: nodes.Name | None, tree: SourceTree, hops: int) -> bool:
    bindings = _bindings(name) if hops else None
    return (
        name is not None
        and bindings is not None
        and _all_python_itself(bindings, name.name, tree, hops)
    )


def _all_python_itself(
    bindings: list[nodes.NodeNG], name: str, tree: SourceTree, hops: int
) -> bool:
    return all(_binds_python_itself(binding, name, tree, hops) for binding in bindings)


def _binds_python_itself(
    binding: nodes.NodeNG, name: str, tree: SourceTree, hops: int, functions: int = 1
) -> bool:
    if binding.root().name == "builtins":
        return True  # astroid's look-up ends in the builtins module
    if isinstance(binding, nodes.AssignName):
        value = _assigned_value(binding)
        if value is None:
            value = _iterated(binding)
            if value is not None and _items_of_python_itself(value, tree, hops, functions):
                return True
        return value is not None and _a_value_of_python_itself(value, tree, hops, functions)
    modules: list[str]
    if isinstance(binding, nodes.ImportFrom):
        modules = [binding.modname] if binding.modname and not binding.level else []
    elif isinstance(binding, nodes.Import):
        modules = [
            imported if alias else imported.partition(".")[0]
            for imported, alias in binding.names
            if (alias or imported.partition(".")[0]) == name
        ]
    else:
        return False
    return bool(modules) and all(_of_the_standard_library(module, tree) for module in modules)


def made_by_python_itself(value: nodes.NodeNG, tree: SourceTree) -> bool:
    """Whether *value* gives only what the standard library or a builtin makes of
    nothing of the project's (:func:`_a_value_of_python_itself`): ``logger =
    init_logger(__name__)``, whose function returns ``logging.getLogger(name)``, a logger
    whatever name it is given; ``lock = threading.Lock()``."""
    return _a_value_of_python_itself(value, tree, 3, 1)


def _a_value_of_python_itself(
    value: nodes.NodeNG, tree: SourceTree, hops: int, functions: int
) -> bool:
    """Whether *value*, assigned or iterated, gives only what the standard library or a
    builtin gives: no call on the way gives back what it is given, and it starts from a
    name bound only to such values (within *hops*), or calls functions of the project
    that return only such values."""
    if not _gives_nothing_back(value, tree, functions):
        return False
    if _calls_functions_returning_python_itself(value, tree, functions):
        return True
    return _only_python_itself(_root_name(value), tree, hops - 1)


# The literals whose items a for-loop over them takes, as astroid infers them.
_LISTING = (nodes.List, nodes.Tuple, nodes.Set)


def _items_of_python_itself(
    iterated: nodes.NodeNG, tree: SourceTree, hops: int, functions: int
) -> bool:
    """Whether every item a ``for`` loop over *iterated* may take is a value of the
    standard library's (:func:`_a_value_of_python_itself`): *iterated* is a list, tuple
    or set literal, or a name every binding of which is a plain assignment of one
    (``handlers = [stream_handler]``, LMDeploy 0.7.3's ``get_logger``).

    astroid infers a loop's item only from the elements a literal lists (what a later
    ``handlers.append(x)`` adds is never inferred), so those are all it may give."""
    if isinstance(iterated, nodes.Name):
        bindings = _bindings(iterated) if hops else None
        if not bindings:
            return False
        literals: list[nodes.NodeNG | None] = [
            _assigned_value(binding) if isinstance(binding, nodes.AssignName) else None
            for binding in bindings
        ]
    else:
        literals = [iterated]
    return all(
        isinstance(literal, _LISTING)
        and all(
            isinstance(element, nodes.NodeNG)
            and _a_value_of_python_itself(element, tree, hops, functions)
            for element in literal.elts
        )
        for literal in literals
    )


def _of_the_standard_library(module: str, tree: SourceTree) -> bool:
    """Whether *module* is the standard library's: no file under the source roots
    shadows it."""
    return module.partition(".")[0] in sys.stdlib_module_names and not tree.locate(module)


# Calls of the standard library whose value, and every attribute of it, astroid never
# infers to what they are given, whatever that is (a logger, by its name; a socket, by
# its family): each is held to astroid's own answer by
# tests/test_helper_filter_hand_back.py.
GIVING_NOTHING_BACK = frozenset(
    {
        "asyncio.Event",
        "asyncio.Lock",
        "asyncio.Queue",
        "builtins.open",
        "logging.FileHandler",
        "logging.StreamHandler",
        "logging.getLogger",
        "queue.Queue",
        "socket.socket",
        "subprocess.Popen",
        "threading.Event",
        "threading.Lock",
        "threading.RLock",
        "threading.Thread",
    }
)


def _gives_nothing_back(expression: nodes.NodeNG, tree: SourceTree, functions: int = 1) -> bool:
    """Whether no call on the way from *expression* to the name it starts from (``f``
    in ``f(a).b(c)[0].d``) may hand back what it is given: each call is given only
    :func:`_harmless_arguments`, or calls one of :data:`GIVING_NOTHING_BACK`, or a
    function of the project's whose every return is of the standard library's
    (:func:`_calls_functions_returning_python_itself`, *functions* such calls deep).

    A subscript on the way picks from what the rest gives: astroid infers an item of a
    container only where a literal lists it, and a literal is no value of the standard
    library's."""
    node = expression
    while isinstance(node, (nodes.Attribute, nodes.Call, nodes.Subscript)):
        if isinstance(node, nodes.Subscript):
            node = node.value
        elif isinstance(node, nodes.Call):
            if not (
                _harmless_arguments(node)
                or _standard_name(node.func, tree) in GIVING_NOTHING_BACK
                or _calls_functions_returning_python_itself(node, tree, functions)
            ):
                return False
            node = node.func
        else:
            node = node.expr
    return True


def _standard_name(node: nodes.NodeNG, tree: SourceTree) -> str | None:
    """:func:`.inference.imported_dotted_name` of *node*, when it names the standard
    library's or a builtin (no file under the source roots shadows its module)."""
    name = imported_dotted_name(node)
    if name is None:
        return None
    module = name.rpartition(".")[0]
    if module == "builtins":
        return name
    return name if _of_the_standard_library(module, tree) else None


def _calls_functions_returning_python_itself(
    value: nodes.NodeNG, tree: SourceTree, functions: int
) -> bool:
    """Whether *value* is a call of a name that the look-up and imports bind only to
    functions of the project whose every return gives a value of the standard library,
    whatever they are given (``logger = get_logger("app")``, with ``def get_logger(name):
    logger = logging.getLogger(name); ...; return logger``). astroid infers the call to
    what those returns infer to. *functions* is how many such calls deep to follow."""
    if functions < 1 or not isinstance(value, nodes.Call):
        return False
    if not isinstance(value.func, nodes.Name):
        return False
    named = _functions_named(value.func, hops=3)
    return bool(named) and all(
        _of_the_project(function, tree) and _returns_python_itself(function, tree, functions - 1)
        for function in named
    )


def _of_the_project(function: nodes.FunctionDef, tree: SourceTree) -> bool:
    """Whether *function* is written in a file under the source roots (a builtin's
    statement, which astroid makes from the object, has no return to read)."""
    file = function.root().file
    return file is not None and tree.module_name(file) is not None


def _functions_named(name: nodes.Name, hops: int) -> list[nodes.FunctionDef]:
    """The function statements *name* is bound to, by the look-up and ``from`` imports
    (up to *hops* modules), or none when any binding is something else."""
    found: list[nodes.FunctionDef] = []
    pending: list[tuple[Sequence[object], str, int]] = [(_bindings(name) or [], name.name, hops)]
    while pending:
        bindings, bound, left = pending.pop()
        if not bindings:
            return []
        for binding in bindings:
            if isinstance(binding, nodes.FunctionDef):
                found.append(binding)
                continue
            followed = imported_binding(binding, bound) if left else None
            if followed is None:
                return []
            pending.append((followed[1], followed[0], left - 1))
    return found


def _returns_python_itself(function: nodes.FunctionDef, tree: SourceTree, functions: int) -> bool:
    """Whether *function* (undecorated, no generator, no coroutine) returns only values
    of the standard library: each ``return`` of its own code gives None, such a value
    (as :func:`_binds_python_itself` tells an assignment's), a local name bound only to
    such values, or ``typing.cast(T, v)`` of one of those (astroid infers it to v)."""
    if (
        function.decorators is not None
        or isinstance(function, nodes.AsyncFunctionDef)
        or function.is_generator()
    ):
        return False
    own = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
    for returned in function.nodes_of_class(nodes.Return, skip_klass=own):
        value = returned.value
        while (
            isinstance(value, nodes.Call)
            and len(value.args) == 2
            and not value.keywords
            and _standard_name(value.func, tree) == "typing.cast"
        ):
            value = value.args[1]
        if value is None or (isinstance(value, nodes.Const) and value.value is None):
            continue
        if isinstance(value, nodes.Name):
            looked_up = name_bindings(value)
            if looked_up is None or looked_up[0] is not function or not looked_up[1]:
                return False
            if not all(
                isinstance(binding, nodes.AssignName)
                and _binds_python_itself(binding, value.name, tree, 3, functions)
                for binding in looked_up[1]
            ):
                return False
        elif not (
            _gives_nothing_back(value, tree, functions)
            and _only_python_itself(_root_name(value), tree, 3)
        ):
            return False
    return True


def _iterated(target: nodes.AssignName) -> nodes.NodeNG | None:
    """The value ``for x in value`` takes *target*'s items from. astroid infers an item
    of a container only where a literal lists it: a value of the standard library's
    lists only its own, and a literal's items are no value of it (its root is no name)."""
    parent = target.parent
    return parent.iter if isinstance(parent, nodes.For) and parent.target is target else None


def _assigned_value(target: nodes.AssignName | nodes.AssignAttr) -> nodes.NodeNG | None:
    """The value a plain ``x = value``, ``x: T = value`` or ``with value as x`` binds to
    *target*."""
    parent = target.parent
    if isinstance(parent, nodes.Assign) and parent.targets == [target]:
        return parent.value
    if isinstance(parent, nodes.AnnAssign):
        # astroid's annotation says Name or Attribute; the parse gives the Assign* nodes.
        annotated: nodes.NodeNG = parent.target
        return parent.value if annotated is target else None
    if isinstance(parent, nodes.With):
        for value, bound in parent.items:
            if bound is target:
                return value
    return None


def helper_calls(
    code: Code,
    tree: SourceTree,
    calls: list[nodes.Call] | None = None,
    libraries: LibraryText | None = None,
) -> Iterator[tuple[nodes.FunctionDef, HelperStep]]:
    """The helpers *code* calls where astroid resolves the callee, in source order
    (*calls*: its :func:`.broadcasts.calls_in`, when already known).

    Calls that can only reach builtins or the standard library are not inferred (see
    :func:`reaches_only_python_itself`), nor calls of a class by its name
    (:func:`calls_a_class`), nor, given *libraries*, calls into an installed library
    whose code reaches no dispatch call (:func:`reaches_only_libraries_sending_nothing`).
    """
    for call in calls_in(code) if calls is None else calls:
        if (
            reaches_only_python_itself(call, tree)
            or calls_a_class(call)
            or calls_a_partial_of_a_method(call, tree)
            or (
                libraries is not None
                and reaches_only_libraries_sending_nothing(call, tree, libraries)
            )
        ):
            continue
        target = _callee(call)
        if not isinstance(target, nodes.FunctionDef) or not _is_helper(target):
            continue
        at = location_of(call)
        if at is None or location_of(target) is None:
            continue  # a builtin or a function astroid made up
        yield target, HelperStep(target.name, at)


_K = TypeVar("_K", bound=Hashable)


def reached_helpers(
    code: _K,
    depth: int,
    calls: Callable[[_K], Sequence[tuple[_K, HelperStep]]],
    own: frozenset[_K] = frozenset(),
) -> list[tuple[_K, tuple[HelperStep, ...]]]:
    """Every helper *code* reaches within *depth* calls, with the chain that reaches it.

    Code is named by any key that tells two functions apart (a node, or where it is
    defined). *own* holds the code already counted as the caller's own (its
    staticmethods and classmethods): those are not helpers of it. *calls* gives the
    helper calls of one function: :func:`helper_calls` over the project's tree, usually
    cached.
    """
    reached: list[tuple[_K, tuple[HelperStep, ...]]] = []
    seen: set[_K] = {code, *own}
    frontier: list[tuple[_K, tuple[HelperStep, ...]]] = [(code, ())]
    for _ in range(depth):
        following: list[tuple[_K, tuple[HelperStep, ...]]] = []
        for current, chain in frontier:
            for helper, step in calls(current):
                if helper in seen:
                    continue
                seen.add(helper)
                reached.append((helper, (*chain, step)))
                following.append((helper, (*chain, step)))
        frontier = following
        if not frontier:
            break
    return reached

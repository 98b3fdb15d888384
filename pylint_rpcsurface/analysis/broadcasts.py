"""A caller's broadcasts: the dispatch calls in the code a caller class runs as its own.

That code is, by the caller's MRO, the effective method for each name (its own, or the
inherited one it does not override), plus any overridden method it reaches through
``super()``. Everything lexically inside those methods counts: nested functions, lambdas
and comprehensions. Class bodies, decorators and default values do not: they are not run
as the caller's methods. The helpers that code calls (module-level functions,
staticmethods, classmethods) are found by :mod:`.helper_calls`, and the engine counts
their broadcasts as the caller's too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from astroid import bases, nodes

from pylint_rpcsurface.analysis.conditions import conditions_of
from pylint_rpcsurface.analysis.decorators import qualified_name
from pylint_rpcsurface.analysis.inference import (
    INFERENCE_ERRORS,
    QualnameOf,
    enum_member_by_syntax,
    enum_member_class,
    enum_member_key,
    infer_unique,
    inferred_values,
    instance_class,
    is_enum,
    location_of,
    name_bindings,
)
from pylint_rpcsurface.config import DispatchForm
from pylint_rpcsurface.model import Broadcast, Location, Sent

Code = nodes.FunctionDef | nodes.Lambda


def code_of(binding: object) -> Code | None:
    """The callable a class-body binding defines: a method, ``name = lambda ...``, or
    ``name = function`` (a function defined elsewhere, bound as a method: ``self.name()``
    runs it, so its calls are the class's)."""
    if isinstance(binding, nodes.FunctionDef):
        return binding
    if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign):
        value = binding.parent.value
        if len(binding.parent.targets) != 1:
            return None
        if isinstance(value, nodes.Lambda):
            return value
        if isinstance(value, (nodes.Name, nodes.Attribute)):
            bound = infer_unique(value)
            # A def, not a class or a builtin: calling it through the instance runs it.
            if isinstance(bound, nodes.FunctionDef) and not isinstance(bound, bases.BoundMethod):
                return bound
    return None


def statements_of(code: Code) -> list[nodes.NodeNG]:
    """The statements of a function, or the one expression of a lambda."""
    return list(code.body) if isinstance(code, nodes.FunctionDef) else [code.body]


def calls_in(code: Code) -> list[nodes.Call]:
    """Every call lexically inside *code* (see :func:`statements_of`), in source order:
    what the dispatch calls, the helper calls and ``super()`` are looked for in."""
    return [
        call for statement in statements_of(code) for call in statement.nodes_of_class(nodes.Call)
    ]


def own_code(
    order: list[nodes.ClassDef],
    supers: dict[int, list[nodes.Attribute]] | None = None,
    calls: Callable[[Code], list[nodes.Call]] = calls_in,
) -> list[Code]:
    """The methods a class whose MRO is *order* runs as its own, in a stable order.

    *supers* keeps each method's ``super()...`` attributes between calls (by id): the
    callers of one family share most of their methods. *calls* gives a code's calls
    (:func:`calls_in`, or a cache of it)."""
    supers = {} if supers is None else supers
    reached: dict[int, Code] = {}
    pending: list[tuple[int, Code]] = []
    seen_names: set[str] = set()
    for position, klass in enumerate(order):
        for name, bindings in klass.locals.items():
            if name in seen_names:
                continue  # overridden (or shadowed by a plain attribute) further down
            seen_names.add(name)
            code = code_of(bindings[-1])
            if code is not None:
                pending.append((position, code))
    while pending:
        position, code = pending.pop(0)
        if id(code) in reached:
            continue
        reached[id(code)] = code
        if id(code) not in supers:
            supers[id(code)] = super_attributes(calls(code))
        pending.extend(_super_targets(supers[id(code)], position, order))
    return sorted(reached.values(), key=lambda c: (c.root().file or "", c.lineno or 0))


def super_attributes(calls: list[nodes.Call]) -> list[nodes.Attribute]:
    """The ``super(...).name`` attributes of the code whose calls are *calls*: each is
    the attribute whose object is a ``super(...)`` call."""
    return [
        call.parent
        for call in calls
        if isinstance(call.func, nodes.Name)
        and call.func.name == "super"
        and isinstance(call.parent, nodes.Attribute)
        and call.parent.expr is call
    ]


def _super_targets(
    attributes: list[nodes.Attribute], position: int, order: list[nodes.ClassDef]
) -> Iterator[tuple[int, Code]]:
    """Methods reached with ``super().name`` or ``super(Class, self).name``."""
    for attribute in attributes:
        start = _super_start(attribute.expr, position, order)
        if start is None:
            continue
        for later, klass in enumerate(order[start:], start):
            bindings = klass.locals.get(attribute.attrname)
            if bindings:
                target = code_of(bindings[-1])
                if target is not None:
                    yield later, target
                break


def _super_start(expr: nodes.NodeNG, position: int, order: list[nodes.ClassDef]) -> int | None:
    """Where in *order* the lookup of ``super(...)`` starts, or None if *expr* isn't one."""
    if not (
        isinstance(expr, nodes.Call)
        and isinstance(expr.func, nodes.Name)
        and expr.func.name == "super"
    ):
        return None
    if not expr.args:
        return position + 1
    named = infer_unique(expr.args[0])
    for index, klass in enumerate(order):
        if klass is named:
            return index + 1
    return None  # super(Unknown, self): not guessed


def dispatch_calls(
    code: Code,
    forms: dict[str, DispatchForm],
    qualname_of: QualnameOf,
    calls: list[nodes.Call] | None = None,
) -> Iterator[tuple[nodes.Call, DispatchForm]]:
    """The calls in *code* that have a dispatch form's shape (*calls*: its
    :func:`calls_in`, when already known)."""
    instance_forms = [form for form in forms.values() if form.instance_of]
    for call in calls_in(code) if calls is None else calls:
        if isinstance(call.func, nodes.Attribute) and call.func.attrname in forms:
            yield call, forms[call.func.attrname]
        elif isinstance(call.func, nodes.Name) and call.func.name in forms:
            form = forms[call.func.name]
            if form.called_as == "function":
                yield call, form
        elif instance_forms:
            found = _instance_form(call, instance_forms, qualname_of)
            if found is not None:
                yield call, found


def _instance_form(
    call: nodes.Call, forms: list[DispatchForm], qualname_of: QualnameOf
) -> DispatchForm | None:
    """The ``instance-of`` form whose class (or a subclass) *call* calls an instance of:
    ``self.flush_cache_communicator(obj)``. Only a name or an attribute of a name is
    inferred, and only in a module that binds the class's name (it defines or imports
    it): where an instance is made, or annotated."""
    func = call.func
    if not (
        isinstance(func, nodes.Name)
        or (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name))
    ):
        return None
    module = call.root()
    wanted = [f for f in forms if str(f.instance_of).rpartition(".")[2] in module.locals]
    if not wanted:
        return None
    klass = instance_class(func)
    if klass is None:
        return None
    try:
        classes = {qualname_of(c) for c in (klass, *klass.ancestors())}
    except INFERENCE_ERRORS:
        return None
    return next((form for form in wanted if form.instance_of in classes), None)


def read_broadcast(
    call: nodes.Call, form: DispatchForm, fallback: Location, qualname_of: QualnameOf
) -> Broadcast:
    """The facts of one dispatch call: its RPC name and whether it waits, by inference."""
    call_at = location_of(call) or fallback
    name_node = _name_argument(call, form)
    key_kind = "name"
    key_classes: tuple[str, ...] = ()
    if name_node is None:
        rpc, name_at, name_source = None, call_at, call.as_string()
    else:
        name_at = location_of(name_node) or call_at
        name_source = name_node.as_string()
        if form.key_by == "type":
            key_kind = "type"  # also when the class is not known: the message says so
            key_classes = (
                () if isinstance(name_node, nodes.Starred) else _sent_type(name_node, qualname_of)
            )
            rpc = key_classes[0] if key_classes else None
        elif (told := enum_member_by_syntax(name_node, qualname_of)) is not None:
            # A member of an enum class, by the syntax: astroid infers it to an instance
            # of the class, never to a str, so inferring it (which builds enum) tells no
            # more.
            rpc, key_kind = told, "enum"
        else:
            value = None if isinstance(name_node, nodes.Starred) else infer_unique(name_node)
            rpc = (
                value.value
                if isinstance(value, nodes.Const) and isinstance(value.value, str)
                else None
            )
            if rpc is None:
                rpc = enum_member_key(name_node, qualname_of)
                key_kind = "name" if rpc is None else "enum"
    waited, wait_at, wait_source = _wait_flag(call, form)
    return Broadcast(
        call=call_at,
        name_at=name_at,
        method=form.name,
        rpc=rpc,
        name_source=name_source,
        waited=waited,
        wait_at=wait_at,
        wait_source=wait_source,
        unpacked=unpacked_by(call),
        # With key = "type" the handler is given the request itself, its one argument.
        sent=Sent(1, ()) if form.key_by == "type" else sent_arguments(call, form),
        drops_none=form.drops_none,
        shared_reply_queue=form.shared_reply_queue,
        unknown_name=form.unknown_name,
        key_kind=key_kind,
        key_classes=key_classes,
        conditions=conditions_of(call),
    )


def _sent_type(node: nodes.NodeNG, qualname_of: QualnameOf) -> tuple[str, ...]:
    """With key = "type", the class of the request *node* sends and its ancestors,
    qualified, in MRO order; empty when that is not one class: a construction
    ``Req(...)``, a parameter annotated with one class and never rebound (the annotation
    states what every caller passes), or a value astroid infers to one instance (an
    enum member's type being its enum)."""
    klass = _annotated_class(node) if isinstance(node, nodes.Name) else None
    if klass is None and isinstance(node, nodes.Call):
        built = infer_unique(node.func)
        klass = built if isinstance(built, nodes.ClassDef) else None
    if klass is None:
        values = inferred_values(node)
        if len(values) == 1 and isinstance(values[0], bases.Instance):
            proxied = values[0]._proxied  # pylint: disable=protected-access
            klass = proxied if isinstance(proxied, nodes.ClassDef) else None
            # A member of an enum (written E.M, or through a name): astroid's brain makes
            # it an instance of a class of its own, made in the member's assignment in
            # the enum's body, which derives from enum.Enum but not from the enum: its
            # type is the enum.
            owner = None if klass is None or klass.parent is None else klass.parent.scope()
            if (
                klass is not None
                and isinstance(owner, nodes.ClassDef)
                and klass.name in owner.locals
                and is_enum(owner)
            ):
                klass = owner
    if klass is None or not _project_class(klass):
        return ()
    try:
        order = klass.mro()
    except (*INFERENCE_ERRORS, NotImplementedError):
        order = [klass, *klass.ancestors()]
    return tuple(dict.fromkeys(qualname_of(c) for c in order if c.qname() != "builtins.object"))


def _annotated_class(name: nodes.Name) -> nodes.ClassDef | None:
    """The one class the parameter *name* is annotated with, by its name (not
    ``Union[...]``, ``X | Y``, a string or a generic alias); None otherwise."""
    annotation = _annotation(name)
    if not isinstance(annotation, (nodes.Name, nodes.Attribute)):
        return None
    klass = infer_unique(annotation)
    return klass if isinstance(klass, nodes.ClassDef) else None


def _annotation(name: nodes.Name) -> nodes.NodeNG | None:
    """The annotation of the parameter *name*, when its one binding is that parameter;
    None for a local, a rebound or unannotated parameter."""
    looked_up = name_bindings(name)
    if looked_up is None or len(looked_up[1]) != 1:
        return None
    (binding,) = looked_up[1]
    arguments = binding.parent
    if not isinstance(binding, nodes.AssignName) or not isinstance(arguments, nodes.Arguments):
        return None
    for params, written in (
        (arguments.posonlyargs, arguments.posonlyargs_annotations),
        (arguments.args or [], arguments.annotations),
        (arguments.kwonlyargs, arguments.kwonlyargs_annotations),
    ):
        for param, annotation in zip(params, written, strict=False):
            if param is binding:
                return annotation if isinstance(annotation, nodes.NodeNG) else None
    return None


def _project_class(klass: nodes.ClassDef) -> bool:
    """Whether *klass* is a class written in a module, not one astroid's brains make up
    (``typing.Union``'s) or a builtin: only such a class is a request's type."""
    root = klass.root()
    return (
        isinstance(root, nodes.Module)
        and bool(root.name)
        and root.name not in ("builtins", "typing", "typing_extensions")
        and location_of(klass) is not None
    )


def not_a_named_rpc(call: nodes.Call, form: DispatchForm) -> bool:
    """Whether the call passes its name through (a forwarding layer) or sends a callable.

    A forwarding layer's name argument holds a parameter of the enclosing function on
    every path: ``def collective_rpc(self, method, ...): inner.collective_rpc(method,
    ...)``, or a local bound from it alone (see :func:`_forwarded_parameter`). The
    literal call sites upstream are the ones checked. A name argument that infers to a
    function, a lambda or a class is code to run on each worker, not a named RPC.
    """
    name_node = _name_argument(call, form)
    if name_node is None or isinstance(name_node, nodes.Starred):
        return False
    # With key = "type", an annotated parameter is a judged send: an annotation of one
    # class states the type every caller passes; any other (a union) can't be read.
    if (
        form.key_by == "type"
        and isinstance(name_node, nodes.Name)
        and _annotation(name_node) is not None
    ):
        return False
    if isinstance(name_node, nodes.Name) and _forwarded_parameter(name_node, _Proof()):
        return True
    # An enum's member by the syntax is no callable: inferring it would build enum.
    return enum_member_class(name_node) is None and _is_callable(name_node)


def _is_callable(node: nodes.NodeNG) -> bool:
    """Whether *node* certainly infers to functions, lambdas, methods or classes only."""
    try:
        values = list(node.infer())
    except INFERENCE_ERRORS:
        return False
    callables = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, bases.UnboundMethod)
    return bool(values) and all(isinstance(value, callables) for value in values)


# How many reads deep a proof follows names bound from names; a deeper chain is not
# proved (and the recursion stays far from Python's limit).
_PROOF_DEPTH = 32


class _Proof:
    """One name argument's proof so far: the reads being judged (a read that depends on
    itself is no forwarding), the reads judged already (a name read twice is judged
    once, so the work stays linear in the reads), and the names each function lets a
    nested function rebind with ``nonlocal``."""

    def __init__(self) -> None:
        self.open: set[int] = set()
        self.judged: dict[int, nodes.AssignName | None] = {}
        self.nonlocals: dict[int, frozenset[str]] = {}

    def rebound_nonlocally(self, function: nodes.FunctionDef, name: str) -> bool:
        if id(function) not in self.nonlocals:
            self.nonlocals[id(function)] = frozenset(
                rebound
                for node in function.nodes_of_class(nodes.Nonlocal)
                for rebound in node.names
            )
        return name in self.nonlocals[id(function)]


def _forwarded_parameter(name: nodes.Name, proof: _Proof) -> nodes.AssignName | None:
    """The parameter *name* holds on every path, or None when that is not proved.

    The name is the parameter itself, or a local of the same function bound only from
    it: ``sent = method``, vLLM's ``sent = method if isinstance(method, str) else
    cloudpickle.dumps(method)``, or the same as an if/else statement (``del method``
    after it changes nothing). The bindings together give at least one alternative that
    is the parameter, and each other one is an expression of it alone (see
    :func:`_derived_parameter`). The name may be read from a nested scope of that
    function: a comprehension, a generator, a lambda or a nested def.
    """
    key = id(name)
    if key in proof.judged:
        return proof.judged[key]
    if key in proof.open or len(proof.open) >= _PROOF_DEPTH:
        return None  # a read that depends on itself, or a chain this deep: not proved
    proof.open.add(key)
    try:
        found = _judge(name, proof)
    finally:
        proof.open.discard(key)
    proof.judged[key] = found
    return found


def _judge(name: nodes.Name, proof: _Proof) -> nodes.AssignName | None:
    function, bindings = _bindings(name, proof)
    if function is None:
        return None
    if len(bindings) > 1:
        # The parameter rebound before the read: its value as passed counts for no path,
        # so the rebinding itself must give the parameter (``method = method if
        # isinstance(method, str) else dumps(method)``), not only an expression of it
        # (``method = method.strip()`` sends another name).
        bindings = [
            b
            for b in bindings
            if not (isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Arguments))
        ]
    alternatives: list[nodes.NodeNG] = []
    for binding in bindings:
        values = _bound_values(binding, function)
        if values is None:
            return None
        alternatives.extend(values)
    return _parameter_of(alternatives, function, proof)


def _bindings(name: nodes.Name, proof: _Proof) -> tuple[nodes.FunctionDef | None, list[object]]:
    """The function that binds *name*, and every binding of it the read may see.

    Read in that function's own body outside a loop, the read sees the bindings before
    it in the text. Read inside a loop, or from a nested scope (which may run after any
    later binding, or on the next turn of the loop), it may see every binding the
    function has. A ``nonlocal`` of the name in a nested function may rebind it where
    no binding of the function shows: nothing is proved then."""
    looked_up = name_bindings(name)
    if looked_up is None:
        return None, []
    function, found = looked_up
    if not isinstance(function, nodes.FunctionDef) or not found:
        return None, []
    if proof.rebound_nonlocally(function, name.name):
        return None, []
    # A ``del`` is no binding: a read after it raises, it never sees another value.
    every: list[object] = [
        b for b in function.locals.get(name.name, []) if not isinstance(b, nodes.DelName)
    ]
    if name.scope() is function and not _in_loop(name, function):
        return function, [b for b in every if _before(b, name)]
    return function, every


def _before(binding: object, read: nodes.Name) -> bool:
    """Whether *binding* may run before *read* in a body run once from top to bottom:
    it comes first in the text, and is not a target of the assignment whose value holds
    the read (that value is computed before its targets are bound)."""
    if not isinstance(binding, nodes.NodeNG):
        return True
    statement = read.statement()
    if (
        isinstance(statement, (nodes.Assign, nodes.AnnAssign, nodes.AugAssign))
        and binding.statement() is statement
        and _inside(read, statement.value)
        and not _inside(binding, statement.value)
    ):
        return False
    if binding.lineno is None or read.lineno is None:
        return True
    return (binding.lineno, binding.col_offset or 0) < (read.lineno, read.col_offset or 0)


def _inside(node: nodes.NodeNG, ancestor: nodes.NodeNG | None) -> bool:
    current: nodes.NodeNG | None = node
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent
    return False


def _in_loop(node: nodes.NodeNG, function: nodes.FunctionDef) -> bool:
    """Whether *node* is inside a ``for`` or ``while`` statement of *function*."""
    current = node.parent
    while current is not None and current is not function:
        if isinstance(current, (nodes.For, nodes.While)):
            return True
        current = current.parent
    return False


def _bound_values(binding: object, function: nodes.FunctionDef) -> list[nodes.NodeNG] | None:
    """The alternatives one binding gives: the parameter (its own node), or the value of
    a plain assignment, each branch of a conditional expression apart; none for a bare
    annotation (``name: T`` binds nothing). None for any other binding (a loop target,
    ``+=``, an import, a walrus, a tuple target...)."""
    if not isinstance(binding, nodes.AssignName) or binding.scope() is not function:
        return None
    if isinstance(binding.parent, nodes.Arguments):
        return [binding]
    if isinstance(binding.parent, nodes.AnnAssign) and binding.parent.value is None:
        return []
    value = _assigned_value(binding)
    return None if value is None else _branches(value)


def _assigned_value(binding: nodes.AssignName) -> nodes.NodeNG | None:
    """The value ``name = value`` or ``name: T = value`` gives *binding*, else None."""
    statement = binding.parent
    if isinstance(statement, nodes.Assign) and statement.targets == [binding]:
        return statement.value
    if isinstance(statement, nodes.AnnAssign) and statement.value is not None:
        return statement.value
    return None


def _branches(value: nodes.NodeNG) -> list[nodes.NodeNG]:
    if isinstance(value, nodes.IfExp):
        return _branches(value.body) + _branches(value.orelse)
    return [value]


def _parameter_of(
    alternatives: list[nodes.NodeNG], function: nodes.FunctionDef, proof: _Proof
) -> nodes.AssignName | None:
    """The one parameter every alternative is, or is derived from alone, when at least
    one alternative is that parameter; else None."""
    direct = False
    parameters: set[int] = set()
    parameter: nodes.AssignName | None = None
    for alternative in alternatives:
        found: nodes.AssignName | None
        if isinstance(alternative, nodes.AssignName):
            found = alternative
        elif isinstance(alternative, nodes.Name):
            found = _forwarded_parameter(alternative, proof)
        else:
            found = _derived_parameter(alternative, function, proof)
        if found is None:
            return None
        direct = direct or isinstance(alternative, (nodes.AssignName, nodes.Name))
        parameters.add(id(found))
        parameter = found
    return parameter if direct and len(parameters) == 1 else None


def _derived_parameter(
    value: nodes.NodeNG, function: nodes.FunctionDef, proof: _Proof
) -> nodes.AssignName | None:
    """The parameter an expression is computed from alone, as ``cloudpickle.dumps(method)``
    or ``cloudpickle.dumps(method, protocol=pickle.HIGHEST_PROTOCOL)`` is: every name of
    *function* in it holds that one parameter, any other name is what it calls
    (``cloudpickle``, ``dumps``) or code or a constant that is no str
    (:func:`_no_name_given`), and it holds no str literal. Else None."""
    parameters: set[int] = set()
    parameter: nodes.AssignName | None = None
    for node in value.nodes_of_class((nodes.Name, nodes.Const)):
        if isinstance(node, nodes.Const):
            if isinstance(node.value, str):
                return None
            continue
        if _binding_function(node) is function:
            found = _forwarded_parameter(node, proof)
            if found is None:
                return None
            parameters.add(id(found))
            parameter = found
        elif not _called(node, value) and not _no_name_given(node):
            return None  # a module's str, an unknown value: not the parameter alone
    return parameter if len(parameters) == 1 else None


def _no_name_given(name: nodes.Name) -> bool:
    """Whether *name*, with the attributes read from it (``pickle.HIGHEST_PROTOCOL``),
    certainly infers to code (a module, a class, a function) or to one constant that is
    no str: nothing that could make up another RPC name."""
    read: nodes.NodeNG = name
    while isinstance(read.parent, nodes.Attribute) and read.parent.expr is read:
        read = read.parent
    value = infer_unique(read)
    if isinstance(value, nodes.Const):
        return not isinstance(value.value, str)
    return isinstance(value, (nodes.Module, nodes.ClassDef, nodes.FunctionDef))


def _binding_function(name: nodes.Name) -> nodes.NodeNG | None:
    looked_up = name_bindings(name)
    return None if looked_up is None else looked_up[0]


def _called(node: nodes.NodeNG, top: nodes.NodeNG) -> bool:
    """Whether *node* is part of what a call inside *top* calls (``cloudpickle`` in
    ``cloudpickle.dumps(method)``), not of what it is given."""
    child, parent = node, node.parent
    while child is not top and parent is not None:
        if isinstance(parent, nodes.Call) and parent.func is child:
            return True
        child, parent = parent, parent.parent
    return False


def unpacked_by(call: nodes.Call) -> int | None:
    """``a, b, c = <call>``: 3. Any other use of the reply: None."""
    parent = call.parent
    if not isinstance(parent, nodes.Assign) or parent.value is not call:
        return None
    if len(parent.targets) != 1 or not isinstance(parent.targets[0], (nodes.Tuple, nodes.List)):
        return None
    elements = parent.targets[0].elts
    if any(isinstance(element, nodes.Starred) for element in elements):
        return None
    return len(elements)


def payload_sent(call: nodes.Call, form: DispatchForm) -> Sent:
    """With handler-args = "payload": the one dict the handler gets, of the keywords
    the dispatch method packs (``{"cmd": cmd, **kwargs}``). Its keys are known only when
    astroid sees that method build one such dict: the dict's own str keys, and the
    call's keywords that reach ``**kwargs`` (not the method's named parameters, nor those
    the configuration describes); not with ``**options`` or a positional argument after
    the name at the call."""
    return Sent(1, (), packed=True, payload=_payload_keys(call, form))


def _payload_keys(call: nodes.Call, form: DispatchForm) -> tuple[str, ...] | None:
    keywords = call.keywords or ()
    if any(keyword.arg is None for keyword in keywords) or len(call.args) > form.name_arg + 1:
        return None
    if any(isinstance(argument, nodes.Starred) for argument in call.args):
        return None
    found = _dispatch_function(call)
    if found is None:
        return None
    arguments = found[0].args
    packed = arguments.kwarg
    displays = [
        display
        for display in found[0].nodes_of_class(nodes.Dict)
        if any(
            isinstance(key, nodes.DictUnpack) and isinstance(value, nodes.Name)
            and value.name == packed
            for key, value in display.items
        )
    ]  # fmt: skip
    if packed is None or len(displays) != 1:
        return None  # which dict the handler gets is not written
    own: list[str] = []
    for key, _ in displays[0].items:
        if isinstance(key, nodes.DictUnpack):
            continue
        if not (isinstance(key, nodes.Const) and isinstance(key.value, str)):
            return None
        own.append(key.value)
    named = {a.name for a in [*(arguments.args or []), *(arguments.kwonlyargs or [])]}
    sent = [
        str(keyword.arg)
        for keyword in keywords
        if keyword.arg not in form.call_keywords and keyword.arg not in named
    ]
    return tuple(dict.fromkeys([*own, *sent]))


def sent_arguments(call: nodes.Call, form: DispatchForm) -> Sent | None:
    """The arguments the call forwards to the handler, or None when they can't be known.

    By default the positional arguments after the name are forwarded and no keyword
    is (a call with any other keyword is not judged). With ``args-from`` and
    ``kwargs-from``, the tuple and the dict those parameters of the dispatch method hold
    are forwarded: the call is bound to the dispatch method's own signature, positionally
    or by keyword, when astroid sees that method. When it doesn't, the carriers are read
    as keywords only, and a call passing anything else (a positional argument after the
    name, another keyword, ``*args``, ``**kwargs``) is not judged.
    """
    if form.handler_args == "payload":
        return payload_sent(call, form)
    keywords = call.keywords or ()
    if any(keyword.arg is None for keyword in keywords):
        return None  # **options may carry anything
    if form.args_from is None:
        return _sent_after_name(call, form)
    bound = _bind_to_dispatch_method(call)
    if bound is None:
        bound = _bind_by_keyword(call, form)
        if bound is None:
            return None
    positional = _tuple_length(bound.get(form.args_from))
    passed = _dict_keys(bound.get(form.kwargs_from)) if form.kwargs_from else ()
    if positional is None or passed is None:
        return None
    return Sent(positional, passed)


def _sent_after_name(call: nodes.Call, form: DispatchForm) -> Sent | None:
    """The positional arguments after the name, and the ``kwargs-from`` dict if any."""
    positional = _positional_after_name(call, form)
    described = form.call_keywords
    by_name = {keyword.arg: keyword.value for keyword in call.keywords or ()}
    if any(name not in described for name in by_name):
        return None  # whether the dispatch method forwards those is not known
    passed = _dict_keys(by_name.get(form.kwargs_from)) if form.kwargs_from else ()
    if positional is None or passed is None:
        return None
    return Sent(positional, passed)


def _bind_by_keyword(call: nodes.Call, form: DispatchForm) -> dict[str, nodes.NodeNG] | None:
    """The carriers passed by keyword, when the call passes nothing else the configuration
    doesn't describe; None otherwise (the dispatch method itself is not seen)."""
    if any(isinstance(argument, nodes.Starred) for argument in call.args):
        return None
    if len(call.args) != form.name_arg + 1:
        return None  # a positional argument whose parameter is not known, or no name
    described = form.call_keywords
    by_name: dict[str, nodes.NodeNG] = {}
    for keyword in call.keywords or ():
        if keyword.arg is None or keyword.arg not in described:
            return None
        by_name[keyword.arg] = keyword.value
    return by_name


def _bind_to_dispatch_method(call: nodes.Call) -> dict[str, nodes.NodeNG] | None:
    """Each parameter of the dispatch method the call binds, by the method's own signature;
    None when astroid does not see one method, or when the binding reaches ``*args`` or
    ``**kwargs`` (what those forward is not known)."""
    parameters = dispatch_parameters(call)
    if parameters is None:
        return None
    positional, keyword_names = parameters
    bound: dict[str, nodes.NodeNG] = {}
    for index, argument in enumerate(call.args):
        if isinstance(argument, nodes.Starred) or index >= len(positional):
            return None
        bound[positional[index]] = argument
    for keyword in call.keywords or ():
        if keyword.arg is None or keyword.arg not in keyword_names or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    return bound


def dispatch_parameters(call: nodes.Call) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The dispatch method's positional parameters (``self`` left out) and the names that
    can be passed by keyword, when astroid infers the called function to one plain def."""
    found = _dispatch_function(call)
    if found is None:
        return None
    function, skip = found
    arguments = function.args
    posonly = [a.name for a in arguments.posonlyargs or []]
    ordinary = [a.name for a in arguments.args or []]
    names = (posonly + ordinary)[skip:]
    keyword_names = frozenset(ordinary[max(skip - len(posonly), 0) :]) | frozenset(
        a.name for a in arguments.kwonlyargs or []
    )
    return tuple(names), keyword_names


def _dispatch_function(call: nodes.Call) -> tuple[nodes.FunctionDef, int] | None:
    """The plain def *call* calls, astroid's one inference of it, and how many of its
    leading parameters the call does not pass (1 for a method's ``self``); None when it
    is not one def, or a decorator may change how the call binds."""
    values = inferred_values(call.func)
    if len(values) != 1:
        return None  # no method, or several: which one binds the call is not known
    value = values[0]
    if isinstance(value, bases.BoundMethod):
        function = value._proxied  # pylint: disable=protected-access
        if isinstance(function, bases.UnboundMethod):
            function = function._proxied  # pylint: disable=protected-access
        if not isinstance(function, nodes.FunctionDef):
            return None
        skip = 0 if function.type == "staticmethod" else 1
    elif isinstance(value, nodes.FunctionDef) and value.type == "function":
        function, skip = value, 0
    else:
        return None
    if function.decorators is not None and function.type not in {"staticmethod", "classmethod"}:
        return None  # a decorator may change how the call binds
    if function.args.args is None:
        return None
    return function, skip


def _positional_after_name(call: nodes.Call, form: DispatchForm) -> int | None:
    if len(call.args) <= form.name_arg:
        return None  # the name came by keyword: which positionals are forwarded is unknown
    after = call.args[form.name_arg + 1 :]
    if any(isinstance(argument, nodes.Starred) for argument in call.args):
        return None
    return len(after)


def _tuple_length(node: nodes.NodeNG | None) -> int | None:
    if node is None:
        return 0
    value = node if isinstance(node, (nodes.Tuple, nodes.List)) else infer_unique(node)
    if isinstance(value, nodes.Const) and value.value is None:
        return 0
    if not isinstance(value, (nodes.Tuple, nodes.List)):
        return None
    if any(isinstance(element, nodes.Starred) for element in value.elts):
        return None
    return len(value.elts)


def _dict_keys(node: nodes.NodeNG | None) -> tuple[str, ...] | None:
    if node is None:
        return ()
    value = node if isinstance(node, nodes.Dict) else infer_unique(node)
    if isinstance(value, nodes.Const) and value.value is None:
        return ()
    if not isinstance(value, nodes.Dict):
        return None
    keys = []
    for key, _ in value.items:
        if not (isinstance(key, nodes.Const) and isinstance(key.value, str)):
            return None  # ``**more`` or a computed key
        keys.append(key.value)
    return tuple(keys)


def _name_argument(call: nodes.Call, form: DispatchForm) -> nodes.NodeNG | None:
    for index, argument in enumerate(call.args):
        if isinstance(argument, nodes.Starred):
            return argument  # from here on, positions are unknown
        if index == form.name_arg:
            return argument
    if form.name_keyword is not None:
        for keyword in call.keywords or ():
            if keyword.arg == form.name_keyword:
                return keyword.value
    return None


def _wait_flag(
    call: nodes.Call, form: DispatchForm
) -> tuple[bool | None, Location | None, str | None]:
    if form.waited_by:
        return _reaches_waiter(call, frozenset(form.waited_by))
    keyword_name = form.waits_unless if form.waits_unless is not None else form.waits
    if isinstance(keyword_name, bool):
        return keyword_name, None, None
    negated = form.waits_unless is not None  # non_block=True: not waited
    keywords = call.keywords or ()
    for keyword in keywords:
        if keyword.arg == keyword_name:
            value = infer_unique(keyword.value)
            if isinstance(value, nodes.Const):
                return bool(value.value) != negated, None, None
            return None, location_of(keyword.value), f"{keyword.arg}={keyword.value.as_string()}"
    for keyword in keywords:
        if keyword.arg is None:  # **options may carry the wait keyword
            return None, location_of(keyword.value), "**" + keyword.value.as_string()
    return (True if negated else form.waits_when_absent), None, None


_CONTAINERS = (nodes.List, nodes.Tuple, nodes.ListComp, nodes.GeneratorExp, nodes.Starred)


def _reaches_waiter(
    call: nodes.Call, waiters: frozenset[str]
) -> tuple[bool | None, Location | None, str | None]:
    """Whether the call's result reaches one of *waiters* (``ray.get``), by
    :func:`waiter_of`. A result that is dropped is not waited on; one that is returned or
    stored elsewhere is not known to be."""
    waited, _, _ = waiter_of(call, waiters)
    if waited is not None:
        return waited, None, None
    # Returned or stored: whoever gets it may wait. Not a wait flag to fix at this site, so
    # no rpc-wait-uninferable (no location); the registry says why it can't be known.
    shown = " or ".join(sorted(waiters))
    return None, None, f"its result leaves the function without reaching {shown}"


def waiter_of(
    call: nodes.Call, waiters: frozenset[str]
) -> tuple[bool | None, nodes.Call | None, bool]:
    """Whether the call's result reaches one of *waiters* (``ray.get``, by the qualified
    name of its import): passed to it (alone, in a list or tuple, or as a comprehension's
    element), or bound to a name the same function passes to it. Also the waiter call
    it reaches, and whether it is that call's only argument as it is (not in a container,
    not through a name): then the waiter's value is this call's reply, not a list of them.
    False when the result is dropped, or bound to a name no waiter gets; None when it
    leaves the function (returned or stored elsewhere)."""
    node: nodes.NodeNG = call
    parent = node.parent
    while isinstance(parent, _CONTAINERS) and (
        not isinstance(parent, (nodes.ListComp, nodes.GeneratorExp)) or parent.elt is node
    ):
        node, parent = parent, parent.parent
    if isinstance(parent, nodes.Call) and node in parent.args:
        if _waiter_name(parent, waiters):
            alone = node is call and len(parent.args) == 1 and not parent.keywords
            return True, parent, alone
    elif isinstance(parent, nodes.Expr):
        return False, None, False
    elif (
        isinstance(parent, nodes.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], nodes.AssignName)
    ):
        name = parent.targets[0].name
        scope = parent.scope()
        for later in scope.nodes_of_class(nodes.Call):
            if _waiter_name(later, waiters) and any(
                isinstance(argument, nodes.Name) and argument.name == name
                for argument in later.args
            ):
                return True, later, False
        return False, None, False
    return None, None, False


def _waiter_name(call: nodes.Call, waiters: frozenset[str]) -> bool:
    return qualified_name(call.func) in waiters

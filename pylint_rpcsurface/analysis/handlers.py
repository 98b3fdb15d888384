"""What a handler method replies and which arguments it accepts, read with astroid.

The handler for a name is the handler class's effective method by MRO, as for callers.
Only facts astroid establishes for certain are recorded: a return value counts as None
only when it infers to None alone, and a decorator other than ``staticmethod``,
``classmethod`` or a transparent one (:mod:`.decorators`) makes the signature and the
replies unknown, since it may wrap the method in another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from astroid import nodes, util

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, infer_unique, location_of
from pylint_rpcsurface.analysis.syntax import changed_in_place
from pylint_rpcsurface.model import HandlerMethod, Location, Returns, Signature


def handler_methods(
    rpcs: Iterable[str],
    classes: Iterable[nodes.ClassDef],
    index: ClassIndex,
    transparent: Callable[[nodes.FunctionDef], bool] | None = None,
    *,
    replies: bool = True,
) -> tuple[HandlerMethod, ...]:
    """The effective method of every class for every name, one entry per distinct method.

    *transparent* says whether a method's decorators keep its signature and replies; a
    method it rejects (by default: any decorator but staticmethod and classmethod) has
    neither judged. Without *replies*, no method's replies are judged (``returns`` is
    None, unknown): inferring every return is most of this work, and it is done only
    where a rule reads the replies.
    """
    found: dict[tuple[str, int], tuple[nodes.FunctionDef, nodes.ClassDef, set[str]]] = {}
    for rpc in sorted(set(rpcs)):
        for cls in classes:
            located = effective_method(cls, rpc, index)
            if located is None:
                continue
            method, owner = located
            entry = found.setdefault((rpc, id(method)), (method, owner, set()))
            entry[2].add(index.qualname(cls))
    methods = []
    for (rpc, _), (method, owner, users) in found.items():
        at = location_of(method)
        if at is None:
            continue
        judged = _undecorated(method) or (transparent is not None and transparent(method))
        methods.append(
            HandlerMethod(
                rpc=rpc,
                classes=tuple(sorted(users)),
                owner=index.qualname(owner),
                name=method.name,
                at=at,
                returns=returns_of(method) if judged and replies else None,
                signature=(signature := signature_of(method, decorated_ok=judged)),
                payload_reads=(
                    payload_reads(method, signature.positional[0])
                    if signature is not None and signature.positional
                    else ()
                ),
            )
        )
    return tuple(sorted(methods, key=lambda m: (m.rpc, m.at, m.classes)))


def effective_method(
    cls: nodes.ClassDef, name: str, index: ClassIndex
) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
    """The method *cls* runs for *name*, and the class defining it; None if not a def."""
    order, _ = index.linearize(cls)
    for klass in order:
        bindings = klass.locals.get(name)
        if bindings:
            binding = bindings[-1]
            if isinstance(binding, nodes.FunctionDef):
                return binding, klass
            return None  # a lambda, a nested class or a plain attribute: no claim
    return None


# ---------------------------------------------------------------------------
# Returns


def returns_of(method: nodes.FunctionDef) -> Returns | None:
    """The replies of *method*; None for generators and coroutines (always a value)."""
    if isinstance(method, nodes.AsyncFunctionDef) or method.is_generator():
        return None
    none_at: list[Location] = []
    maybe_at: list[Location] = []
    value_at: list[Location] = []
    unknown = False
    arities: set[int | None] = set()
    tuple_at: Location | None = None
    for statement in own_returns(method):
        at = location_of(statement)
        if at is None:
            unknown = True
            continue
        kind = _kind_of(statement.value)
        {"none": none_at, "maybe": maybe_at, "value": value_at}.get(kind, []).append(at)
        unknown = unknown or kind == "unknown"
        arity = _tuple_arity(statement.value)
        arities.add(arity)
        if arity is not None and tuple_at is None:
            tuple_at = at
    falls_off = can_complete(method.body)
    if falls_off:
        end = location_of(method)
        if end is not None:
            none_at.append(end)
        arities.add(None)
    tuple_arity = None
    if len(arities) == 1:
        tuple_arity = next(iter(arities))
    return Returns(
        none_at=tuple(none_at),
        maybe_none_at=tuple(maybe_at),
        value_at=tuple(value_at),
        unknown=unknown,
        tuple_arity=tuple_arity,
        tuple_at=tuple_at if tuple_arity is not None else None,
    )


_Found = TypeVar("_Found", bound=nodes.NodeNG)


def _own_statements(
    body: Iterable[nodes.NodeNG], kind: type[_Found], barriers: tuple[type[nodes.NodeNG], ...]
) -> Iterator[_Found]:
    """The *kind* nodes in *body*, not looking inside any of the *barriers*.

    Iterative, so a deeply nested body can't exhaust the recursion limit.
    """
    stack: list[nodes.NodeNG] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            yield node
        if isinstance(node, barriers):
            continue
        stack.extend(node.get_children())


def own_returns(method: nodes.FunctionDef) -> Iterator[nodes.Return]:
    """The ``return`` statements of *method* itself, not of functions nested in it."""
    return _own_statements(
        method.body, nodes.Return, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
    )


def _kind_of(value: nodes.NodeNG | None) -> str:
    """'none', 'maybe' (None on some inference paths), 'value' or 'unknown'."""
    if value is None:
        return "none"
    if isinstance(value, nodes.Const):
        return "none" if value.value is None else "value"
    try:
        inferred = list(value.infer())
    except INFERENCE_ERRORS:
        return "unknown"
    if not inferred or any(v is util.Uninferable for v in inferred):
        return "unknown"
    nones = [v for v in inferred if isinstance(v, nodes.Const) and v.value is None]
    if len(nones) == len(inferred):
        return "none"
    return "maybe" if nones else "value"


def _tuple_arity(value: nodes.NodeNG | None) -> int | None:
    """The length of the tuple *value* certainly is, or None."""
    if value is None:
        return None
    node = value if isinstance(value, nodes.Tuple) else infer_unique(value)
    if not isinstance(node, nodes.Tuple):
        return None
    if any(isinstance(element, nodes.Starred) for element in node.elts):
        return None
    return len(node.elts)


def can_complete(body: list[nodes.NodeNG]) -> bool:
    """Whether running *body* can reach its end (and so fall off a function's end).

    Conservative in the direction of "yes": only ``return``, ``raise``, an ``if`` whose
    branches all stop, a ``try`` whose every way out stops, a ``with`` whose body stops
    and ``while True`` without ``break`` are taken to stop.
    """
    return all(_statement_completes(statement) for statement in body)


def _statement_completes(statement: nodes.NodeNG) -> bool:
    if isinstance(statement, (nodes.Return, nodes.Raise)):
        return False
    if isinstance(statement, nodes.If):
        return can_complete(statement.body) or can_complete(statement.orelse)
    if isinstance(statement, nodes.With):
        return can_complete(statement.body)
    if isinstance(statement, nodes.Try):
        if statement.finalbody and not can_complete(statement.finalbody):
            return False
        body = can_complete(statement.body) and can_complete(statement.orelse)
        return body or any(can_complete(handler.body) for handler in statement.handlers)
    if isinstance(statement, nodes.While):
        test = statement.test
        endless = isinstance(test, nodes.Const) and bool(test.value)
        if endless:
            return any(_breaks(statement))
        return True
    return True


def _breaks(loop: nodes.While) -> Iterator[nodes.Break]:
    """The ``break`` statements that leave *loop* itself."""
    return _own_statements(
        loop.body, nodes.Break, (nodes.For, nodes.While, nodes.FunctionDef, nodes.ClassDef)
    )


# ---------------------------------------------------------------------------
# Signature

_KNOWN_DECORATORS = ("staticmethod", "classmethod")


def _undecorated(method: nodes.FunctionDef) -> bool:
    """Whether *method* has no decorator but staticmethod or classmethod."""
    decorators = method.decorators.nodes if method.decorators else []
    return all(
        isinstance(decorator, nodes.Name) and decorator.name in _KNOWN_DECORATORS
        for decorator in decorators
    )


# The methods astroid takes for classmethods by their name alone.
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


def _method_type(method: nodes.FunctionDef) -> str:
    """astroid's ``method.type``, without its walk of the whole class body when nothing
    can change the answer.

    astroid looks for ``name = staticmethod(name)`` among the class's assignments for
    every method it is asked about, which is most of the time of reading the signatures
    of a class of hundreds of methods. Such an assignment binds the method's name in the
    class's scope, so an undecorated method whose name the class binds only to functions
    is a plain method."""
    frame = method.parent.frame() if method.parent is not None else None
    if (
        method.decorators is None
        and isinstance(frame, nodes.ClassDef)
        and method.name not in _IMPLICIT_CLASSMETHODS
        and all(isinstance(b, nodes.FunctionDef) for b in frame.locals.get(method.name, ()))
    ):
        return "method"
    return str(method.type)


def signature_of(method: nodes.FunctionDef, *, decorated_ok: bool = False) -> Signature | None:
    """How *method* binds the arguments a worker passes, or None when not certain.

    *decorated_ok* says its decorators are known to keep the signature as written.
    """
    if not (decorated_ok or _undecorated(method)):
        return None
    arguments = method.args
    if arguments.args is None:  # built from a living object: no signature known
        return None
    names = [a.name for a in (arguments.posonlyargs or [])] + [a.name for a in arguments.args]
    defaults = len(arguments.defaults or [])
    required = len(names) - defaults
    positional_only = len(arguments.posonlyargs or [])
    if _method_type(method) != "staticmethod":
        if not names:
            return None  # def m(*args): self comes from *args; too clever to judge
        names = names[1:]
        required = max(required - 1, 0)
        positional_only = max(positional_only - 1, 0)
    keyword_only = [a.name for a in arguments.kwonlyargs or []]
    kw_defaults = arguments.kw_defaults or [None] * len(keyword_only)
    required_keyword_only = [
        name for name, default in zip(keyword_only, kw_defaults, strict=False) if default is None
    ]
    shown = [*names[: max(required, 0)], *(f"{n}=..." for n in names[max(required, 0) :])]
    if arguments.vararg:
        shown.append(f"*{arguments.vararg}")
    elif keyword_only:
        shown.append("*")
    shown += [n if n in required_keyword_only else f"{n}=..." for n in keyword_only]
    if arguments.kwarg:
        shown.append(f"**{arguments.kwarg}")
    return Signature(
        positional=tuple(names),
        positional_only=positional_only,
        required_positional=max(required, 0),
        varargs=arguments.vararg is not None,
        keyword_only=tuple(keyword_only),
        required_keyword_only=tuple(required_keyword_only),
        varkw=arguments.kwarg is not None,
        text=f"({', '.join(shown)})",
    )


# ---------------------------------------------------------------------------
# What a handler reads from a payload dict

# The statements that never branch: every expression in them runs (but the parts of the
# expressions below), then the next statement.
_STRAIGHT = (nodes.Assign, nodes.AnnAssign, nodes.AugAssign, nodes.Expr, nodes.Return, nodes.Pass)
# The expressions whose parts may not run: a branch of a conditional expression, the
# operands of ``and``/``or`` after the first, a comprehension's, a lambda's or a nested
# function's body.
_MAY_SKIP = (
    nodes.IfExp,
    nodes.BoolOp,
    nodes.Lambda,
    nodes.ListComp,
    nodes.SetComp,
    nodes.DictComp,
    nodes.GeneratorExp,
)


def payload_reads(method: nodes.FunctionDef, parameter: str) -> tuple[str, ...]:
    """The str keys *method* reads from *parameter* by subscript, ``args["k"]``, on every
    run: in the straight statements its body begins with (up to the first that may
    branch, loop, catch or rebind the parameter), outside the parts of an expression
    that may not run. A missing key there raises KeyError whatever the other keys are."""
    found: list[str] = []
    for statement in method.body:
        if not isinstance(statement, _STRAIGHT):
            break
        if changed_in_place(statement, parameter) is not None or any(
            target.name == parameter for target in statement.nodes_of_class(nodes.AssignName)
        ):
            break  # what it holds after that is not the payload as sent
        for node in statement.nodes_of_class(nodes.Subscript, skip_klass=_MAY_SKIP):
            key = node.slice
            if (
                isinstance(node.value, nodes.Name)
                and node.value.name == parameter
                and isinstance(key, nodes.Const)
                and isinstance(key.value, str)
                and (node.ctx is None or node.ctx.name == "Load")
                and key.value not in found
            ):
                found.append(key.value)
        if isinstance(statement, nodes.Return):
            break
    return tuple(found)

"""The small readers the discovery shares: names, assignments, taint, sends and receives,
and the facts it works from (senders, call sites, worker sites, proposals)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple, TypeGuard, TypeVar, cast

from astroid import nodes

from pylint_rpcsurface.analysis.lean_build import replacements, walk_at_build
from pylint_rpcsurface.analysis.syntax import builtin_call, nodes_of, walked
from pylint_rpcsurface.sources import shown_path

# Calls that send their arguments to another process: queues, pipes, sockets, Ray.
SEND_CALLS = frozenset(
    {
        "put",
        "put_nowait",
        "send",
        "send_pyobj",
        "send_json",
        "send_multipart",
        "send_bytes",
        "send_string",
        "sendall",
        "enqueue",
        "broadcast_object",
        "broadcast_object_list",
        "remote",
        "call_remote",
    }
)
# Calls that receive a reply.
RECEIVE_CALLS = frozenset(
    {
        "recv",
        "recv_pyobj",
        "recv_json",
        "recv_multipart",
        "recv_bytes",
        "recv_string",
        "dequeue",
        "get_nowait",
    }
)
# A share of the literal names above this is "mostly".
MOSTLY = 0.5
# Literal names a sender needs at its call sites to be confirmed.
MIN_NAMES = 2
_STUB_RAISES = frozenset({"NotImplementedError"})


@dataclass(frozen=True)
class Choice:
    """One key: its value (None: not written) and the evidence, or the candidates."""

    key: str
    value: object
    evidence: str
    candidates: tuple[str, ...] = ()
    # Why the candidates are not written: the evidence is split between them, or it is
    # only that they share names with the surface (no code uses them as the key says).
    why: str = "the evidence is ambiguous"

    @property
    def ambiguous(self) -> bool:
        return self.value is None and bool(self.candidates)


@dataclass(frozen=True)
class DispatchProposal:
    method: str
    evidence: str
    keys: tuple[Choice, ...]  # in the order they are written


@dataclass(frozen=True)
class SurfaceProposal:
    name: str
    callers: tuple[tuple[str, str], ...]  # (dotted name, evidence)
    handlers: tuple[tuple[str, str], ...]
    base_handlers: tuple[tuple[str, str], ...] = ()
    registry: Choice | None = None
    refused: str | None = None  # why the surface can't be written
    candidates: tuple[str, ...] = ()  # what competes, when refused
    # Classes that define names sent, where no code binds the receiving object to them:
    # listed in a comment, the surface not written (overlap is no evidence of a receiver).
    overlap: tuple[str, ...] = ()
    base_overlap: tuple[str, ...] = ()  # the same for base-handlers
    # When refused, the handlers a person may confirm: (dotted name, evidence); init
    # writes them in a commented-out table, never an active one.
    unproven: tuple[tuple[str, str], ...] = ()
    confirm: str = ""  # what the person must confirm before uncommenting them
    # Names the receiving loop answers itself before its lookup: (name, evidence).
    answered_before_lookup: tuple[tuple[str, str], ...] = ()
    # What answers, where the receive side looks the name up in a table: (table, evidence).
    tables: tuple[tuple[str, str], ...] = ()
    dispatch: tuple[str, ...] = ()  # the dispatch methods it judges; () for every one
    # The condition of the callers' code it judges the calls under ("": every call), as
    # the checker's ``when`` reads it, and the evidence.
    when: str = ""
    when_evidence: str = ""
    # Why the worker holds one of the handlers, not known which (``one-of``); "" when
    # each call may meet each of them.
    one_of: str = ""


@dataclass(frozen=True)
class ProxyProposal:
    """A ``[[tool.rpcsurface.proxy]]`` table of Ray actor handles (``remote = true``):
    each entry (dotted name or receiver, evidence)."""

    name: str
    callers: tuple[tuple[str, str], ...]
    receivers: tuple[tuple[str, str], ...]
    handlers: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Proposal:
    dispatch: tuple[DispatchProposal, ...]
    surfaces: tuple[SurfaceProposal, ...]
    notes: tuple[str, ...] = ()
    proxies: tuple[ProxyProposal, ...] = ()


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def where(node: nodes.NodeNG, project: Path) -> str:
    return f"{shown_path(node.root().file or '?', project)}:{node.lineno or 1}"


def call_name(call: nodes.Call) -> str | None:
    func = call.func
    if isinstance(func, nodes.Attribute):
        return func.attrname
    if isinstance(func, nodes.Name):
        return func.name
    return None


def is_getattr(call: object) -> TypeGuard[nodes.Call]:
    return builtin_call(call, "getattr", 2, 3)


def names_in(node: nodes.NodeNG) -> set[str]:
    found = {n.name for n in nodes_of(node, nodes.Name)}
    if isinstance(node, nodes.Name):
        found.add(node.name)
    return found


def assigned_names(target: object) -> list[str]:
    if isinstance(target, nodes.AssignName):
        return [target.name]
    if isinstance(target, (nodes.Tuple, nodes.List)):
        return [name for element in target.elts for name in assigned_names(element)]
    if isinstance(target, nodes.Starred):
        return assigned_names(target.value)
    return []


_ASSIGNMENTS = (nodes.Assign, nodes.AnnAssign, nodes.AugAssign)


def _own_assignments(
    function: nodes.FunctionDef, candidates: Iterable[nodes.NodeNG]
) -> list[tuple[list[str], nodes.NodeNG]]:
    """Every ``targets = value`` of *function* itself (not of a function in it) among
    *candidates*, the assignments under it, in source order."""
    found: list[tuple[list[str], nodes.NodeNG]] = []
    for node in candidates:
        assert isinstance(node, _ASSIGNMENTS)
        if node.scope() is not function or node.value is None:
            continue
        targets = node.targets if isinstance(node, nodes.Assign) else [node.target]
        names = [name for target in targets for name in assigned_names(target)]
        if names:
            found.append((names, node.value))
    return sorted(found, key=lambda item: (item[1].lineno or 0, item[1].col_offset or 0))


def is_receive(call: nodes.Call) -> bool:
    func = call.func
    if not isinstance(func, nodes.Attribute):
        return False
    if func.attrname in RECEIVE_CALLS:
        return True
    if func.attrname == "get":
        if isinstance(func.expr, nodes.Name) and func.expr.name == "ray":
            return bool(call.args)  # ray.get(refs)
        # queue.get(), queue.get(timeout=...), queue.get(True): not dict.get(key)
        return not call.args or (
            len(call.args) == 1
            and isinstance(call.args[0], nodes.Const)
            and isinstance(call.args[0].value, bool)
        )
    if func.attrname == "result":
        return not call.args  # future.result()
    return False


_Node = TypeVar("_Node", bound=nodes.NodeNG)


def own_nodes(function: nodes.FunctionDef, kind: type[_Node]) -> Iterator[_Node]:
    """The nodes of *kind* in *function*, lambdas and comprehensions included."""
    for statement in function.body:
        yield from nodes_of(statement, kind)


def most_general(
    classes: list[nodes.ClassDef],
    linearize: Callable[[nodes.ClassDef], tuple[list[nodes.ClassDef], bool]],
) -> list[nodes.ClassDef]:
    """Those of *classes* none of whose ancestors (by *linearize*, a class's method
    resolution order) is another of them, in their order. Each class's order is read
    once: asking each pair took sglang 0.5.23's thousands of classes answering
    ``forward`` tens of millions of questions."""
    given = {id(cls) for cls in classes}
    return [
        cls
        for cls in classes
        if not any(id(klass) in given and klass is not cls for klass in linearize(cls)[0][1:])
    ]


class AnsweringIndex:
    """The classes answering each name (*answers* of each of *classes*, read once): the
    best handlers of every group of names sent are the classes answering most of them,
    and sglang 0.5.23 has 895 such groups and 8,019 classes."""

    def __init__(
        self,
        classes: list[nodes.ClassDef],
        answers: Callable[[nodes.ClassDef], frozenset[str]],
    ) -> None:
        self._position: dict[int, int] = {}
        self._by_name: dict[str, list[nodes.ClassDef]] = {}
        for position, cls in enumerate(classes):
            self._position[id(cls)] = position
            for name in answers(cls):
                self._by_name.setdefault(name, []).append(cls)

    def answered(self, names: set[str]) -> list[tuple[int, nodes.ClassDef]]:
        """(how many of *names* it answers, the class) for each class answering any of
        them, in the order of the classes given."""
        counts: dict[int, tuple[int, nodes.ClassDef]] = {}
        for name in names:
            for cls in self._by_name.get(name, ()):
                counts[id(cls)] = (counts.get(id(cls), (0, cls))[0] + 1, cls)
        return sorted(counts.values(), key=lambda entry: self._position[id(entry[1])])


def positional_params(function: nodes.FunctionDef) -> list[str]:
    """Positional parameters, without self/cls of a method."""
    arguments = function.args
    names = [a.name for a in [*(arguments.posonlyargs or []), *(arguments.args or [])]]
    if is_method(function) and not is_static(function) and names:
        names = names[1:]
    return names


class _Walked(NamedTuple):
    """Where one function's body lies in its module's walk (``order[start:end]``), and
    how many nodes of the module transforms had replaced when it was walked."""

    order: list[nodes.NodeNG]
    start: int
    end: int
    replaced: int


class FunctionBody:
    """One function's body as the discovery's readers see it, walked once when first
    asked for, each part read from that walk once: the search for senders asks the same
    of every parameter of every function, round after round, and the worker side, the
    table reads and the keys ask again of the same functions; a walk of the tree per
    question takes half a minute on a project of 600 files. Made once a function by
    :class:`FunctionBodies`."""

    def __init__(self, function: nodes.FunctionDef, walk: _Walked | None = None) -> None:
        self.function = function
        self._walk = walk
        self._tainted: dict[frozenset[str], set[str]] = {}
        self._lookups: dict[frozenset[str], nodes.Call | None] = {}
        self._kinds: dict[type[nodes.NodeNG], list[nodes.NodeNG]] = {}

    @cached_property
    def _own(self) -> list[nodes.NodeNG]:
        """Every node of :func:`own_nodes`, in its order: the readers ask for calls,
        subscripts and assignments of the same functions, each kind once a reader. Taken
        from the walk of its module (:meth:`FunctionBodies.walked`) while no transform has
        replaced a node of the module since."""
        walk = self._walk
        if walk is not None and replacements(self.function.root()) == walk.replaced:
            return walk.order[walk.start : walk.end]
        return list(own_nodes(self.function, nodes.NodeNG))

    def own_nodes(self, kind: type[_Node]) -> list[_Node]:
        """:func:`own_nodes` of *kind* (a list read, never to be changed)."""
        found = self._kinds.get(kind)
        if found is None:
            found = self._kinds[kind] = [node for node in self._own if isinstance(node, kind)]
        return cast("list[_Node]", found)

    @cached_property
    def assignments(self) -> list[tuple[list[str], nodes.NodeNG, set[str]]]:
        """Every ``targets = value`` of the function, in source order, each with the
        names its value reads."""
        own = _own_assignments(self.function, (n for n in self._own if isinstance(n, _ASSIGNMENTS)))
        return [(names, value, names_in(value)) for names, value in own]

    @cached_property
    def calls(self) -> list[tuple[nodes.Call, set[str]]]:
        """Its calls (:func:`own_nodes`), each with the names its arguments read."""
        return [(call, _carried(call)) for call in self.own_nodes(nodes.Call)]

    @cached_property
    def called_names(self) -> set[str]:
        """The names its calls call (:func:`call_name`): read from the calls alone, before
        what their arguments carry, which most functions are never asked."""
        return {
            name for call in self.own_nodes(nodes.Call) if (name := call_name(call)) is not None
        }

    @cached_property
    def calls_getattr(self) -> bool:
        """Whether it calls ``getattr``: without one it looks nothing up by name, and its
        assignments need not be read to say so."""
        return any(is_getattr(call) for call in self.own_nodes(nodes.Call))

    def tainted(self, seeds: set[str]) -> set[str]:
        """*seeds* and the locals bound from expressions of them (a new set)."""
        key = frozenset(seeds)
        if key not in self._tainted:
            tainted = set(seeds)
            for _ in range(3):
                before = len(tainted)
                for names, _value, read in self.assignments:
                    if read & tainted:
                        tainted.update(names)
                if len(tainted) == before:
                    break
            self._tainted[key] = tainted
        return set(self._tainted[key])

    @cached_property
    def _getattrs(self) -> list[tuple[str, str, nodes.Call]]:
        """Each ``target = getattr(obj, n)``: (target, n, the getattr)."""
        return [
            (targets[0], value.args[1].name, value)
            for targets, value, _read in self.assignments
            if is_getattr(value) and isinstance(value.args[1], nodes.Name) and len(targets) == 1
        ]

    @cached_property
    def _called(self) -> list[nodes.Call]:
        """The calls that may call a lookup: of a getattr, or of a local bound to one."""
        targets = {target for target, _, _ in self._getattrs}
        return [
            call
            for call, _carried in self.calls
            if (isinstance(call.func, nodes.Name) and call.func.name in targets)
            or (is_getattr(call.func) and isinstance(call.func.args[1], nodes.Name))
        ]

    def called_lookup(self, names: set[str]) -> nodes.Call | None:
        """A ``getattr(obj, n)``, *n* in *names*, whose result is called."""
        if not self.calls_getattr:
            return None
        key = frozenset(names)
        if key not in self._lookups:
            self._lookups[key] = self._called_lookup(names)
        return self._lookups[key]

    def _called_lookup(self, names: set[str]) -> nodes.Call | None:
        bound = {target: value for target, name, value in self._getattrs if name in names}
        for call in self._called:
            func = call.func
            if (
                is_getattr(func)
                and isinstance(func.args[1], nodes.Name)
                and func.args[1].name in names
            ):
                return func
            if isinstance(func, nodes.Name) and func.name in bound:
                return bound[func.name]
        return None

    def patches(self, names: set[str]) -> bool:
        """Whether the function sets an attribute named by one of *names* (``setattr(obj,
        method_name, wrapper)``): a helper that wraps a method in place, which calls
        nothing by name when it runs, so it is neither a dispatch nor a run_method
        helper."""
        for call, _carried in self.calls:
            if (
                isinstance(call.func, nodes.Name)
                and call.func.name == "setattr"
                and len(call.args) >= 2
                and isinstance(call.args[1], nodes.Name)
                and call.args[1].name in names
            ):
                return True
        return False


class FunctionBodies:
    """Each function's :class:`FunctionBody`, made once for one run of the discovery."""

    def __init__(self) -> None:
        self._bodies: dict[int, FunctionBody] = {}
        self._walks: dict[int, _Walked] = {}

    def walked(self, module: nodes.Module) -> list[nodes.NodeNG]:
        """Every node of *module* (:func:`.syntax.walked`), its functions' bodies kept
        for their :class:`FunctionBody`: the discovery walks each module once, and not
        at all one its lean build walked and no transform has changed since."""
        held = walk_at_build(module)
        order, bodies = held if held is not None else walked(module)
        mark = replacements(module)
        for key, (start, end) in bodies.items():
            self._walks[key] = _Walked(order, start, end, mark)
        return order

    def __call__(self, function: nodes.FunctionDef) -> FunctionBody:
        if id(function) not in self._bodies:
            self._bodies[id(function)] = FunctionBody(function, self._walks.get(id(function)))
        return self._bodies[id(function)]


def _carried(call: nodes.Call) -> set[str]:
    """The names *call*'s arguments read."""
    return {
        n for arg in (*call.args, *(k.value for k in call.keywords or ())) for n in names_in(arg)
    }


def at_module_level(node: nodes.NodeNG) -> bool:
    """Whether *node* is bound in a module's namespace (its top level, or an if/try)."""
    return node.parent is not None and isinstance(node.parent.scope(), nodes.Module)


def class_of(node: nodes.NodeNG) -> nodes.ClassDef | None:
    """The class whose method holds *node* (a nested function's outer method's class:
    its ``self`` is the method's)."""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and isinstance(scope.parent, nodes.ClassDef):
            return scope.parent
        if scope.parent is None:
            return None
        scope = scope.parent.scope()
    return None


def is_dunder(name: str) -> bool:
    """``__init__``, ``__call__``: a name Python's protocols call, at call sites that
    don't name it (``Request(...)``, ``obj(...)``). The calls that do name it, such as
    ``super().__init__(...)``, are no sample of the names a dunder sender is sent: it is
    no dispatch method."""
    return name.startswith("__") and name.endswith("__")


def is_method(function: nodes.FunctionDef) -> bool:
    return isinstance(function.parent, nodes.ClassDef)


def is_static(function: nodes.FunctionDef) -> bool:
    return _decorated_as(function, {"staticmethod"})


def takes_no_instance(function: nodes.FunctionDef) -> bool:
    """A static or class method: called through its class, no instance comes first."""
    return _decorated_as(function, {"staticmethod", "classmethod"})


def _decorated_as(function: nodes.FunctionDef, names: set[str]) -> bool:
    decorators = function.decorators.nodes if function.decorators else []
    return any(isinstance(d, nodes.Name) and d.name in names for d in decorators)


def is_interface(klass: nodes.ClassDef) -> bool:
    """Whether each method *klass* defines itself is a stub (an interface)."""
    return all(
        is_stub(binding)
        for bindings in klass.locals.values()
        for binding in bindings
        if isinstance(binding, nodes.FunctionDef) and binding.name != "__init__"
    )


def is_stub(function: nodes.FunctionDef) -> bool:
    """A body of a docstring, ``...``, ``pass`` or ``raise NotImplementedError``."""
    for statement in function.body:
        if isinstance(statement, nodes.Pass):
            continue
        if isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Const):
            continue
        if isinstance(statement, nodes.Raise) and statement.exc is not None:
            raised = statement.exc
            name = raised.func if isinstance(raised, nodes.Call) else raised
            if isinstance(name, nodes.Name) and name.name in _STUB_RAISES:
                continue
        return False
    return True


# --------------------------------------------------------------------------
# The discovery
# --------------------------------------------------------------------------


@dataclass
class Sender:
    """One definition whose parameter reaches a send."""

    function: nodes.FunctionDef
    param: str
    index: int  # among the call's positional arguments
    reach: str  # evidence of the send
    forwards_only: bool  # reaches only other senders (a forwarding layer)


@dataclass
class Site:
    call: nodes.Call
    name: str
    keyword: bool
    owner: nodes.ClassDef | nodes.FunctionDef | None


def owner_of(node: nodes.NodeNG) -> nodes.ClassDef | nodes.FunctionDef | None:
    """The top-level class whose method holds *node*, or the module-level function."""
    found: nodes.ClassDef | nodes.FunctionDef | None = None
    scope = node.scope()
    while not isinstance(scope, nodes.Module) and scope.parent is not None:
        if isinstance(scope, (nodes.ClassDef, nodes.FunctionDef)) and at_module_level(scope):
            found = scope
        scope = scope.parent.scope()
    return found


@dataclass
class Worker:
    """A place a received name is looked up and called."""

    where: str
    unknown: str | None  # "raises", "skipped" or None (not known)
    unknown_evidence: str
    drops_none: bool | None = None
    drops_evidence: str = ""
    shared: bool | None = None
    shared_evidence: str = ""
    obj: nodes.NodeNG | None = None
    top: nodes.NodeNG | None = None  # the module-level function or class it is in
    # Names the receive function answers itself before the lookup, and the test saying so.
    answered: tuple[str, ...] = ()
    answered_at: nodes.If | None = None
    # The call of the looked-up handler itself, where the loop makes it (not through a
    # run_method helper): what it passes the handler (handler-args).
    invocation: nodes.Call | None = None


@dataclass
class Group:
    """A dispatch method: its definitions and call sites."""

    method: str
    called_as: str
    index: int
    param: str
    senders: list[Sender]
    sites: list[Site] = field(default_factory=list)


def name_passed(call: nodes.Call, group: Group) -> tuple[nodes.Call, nodes.NodeNG, bool] | None:
    """What *call* passes where *group*'s dispatch takes the name, and whether by keyword;
    None for a call of another shape (a function's name called as a method, or the other
    way round) or one that passes no name there."""
    if group.called_as == "method" and not isinstance(call.func, nodes.Attribute):
        return None
    if group.called_as == "function" and not isinstance(call.func, nodes.Name):
        return None
    node: nodes.NodeNG | None = None
    keyword = False
    if len(call.args) > group.index and not any(
        isinstance(a, nodes.Starred) for a in call.args[: group.index + 1]
    ):
        node = call.args[group.index]
    else:
        for given in call.keywords or ():
            if given.arg == group.param:
                node, keyword = given.value, True
    return None if node is None else (call, node, keyword)


def flag_of(test: nodes.NodeNG, flags: set[str]) -> tuple[str, bool] | None:
    """``flag`` -> (flag, True); ``not flag`` -> (flag, False); anything else None."""
    if isinstance(test, nodes.Name) and test.name in flags:
        return test.name, True
    if (
        isinstance(test, nodes.UnaryOp)
        and test.op == "not"
        and isinstance(test.operand, nodes.Name)
        and test.operand.name in flags
    ):
        return test.operand.name, False
    return None


def annotation_of(arguments: nodes.Arguments, name: str) -> nodes.NodeNG | None:
    for argument, annotation in zip(arguments.args or [], arguments.annotations, strict=False):
        if argument.name == name:
            return annotation
    for argument, annotation in zip(
        arguments.kwonlyargs, arguments.kwonlyargs_annotations, strict=False
    ):
        if argument.name == name:
            return annotation
    return None


def count(number: int, thing: str) -> str:
    return f"{number} {thing}" if number == 1 else f"{number} {thing}s"

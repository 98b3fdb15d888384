"""The worker side: where a received name is looked up and called, what happens to a
name the object lacks, and to the reply."""

from __future__ import annotations

from pathlib import Path

from astroid import nodes

from pylint_rpcsurface.discovery.answered import answered_before
from pylint_rpcsurface.discovery.loop_helpers import (
    HelperBindings,
    LoopHelpers,
    bound_from_helpers,
    looked_up_through,
    may_hand_back,
    received_through,
)
from pylint_rpcsurface.discovery.none_tests import (
    compares_to_none,
    guarded,
    is_none,
    is_not_none,
)
from pylint_rpcsurface.discovery.reading import (
    SEND_CALLS,
    FunctionBodies,
    Worker,
    call_name,
    is_getattr,
    is_receive,
    names_in,
    positional_params,
    where,
)
from pylint_rpcsurface.discovery.table_reads import (
    Linearize,
    TableRead,
    bound_table_reads,
    table_reads,
)
from pylint_rpcsurface.sources import SourceTree


class WorkerSide:
    """Reads the worker loops of the project's *functions* (methods and module-level
    functions), each place shown relative to *project*, their bodies as *bodies* has
    them read; *tree* holds the project's files."""

    def __init__(
        self,
        project: Path,
        functions: list[nodes.FunctionDef],
        bodies: FunctionBodies,
        tree: SourceTree,
    ) -> None:
        self.project = project
        self.tree = tree
        self.functions = functions
        self.bodies = bodies
        self._received_by: dict[int, set[str]] = {}
        self._received_here: dict[int, set[str]] = {}
        self._helper_bindings: dict[int, HelperBindings] = {}
        self._helpers: LoopHelpers | None = None

    def where(self, node: nodes.NodeNG) -> str:
        return where(node, self.project)

    # -- the worker side ----------------------------------------------------

    def workers(
        self, helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]]
    ) -> list[Worker]:
        found: list[Worker] = []
        for function in self.functions:
            received = self.received_names(function)
            found.extend(self._through_helpers(function))
            if not received:
                continue
            codes = [(function, received), *self._nested(function, received)]
            for code, names in codes:
                for call in self.bodies(code).own_nodes(nodes.Call):
                    if call.scope() is not code and code is not function:
                        continue
                    worker = self._invocation(code, call, names, helpers)
                    if worker is not None:
                        found.append(worker)
        return found

    def received_names(self, function: nodes.FunctionDef) -> set[str]:
        """The names *function* binds from what it receives, read once per function: the
        worker loops and the table reads both ask. The name may arrive through a helper:
        ``func_name, args = self.get_func()``."""
        key = id(function)
        if key not in self._received_by:
            self._received_by[key] = self._received(function) | received_through(
                self.bodies(function), self._bindings(function)
            )
        return self._received_by[key]

    def _bindings(self, function: nodes.FunctionDef) -> HelperBindings:
        """:func:`bound_from_helpers` of *function*, read once: both the names received
        through a helper and the callables looked up through one ask."""
        key = id(function)
        if key not in self._helper_bindings:
            self._helper_bindings[key] = bound_from_helpers(
                self.bodies(function), self._received, self._loop_helpers(), self.tree
            )
        return self._helper_bindings[key]

    def _loop_helpers(self) -> LoopHelpers:
        """The functions a loop may get a received name, or the callable looked up by one,
        from (:func:`may_hand_back`): read once, of every function."""
        if self._helpers is None:
            self._helpers = LoopHelpers.of(
                f for f in self.functions if may_hand_back(f, self._received(f), self.bodies(f))
            )
        return self._helpers

    def table_reads(self, linearize: Linearize) -> list[TableRead]:
        """Where a received name is looked up in a table and the result called."""
        found: list[TableRead] = []
        for function in self.functions:
            received = self.received_names(function)
            if received:
                for code, names in [(function, received), *self._nested(function, received)]:
                    found.extend(table_reads(self.bodies(code), names, linearize))
            found.extend(bound_table_reads(self.bodies(function), linearize))
        return found

    def _through_helpers(self, function: nodes.FunctionDef) -> list[Worker]:
        """The calls in *function* of a callable a helper looked up by a received name
        and returned (``func, args = self.get_func()``, then ``func(*args)``)."""
        found = []
        for name, (helper, lookup) in looked_up_through(
            self._bindings(function), self.bodies
        ).items():
            for call in self.bodies(function).own_nodes(nodes.Call):
                if not (isinstance(call.func, nodes.Name) and call.func.name == name):
                    continue
                unknown = self.unknown_name(helper, lookup)
                if len(lookup.args) == 3:
                    unknown = self._none_test(function, name, lookup)
                worker = Worker(self.where(call), *unknown, obj=lookup.args[0], invocation=call)
                worker.top = top_of(call)
                self._reply(function, call, worker)
                found.append(worker)
        return found

    def _none_test(
        self, function: nodes.FunctionDef, bound: str, lookup: nodes.Call
    ) -> tuple[str | None, str]:
        """What *function* does with *bound*, the callable ``getattr(..., None)`` gave,
        when it is None: raises, skips the name, or (no test of None) calls None."""
        if not (isinstance(lookup.args[2], nodes.Const) and lookup.args[2].value is None):
            return None, f"{self.where(lookup)}: getattr with a default other than None"
        for test in function.nodes_of_class(nodes.If):
            if not is_none(test.test, bound):
                continue
            last = test.body[-1] if test.body else None
            if isinstance(last, nodes.Raise):
                return "raises", f"{self.where(test)}: raises when {bound} is None"
            if isinstance(last, (nodes.Continue, nodes.Return, nodes.Pass)):
                return "skipped", f"{self.where(test)}: skips the name when {bound} is None"
        guard = guarded(self.bodies(function), bound)
        if guard is not None:
            return "skipped", f"{self.where(guard)}: calls {bound} only if it is not None"
        return (
            "raises",
            f"{self.where(lookup)}: getattr(..., None) called with no test of None: TypeError",
        )

    def _nested(
        self, function: nodes.FunctionDef, received: set[str]
    ) -> list[tuple[nodes.FunctionDef, set[str]]]:
        """Functions defined in *function* and called there with a received value:
        ``method_call(cmd)`` after ``cmd = queue_in.get()``."""
        found = []
        for inner in function.body:
            if not isinstance(inner, nodes.FunctionDef):
                continue
            params = positional_params(inner)
            seeds = set()
            for call in self.bodies(function).own_nodes(nodes.Call):
                if isinstance(call.func, nodes.Name) and call.func.name == inner.name:
                    for param, arg in zip(params, call.args, strict=False):
                        if names_in(arg) & received:
                            seeds.add(param)
            if seeds:
                found.append((inner, self.bodies(inner).tainted(seeds)))
        return found

    def _received(self, function: nodes.FunctionDef) -> set[str]:
        """The names *function* binds from a receive of its own (read once: every loop
        calling it as a helper asks)."""
        key = id(function)
        if key not in self._received_here:
            body = self.bodies(function)
            seeds: set[str] = set()
            # An assignment's value is read only when the function receives at all.
            receives = any(_receives(call) for call in body.own_nodes(nodes.Call))
            for names, value, _read in body.assignments if receives else ():
                if any(_receives(c) for c in value.nodes_of_class(nodes.Call)) or (
                    isinstance(value, nodes.Call) and _receives(value)
                ):
                    seeds.update(names)
            self._received_here[key] = body.tainted(seeds) if seeds else set()
        return self._received_here[key]

    def _invocation(
        self,
        function: nodes.FunctionDef,
        call: nodes.Call,
        received: set[str],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
    ) -> Worker | None:
        lookup: nodes.Call | None = None
        holder: nodes.FunctionDef = function
        name = call_name(call)
        if is_getattr(call.func) and names_in(call.func.args[1]) & received:
            lookup = call.func
        elif isinstance(call.func, nodes.Name):
            for targets, value, _read in self.bodies(function).assignments:
                if call.func.name in targets and is_getattr(value):  # noqa: SIM102
                    if names_in(value.args[1]) & received:
                        lookup = value
        if lookup is None and name in helpers and any(names_in(a) & received for a in call.args):
            holder, _, lookup = helpers[name]
        if lookup is None:
            return None
        worker = Worker(self.where(call), *self.unknown_name(holder, lookup), obj=lookup.args[0])
        worker.top = top_of(call)
        if holder is function:
            worker.answered, worker.answered_at = answered_before(function, lookup)
            worker.invocation = call
        if holder is not function:
            worker.obj = self.helper_object(call, helpers[name or ""])
        self._reply(function, call, worker)
        return worker

    @staticmethod
    def helper_object(
        call: nodes.Call, helper: tuple[nodes.FunctionDef, str, nodes.Call]
    ) -> nodes.NodeNG | None:
        function, _, lookup = helper
        obj = lookup.args[0]
        if isinstance(obj, nodes.Name):
            params = positional_params(function)
            if obj.name in params and params.index(obj.name) < len(call.args):
                return call.args[params.index(obj.name)]
        return None

    def unknown_name(
        self, function: nodes.FunctionDef, lookup: nodes.Call
    ) -> tuple[str | None, str]:
        at = self.where(lookup)
        if len(lookup.args) == 2:
            return "raises", f"{at}: getattr without a default raises AttributeError"
        default = lookup.args[2]
        if not (isinstance(default, nodes.Const) and default.value is None):
            return None, f"{at}: getattr with a default other than None"
        targets = [
            names
            for names, value, _read in self.bodies(function).assignments
            if value is lookup and len(names) == 1
        ]
        if not targets:
            return "raises", f"{at}: the None default is called: TypeError"
        return self._none_test(function, targets[0][0], lookup)

    def _reply(self, function: nodes.FunctionDef, call: nodes.Call, worker: Worker) -> None:
        parent = call.parent
        result: str | None = None
        sends: list[nodes.Call] = []
        if isinstance(parent, nodes.Assign) and len(parent.targets) == 1:  # noqa: SIM102
            if isinstance(parent.targets[0], nodes.AssignName):
                result = parent.targets[0].name
        for other in self.bodies(function).own_nodes(nodes.Call):
            if call_name(other) not in SEND_CALLS or not isinstance(other.func, nodes.Attribute):
                continue
            payload = [*other.args]
            if (result is not None and any(result in names_in(arg) for arg in payload)) or any(
                call in list(arg.nodes_of_class(nodes.Call)) for arg in payload
            ):
                sends.append(other)
        if not sends:
            return
        guards = [self._guards(send, function) for send in sends]
        none_guarded = [
            result is not None and any(self._is_not_none(g, result) for g in gs) for gs in guards
        ]
        worker.drops_none = all(none_guarded)
        at = self.where(sends[0])
        worker.drops_evidence = (
            f"{at}: the reply is sent only if {result} is not None"
            if worker.drops_none
            else f"{at}: the reply is sent whatever it is"
        )
        # `if func is not None:` around the call and its send tests the callable the
        # lookup gave, not the request: no flag of the caller's decides the reply.
        callee = call.func.name if isinstance(call.func, nodes.Name) else None
        other_guard = any(
            not (result is not None and self._is_not_none(g, result))
            and not (callee is not None and is_not_none(g, callee))
            for gs in guards
            for g in gs
        )
        ids = any(self._carries_more(send, result) for send in sends)
        worker.shared = not other_guard and not ids
        worker.shared_evidence = (
            f"{at}: every reply goes to {sends[0].func.as_string()}() with no request id"
            if worker.shared
            else f"{at}: the reply is conditional or carries more than the result"
        )

    @staticmethod
    def _guards(node: nodes.NodeNG, function: nodes.FunctionDef) -> list[nodes.NodeNG]:
        found = []
        child, parent = node, node.parent
        while parent is not None and parent is not function:
            if isinstance(parent, nodes.If) and child is not parent.test:
                found.append(parent.test)
            child, parent = parent, parent.parent
        return found

    @staticmethod
    def _is_not_none(test: nodes.NodeNG, name: str) -> bool:
        return compares_to_none(test, name, ("is not", "!="))

    @staticmethod
    def _carries_more(send: nodes.Call, result: str | None) -> bool:
        """Whether the reply carries a name besides the result (a request id, say)."""
        for arg in send.args:
            for name in names_in(arg):
                if name != result:
                    return True
        return False


# A worker's own buffer reads: LMDeploy's `command = await comm_buf.receive_async()`. Only
# for where a name comes from: a sender's `receive()` says nothing of waiting.
_WORKER_RECEIVES = frozenset({"receive", "receive_async", "recv_async"})


def _receives(call: nodes.Call) -> bool:
    return is_receive(call) or (
        isinstance(call.func, nodes.Attribute) and call.func.attrname in _WORKER_RECEIVES
    )


def top_of(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The module-level function or class *node* is in."""
    found = None
    scope = node.scope()
    while not isinstance(scope, nodes.Module) and scope.parent is not None:
        if isinstance(scope, (nodes.FunctionDef, nodes.ClassDef)):
            found = scope
        scope = scope.parent.scope()
    return found

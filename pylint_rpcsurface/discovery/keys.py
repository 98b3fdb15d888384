"""The keys of a dispatch table, from the sender's definitions and the worker side."""

from __future__ import annotations

from pathlib import Path

from astroid import nodes
from astroid.exceptions import NoDefault

from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, infer_unique
from pylint_rpcsurface.discovery.reading import (
    Choice,
    DispatchProposal,
    Group,
    Sender,
    Worker,
    annotation_of,
    count,
    flag_of,
    is_receive,
    where,
)
from pylint_rpcsurface.discovery.replies import after_send
from pylint_rpcsurface.discovery.workers import WorkerSide


class DispatchKeys:
    """Chooses the keys of each dispatch table, from the senders and from what
    *worker_side* reads of the loops that receive the names."""

    def __init__(self, project: Path, worker_side: WorkerSide) -> None:
        self.project = project
        self.worker_side = worker_side

    def where(self, node: nodes.NodeNG) -> str:
        return where(node, self.project)

    # -- dispatch keys ------------------------------------------------------

    def dispatch_proposal(self, group: Group, workers: list[Worker]) -> DispatchProposal:
        first = group.senders[0]
        evidence = (
            f"{first.reach}; {count(len(group.sites), 'call site')} pass literal names, "
            f"e.g. {self.where(group.sites[0].call)} {group.sites[0].name!r}"
        )
        keys: list[Choice] = []
        if group.called_as == "function":
            keys.append(
                Choice(
                    "called-as",
                    "function",
                    f"{self.where(first.function)}: {group.method} is a module-level function",
                )
            )
        if group.index:
            keys.append(
                Choice(
                    "name-arg",
                    group.index,
                    f"{self.where(first.function)}: the name is the parameter {group.param!r}",
                )
            )
        by_keyword = [s for s in group.sites if s.keyword]
        if by_keyword:
            keys.append(
                Choice(
                    "name-keyword",
                    group.param,
                    f"{self.where(by_keyword[0].call)}: passes the name as {group.param}=",
                )
            )
        wait_keys = self.waits(group)
        keys.extend(wait_keys)
        keys.extend(self.carriers(group))
        waits = next((c.value for c in wait_keys if c.key in ("waits", "waits-unless")), None)
        if any(c.key == "waits-unless" for c in wait_keys):
            waits = "unless"
        keys.extend(self.worker_keys(group, workers, waits))
        return DispatchProposal(group.method, evidence, tuple(keys))

    def waits(self, group: Group) -> list[Choice]:
        readings: list[tuple[str, object, str]] = []
        for sender in group.senders:
            # A forwarding layer that receives nothing itself says nothing of waiting.
            reading = self._wait_reading(sender.function, sender.param)
            if reading is not None:
                readings.append(reading)
        if not readings:
            at = self.where(group.senders[0].function)
            return [
                Choice(
                    "waits",
                    None,
                    "",
                    (f"{at}: no receive found in {group.method}(): whether it waits is not known",),
                )
            ]
        values = {(key, value) for key, value, _ in readings}
        if len(values) > 1:
            return [
                Choice(
                    "waits",
                    None,
                    "",
                    tuple(f"{ev} ({key} = {value!r})" for key, value, ev in readings),
                )
            ]
        key, value, evidence = readings[0]
        choices = [Choice(key, value, evidence)]
        if key == "waits" and isinstance(value, str):
            default = self._default(group.senders, value)
            if default is True:
                choices.append(
                    Choice(
                        "waits-when-absent",
                        True,
                        f"{self.where(group.senders[0].function)}: {value} defaults to True",
                    )
                )
        return choices

    @staticmethod
    def _default(senders: list[Sender], name: str) -> object:
        for sender in senders:
            arguments = sender.function.args
            default = None
            try:
                default = arguments.default_value(name)  # type: ignore[no-untyped-call]
            except (*INFERENCE_ERRORS, NoDefault):
                continue
            if isinstance(default, nodes.Const):
                return default.value
        return None

    def _wait_reading(
        self, function: nodes.FunctionDef, param: str
    ) -> tuple[str, object, str] | None:
        # A drain of stale replies before the send receives no reply to this call.
        body = self.worker_side.bodies(function)
        receives = after_send(body, param, self._receives(function, 2))
        if not receives:
            lookup = body.called_lookup(body.tainted({param}))
            returns = [
                r
                for r in function.nodes_of_class(nodes.Return)
                if r.scope() is function
                and r.value is not None
                and not (isinstance(r.value, nodes.Const) and r.value.value is None)
            ]
            if lookup is not None and returns:
                return (
                    "waits",
                    True,
                    f"{self.where(returns[0])}: {function.name}() calls the handler itself "
                    "and returns its reply",
                )
            return None
        flags = {
            a.name
            for a in [*(function.args.args or []), *function.args.kwonlyargs]
            if a.name not in (param, "self", "cls")
        }
        conditions: list[tuple[str | None, bool]] = []
        for receive in receives:
            conditions.append(self._wait_condition(receive, function, flags))
        at = self.where(receives[0])
        if any(flag is None for flag, _ in conditions):
            return "waits", True, f"{at}: {function.name}() always receives the reply"
        kinds = set(conditions)
        if len(kinds) != 1:
            return None
        flag, polarity = next(iter(kinds))
        assert flag is not None
        if polarity:
            return "waits", flag, f"{at}: the reply is received only when {flag} is true"
        return "waits-unless", flag, f"{at}: the reply is received unless {flag} is true"

    def _receives(self, function: nodes.FunctionDef, depth: int) -> list[nodes.NodeNG]:
        found: list[nodes.NodeNG] = []
        for call in self.worker_side.bodies(function).own_nodes(nodes.Call):
            if is_receive(call):
                found.append(call)
            elif depth > 0 and isinstance(call.func, nodes.Attribute):  # noqa: SIM102
                if isinstance(call.func.expr, nodes.Name) and call.func.expr.name == "self":
                    callee = infer_unique(call.func)
                    if isinstance(callee, nodes.FunctionDef) and callee is not function:  # noqa: SIM102
                        if self._receives(callee, depth - 1):
                            found.append(call)
        return found

    @staticmethod
    def _wait_condition(
        node: nodes.NodeNG, function: nodes.FunctionDef, flags: set[str]
    ) -> tuple[str | None, bool]:
        """The flag (and the value it needs) that the receive *node* runs under."""
        child, parent = node, node.parent
        while parent is not None and parent is not function.parent:
            if isinstance(parent, nodes.If) and child is not parent.test:
                flag = flag_of(parent.test, flags)
                if flag is not None:
                    in_body = child in parent.body
                    return flag[0], flag[1] if in_body else not flag[1]
            body = getattr(parent, "body", None)
            if isinstance(body, list) and child in body:
                for earlier in body[: body.index(child)]:
                    if (
                        isinstance(earlier, nodes.If)
                        and earlier.body
                        and not earlier.orelse
                        # `if flag: return` skips the receive; `if flag: raise` fails the
                        # call (vLLM's max_concurrent_workers): no reply goes unwaited.
                        and isinstance(earlier.body[-1], nodes.Return)
                    ):
                        flag = flag_of(earlier.test, flags)
                        if flag is not None:
                            return flag[0], not flag[1]
            child, parent = parent, parent.parent
        return None, True

    def carriers(self, group: Group) -> list[Choice]:
        choices = []
        for key, star in (("args-from", nodes.Starred), ("kwargs-from", None)):
            found: dict[str, str] = {}
            for sender in group.senders:
                function = sender.function
                for name in self._carrier_params(function, sender.param, star is not None):
                    found.setdefault(name, f"{self.where(function)}: the parameter {name!r}")
            if len(found) == 1:
                name, evidence = next(iter(found.items()))
                choices.append(Choice(key, name, evidence))
            elif len(found) > 1:
                choices.append(Choice(key, None, "", tuple(found.values())))
        return choices

    @staticmethod
    def _carrier_params(function: nodes.FunctionDef, param: str, positional: bool) -> list[str]:
        """Parameters after the name that hold the handler's args (a tuple) or kwargs."""
        arguments = function.args
        names = [a.name for a in [*(arguments.args or []), *arguments.kwonlyargs]]
        if param not in names:
            return []
        after = names[names.index(param) + 1 :]
        wanted = "args" if positional else "kwargs"
        found = []
        for name in after:
            annotation = annotation_of(arguments, name)
            kind = ""
            if annotation is not None:
                text = annotation.as_string().lower()
                if text.startswith(("tuple", "sequence", "list")) or "tuple[" in text:
                    kind = "args"
                elif text.startswith(("dict", "mapping")) or "dict[" in text:
                    kind = "kwargs"
            if not kind and name in ("args", "kwargs"):
                kind = name
            if kind == wanted and any(n.name == name for n in function.nodes_of_class(nodes.Name)):
                found.append(name)
        return found

    def worker_keys(self, group: Group, workers: list[Worker], waits: object) -> list[Choice]:
        remote = [s for s in group.senders if "getattr(" in s.reach and ".remote(" in s.reach]
        for sender in group.senders:
            # A dispatch that looks the name up itself says what a missing name does.
            body = self.worker_side.bodies(sender.function)
            lookup = body.called_lookup(body.tainted({sender.param}))
            if lookup is not None:
                value, evidence = self.worker_side.unknown_name(sender.function, lookup)
                if value is not None:
                    return [Choice("unknown-name", value, evidence)]
        if not workers:
            if remote:
                return [
                    Choice(
                        "unknown-name",
                        "raises",
                        f"{remote[0].reach}: getattr on the actor raises AttributeError",
                    )
                ]
            return []
        choices = []
        unknowns = {(w.unknown, w.unknown_evidence) for w in workers}
        values = {value for value, _ in unknowns}
        if len(values) == 1 and None not in values:
            choices.append(Choice("unknown-name", next(iter(values)), sorted(unknowns)[0][1]))
        else:
            choices.append(
                Choice("unknown-name", None, "", tuple(ev for _, ev in sorted(unknowns, key=str)))
            )
        drops = [w for w in workers if w.drops_none is not None]
        if drops and len({w.drops_none for w in drops}) == 1:
            if drops[0].drops_none:
                choices.append(Choice("drops-none", True, drops[0].drops_evidence))
        elif drops:
            choices.append(Choice("drops-none", None, "", tuple(w.drops_evidence for w in drops)))
        # A reply nobody waits for matters only where a call may not wait.
        if not isinstance(waits, str):
            return choices
        shared = [w for w in workers if w.shared is not None]
        if shared and len({w.shared for w in shared}) == 1 and shared[0].shared:
            choices.append(Choice("shared-reply-queue", True, shared[0].shared_evidence))
        elif shared and len({w.shared for w in shared}) > 1:
            choices.append(
                Choice("shared-reply-queue", None, "", tuple(w.shared_evidence for w in shared))
            )
        return choices

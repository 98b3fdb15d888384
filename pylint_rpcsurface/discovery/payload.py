"""``handler-args = "payload"``: the worker calls the handler with one dict of the keywords
sent, as the checker reads it (``analysis/broadcasts.py``, docs/configuration.md).

It is written only when the dispatch method packs its ``**kwargs`` into what it sends
(``payload = {"cmd": cmd, **kwargs}`` then ``socket.send(pickle.dumps(payload))``, or
``queue.put((name, kwargs))``) and takes no ``*args``, and the worker side agrees: each call
of the looked-up handler that the senders' worker loops make passes it exactly one
positional argument, a value the loop received (``getattr(self, handler_name)(args)``);
where no loop's call is read, each handler class's method answering a name sent takes
one positional argument besides ``self``. A loop's call that passes anything else, or
handlers that disagree, or a sender that also forwards a tuple or dict of arguments, is
mixed evidence: nothing is written for the key, and a comment says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from astroid import nodes

from pylint_rpcsurface.discovery.readers import PayloadReader
from pylint_rpcsurface.discovery.reading import (
    SEND_CALLS,
    Choice,
    DispatchProposal,
    Group,
    SurfaceProposal,
    Worker,
    call_name,
    names_in,
    positional_params,
)
from pylint_rpcsurface.discovery.workers import top_of

KEY = "handler-args"
_MIXED = "the evidence is mixed"


class PayloadKeys:
    """Adds ``handler-args`` to a dispatch proposal when *reader*'s project proves it."""

    def __init__(self, reader: PayloadReader) -> None:
        self.reader = reader

    def proposal(
        self,
        dispatch: DispatchProposal,
        group: Group,
        workers: list[Worker],
        surfaces: Sequence[SurfaceProposal],
    ) -> DispatchProposal:
        """*dispatch* with its handler-args, when its senders pack their keywords."""
        packing = [self._packs(sender.function) for sender in group.senders]
        if not any(packing):
            return dispatch  # nothing sent is one dict of keywords
        where = self.reader.where
        if not all(packing):
            unpacked = [
                s.function for s, packs in zip(group.senders, packing, strict=True) if not packs
            ]
            return _mixed(
                dispatch,
                [
                    f"{where(f)}: {f.name}() does not pack its keywords into one dict"
                    for f in unpacked
                ],
            )
        senders = "; ".join(p for p in packing if p)
        carriers = [c for c in dispatch.keys if c.key in ("args-from", "kwargs-from")]
        if carriers:
            return _mixed(dispatch, [f"{senders}", *(c.evidence or c.key for c in carriers)])
        calls = self._loop_calls(group, workers)
        if calls:
            wrong = [(w, why) for w, why in calls if why]
            if wrong:
                return _mixed(dispatch, [senders, *(f"{w.where}: {why}" for w, why in wrong)])
            evidence = (
                f"{senders}; {calls[0][0].where}: the loop calls the handler with the one "
                "value it received"
            )
            return _written(dispatch, evidence)
        takes, other = self._handler_methods(group, surfaces)
        if other:
            return _mixed(dispatch, [senders, *other])
        if not takes:
            return _mixed(
                dispatch,
                [senders, "no worker loop's call of the handler, nor a handler method, is read"],
            )
        return _written(
            dispatch,
            f"{senders}; {takes[0]}" + (f" (and {len(takes) - 1} more)" if takes[1:] else ""),
        )

    def _packs(self, function: nodes.FunctionDef) -> str:
        """Where *function* sends its ``**kwargs`` packed (``""``: it doesn't, or it also
        takes ``*args``)."""
        packed = function.args.kwarg
        if packed is None or function.args.vararg is not None:
            return ""
        body = self.reader.worker_side.bodies(function)
        carried = body.tainted({packed})
        for call in body.own_nodes(nodes.Call):
            if call_name(call) in SEND_CALLS and isinstance(call.func, nodes.Attribute):
                sent = [*call.args, *(k.value for k in call.keywords or ())]
                if any(names_in(arg) & carried for arg in sent):
                    return (
                        f"{self.reader.where(call)}: {function.name}() sends its **{packed} "
                        "packed into one value"
                    )
        return ""

    def _loop_calls(self, group: Group, workers: list[Worker]) -> list[tuple[Worker, str]]:
        """The handler calls of the worker loops the group's senders name, each with why
        it is not one received value (``""``: it is)."""
        tops = {top_of(s.function) for s in group.senders} - {None}
        linked = [
            w
            for w in workers
            if w.invocation is not None
            and w.top is not None
            and any(w.top is t or self.reader.names(t, w.top) for t in tops if t is not None)
        ]
        return [
            (w, self._not_one_received(w.invocation)) for w in linked if w.invocation is not None
        ]

    def _not_one_received(self, call: nodes.Call) -> str:
        """Why *call* doesn't pass the handler exactly one value the loop received."""
        shown = " ".join(call.as_string().split())
        if call.keywords or len(call.args) != 1 or isinstance(call.args[0], nodes.Starred):
            return f"the loop calls the handler as {shown}"
        loop = call.frame()
        received = (
            self.reader.worker_side.received_names(loop)
            if isinstance(loop, nodes.FunctionDef)
            else set()
        )
        if not names_in(call.args[0]) & received:
            return f"the loop calls the handler with a value it did not receive: {shown}"
        return ""

    def _handler_methods(
        self, group: Group, surfaces: Sequence[SurfaceProposal]
    ) -> tuple[list[str], list[str]]:
        """The handler methods answering the group's names that take one positional
        argument besides self, and those that don't, each with where."""
        qualnames = {
            h
            for s in surfaces
            if s.refused is None and (not s.dispatch or group.method in s.dispatch)
            for h, _ in (*s.handlers, *s.base_handlers)
        }
        classes = [c for c in self.reader.classes if self.reader.qualname(c) in qualnames]
        names = sorted({site.name for site in group.sites})
        takes: list[str] = []
        other: list[str] = []
        for cls in classes:
            order, _ = self.reader.index.linearize(cls)
            for name in names:
                method = next(
                    (
                        b
                        for klass in order
                        for b in klass.locals.get(name, [])[-1:]
                        if isinstance(b, nodes.FunctionDef)
                    ),
                    None,
                )
                if method is None:
                    continue
                shown = f"{self.reader.where(method)}: {cls.name}.{name}()"
                if _takes_one(method):
                    takes.append(f"{shown} takes one positional argument")
                else:
                    other.append(f"{shown} does not take one positional argument")
        return takes, other


def _takes_one(method: nodes.FunctionDef) -> bool:
    """Whether *method* is called with exactly one positional argument besides self."""
    arguments = method.args
    params = positional_params(method)
    required = len(params) - len(arguments.defaults or [])
    kwonly_required = any(d is None for d in arguments.kw_defaults or [])
    return required <= 1 and (bool(params) or arguments.vararg is not None) and not kwonly_required


def _written(dispatch: DispatchProposal, evidence: str) -> DispatchProposal:
    return replace(dispatch, keys=(*dispatch.keys, Choice(KEY, "payload", evidence)))


def _mixed(dispatch: DispatchProposal, candidates: list[str]) -> DispatchProposal:
    return replace(
        dispatch,
        keys=(*dispatch.keys, Choice(KEY, None, "", tuple(candidates), why=_MIXED)),
    )

"""Ray actor proxies: a class that keeps actor handles on an attribute and calls them by
name (``self.actor.fit.remote(batch)``) is the caller of a ``proxy`` table whose receiver
is that attribute and whose handler is the actor's class.

It is proven only from the bindings: every binding of the attribute in the caller's
hierarchy (its class attributes and ``self.<attr> = ...`` in its methods, its bases' and
its subclasses') is None or holds actors made from the class (``Cls.remote(...)``,
``Cls.options(...).remote(...)``, ``ray.remote(Cls).remote(...)``, an ``@ray.remote`` class's
``.remote(...)``, a list of them), and they are all made from that one class. A binding
that holds anything else, or actors of two classes (which the checker would hold as
alternatives, each answering every name), proposes nothing.

A receiver whose actors a dispatch method init proposes looks names up on
(``getattr(worker, method).remote(...)`` in LMDeploy's ``RayExecutor.collective_rpc``) is
left to the dispatch surface, which judges the names at the dispatch's call sites: a proxy
table would read that lookup as a call whose name it can't infer
(``rpc-name-uninferable``). It is left out with a note, never written active.
"""

from __future__ import annotations

from collections.abc import Sequence

from astroid import nodes

from pylint_rpcsurface.analysis.proxies import proxy_calls
from pylint_rpcsurface.discovery.evidence import ACTOR_MADE, Found, attribute_bindings
from pylint_rpcsurface.discovery.readers import ProxyReader
from pylint_rpcsurface.discovery.reading import Group, ProxyProposal, class_of, count


class RayProxies:
    """Proposes the proxy tables of the actor handles *reader*'s classes keep."""

    def __init__(self, reader: ProxyReader, dispatch: Sequence[Group] = ()) -> None:
        self.reader = reader
        # The definitions of the dispatch methods init writes, by id.
        self.dispatching = frozenset(id(s.function) for g in dispatch for s in g.senders)

    def proposals(self) -> list[ProxyProposal]:
        """One table per caller and actor class, with each attribute holding its actors."""
        reader = self.reader
        tables: dict[tuple[int, int], list[tuple[str, str, list[tuple[str, nodes.Call]]]]] = {}
        classes: dict[int, nodes.ClassDef] = {}
        for (owner, attrname), calls in sorted(
            self._remote_calls().items(), key=lambda item: (reader.qualname(item[0][0]), item[0][1])
        ):
            actors = self._actors(owner, attrname)
            if actors is not None and not self._looked_up_by_dispatch(owner, attrname, calls):
                classes[id(owner)], classes[id(actors[0])] = owner, actors[0]
                tables.setdefault((id(owner), id(actors[0])), []).append(
                    (attrname, actors[1], calls)
                )
        proposals = []
        used: set[str] = set()
        for (owner_id, cls_id), receivers in tables.items():
            owner, cls = classes[owner_id], classes[cls_id]
            names = {called for _, _, calls in receivers for called, _ in calls}
            _, evidence, calls = receivers[0]
            called, first = calls[0]
            answered = len(reader.answers(cls) & names)
            name = next(
                n for n in (cls.name, *(f"{cls.name}-{i}" for i in range(2, 2 + len(used))))
                if n not in used
            )  # fmt: skip
            used.add(name)
            proposals.append(
                ProxyProposal(
                    name=name,
                    callers=(
                        (
                            reader.qualname(owner),
                            f"{reader.where(first)}: calls {_shown(first)}.{called}.remote(...)",
                        ),
                    ),
                    receivers=tuple((f"self.{attr}", why) for attr, why, _ in receivers),
                    handlers=(
                        (
                            reader.qualname(cls),
                            f"{evidence}; answers {answered} of the "
                            f"{count(len(names), 'name')} called",
                        ),
                    ),
                )
            )
        return proposals

    def _remote_calls(self) -> dict[tuple[nodes.ClassDef, str], list[tuple[str, nodes.Call]]]:
        """``self.<attr>.<name>.remote(...)`` (and on ``self.<attr>[i]``), by the class
        whose method makes it and the attribute: each name and its call."""
        found: dict[tuple[nodes.ClassDef, str], list[tuple[str, nodes.Call]]] = {}
        for call in self.reader.calls.get("remote", []):
            func = call.func
            if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Attribute)):
                continue
            receiver = func.expr.expr
            if isinstance(receiver, nodes.Subscript):
                receiver = receiver.value
            if not (
                isinstance(receiver, nodes.Attribute)
                and isinstance(receiver.expr, nodes.Name)
                and receiver.expr.name == "self"
            ):
                continue
            owner = class_of(call)
            if owner is None or func.expr.attrname.startswith("__"):
                continue  # Ray's own members (__ray_terminate__) are no RPC
            found.setdefault((owner, receiver.attrname), []).append((func.expr.attrname, call))
        return found

    def _hierarchy(self, owner: nodes.ClassDef) -> list[nodes.ClassDef]:
        """*owner*, its bases, its subclasses and theirs, each once."""
        return list(
            {
                id(klass): klass
                for member in [owner, *self.reader.receivers.subclasses.get(id(owner), [])]
                for klass in self.reader.index.linearize(member)[0]
            }.values()
        )

    def _looked_up_by_dispatch(
        self, owner: nodes.ClassDef, attrname: str, calls: list[tuple[str, nodes.Call]]
    ) -> bool:
        """Whether a dispatch method of *owner*'s hierarchy looks a name it can't infer up
        on the actors of ``self.<attrname>``, as the checker reads a proxy call; if so, a
        note says why no table is proposed for them (*calls*: those made by name)."""
        receiver = f"self.{attrname}"
        for klass in self._hierarchy(owner):
            for method in klass.body:
                if not isinstance(method, nodes.FunctionDef) or id(method) not in self.dispatching:
                    continue
                for call in proxy_calls(method, frozenset({receiver}), remote=True):
                    if call.rpc is not None:
                        continue
                    called, first = calls[0]
                    self.reader.notes.append(
                        f"{self.reader.where(method)}: {method.name}() looks up "
                        f"getattr(..., {call.source}) on the actors of {receiver} (line "
                        f"{call.at.line}): no proxy table is proposed for "
                        f"{self.reader.qualname(owner)}'s {receiver}, as it would report "
                        "that lookup's name as not inferable; the dispatch surface judges "
                        f"the names sent through {method.name}() at its call sites, and the "
                        f"calls made on the actors by name ({self.reader.where(first)}: "
                        f"{_shown(first)}.{called}.remote(...)) are not judged"
                    )
                    return True
        return False

    def _actors(self, owner: nodes.ClassDef, attrname: str) -> tuple[nodes.ClassDef, str] | None:
        """The one class whose actors every binding of ``self.<attrname>`` in *owner*'s
        hierarchy holds, with the evidence; None when a binding holds anything else."""
        receivers = self.reader.receivers
        bound: Found = {}
        for klass in self._hierarchy(owner):
            for value, _ in attribute_bindings(klass, attrname):
                if value is None or (isinstance(value, nodes.Const) and value.value is None):
                    continue
                found = receivers.instances(value)
                if not found or any(ACTOR_MADE not in evidence for _, evidence in found.values()):
                    return None  # not only actors: what the handle is, is not proven
                bound.update(found)
        if len(bound) != 1:
            return None
        return next(iter(bound.values()))


def _shown(call: nodes.Call) -> str:
    """The receiver of *call*, ``<receiver>.<name>.remote(...)``, on one line."""
    return " ".join(call.func.expr.expr.as_string().split())  # type: ignore[attr-defined]

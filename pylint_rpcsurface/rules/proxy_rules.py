"""The proxy rules: each handler behind a proxy must answer every name called on it.

The handlers of a ``[[tool.rpcsurface.proxy]]`` table are alternatives: any one of them
may be behind the proxy at run time (a backend, a configuration), so a name one of them
lacks raises ``AttributeError`` on that path. A name the proxy's own members define is
not an RPC; a call under ``hasattr(proxy, name)``, or through ``getattr(proxy, name,
default)``, is handled by its author. A handler with an ancestor that does not resolve
may answer names nobody can see: it is never said to lack one.

A colocated worker group binds each worker's methods under a prefix
(``actor_rollout_compute_log_prob``). A name no handler answers, but which is a prefix
and ``_`` before a name some handler answers, can't be mapped to a method by what is
written: it is ``rpc-proxy-unmapped``, a named reason, neither a finding about the
handlers nor a pass.

With ``handler-param`` each instance of the caller has one handler, the class its
construction passed: a name is judged at each call of a group method on an instance tied
to a construction (``ProxyFacts.uses``), against that class, and the message is there;
the signature and reply rules judge a proxy call against the classes of those instances
only. A call tied to no construction is judged against nothing: when its receiver is
shown to be a group all the same, it is ``rpc-proxy-handler-unknown``, a named reason,
once per call, naming the first name (sorted) the method reaches, then the others.
"""

from __future__ import annotations

from dataclasses import replace

from pylint_rpcsurface.model import (
    Finding,
    HandlerMethod,
    Location,
    ProxyCall,
    ProxyFacts,
    ProxyUse,
)
from pylint_rpcsurface.rules.reply_rules import arity_args, bind_problem, handler_text, sent_text
from pylint_rpcsurface.rules.text import READ_AS_NONE, where

__all__ = ["describe_lacking", "prefixed", "proxy_findings"]


def describe_lacking(lacking: list[str], total: int) -> str:
    """``A (one of its 2 handlers)``, ``A and B (2 of its 3 handlers)``, ``A (its handler)``."""
    short = [name.rpartition(".")[2] for name in lacking]
    listed = short[0] if len(short) == 1 else ", ".join(short[:-1]) + " and " + short[-1]
    if total == 1:
        return f"{listed} (its only handler)"
    if len(short) == total:
        return f"{listed} (all of its {total} handlers)"
    if len(short) == 1:
        return f"{listed} (one of its {total} handlers)"
    return f"{listed} ({len(short)} of its {total} handlers)"


def prefixed(rpc: str, answered: frozenset[str]) -> tuple[str, str] | None:
    """``(prefix, name)`` when *rpc* is ``prefix_name`` and *name* is in *answered*, the
    shortest such prefix; None otherwise."""
    for position, char in enumerate(rpc):
        if char == "_" and 0 < position < len(rpc) - 1 and rpc[position + 1 :] in answered:
            return rpc[:position], rpc[position + 1 :]
    return None


# The methods Ray gives every actor handle, which no class of the project defines:
# ``__ray_ready__`` (wait until the actor is up), ``__ray_terminate__`` (its graceful
# exit) and ``__ray_call__`` (run a function in the actor). Ray is never in the analysed
# tree, so no handler or own-members class could answer them (AReaL 1.0.4 and
# Trinity-RFT 0.3.0 call the first two).
RAY_ACTOR_METHODS = frozenset({"__ray_ready__", "__ray_terminate__", "__ray_call__"})


def proxy_findings(proxy: ProxyFacts) -> list[Finding]:
    """The findings of one proxy table, sorted."""
    found: list[Finding] = []
    for call in proxy.calls:
        if call.rpc is None:
            found.append(
                Finding(
                    call.at,
                    "rpc-name-uninferable",
                    (call.source, "str", call.code, "getattr"),
                    "INFERENCE_FAILURE",
                )
            )
            continue
        if call.guarded or call.rpc in proxy.own_members or not proxy.own_complete:
            continue
        if proxy.remote and call.rpc in RAY_ACTOR_METHODS:
            continue  # every Ray actor answers it
        found.extend(_signature_findings(proxy, call, call.rpc))
        found.extend(_reply_findings(proxy, call, call.rpc))
        if proxy.handler_param is not None:
            continue  # judged where the group's methods are called on an instance
        lacking = [h.qualname for h in proxy.handlers if h.complete and call.rpc not in h.names]
        if not lacking:
            continue
        answered = frozenset().union(*(h.names for h in proxy.handlers))
        split = prefixed(call.rpc, answered) if call.rpc not in answered else None
        if split is not None:
            found.append(
                Finding(
                    call.at,
                    "rpc-proxy-unmapped",
                    (call.rpc, call.receiver, call.code, split[1], split[0]),
                    "INFERENCE_FAILURE",
                )
            )
            continue
        verb = "has" if len(lacking) == 1 else "have"
        found.append(
            Finding(
                call.at,
                "rpc-proxy-unanswered",
                (
                    call.rpc,
                    call.receiver,
                    call.code,
                    describe_lacking(lacking, len(proxy.handlers)),
                    verb,
                    call.rpc,
                ),
                "INFERENCE",
            )
        )
    found.extend(_use_findings(proxy))
    found.extend(_untied_findings(proxy))
    return sorted(found)


def _untied_findings(proxy: ProxyFacts) -> list[Finding]:
    """``rpc-proxy-handler-unknown`` at each group-method call tied to no construction
    whose method reaches a name to judge (one that the other rules would judge)."""
    found = []
    for untied in proxy.untied:
        calls = sorted(
            (c for c in untied.calls if _to_judge(proxy, c)),
            key=lambda c: (c.rpc or "", c.at),
        )
        if not calls:
            continue
        first = calls[0]
        assert first.rpc is not None
        others = sorted({c.rpc for c in calls if c.rpc is not None} - {first.rpc})
        more = ""
        if others:
            plural = "s" if len(others) > 1 else ""
            more = f" (and {len(others)} more name{plural}: {', '.join(others)})"
        tied = "is tied to no construction here"
        if untied.built_at is not None:
            tied = (
                f"is built at {where(untied.built_at, proxy.root)} with no class of the "
                f"project as its {proxy.handler_param}"
            )
        args = (
            first.rpc,
            first.receiver,
            first.code,
            untied.written,
            more,
            untied.group.rpartition(".")[2],
            tied,
        )
        found.append(Finding(untied.at, "rpc-proxy-handler-unknown", args, "INFERENCE_FAILURE"))
    return found


def _to_judge(proxy: ProxyFacts, call: ProxyCall) -> bool:
    """Whether a handler would be judged on *call*'s name at an instance call."""
    rpc = call.rpc
    if rpc is None or call.guarded or rpc in proxy.own_members or not proxy.own_complete:
        return False
    return not (proxy.remote and rpc in RAY_ACTOR_METHODS)


def _use_findings(proxy: ProxyFacts) -> list[Finding]:
    """With handler-param: at each call of a group method on an instance, the names its
    proxy calls need that the class bound to the parameter at the instance's
    construction lacks (each construction the instance may be, named with where)."""
    handlers = {h.qualname: h for h in proxy.handlers}
    lacking: dict[tuple[Location, ProxyCall], dict[str, list[ProxyUse]]] = {}
    judged: dict[tuple[Location, ProxyCall], set[str]] = {}
    for use in proxy.uses:
        handler = handlers.get(use.handler)
        if handler is None or not handler.complete:
            continue  # an ancestor that does not resolve may answer anything
        for call in use.calls:
            rpc = call.rpc
            if rpc is None or call.guarded or rpc in proxy.own_members or not proxy.own_complete:
                continue
            if proxy.remote and rpc in RAY_ACTOR_METHODS:
                continue
            judged.setdefault((use.at, call), set()).add(use.handler)
            if rpc not in handler.names:
                lacking.setdefault((use.at, call), {}).setdefault(use.handler, []).append(use)
    found = []
    for (at, call), by_handler in lacking.items():
        rpc = call.rpc
        assert rpc is not None
        answered = frozenset().union(*(handlers[name].names for name in judged[(at, call)]))
        split = prefixed(rpc, answered) if rpc not in answered else None
        if split is not None:
            unmapped = (rpc, call.receiver, call.code, split[1], split[0])
            found.append(Finding(at, "rpc-proxy-unmapped", unmapped, "INFERENCE_FAILURE"))
            continue
        described = [
            f"{name.rpartition('.')[2]} (the handler of the "
            f"{uses[0].group.rpartition('.')[2]} built at "
            f"{' and '.join(sorted({where(u.built_at, proxy.root) for u in uses}))})"
            for name, uses in sorted(by_handler.items())
        ]
        verb = "has" if len(described) == 1 else "have"
        args = (rpc, call.receiver, call.code, " and ".join(described), verb, rpc)
        found.append(Finding(at, "rpc-proxy-unanswered", args, "INFERENCE"))
    return found


def _signature_findings(proxy: ProxyFacts, call: ProxyCall, rpc: str) -> list[Finding]:
    """``rpc-handler-signature`` for each handler method of *rpc* the call's arguments
    can't bind to, ``self`` left out, whether or not the call is waited."""
    found = []
    sent = call.sent
    for method in _methods_of(proxy, call, rpc):
        if sent is None or method.signature is None:
            continue
        problem = bind_problem(method.signature, sent.positional, sent.keywords)
        if problem is None:
            continue
        args = (
            rpc,
            call.code,
            sent_text(sent),
            handler_text(method, proxy.root),
            method.signature.text,
            problem,
        )
        found.append(Finding(call.at, "rpc-handler-signature", args, "INFERENCE"))
    return found


def _methods_of(proxy: ProxyFacts, call: ProxyCall, rpc: str) -> list[HandlerMethod]:
    """The handler methods of *rpc* that *call* reaches: of every handler, or with
    handler-param of the classes bound where the group methods reaching it are called."""
    if proxy.handler_param is None:
        return [method for method in proxy.methods if method.rpc == rpc]
    judged = {h.qualname for h in proxy.handlers_of(call)}
    found = []
    for method in proxy.methods:
        classes = tuple(c for c in method.classes if c in judged)
        if method.rpc == rpc and classes:
            found.append(replace(method, classes=classes))
    return found


def proxy_by(proxy: ProxyFacts, call: ProxyCall) -> str:
    """``TrainGroup.fit through proxy 'train-actors'``: the caller's code and the table."""
    return f"{call.code} through proxy '{proxy.name}'"


def _reply_findings(proxy: ProxyFacts, call: ProxyCall, rpc: str) -> list[Finding]:
    """``rpc-waited-none-reply`` and ``rpc-reply-arity`` for a waited call, against each
    handler method of *rpc*: the first when the caller reads the reply and the handler
    never returns anything but None, the second when the caller unpacks the call's own
    reply (never a list ``ray.get`` makes of several) into N names and every return of
    the handler is a tuple of M != N."""
    if call.waited is not True:
        return []
    found = []
    by = proxy_by(proxy, call)
    for method in _methods_of(proxy, call, rpc):
        returns = method.returns
        if returns is None:
            continue
        handler = handler_text(method, proxy.root)
        if call.reply_used and returns.never_value:
            none_args = (rpc, by, handler, _read_as_none(call, proxy.root))
            found.append(Finding(call.at, "rpc-waited-none-reply", none_args, "INFERENCE"))
        arity = arity_args(rpc, call.unpacked, by, handler, returns=returns, root=proxy.root)
        if arity is not None:
            found.append(Finding(call.at, "rpc-reply-arity", arity, "INFERENCE"))
    return found


def _read_as_none(call: ProxyCall, root: str) -> str:
    """How the message ends: who reads None, where the reply is handed back by return."""
    if call.read_at is None:
        return READ_AS_NONE
    return f"{READ_AS_NONE} (returned, and read at {where(call.read_at, root)})"

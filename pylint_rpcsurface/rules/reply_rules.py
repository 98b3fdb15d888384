"""The reply rules: pure functions from surface facts to findings about replies and arguments.

They judge each broadcast against every handler method that answers its name (the
effective method of each handler and base handler class, by MRO); on a ``one-of``
surface, whose worker holds one handler not known which, a message stands only where
each handler's method gives it:

* ``rpc-waited-none-reply``: the dispatch drops None replies, the call waits, and the
  handler never returns anything but None. A certain hang.
* ``rpc-waited-maybe-none``: the same, when only some paths return None (opt-in).
* ``rpc-unwaited-reply``: replies share one queue, the call doesn't wait, and the handler
  returns a value: the stale reply answers the next waited call.
* ``rpc-reply-arity``: the call unpacks N values and every return is a tuple of M != N.
* ``rpc-handler-signature``: the forwarded arguments can't bind to the handler.

Where a fact is unknown (an uninferable return, a decorated handler, ``*args`` at the
call) the rule says nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pylint_rpcsurface.model import (
    CallerBroadcast,
    Finding,
    HandlerMethod,
    Returns,
    Sent,
    Signature,
    SurfaceFacts,
)
from pylint_rpcsurface.rules.text import DROPPED, callers_text, finding, names_list, where


def reply_findings(surfaces: Sequence[SurfaceFacts]) -> list[Finding]:
    """Every reply and argument finding of every surface, deduplicated and sorted."""
    findings: set[Finding] = set()
    for surface in surfaces:
        methods: dict[str, list[HandlerMethod]] = defaultdict(list)
        for method in surface.handler_methods:
            methods[method.rpc].append(method)
        for site in surface.broadcasts:
            rpc = site.broadcast.rpc
            if rpc is None or rpc in surface.loop_answers:
                continue  # the loop's own reply to it is not a handler's: not known
            meeting = methods.get(rpc, ())
            if surface.one_of:
                findings.update(_whichever_met(surface, site, meeting))
            else:
                for method in meeting:
                    findings.update(_site_findings(surface, site, method))
    return sorted(findings)


def _whichever_met(
    surface: SurfaceFacts, site: CallerBroadcast, meeting: Sequence[HandlerMethod]
) -> list[Finding]:
    """The findings of a call on a ``one-of`` surface, whose worker holds one of the
    handlers, not known which: a message only where it holds whichever handler the call
    meets, that is where every handler answers the name and each one's method gives it.
    A handler lacking the name, or whose method is fine, may be the one held."""
    found: dict[str, list[Finding]] = defaultdict(list)
    giving: dict[str, set[str]] = defaultdict(set)
    for method in meeting:
        for one in _site_findings(surface, site, method):
            found[one.symbol].append(one)
            giving[one.symbol].update(method.classes)
    handlers = set(surface.handlers.classes)
    return [one for symbol, ones in found.items() if handlers <= giving[symbol] for one in ones]


def handler_text(method: HandlerMethod, root: str) -> str:
    """``Runner.load at pkg/runner.py:12``, naming the handler classes when they differ."""
    owner = method.owner.rsplit(".", 1)[-1]
    text = f"{owner}.{method.name} at {where(method.at, root)}"
    if method.classes != (method.owner,):
        text += f" (for {names_list(method.classes)})"
    return text


def _site_findings(
    surface: SurfaceFacts, site: CallerBroadcast, method: HandlerMethod
) -> list[Finding]:
    broadcast = site.broadcast
    rpc = str(broadcast.rpc)
    by = callers_text(site, surface.root)
    handler = handler_text(method, surface.root)
    at = broadcast.name_at
    found: list[Finding] = []
    returns = method.returns
    if returns is not None and broadcast.drops_none and broadcast.waited is True:
        first_none = returns.first_maybe_none
        if returns.never_value:
            found.append(finding(at, "rpc-waited-none-reply", (rpc, by, handler, DROPPED)))
        elif first_none is not None:
            found.append(
                finding(
                    at,
                    "rpc-waited-maybe-none",
                    (rpc, by, handler, where(first_none, surface.root)),
                )
            )
    if (
        returns is not None
        and broadcast.shared_reply_queue
        and broadcast.waited is False
        and returns.value_at
    ):
        first_value = where(sorted(returns.value_at)[0], surface.root)
        found.append(finding(at, "rpc-unwaited-reply", (rpc, by, handler, first_value)))
    arity = arity_args(rpc, broadcast.unpacked, by, handler, returns=returns, root=surface.root)
    if arity is not None:
        found.append(finding(at, "rpc-reply-arity", arity))
    if broadcast.sent is not None and method.signature is not None:
        problem = bind_problem(method.signature, broadcast.sent.positional, broadcast.sent.keywords)
        if problem is None and broadcast.sent.packed:
            problem = payload_problem(method, broadcast.sent.payload)
        if problem is not None:
            args = (rpc, by, sent_text(broadcast.sent), handler, method.signature.text, problem)
            found.append(finding(at, "rpc-handler-signature", args))
    return found


def payload_problem(method: HandlerMethod, payload: tuple[str, ...] | None) -> str | None:
    """Why a payload dict of the keys *payload* fails *method*, which reads some key it
    lacks on every run; None when it holds them all, or its keys are not known."""
    if payload is None or method.signature is None or not method.signature.positional:
        return None
    missing = [key for key in method.payload_reads if key not in payload]
    if not missing:
        return None
    parameter = method.signature.positional[0]
    shown = ", ".join(f"{parameter}[{key!r}]" for key in missing)
    return f"it reads {shown}, which the payload lacks: KeyError"


def sent_text(sent: Sent) -> str:
    """``2 positional arguments and the keyword 'x'``, or ``no arguments``; with a
    payload, ``one payload dict of the keywords 'a' and 'b'``."""
    if sent.packed:
        if sent.payload is None:
            return "one payload dict of keywords not all known"
        if not sent.payload:
            return "one payload dict of no keywords"
        shown = ", ".join(f"'{k}'" for k in sent.payload)
        return f"one payload dict of the keyword{'s' if len(sent.payload) > 1 else ''} {shown}"
    parts = []
    if sent.positional:
        plural = "s" if sent.positional != 1 else ""
        parts.append(f"{sent.positional} positional argument{plural}")
    if sent.keywords:
        shown = ", ".join(f"'{k}'" for k in sent.keywords)
        parts.append(f"the keyword{'s' if len(sent.keywords) > 1 else ''} {shown}")
    return " and ".join(parts) or "no arguments"


def bind_problem(signature: Signature, positional: int, keywords: tuple[str, ...]) -> str | None:
    """Why *positional* arguments and *keywords* can't bind to *signature*, or None."""
    params = signature.positional
    if positional > len(params) and not signature.varargs:
        return f"it takes {len(params)} positional argument(s) but {positional} were given"
    bound = set(params[:positional])
    for keyword in keywords:
        if keyword in params[: signature.positional_only]:
            if signature.varkw:
                continue
            return f"'{keyword}' is positional-only but was given as a keyword"
        if keyword in params:
            if keyword in bound:
                return f"it got multiple values for argument '{keyword}'"
            bound.add(keyword)
        elif keyword in signature.keyword_only:
            bound.add(keyword)
        elif not signature.varkw:
            return f"it got an unexpected keyword argument '{keyword}'"
    missing = [name for name in params[: signature.required_positional] if name not in bound]
    missing += [name for name in signature.required_keyword_only if name not in bound]
    if missing:
        shown = ", ".join(f"'{name}'" for name in missing)
        return f"it is missing required argument(s) {shown}"
    return None


def arity_args(
    rpc: str, unpacked: int | None, by: str, handler: str, *, returns: Returns | None, root: str
) -> tuple[str, ...] | None:
    """The arguments of ``rpc-reply-arity`` when a reply unpacked into *unpacked* names
    meets a handler whose every return is a tuple of another length; else None."""
    if (
        returns is None
        or unpacked is None
        or returns.tuple_arity is None
        or returns.tuple_at is None
        or returns.tuple_arity == unpacked
    ):
        return None
    at = where(returns.tuple_at, root)
    return (rpc, str(unpacked), by, handler, str(returns.tuple_arity), at)

"""Which receives of a sender receive the reply to the name it sends.

A dispatch may drain the replies left by calls that did not wait before it sends
(``while not replies.empty(): replies.get_nowait()``): those receives run before the
request exists, so they receive no reply to it, and they are neither the receive its
``waits`` is read from nor the one its evidence cites. Only a receive after the first
send of the name is.
"""

from __future__ import annotations

from astroid import nodes

from pylint_rpcsurface.discovery.reading import FunctionBody, call_name, names_in

# Calls that carry the name without sending it anywhere: a log line.
_LOGS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"}
)


def _position(node: nodes.NodeNG) -> tuple[int, int]:
    return node.lineno or 0, node.col_offset or 0


def _end(node: nodes.NodeNG) -> tuple[int, int]:
    return node.end_lineno or node.lineno or 0, node.end_col_offset or 0


def first_send(body: FunctionBody, param: str) -> nodes.Call | None:
    """The first call in the function of *body* that passes the name on (a send, a
    forward, a lookup), logging aside."""
    tainted = body.tainted({param})
    found: nodes.Call | None = None
    for call in body.own_nodes(nodes.Call):
        if call_name(call) in _LOGS:
            continue
        carried = [*call.args, *(k.value for k in call.keywords or ())]
        if not any(names_in(arg) & tainted for arg in carried):
            continue
        if found is None or _position(call) < _position(found):
            found = call
    return found


def after_send(body: FunctionBody, param: str, receives: list[nodes.NodeNG]) -> list[nodes.NodeNG]:
    """The receives of *receives* that do not end before the function of *body* sends
    the name (``ray.get([getattr(w, m).remote() for w in ws])`` holds its send); all of
    them when no send is found in its body."""
    send = first_send(body, param)
    if send is None:
        return receives
    return [r for r in receives if _end(r) > _position(send)]

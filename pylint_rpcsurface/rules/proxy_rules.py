"""The proxy rules: each handler behind a proxy must answer every name called on it.

The handlers of a ``[[tool.rpcsurface.proxy]]`` table are alternatives: any one of them
may be behind the proxy at run time (a backend, a configuration), so a name one of them
lacks raises ``AttributeError`` on that path. A name the proxy's own members define is
not an RPC; a call under ``hasattr(proxy, name)``, or through ``getattr(proxy, name,
default)``, is handled by its author. A handler with an ancestor that does not resolve
may answer names nobody can see: it is never said to lack one.
"""

from __future__ import annotations

from pylint_rpcsurface.model import Finding, ProxyFacts

__all__ = ["describe_lacking", "proxy_findings"]


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


def proxy_findings(proxy: ProxyFacts) -> list[Finding]:
    """The findings of one proxy table, sorted."""
    found: list[Finding] = []
    for call in proxy.calls:
        if call.rpc is None:
            found.append(
                Finding(
                    call.at,
                    "rpc-name-uninferable",
                    (call.source, call.code, "getattr"),
                    "INFERENCE_FAILURE",
                )
            )
            continue
        if call.guarded or call.rpc in proxy.own_members or not proxy.own_complete:
            continue
        lacking = [h.qualname for h in proxy.handlers if h.complete and call.rpc not in h.names]
        if not lacking:
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
    return sorted(found)

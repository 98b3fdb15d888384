"""The rules: pure functions from surface facts to findings.

The registry must equal the names the callers wait on, that the handlers answer, minus
the names the base handlers answer. Every finding below is one way that equation, or the
answering of a broadcast, fails. A finding that would rest on something unknown (an
uninferable name or flag, an unresolved base class) is not made: the unknown thing gets
its own message instead.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence

from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.model import (
    CallerBroadcast,
    Finding,
    Location,
    Registry,
    SurfaceFacts,
)

_CONSEQUENCE = {
    "waited": "the caller waits for a reply that never comes and blocks forever",
    "unwaited": "the workers skip it silently",
    "unknown": "the workers skip it, and a caller that waits blocks forever",
}


def finding(location: Location, symbol: str, args: tuple[str, ...]) -> Finding:
    return Finding(location, symbol, args, BY_SYMBOL[symbol].confidence)


_finding = finding


def derive(surfaces: Sequence[SurfaceFacts]) -> list[Finding]:
    """Every finding of every surface, deduplicated and sorted."""
    findings: set[Finding] = set()
    findings.update(_uninferable_sites(surfaces))
    for surface in surfaces:
        findings.update(_broadcast_findings(surface))
        if surface.registry is not None:
            findings.update(_registry_findings(surface, surface.registry))
    return sorted(findings)


def names_list(qualnames: Iterable[str]) -> str:
    """'A', 'A and B', 'A, B and C': short class names, qualified only where two clash."""
    qualnames = sorted(set(qualnames))
    shorts = [name.rsplit(".", 1)[-1] for name in qualnames]
    shown = [
        short if shorts.count(short) == 1 else full
        for short, full in zip(shorts, qualnames, strict=True)
    ]
    if len(shown) <= 1:
        return "".join(shown) or "no class"
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def where(location: Location, root: str) -> str:
    """``path:line``, the path relative to the project folder *root*."""
    path = os.path.relpath(location.path, root) if root else location.path
    return f"{path.replace(os.sep, '/')}:{location.line}"


_where = where


def callers_text(site: CallerBroadcast, root: str) -> str:
    """The callers of a site, and the helper calls leading to it: ``A via _f() at x.py:3``."""
    text = names_list(site.callers)
    steps = site.broadcast.via
    if steps:
        text += " via " + ", ".join(f"{step.name}() at {where(step.call, root)}" for step in steps)
    return text


def _handlers_text(surface: SurfaceFacts) -> str:
    text = f"handlers: {names_list(surface.handlers.classes)}"
    if surface.base_handlers.classes:
        text += f"; base handlers: {names_list(surface.base_handlers.classes)}"
    return text


def _uninferable_sites(surfaces: Sequence[SurfaceFacts]) -> list[Finding]:
    """A site's name or flag is unknown whatever the surface: one finding per site,
    naming every caller that runs it."""
    callers: dict[tuple[str, Location], set[str]] = defaultdict(set)
    sites: dict[tuple[str, Location], CallerBroadcast] = {}
    for surface in surfaces:
        for site in surface.broadcasts:
            broadcast = site.broadcast
            if broadcast.rpc is None:
                key = ("rpc-name-uninferable", broadcast.name_at)
            elif broadcast.waited is None and broadcast.wait_at is not None:
                key = ("rpc-wait-uninferable", broadcast.wait_at)
            else:
                continue
            callers[key].update(site.callers)
            sites[key] = site
    findings = []
    for key, site in sites.items():
        symbol, location = key
        broadcast = site.broadcast
        if symbol == "rpc-name-uninferable":
            args = (broadcast.name_source, names_list(callers[key]), broadcast.method)
        else:
            args = (str(broadcast.rpc), names_list(callers[key]), str(broadcast.wait_source))
        findings.append(_finding(location, symbol, args))
    return findings


def _broadcast_findings(surface: SurfaceFacts) -> list[Finding]:
    handlers, bases = surface.handlers, surface.base_handlers
    registry = surface.registry
    listed = _listed_names(registry)
    findings = []
    for site in surface.broadcasts:
        broadcast = site.broadcast
        rpc = broadcast.rpc
        if rpc is None:
            continue
        callers = callers_text(site, surface.root)
        answered = rpc in handlers.names or rpc in bases.names
        if not answered and handlers.complete and bases.complete:
            findings.append(
                _finding(
                    broadcast.name_at,
                    "rpc-unanswered",
                    (rpc, callers, _handlers_text(surface), _CONSEQUENCE[broadcast.wait_state]),
                )
            )
        elif (
            broadcast.waited is True
            and listed is not None
            and registry is not None
            and rpc in handlers.names
            and rpc not in bases.names
            and bases.complete
            and rpc not in listed
        ):
            findings.append(
                _finding(
                    broadcast.name_at,
                    "rpc-unlisted",
                    (rpc, callers, names_list(handlers.classes), registry.qualname),
                )
            )
    return findings


def _listed_names(registry: Registry | None) -> frozenset[str] | None:
    """The str elements of a readable registry; None when there is nothing to compare."""
    if registry is None or registry.problem is not None:
        return None
    return frozenset(e.value for e in registry.elements if e.value is not None)


def _registry_findings(surface: SurfaceFacts, registry: Registry) -> list[Finding]:
    if registry.problem is not None:
        return [
            _finding(
                registry.location, "rpc-registry-invalid", (registry.qualname, registry.problem)
            )
        ]
    waited = {s.broadcast.rpc for s in surface.broadcasts if s.broadcast.waited is True}
    # A name broadcast with an unknown flag might be waited on: never called unwaited.
    maybe_waited = {s.broadcast.rpc for s in surface.broadcasts if s.broadcast.waited is None}
    # A site that may wait on a name nobody can infer may wait on any entry: then no entry
    # can be called unwaited. The site itself is reported as rpc-name-uninferable.
    unknown_wait = any(
        s.broadcast.rpc is None and s.broadcast.waited is not False for s in surface.broadcasts
    )
    findings = []
    first_seen: dict[str, Location] = {}
    for element in registry.elements:
        value = element.value
        if value is None:
            findings.append(
                _finding(
                    element.location,
                    "rpc-registry-invalid",
                    (element.source, f"in {registry.qualname} is not a str"),
                )
            )
            continue
        if value in first_seen:
            first = _where(first_seen[value], surface.root)
            findings.append(
                _finding(
                    element.location,
                    "rpc-registry-invalid",
                    (value, f"is listed twice in {registry.qualname} (first at {first})"),
                )
            )
            continue
        first_seen[value] = element.location
        judged = _element_finding(surface, registry, value, waited | maybe_waited, unknown_wait)
        if judged is not None:
            findings.append(_finding(element.location, *judged))
    return findings


def _element_finding(
    surface: SurfaceFacts,
    registry: Registry,
    value: str,
    waited: set[str | None],
    unknown_wait: bool,
) -> tuple[str, tuple[str, ...]] | None:
    """The one message a registry element gets, by precedence: unanswered, in base,
    unwaited."""
    handlers, bases = surface.handlers, surface.base_handlers
    if value not in handlers.names and handlers.complete:
        return (
            "rpc-listed-unanswered",
            (value, registry.qualname, _handlers_text(surface)),
        )
    if value in bases.names:
        return (
            "rpc-listed-in-base",
            (value, registry.qualname, names_list(bases.classes)),
        )
    if value not in waited and surface.callers_complete and not unknown_wait:
        return (
            "rpc-listed-unwaited",
            (value, registry.qualname, _unwaited_detail(surface, value)),
        )
    return None


def _unwaited_detail(surface: SurfaceFacts, value: str) -> str:
    sites = sorted(
        (s for s in surface.broadcasts if s.broadcast.rpc == value),
        key=lambda s: s.broadcast.name_at,
    )
    if not sites:
        return "it is never broadcast"
    first = sites[0]
    more = f" (and {len(sites) - 1} more)" if len(sites) > 1 else ""
    return (
        f"it is only broadcast without waiting, by {names_list(first.callers)} "
        f"at {_where(first.broadcast.name_at, surface.root)}{more}"
    )

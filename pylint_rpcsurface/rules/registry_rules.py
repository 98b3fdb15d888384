"""The registry rules: pure functions from surface facts to findings about names.

The registry must equal the names the callers wait on, that the handlers answer, minus
the names the base handlers answer. :func:`registry_equation` computes each side of that
equation once, with what it can't know; every finding below is one way the equation, or
the answering of a broadcast, fails, and ``rpcsurface fix`` writes the registry it
implies (:func:`wanted_registry`). A finding that would rest on something unknown (an
uninferable name or flag, an unresolved base class) is not made: the unknown thing gets
its own message instead.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from pylint_rpcsurface.model import (
    Broadcast,
    CallerBroadcast,
    Finding,
    Location,
    Registry,
    SurfaceFacts,
)
from pylint_rpcsurface.rules.text import (
    LOOP_ANSWERS,
    callers_list,
    callers_text,
    finding,
    handlers_text,
    names_list,
    where,
)

# A string literal's source: an optional prefix (f, rb, ...) and its opening quote.
_STRING_SOURCE = re.compile(r"[rRbBuUfFtT]{0,2}['\"]")

# What follows an unanswered name, by the site's wait state: when the worker skips a name
# it lacks (unknown-name = "skipped", the default), and when it raises (``_RAISES``).
_CONSEQUENCE = {
    "waited": "the caller waits for a reply that never comes and blocks forever",
    "unwaited": "the workers skip it silently",
    "unknown": "the workers skip it, and a caller that waits blocks forever",
}
_RAISES: Mapping[str, str] = MappingProxyType(
    {
        "waited": "the workers raise on the unknown name, and the caller gets the error "
        "instead of a reply",
        "unwaited": "the workers raise on the unknown name, and nobody waits to see the error",
        "unknown": "the workers raise on the unknown name, and a caller that waits gets the "
        "error instead of a reply",
    }
)


def registry_findings(surfaces: Sequence[SurfaceFacts]) -> list[Finding]:
    """Every registry and answering finding of every surface, deduplicated and sorted."""
    findings: set[Finding] = set()
    findings.update(_uninferable_sites(surfaces))
    for surface in surfaces:
        findings.update(_unparsed_caller_modules(surface))
        findings.update(_broadcast_findings(surface))
        if surface.registry is not None:
            findings.update(_registry_findings(surface, surface.registry))
    return sorted(findings)


@dataclass(frozen=True)
class RegistryEquation:
    """Both sides of ``registry == waited & answered - base`` for one surface.

    ``must_list`` is the right-hand side as far as it is known for certain: names some
    caller waits on, that the handlers answer and the base handlers don't (empty while a
    base handler's names are unknown). ``unknowns`` says, in order, why the exact
    right-hand side can't be known; while it is not empty, nothing may be removed from
    the registry or written to it.
    """

    listed: frozenset[str] | None  # the str elements of a readable registry, else None
    waited: frozenset[str]  # names some caller certainly waits on
    maybe_waited: frozenset[str]  # names broadcast with a wait flag that does not infer
    unknown_wait: bool  # a site whose name does not infer may wait: on any name
    must_list: frozenset[str]
    unknowns: tuple[str, ...]


def registry_equation(surface: SurfaceFacts) -> RegistryEquation:
    """The registry equation of *surface*, and what keeps it from being known exactly."""
    handlers, bases = surface.handlers, surface.base_handlers
    # An enum member or a request's type is no str: a registry of names never lists it.
    named = [s.broadcast for s in surface.broadcasts if s.broadcast.key_kind == "name"]
    waited = frozenset(b.rpc for b in named if b.waited is True and b.rpc is not None)
    maybe_waited = frozenset(b.rpc for b in named if b.waited is None and b.rpc is not None)
    unknown_wait = any(
        s.broadcast.rpc is None and s.broadcast.waited is not False for s in surface.broadcasts
    )
    # A name the loop answers itself is answered whatever the handler, as a base
    # handler's is: it does not belong in the registry.
    must_list = (
        frozenset(
            name
            for name in waited
            if name in handlers.names
            and name not in bases.names
            and name not in surface.loop_answers
        )
        if bases.complete
        else frozenset()
    )
    return RegistryEquation(
        listed=_listed_names(surface.registry),
        waited=waited,
        maybe_waited=maybe_waited,
        unknown_wait=unknown_wait,
        must_list=must_list,
        unknowns=tuple(_unknowns(surface)),
    )


def wanted_registry(surface: SurfaceFacts) -> frozenset[str] | str | None:
    """The names *surface*'s registry must hold; the first reason they can't be known;
    None when the surface has no registry."""
    if surface.registry is None:
        return None
    equation = registry_equation(surface)
    if equation.unknowns:
        return equation.unknowns[0]
    return equation.must_list


def _unknowns(surface: SurfaceFacts) -> list[str]:
    """Why the registry *surface* implies can't be known exactly, most basic first."""
    registry = surface.registry
    reasons = []
    if registry is not None and registry.problem is not None:
        reasons.append(f"it {registry.problem}")
    for element in registry.elements if registry is not None else ():
        if element.value is None:
            reasons.append(
                f"the element {element.source} (line {element.location.line}) is not a str"
            )
    if not surface.handlers.complete or not surface.base_handlers.complete:
        reasons.append(
            "the names the handlers answer are not all known (a base class does not resolve)"
        )
    if not surface.callers_complete:
        reasons.append(f"the callers are not all known ({_why_callers_unknown(surface)})")
    for site in surface.broadcasts:
        broadcast = site.broadcast
        if broadcast.rpc is None and broadcast.waited is not False:
            reasons.append(
                f"the RPC name {broadcast.name_source} at "
                f"{where(broadcast.name_at, surface.root)} does not infer to one str "
                "and may be waited on"
            )
        if broadcast.rpc is not None and broadcast.waited is None:
            reasons.append(
                f"whether '{broadcast.rpc}' is waited on at "
                f"{where(broadcast.name_at, surface.root)} is not known ({broadcast.wait_source})"
            )
    return reasons


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
        args: tuple[str, ...]
        if symbol == "rpc-name-uninferable":
            kind = "class" if broadcast.key_kind == "type" else "str"
            args = (
                _quoted(broadcast.name_source),
                kind,
                callers_list(callers[key]),
                broadcast.method,
            )
        else:
            args = (str(broadcast.rpc), callers_list(callers[key]), str(broadcast.wait_source))
        findings.append(finding(location, symbol, args))
    return findings


def _quoted(source: str) -> str:
    """The source of a name argument, quoted as the other messages quote a name, unless
    it is a string literal (an f-string) with quotes of its own: ``f'profile_{phase}'``,
    not ``'f'profile_{phase}''``."""
    return source if _STRING_SOURCE.match(source) else f"'{source}'"


def _why_callers_unknown(surface: SurfaceFacts) -> str:
    if not surface.unknown_callers:
        return "a base class does not resolve"
    first = surface.unknown_callers[0]
    at = where(first.location, surface.root)
    if first.kind == "open-class":
        return f"{at}: {first.reason}, so it may derive from a caller"
    return f"{at}: {first.reason}, and it may hold a subclass of a caller"


def _unparsed_caller_modules(surface: SurfaceFacts) -> list[Finding]:
    """A module that may hold callers but doesn't parse, can't be decoded, or is never
    read (a FIFO, a file over the size cap): said at the module, naming why, so that no
    mode reports the project clean while callers may be unknown.

    pylint can't lint such a module and reports it itself (syntax-error, parse-error);
    the command line says it with this finding.
    """
    return [
        finding(
            unknown.location,
            "rpcsurface-config-error",
            (
                f"{where(unknown.location, surface.root)}: {unknown.reason}; a subclass of "
                "a caller in it would be missed, so the callers are not all known",
            ),
        )
        for unknown in surface.unknown_callers
        if unknown.kind in ("unparsed", "unread")
    ]


def _broadcast_findings(surface: SurfaceFacts) -> list[Finding]:
    handlers, bases = surface.handlers, surface.base_handlers
    registry = surface.registry
    equation = registry_equation(surface)
    findings = []
    for site in surface.broadcasts:
        broadcast = site.broadcast
        rpc = broadcast.rpc
        if rpc is None or rpc in surface.loop_answers:
            continue
        callers = callers_text(site, surface.root)
        answered = rpc in handlers.names or rpc in bases.names
        if not answered and handlers.complete and bases.complete:
            findings.append(
                finding(
                    broadcast.name_at,
                    "rpc-unanswered",
                    (
                        rpc,
                        callers,
                        handlers_text(surface),
                        (_RAISES if _raises(broadcast, surface) else _CONSEQUENCE)[
                            broadcast.wait_state
                        ],
                    ),
                )
            )
        elif (
            broadcast.waited is True
            and registry is not None
            and equation.listed is not None
            and rpc in equation.must_list
            and rpc not in equation.listed
        ):
            findings.append(
                finding(
                    broadcast.name_at,
                    "rpc-unlisted",
                    (rpc, callers, names_list(handlers.classes), registry.qualname),
                )
            )
    return findings


def _raises(broadcast: Broadcast, surface: SurfaceFacts) -> bool:
    """Whether the workers raise on a name they lack: the dispatch's unknown-name when it
    is set, else what the receive side's code shows (:attr:`SurfaceFacts.miss_raises`)."""
    if broadcast.unknown_name is not None:
        return broadcast.unknown_name == "raises"
    return surface.miss_raises


def _listed_names(registry: Registry | None) -> frozenset[str] | None:
    """The str elements of a readable registry; None when there is nothing to compare."""
    if registry is None or registry.problem is not None:
        return None
    return frozenset(e.value for e in registry.elements if e.value is not None)


# How the second argument of an element's rpc-registry-invalid starts (below): one element
# is wrong, where the registry's own finding says why none can be read.
_ELEMENT_PROBLEMS = ("in ", "is listed twice in ")


def unusable_registry(found: Finding) -> bool:
    """Whether *found* says that a registry can't be used at all (its constant missing,
    bound twice, not statically readable), so nothing is judged against it: a
    configuration that can't be used as written, not one wrong element."""
    return found.symbol == "rpc-registry-invalid" and not (
        len(found.args) > 1 and found.args[1].startswith(_ELEMENT_PROBLEMS)
    )


def _registry_findings(surface: SurfaceFacts, registry: Registry) -> list[Finding]:
    if registry.problem is not None:
        return [
            finding(
                registry.location, "rpc-registry-invalid", (registry.qualname, registry.problem)
            )
        ]
    equation = registry_equation(surface)
    findings = []
    first_seen: dict[str, Location] = {}
    for element in registry.elements:
        value = element.value
        if value is None:
            findings.append(
                finding(
                    element.location,
                    "rpc-registry-invalid",
                    (element.source, f"{_ELEMENT_PROBLEMS[0]}{registry.qualname} is not a str"),
                )
            )
            continue
        if value in first_seen:
            first = where(first_seen[value], surface.root)
            findings.append(
                finding(
                    element.location,
                    "rpc-registry-invalid",
                    (value, f"{_ELEMENT_PROBLEMS[1]}{registry.qualname} (first at {first})"),
                )
            )
            continue
        first_seen[value] = element.location
        judged = _element_finding(surface, registry, value, equation)
        if judged is not None:
            findings.append(finding(element.location, *judged))
    return findings


def _element_finding(
    surface: SurfaceFacts, registry: Registry, value: str, equation: RegistryEquation
) -> tuple[str, tuple[str, ...]] | None:
    """The one message a registry element gets, by precedence: unanswered, in base,
    unwaited."""
    handlers, bases = surface.handlers, surface.base_handlers
    if value in surface.loop_answers:
        return ("rpc-listed-in-base", (value, registry.qualname, LOOP_ANSWERS))
    if value not in handlers.names and handlers.complete:
        return (
            "rpc-listed-unanswered",
            (value, registry.qualname, handlers_text(surface)),
        )
    if value in bases.names:
        return (
            "rpc-listed-in-base",
            (value, registry.qualname, f"the base handler {names_list(bases.classes)}"),
        )
    # A name broadcast with an unknown flag might be waited on, and a site that may wait
    # on a name nobody can infer may wait on any entry: neither is called unwaited. Such a
    # site is reported as rpc-wait-uninferable or rpc-name-uninferable instead.
    waited = equation.waited | equation.maybe_waited
    if value not in waited and surface.callers_complete and not equation.unknown_wait:
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
        f"it is only broadcast without waiting, by {callers_list(first.callers)} "
        f"at {where(first.broadcast.name_at, surface.root)}{more}"
    )

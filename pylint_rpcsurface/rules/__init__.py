"""The rules: pure functions from the facts of each surface to findings.

:func:`findings` is the one entry point. pylint, ``rpcsurface check``, ``report`` and
``fix`` all get their findings from it, so no front end derives one of its own. Nothing
in this package imports astroid or pylint: the rules see only the frozen facts of
:mod:`pylint_rpcsurface.model`.

Surfaces are judged independently: a surface's findings are those it gives alone, and
adding a surface never removes or changes them. A site and symbol that several surfaces
report is one message, which names those surfaces (:func:`surfaces_suffix`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from pylint_rpcsurface.model import Finding, Location, ProxyFacts, SurfaceFacts
from pylint_rpcsurface.rules.proxy_rules import proxy_findings
from pylint_rpcsurface.rules.registry_rules import (
    RegistryEquation,
    registry_equation,
    registry_findings,
    unusable_registry,
    wanted_registry,
)
from pylint_rpcsurface.rules.reply_rules import reply_findings
from pylint_rpcsurface.rules.table_rules import table_findings

__all__ = [
    "RegistryEquation",
    "findings",
    "proxy_findings",
    "registry_equation",
    "surface_findings",
    "surfaces_suffix",
    "unusable_registry",
    "wanted_registry",
]

# Findings whose text names every caller of the site, whatever the surface.
_JOINT = frozenset({"rpc-name-uninferable", "rpc-wait-uninferable"})
# The argument the surfaces' names follow: the callers ("waited on by A"), or the
# registry ("listed in pkg.RPCS"); the second argument of every text but this one's.
_NAMED_AFTER = {"rpc-reply-arity": 2, "rpc-proxy-unanswered": 2, "rpc-name-uninferable": 2}


def surface_findings(surface: SurfaceFacts) -> list[Finding]:
    """The findings *surface* gives on its own, each marked with its name, sorted."""
    found = set(registry_findings([surface])) | set(reply_findings([surface]))
    found |= set(table_findings([surface]))
    return sorted(replace(f, surfaces=(surface.name,)) for f in found)


def surfaces_suffix(names: Sequence[str]) -> str:
    """What a message several surfaces give adds after the callers or registry it names."""
    quoted = [f"'{name}'" for name in names]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    return f" (in surfaces {listed})"


def findings(surfaces: Sequence[SurfaceFacts], proxies: Sequence[ProxyFacts] = ()) -> list[Finding]:
    """Every finding of every surface, one message per site and symbol, sorted.

    A site and symbol one surface gives keeps that surface's findings unchanged. One
    that several give is one finding: the text of the first of them (in the
    configuration's order; for an uninferable name or flag, the text naming every
    caller), the names of those surfaces after the callers (or registry) it names.
    A proxy table counts as one more surface, by its name (:func:`proxy_findings`).
    """
    by_key: dict[tuple[Location, str], dict[str, list[Finding]]] = defaultdict(dict)
    for surface in surfaces:
        for found in surface_findings(surface):
            key = (found.location, found.symbol)
            by_key[key].setdefault(surface.name, []).append(found)
    for proxy in proxies:
        for found in proxy_findings(proxy):
            key = (found.location, found.symbol)
            by_key[key].setdefault(proxy.name, []).append(replace(found, surfaces=(proxy.name,)))
    joint: dict[tuple[Location, str], Finding] = {}
    if any(len(given) > 1 for given in by_key.values()):
        joint = {(f.location, f.symbol): f for f in registry_findings(surfaces)}
    result: list[Finding] = []
    for key, given in by_key.items():
        names = tuple(given)  # in the configuration's order
        if len(names) == 1:
            result.extend(given[names[0]])
            continue
        first = joint[key] if key[1] in _JOINT and key in joint else given[names[0]][0]
        at = min(_NAMED_AFTER.get(first.symbol, 1), len(first.args) - 1)
        args = list(first.args)
        args[at] += surfaces_suffix(names)
        result.append(replace(first, args=tuple(args), surfaces=names))
    return sorted(result)

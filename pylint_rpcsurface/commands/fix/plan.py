"""Which registries ``rpcsurface fix`` rewrites, and to which names.

The names come from :func:`pylint_rpcsurface.rules.wanted_registry`: the same registry
equation, and the same refusals to guess, as the findings ``rpc-unlisted`` and
``rpc-listed-*``. So ``fix`` writes exactly what makes those findings go away, and
refuses where they would not be made.

A finding pylint does not report (a pragma, or pylint's configuration, silences it)
leaves its name alone: a silenced ``rpc-unlisted`` is not added (unless a site not
silenced asks for it too), and an element whose ``rpc-listed-*`` finding is silenced is
kept.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from pylint_rpcsurface.model import Finding, SurfaceFacts
from pylint_rpcsurface.rules import registry_equation, wanted_registry


@dataclass(frozen=True)
class RegistryRewrite:
    """One registry constant to rewrite, and the names it must hold."""

    path: str  # the real path of the module that assigns it
    attribute: str
    qualname: str
    line: int  # where it is bound, for messages
    wanted: frozenset[str]
    surfaces: tuple[str, ...]


@dataclass(frozen=True)
class Refusal:
    path: str
    line: int
    qualname: str
    why: str


_LISTED = frozenset({"rpc-listed-unwaited", "rpc-listed-unanswered", "rpc-listed-in-base"})


def _left_alone(
    surface: SurfaceFacts, findings: Iterable[Finding], silenced: Collection[Finding]
) -> tuple[frozenset[str], frozenset[str]]:
    """The names not to add and the names not to remove, for *surface*'s silenced
    findings."""
    unlisted: dict[str, bool] = {}  # name -> every rpc-unlisted of it is silenced
    kept: set[str] = set()
    for finding in findings:
        if surface.name not in finding.surfaces:
            continue
        if finding.symbol == "rpc-unlisted":
            name = finding.args[0]
            unlisted[name] = unlisted.get(name, True) and finding in silenced
        elif finding.symbol in _LISTED and finding in silenced:
            kept.add(finding.args[0])
    return frozenset(n for n, quiet in unlisted.items() if quiet), frozenset(kept)


def _what_to_do(surface: SurfaceFacts) -> str:
    """For a registry whose value can't be read, what makes it one fix edits: a single
    literal, with the names the code implies when nothing else is unknown."""
    registry = surface.registry
    if registry is None or not (registry.problem or "").startswith("can't be evaluated"):
        return ""
    attribute = registry.qualname.rsplit(".", 1)[-1]
    equation = registry_equation(surface)
    implied = ""
    if len(equation.unknowns) == 1:
        names = ", ".join(sorted(equation.must_list)) or "none"
        implied = f" (the code implies: {names})"
    return (
        f"; fix edits one literal: write {attribute} as one tuple, list or set of str"
        f"{implied}, or edit it by hand, and re-run `rpcsurface fix`"
    )


def plan(
    surfaces: Iterable[SurfaceFacts],
    findings: Iterable[Finding] = (),
    silenced: Collection[Finding] = (),
) -> tuple[list[RegistryRewrite], list[Refusal]]:
    """The registries to rewrite, and those that can't be; a registry that two surfaces
    share is fixed only when both want the same names. *findings* are the surfaces'
    findings, and *silenced* those of them pylint does not report."""
    findings = tuple(findings)
    targets: dict[tuple[str, str], RegistryRewrite] = {}
    refusals: list[Refusal] = []
    refused: set[tuple[str, str]] = set()
    for surface in surfaces:
        wanted = wanted_registry(surface)
        registry = surface.registry
        if wanted is None or registry is None:
            continue
        key = (registry.location.path, registry.qualname)
        if isinstance(wanted, str):  # why the names can't be known
            refusals.append(
                Refusal(
                    key[0],
                    registry.location.line,
                    registry.qualname,
                    wanted + _what_to_do(surface),
                )
            )
            refused.add(key)
            continue
        not_added, not_removed = _left_alone(surface, findings, silenced)
        listed = {e.value for e in registry.elements if e.value is not None}
        wanted = (wanted - not_added) | (not_removed & listed)
        known = targets.get(key)
        if known is not None and known.wanted != wanted:
            refusals.append(
                Refusal(
                    key[0],
                    registry.location.line,
                    registry.qualname,
                    f"surfaces {', '.join(known.surfaces)} and {surface.name} share "
                    f"{registry.qualname} but need different names in it",
                )
            )
            refused.add(key)
            continue
        names = (known.surfaces if known else ()) + (surface.name,)
        targets[key] = RegistryRewrite(
            key[0],
            registry.qualname.rsplit(".", 1)[-1],
            registry.qualname,
            registry.location.line,
            wanted,
            names,
        )
    return [t for k, t in sorted(targets.items()) if k not in refused], refusals

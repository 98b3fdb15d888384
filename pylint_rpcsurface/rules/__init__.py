"""The rules: pure functions from the facts of each surface to findings.

:func:`findings` is the one entry point. pylint, ``rpcsurface check``, ``report`` and
``fix`` all get their findings from it, so no front end derives one of its own. Nothing
in this package imports astroid or pylint: the rules see only the frozen facts of
:mod:`pylint_rpcsurface.model`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pylint_rpcsurface.model import Finding, SurfaceFacts
from pylint_rpcsurface.rules.registry_rules import (
    RegistryEquation,
    registry_equation,
    registry_findings,
    wanted_registry,
)
from pylint_rpcsurface.rules.reply_rules import reply_findings

__all__ = ["RegistryEquation", "findings", "registry_equation", "wanted_registry"]


def findings(surfaces: Sequence[SurfaceFacts]) -> list[Finding]:
    """Every finding of every surface: the registry rules and the reply rules,
    deduplicated and sorted."""
    return sorted(set(registry_findings(surfaces)) | set(reply_findings(surfaces)))

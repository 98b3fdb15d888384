"""The result of one analysis: its configuration errors and its findings, by file.

Kept apart from the engine (which needs astroid) so that the cache and the command line
can hand results around without importing astroid or pylint.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pylint_rpcsurface.config import ConfigError
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.sources import real


@dataclass(frozen=True)
class Analysis:
    """The findings of one configuration over the project, grouped by file."""

    config_errors: tuple[ConfigError, ...]
    _by_path: Mapping[str, tuple[Finding, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, errors: Iterable[ConfigError], findings: Iterable[Finding]) -> Analysis:
        grouped: dict[str, list[Finding]] = defaultdict(list)
        for finding in findings:
            grouped[finding.location.path].append(finding)
        return cls(
            tuple(errors),
            {path: tuple(sorted(found)) for path, found in grouped.items()},
        )

    def findings_in(self, path: str) -> tuple[Finding, ...]:
        return self._by_path.get(real(path), ())

    def all_findings(self) -> tuple[Finding, ...]:
        """Every finding, sorted by path, line, column and symbol."""
        return tuple(sorted(f for found in self._by_path.values() for f in found))

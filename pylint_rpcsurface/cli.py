"""The ``rpcsurface`` command: the checker's findings without running pylint.

``rpcsurface check`` is the fast path for CI and pre-commit. It uses the same
configuration, engine and cache as the pylint checker, so it reports the same findings,
but it reads only the modules the surfaces need instead of every module pylint would lint,
and a warm cache answers without importing astroid or pylint at all.

Exit status: 0 clean, 1 findings, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pylint_rpcsurface import __version__
from pylint_rpcsurface.cache import NO_CACHE_ENV, analyse_with_cache, disabled_by_environment
from pylint_rpcsurface.config import PYPROJECT, Config, ConfigError, ConfigFinder
from pylint_rpcsurface.messages import BY_SYMBOL, render
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.sources import real

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A problem with the command line or the configuration: exit status 2."""


@dataclass(frozen=True)
class Target:
    """A path given on the command line and the configuration that applies to it."""

    paths: tuple[str, ...]  # real paths
    config: Config

    def covers(self, file: str) -> bool:
        return any(file == p or file.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return _check(arguments, sys.stdout)
    except UsageError as error:
        print(f"rpcsurface: error: {error}", file=sys.stderr)
        return EXIT_ERROR


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rpcsurface",
        description="Check RPCs dispatched by name against their handlers and registry.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="command")
    check = commands.add_parser(
        "check",
        help="report the findings of the project's [tool.rpcsurface] surfaces",
        description="Report what `pylint --enable=rpcsurface` would, without running pylint. "
        f"With no paths, check the project whose {PYPROJECT} (with a [tool.rpcsurface] "
        "table) is found upward from the current folder; with paths, report the findings "
        "in those files and folders. Exit status: 0 clean, 1 findings, 2 usage or "
        "configuration error.",
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to report on")
    check.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (text)"
    )
    check.add_argument(
        "--config",
        metavar="FILE",
        help="TOML file whose [tool.rpcsurface] table to use, instead of searching upward",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help=f"don't read or write the fact cache (also: {NO_CACHE_ENV}=1)",
    )
    return parser


def _check(arguments: argparse.Namespace, out: TextIO) -> int:
    targets = _targets(arguments.paths, arguments.config)
    use_cache = not (arguments.no_cache or disabled_by_environment())
    findings: set[Finding] = set()
    errors: list[str] = []
    analysed: dict[Path, list[Target]] = {}
    for target in targets:
        analysed.setdefault(target.config.path, []).append(target)
    for group in analysed.values():
        analysis = analyse_with_cache(group[0].config, {}, use_cache=use_cache)
        errors.extend(str(error) for error in analysis.config_errors)
        for finding in analysis.all_findings():
            if any(target.covers(finding.location.path) for target in group):
                findings.add(finding)
    if errors:
        raise UsageError("; ".join(dict.fromkeys(errors)))
    ordered = sorted(findings)
    if arguments.format == "json":
        json.dump([_as_json(finding) for finding in ordered], out, indent=2)
        out.write("\n")
    else:
        for finding in ordered:
            where = finding.location
            out.write(
                f"{_shown(where.path)}:{where.line}:{where.col}: "
                f"{finding.symbol}: {message_text(finding)}\n"
            )
    return EXIT_FINDINGS if ordered else EXIT_CLEAN


def _targets(paths: Sequence[str], config_file: str | None) -> list[Target]:
    finder = ConfigFinder(Path(config_file) if config_file else None)
    if config_file and not os.path.isfile(config_file):
        raise UsageError(f"{config_file}: no such file (expected the TOML file of --config)")
    if not paths:
        config = _config_for(finder, Path.cwd() / PYPROJECT, ".")
        # The project is what its source roots hold: a finding in a library that a
        # caller inherits from is not the project's, and pylint would not lint it.
        return [Target(tuple(real(root) for root in config.source_roots), config)]
    targets = []
    for given in paths:
        if not os.path.exists(given):
            raise UsageError(f"{given}: no such file or folder")
        # A folder's configuration is searched from inside it, as for a file it holds.
        probe = Path(given, PYPROJECT) if os.path.isdir(given) else Path(given)
        targets.append(Target((real(given),), _config_for(finder, probe, given)))
    return targets


def _config_for(finder: ConfigFinder, probe: Path, given: str) -> Config:
    try:
        config = finder.config_for(probe)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    if config is None:
        raise UsageError(
            f"{given}: no {PYPROJECT} with a [tool.rpcsurface] table in this folder "
            "or any folder above it (or pass --config FILE)"
        )
    return config


def message_text(finding: Finding) -> str:
    """The message text, exactly as the pylint checker prints it (with its page pointer)."""
    return render(finding.symbol, finding.args)


def _shown(path: str) -> str:
    """A path as the user gave it: relative to the current folder when inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _as_json(finding: Finding) -> dict[str, object]:
    where = finding.location
    spec = BY_SYMBOL[finding.symbol]
    return {
        "path": _shown(where.path),
        "absolutePath": where.path,
        "line": where.line,
        "column": where.col,
        "endLine": where.end_line,
        "endColumn": where.end_col,
        "symbol": finding.symbol,
        "messageId": spec.msgid,
        "message": message_text(finding),
        "confidence": finding.confidence,
    }


if __name__ == "__main__":
    sys.exit(main())

"""The ``rpcsurface`` command: the checker's findings without running pylint.

``rpcsurface check`` is the fast path for CI and pre-commit. It uses the same
configuration, engine and cache as the pylint checker, so it reports the same findings,
but it reads only the modules the surfaces need instead of every module pylint would lint,
and a warm cache answers without importing astroid or pylint at all.

``rpcsurface report`` prints, per surface, who waits on each RPC name, who answers it,
whether the registry lists it, and the verdict. ``rpcsurface fix`` rewrites each registry
to the names the code implies (see ``fix.py``). Both analyse afresh: they don't use the
fact cache, which keeps findings, not the facts they need.

Exit status of check: 0 clean, 1 findings, 2 usage or configuration error. Of report: 0,
or 2 for a usage or configuration error. Of fix: 0 nothing to change or every change
written; 1 with ``--diff`` when changes are pending; 2 for a usage or configuration error
or when some registry can't be fixed (the others are still fixed, or shown).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pylint_rpcsurface import __version__, fix, report
from pylint_rpcsurface.cache import NO_CACHE_ENV, analyse_with_cache, disabled_by_environment
from pylint_rpcsurface.config import PYPROJECT, Config, ConfigError, ConfigFinder
from pylint_rpcsurface.messages import BY_SYMBOL, render
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.sarif import sarif_log
from pylint_rpcsurface.sources import real

if TYPE_CHECKING:
    from pylint_rpcsurface.engine import Facts

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
        if arguments.command == "report":
            return _report(arguments, sys.stdout)
        if arguments.command == "fix":
            return _fix(arguments, sys.stdout, sys.stderr)
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
        "--format",
        choices=("text", "json", "sarif"),
        default="text",
        help="output format (text); sarif is SARIF 2.1.0 for code scanning, with 1-based "
        "columns counted in UTF-16 code units",
    )
    _config_option(check)
    check.add_argument(
        "--no-cache",
        action="store_true",
        help=f"don't read or write the fact cache (also: {NO_CACHE_ENV}=1)",
    )
    report_command = commands.add_parser(
        "report",
        help="print each surface's RPC names: who waits, who answers, listed, verdict",
        description="Print a table per surface: each RPC name, the callers that wait on it "
        "(file:line), the handlers that answer it, whether the registry lists it, and the "
        "verdict (ok, or the symbols of its findings). With paths, report the projects "
        "those paths belong to. Rich tables on a terminal when rich is installed, plain "
        "text otherwise. It analyses afresh (the fact cache holds findings, not these "
        "facts). Exit status: 0, or 2 for a usage or configuration error.",
    )
    report_command.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders of projects"
    )
    report_command.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="output format (text); markdown is for pull request comments",
    )
    _config_option(report_command)
    fix_command = commands.add_parser(
        "fix",
        help="rewrite each registry to the names the code implies",
        description="Rewrite each registry constant to the names the callers wait on, that "
        "the handlers answer and the base handlers don't: add the missing names, remove "
        "the stale ones, keep the literal's form, order, quotes, comments and layout. A "
        "registry that can't be edited safely, or whose names can't all be known, is "
        "refused with the reason. It analyses afresh, without the fact cache. Exit "
        "status: 0 nothing to change or all written; 1 with --diff when changes are "
        "pending; 2 for a usage or configuration error, or a refused registry.",
    )
    fix_command.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders of projects"
    )
    fix_command.add_argument(
        "--diff", action="store_true", help="print a unified diff and write nothing"
    )
    _config_option(fix_command)
    return parser


def _config_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--config",
        metavar="FILE",
        help="TOML file whose [tool.rpcsurface] table to use, instead of searching upward",
    )


def _check(arguments: argparse.Namespace, out: TextIO) -> int:
    targets = _targets(arguments.paths, arguments.config)
    use_cache = not (arguments.no_cache or disabled_by_environment())
    findings: dict[Finding, str] = {}
    errors: list[str] = []
    analysed: dict[Path, list[Target]] = {}
    for target in targets:
        analysed.setdefault(target.config.path, []).append(target)
    for group in analysed.values():
        analysis = analyse_with_cache(group[0].config, {}, use_cache=use_cache)
        errors.extend(str(error) for error in analysis.config_errors)
        for finding in analysis.all_findings():
            if any(target.covers(finding.location.path) for target in group):
                findings.setdefault(finding, str(group[0].config.root))
    if errors:
        raise UsageError("; ".join(dict.fromkeys(errors)))
    ordered = sorted(findings)
    if arguments.format == "sarif":
        roots = sorted(set(findings.values())) or [str(targets[0].config.root)]
        log = sarif_log(
            ((f, message_text(f), findings[f]) for f in ordered), os.path.commonpath(roots)
        )
        json.dump(log, out, indent=2)
        out.write("\n")
    elif arguments.format == "json":
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


def _configs(paths: Sequence[str], config_file: str | None) -> list[Config]:
    """The configurations of the projects *paths* belong to, each once."""
    configs: dict[Path, Config] = {}
    for target in _targets(paths, config_file):
        configs.setdefault(target.config.path, target.config)
    return list(configs.values())


def _facts(config: Config) -> Facts:
    # The engine imports astroid: only report and fix need it here, and check's warm
    # cache answers without it.
    from pylint_rpcsurface.engine import (  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
        surface_facts,
    )

    facts = surface_facts(config)
    if facts.config_errors:
        raise UsageError("; ".join(dict.fromkeys(str(e) for e in facts.config_errors)))
    return facts


def _report(arguments: argparse.Namespace, out: TextIO) -> int:
    reports = [
        report.build(surface)
        for config in _configs(arguments.paths, arguments.config)
        for surface in _facts(config).surfaces
    ]
    if arguments.format == "json":
        report.render_json(reports, out)
    elif arguments.format == "markdown":
        report.render_markdown(reports, out)
    elif out.isatty() and report.rich_available():
        report.render_rich(reports, out)
    else:
        report.render_text(reports, out)
    return EXIT_CLEAN


def _fix(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    refusals: list[fix.Refusal] = []
    targets: list[fix.Target] = []
    for config in _configs(arguments.paths, arguments.config):
        planned, refused = fix.plan(_facts(config).surfaces)
        targets.extend(planned)
        refusals.extend(refused)
    by_file: dict[str, list[fix.Target]] = {}
    for target in targets:
        by_file.setdefault(target.path, []).append(target)
    changed = 0
    for path, in_file in sorted(by_file.items()):
        try:
            source = fix.SourceFile.read(path)
            text = source.text
            for target in in_file:
                try:
                    text = fix.rewrite(text, target.attribute, target.qualname, target.wanted)
                except fix.Refused as refused:
                    refusals.append(fix.Refusal(path, refused.line, target.qualname, refused.why))
            if text == source.text:
                continue
            data = source.encode(text)
        except fix.Refused as refusal:
            refusals.append(fix.Refusal(path, refusal.line, in_file[0].qualname, refusal.why))
            continue
        except OSError as error:
            refusals.append(fix.Refusal(path, 1, in_file[0].qualname, str(error)))
            continue
        changed += 1
        if arguments.diff:
            out.write(fix.unified_diff(_shown(path), source.text, text))
        else:
            try:
                fix.write_atomically(path, data)
            except OSError as error:
                refusals.append(fix.Refusal(path, 1, in_file[0].qualname, f"can't write: {error}"))
                continue
            names = ", ".join(t.qualname for t in in_file)
            out.write(f"fixed {_shown(path)} ({names})\n")
    for each in sorted(refusals, key=lambda r: (r.path, r.line, r.why)):
        err.write(f"{_shown(each.path)}:{each.line}: can't fix {each.qualname}: {each.why}\n")
    if refusals:
        return EXIT_ERROR
    return EXIT_FINDINGS if arguments.diff and changed else EXIT_CLEAN


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

"""``rpcsurface check``: the findings pylint would give, as text, JSON or SARIF.

Exit status: 0 clean, 1 findings, 2 usage or configuration error: one that stops it (a
class name that doesn't resolve), or a finding that the registry the configuration names
can't be used at all (``rules.unusable_registry``), printed with the others.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TextIO

from pylint_rpcsurface.commands.progress import Progress, analysing
from pylint_rpcsurface.commands.projects import (
    Scope,
    UsageError,
    exit_status,
    format_option,
    messages_control,
    project_options,
    scopes,
    shown,
)
from pylint_rpcsurface.commands.sarif import root_aliases, sarif_log
from pylint_rpcsurface.config import PYPROJECT
from pylint_rpcsurface.messages import BY_SYMBOL, render
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.rules.text import safe_args, safe_name
from pylint_rpcsurface.store import analyse_with_cache, disabled_by_environment

HELP = "report the findings of the project's [tool.rpcsurface] surfaces"
DESCRIPTION = (
    "Report what `pylint --enable=rpcsurface` would, without running pylint. "
    f"With no paths, check the project whose {PYPROJECT} (with a [tool.rpcsurface] "
    "table) is found upward from the current folder; with paths, report the findings "
    "in those files and folders. Exit status: 0 clean, 1 findings, 2 usage or "
    "configuration error (a registry that can't be read included)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``rpcsurface check`` takes."""
    project_options(parser, "files or folders to report on")
    format_option(
        parser,
        ("json", "sarif"),
        "sarif is SARIF 2.1.0 for code scanning, with 1-based columns counted in UTF-16 code units",
    )


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Findings go to *out*, progress to *err*; a usage error is raised."""
    with Progress(err, "rpcsurface check: ") as progress:
        return _run(arguments, out, progress)


def _run(arguments: argparse.Namespace, out: TextIO, progress: Progress) -> int:
    targets = scopes(arguments.paths, arguments.config)
    use_cache = not (arguments.no_cache or disabled_by_environment())
    findings: dict[Finding, str] = {}
    errors: list[str] = []
    analysed: dict[Path, list[Scope]] = {}
    for target in targets:
        analysed.setdefault(target.config.path, []).append(target)
    silenced: set[Finding] = set()
    progress.phases(len(analysed))
    for group in analysed.values():
        config = group[0].config
        progress.phase(analysing(config))
        analysis = analyse_with_cache(config, {}, use_cache=use_cache)
        control = messages_control(config, arguments)
        if control.lints_nothing:
            raise UsageError(
                "pylint's options (the command line"
                + (f" and {control.file}" if control.file else "")
                + ") disable every message (disable=all, nothing enabled again): "
                "pylint lints nothing"
            )
        errors.extend(str(error) for error in analysis.config_errors)
        for finding in analysis.all_findings():
            # A file pylint's ignore options leave out is not linted: none of its findings.
            if any(target.linted(finding.location.path, control) for target in group):
                findings.setdefault(finding, str(config.root))
                if control.silenced(finding):
                    silenced.add(finding)
    if errors:
        raise UsageError(safe_name("; ".join(dict.fromkeys(errors))))
    progress.done()
    if arguments.format == "sarif":
        # SARIF keeps a silenced finding, marked as suppressed in the source.
        roots = sorted(set(findings.values())) or [str(targets[0].config.root)]
        log = sarif_log(
            ((f, message_text(f)) for f in sorted(findings)),
            os.path.commonpath(roots),
            suppressed=silenced,
            aliases=[pair for group in analysed.values() for pair in root_aliases(group[0].config)],
        )
        json.dump(log, out, indent=2)
        out.write("\n")
        return exit_status(set(findings) - silenced)
    ordered = sorted(set(findings) - silenced)
    if arguments.format == "json":
        json.dump([_as_json(finding) for finding in ordered], out, indent=2)
        out.write("\n")
    else:
        for finding in ordered:
            where = finding.location
            out.write(
                f"{safe_name(shown(where.path))}:{where.line}:{where.col}: "
                f"{finding.symbol}: {message_text(finding)}\n"
            )
    return exit_status(ordered)


def message_text(finding: Finding) -> str:
    """The message text, exactly as the pylint checker prints it (with its page pointer):
    the names in it escaped (``rules.text.safe_name``), in every format, JSON and SARIF
    too, so that each says what pylint says; JSON's ``path`` keeps the file's own name."""
    return render(finding.symbol, safe_args(finding.args))


def _as_json(finding: Finding) -> dict[str, object]:
    where = finding.location
    spec = BY_SYMBOL[finding.symbol]
    return {
        "path": shown(where.path),
        "absolutePath": where.path,
        "line": where.line,
        "column": where.col,
        "endLine": where.end_line,
        "endColumn": where.end_col,
        "symbol": finding.symbol,
        "messageId": spec.msgid,
        "message": message_text(finding),
        "confidence": finding.confidence,
        "surfaces": list(finding.surfaces),
    }

"""``rpcsurface fix``: rewrite each registry constant to the names the code implies.

:mod:`.plan` decides which registries to rewrite and to which names (from the rules'
registry equation), :mod:`.edit` rewrites a literal in source text, :mod:`.write` reads
and writes the file (only while it holds what was planned from). The facts come from the
cache's memo where the code is unchanged since pylint or ``check`` computed them, as an
analysis from nothing would give them (``--no-cache``: from nothing).

Exit status: 0 nothing to change or every change written; 1 with ``--diff`` when changes
are pending; 2 for a usage or configuration error, or when some registry can't be fixed
(the others are still fixed, or shown).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from pylint_rpcsurface.commands.fix.edit import Refused, rewrite
from pylint_rpcsurface.commands.fix.layout import line_length
from pylint_rpcsurface.commands.fix.plan import Refusal, RegistryRewrite, plan
from pylint_rpcsurface.commands.fix.write import SourceFile, unified_diff, update
from pylint_rpcsurface.commands.progress import Progress, analysing
from pylint_rpcsurface.commands.projects import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    configs,
    facts,
    messages_control,
    project_options,
    shown,
    write_options,
)

HELP = "rewrite each registry to the names the code implies"
DESCRIPTION = (
    "Rewrite each registry constant to the names the callers wait on, that "
    "the handlers answer and the base handlers don't: add the missing names, remove "
    "the stale ones, keep the literal's form, order, quotes, comments and layout. A "
    "registry that can't be edited safely, or whose names can't all be known, is "
    "refused with the reason. It writes a file only if it still holds what it "
    "planned from (else it plans again, or refuses), keeps lines another program "
    "appends meanwhile, and keeps the file's owner, group, mode and hard links; a "
    "read-only file is refused unless --force. The facts come from the cache's memo "
    "where the code is unchanged (--no-cache: afresh). Exit status: 0 nothing to "
    "change or all written; 1 with --diff when changes are pending; 2 for a usage or "
    "configuration error, or a refused registry."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``rpcsurface fix`` takes."""
    project_options(parser, "files or folders of projects")
    write_options(parser, "a registry file")


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    targets, refusals, lengths, with_registry = _planned(arguments, err)
    by_file: dict[str, list[RegistryRewrite]] = {}
    for target in targets:
        by_file.setdefault(target.path, []).append(target)
    changed = 0
    for path, in_file in sorted(by_file.items()):
        edit = _FileEdit(path, in_file, lengths[path])
        diff = ""
        try:
            if arguments.diff:
                source = SourceFile.read(path)
                written = edit(source) is not None
                if written:
                    diff = unified_diff(shown(path), source.text, edit.text or "")
            else:
                written = update(path, edit, force=arguments.force)
        except Refused as refusal:
            refusals.extend(edit.refusals)
            refusals.append(Refusal(path, refusal.line, in_file[0].qualname, refusal.why))
            continue
        except OSError as error:
            refusals.extend(edit.refusals)
            what = "can't read" if edit.text is None else "can't write"
            refusals.append(Refusal(path, 1, in_file[0].qualname, f"{what}: {error}"))
            continue
        refusals.extend(edit.refusals)
        out.write(diff)  # out of the try: a closed pipe is not the file's error
        if written:
            changed += 1
            if not arguments.diff:
                names = ", ".join(t.qualname for t in in_file)
                out.write(f"fixed {shown(path)} ({names})\n")
    for each in sorted(refusals, key=lambda r: (r.path, r.line, r.why)):
        err.write(f"{shown(each.path)}:{each.line}: can't fix {each.qualname}: {each.why}\n")
    if refusals:
        return EXIT_ERROR
    if arguments.diff and with_registry and not changed:
        # An empty diff and a run that failed to print one look alike: say which.
        err.write("rpcsurface fix: no change\n")
    return EXIT_FINDINGS if arguments.diff and changed else EXIT_CLEAN


def _planned(
    arguments: argparse.Namespace, err: TextIO
) -> tuple[list[RegistryRewrite], list[Refusal], dict[str, int], int]:
    """The rewrites of every project's registries, the refusals, each registry file's line
    length (its project's), and how many projects name a registry; progress to *err*."""
    refusals: list[Refusal] = []
    targets: list[RegistryRewrite] = []
    lengths: dict[str, int] = {}
    with_registry = 0
    without_registry: list[str] = []
    with Progress(err, "rpcsurface fix: ") as progress:
        chosen = configs(arguments.paths, arguments.config)
        # analysing, then planning, for each project that names a registry
        progress.phases(2 * sum(any(s.registry for s in c.surfaces) for c in chosen))
        for config in chosen:
            if not any(surface.registry for surface in config.surfaces):
                without_registry.append(shown(str(config.path)))
                continue
            progress.phase(analysing(config))
            analysed = facts(config, arguments)
            control = messages_control(config, arguments)
            silenced = {f for f in analysed.findings if control.silenced(f)}
            progress.phase(f"planning the registry rewrites of {config.root}")
            planned, refused = plan(analysed.surfaces, analysed.findings, silenced)
            targets.extend(planned)
            refusals.extend(refused)
            length = line_length(config.root)
            lengths.update((target.path, length) for target in planned)
            with_registry += 1
    for path in without_registry:
        # Without a registry fix has nothing it may write: say so, rather than an
        # empty diff or "no change" that reads as "the registry is right".
        err.write(
            f"rpcsurface fix: {path}: no surface names a registry "
            "(the only thing fix rewrites): nothing to fix\n"
        )
    return targets, refusals, lengths, with_registry


class _FileEdit:
    """The registries of one file rewritten in its text; called again on the new text
    when the file changed under fix, it keeps the refusals of the last call only."""

    def __init__(self, path: str, targets: list[RegistryRewrite], length: int) -> None:
        self.path = path
        self.targets = targets
        self.length = length
        self.refusals: list[Refusal] = []
        self.text: str | None = None

    def __call__(self, source: SourceFile) -> bytes | None:
        self.refusals = []
        text = source.text
        for target in self.targets:
            try:
                text = rewrite(text, target.attribute, target.qualname, target.wanted, self.length)
            except Refused as refused:
                self.refusals.append(Refusal(self.path, refused.line, target.qualname, refused.why))
        self.text = text
        return None if text == source.text else source.encode(text)

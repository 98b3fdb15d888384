"""``rpcsurface init [--diff] [PATH]``: propose the ``[tool.rpcsurface]`` table.

The project in PATH (the current folder by default) is read with astroid, never imported
(:mod:`pylint_rpcsurface.analysis.dispatch_discovery`), and the table it proposes is
appended to its ``pyproject.toml``: every byte already there stays as it was. ``--diff``
prints the change instead of writing it.

* Every key is followed by a comment naming its evidence (``file:line``).
* A key whose evidence is ambiguous is not written: its candidates are listed in a comment
  and on stderr. A surface whose handlers are ambiguous is refused: nothing is written and
  the exit status is 2, with the candidates on stderr.
* With a ``[tool.rpcsurface]`` table already there, only additions are proposed: a
  ``[[tool.rpcsurface.dispatch]]`` for a method no dispatch table names, a
  ``[[tool.rpcsurface.surface]]`` for handlers no surface names. A key the user wrote is
  never rewritten, so a second run proposes nothing new.

Exit status: 0 written or nothing to change, 1 with ``--diff`` when there is a change,
2 refused (an ambiguous surface, no dispatch found, a pyproject.toml that can't be read
or appended to).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pylint_rpcsurface.commands.projects import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError
from pylint_rpcsurface.config import PYPROJECT, ConfigError, parse_table
from pylint_rpcsurface.model import Record

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - tomli is the dependency below 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

if TYPE_CHECKING:
    from pylint_rpcsurface.analysis.discovery import Choice, Proposal, SurfaceProposal

_HEADER = "# Proposed by `rpcsurface init`: each comment names the evidence for its key."


def add_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    init = commands.add_parser(
        "init",
        help="find the project's dispatch surface and write its [tool.rpcsurface] table",
        description="Read the project with astroid (never importing it), find where RPCs "
        f"are sent and answered by name, and append the [tool.rpcsurface] table to its "
        f"{PYPROJECT}, keeping every other byte. Each key has a comment naming its "
        "evidence; an ambiguous key is left out with its candidates listed. With a table "
        "already there, only new dispatch methods and surfaces are added. Exit status: 0 "
        "written or nothing to change, 1 with --diff when there is a change, 2 refused.",
    )
    init.add_argument(
        "path", nargs="?", default=".", metavar="PATH", help="the project's folder (.)"
    )
    init.add_argument(
        "--diff", action="store_true", help="print the change as a unified diff; write nothing"
    )
    return init


@dataclass(frozen=True, eq=False, repr=False)
class Outcome(Record):
    """What init would do to one pyproject.toml."""

    path: Path
    old: bytes
    new: bytes
    refusals: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.old != self.new


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    outcome = plan(Path(arguments.path))
    for note in outcome.notes:
        err.write(f"rpcsurface init: {note}\n")
    if outcome.refusals:
        for refusal in outcome.refusals:
            err.write(f"rpcsurface init: refused: {refusal}\n")
        if arguments.diff and outcome.changed:
            out.write(diff(outcome))
        err.write(f"rpcsurface init: nothing written to {outcome.path}\n")
        return EXIT_ERROR
    if not outcome.changed:
        err.write(f"rpcsurface init: nothing new to propose for {outcome.path}\n")
        return EXIT_CLEAN
    if arguments.diff:
        out.write(diff(outcome))
        return EXIT_FINDINGS
    try:
        _write(outcome.path, outcome.new)
    except OSError as error:
        raise UsageError(f"{outcome.path}: can't be written: {error.strerror or error}") from None
    err.write(f"rpcsurface init: wrote the [tool.rpcsurface] table to {outcome.path}\n")
    return EXIT_CLEAN


def diff(outcome: Outcome) -> str:
    old = outcome.old.decode("utf-8", errors="replace").splitlines(keepends=True)
    new = outcome.new.decode("utf-8", errors="replace").splitlines(keepends=True)
    name = outcome.path.name
    lines = list(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def plan(folder: Path) -> Outcome:
    """What init proposes for the project in *folder*; raises UsageError when it can't
    read the folder or its pyproject.toml."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (expected the project's folder)")
    path = (folder / PYPROJECT).resolve()
    try:
        old = path.read_bytes() if path.exists() else b""
    except OSError as error:
        raise UsageError(f"{path}: can't be read: {error.strerror or error}") from None
    try:
        document = tomllib.loads(old.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: can't be read as TOML: {error}") from None
    existing = document.get("tool", {}).get("rpcsurface")
    if existing is not None and not isinstance(existing, dict):
        raise UsageError(f"{path}: tool.rpcsurface: expected a table")
    # astroid is imported by the analysis only: --help stays cheap.
    from pylint_rpcsurface.analysis.discovery import (  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
        discover,
    )

    roots = _source_roots(existing, path)
    proposal = discover(path.parent, roots)
    text, refusals, notes = render(proposal, existing)
    new = old
    if text:
        new = _appended(old, text)
        problem = _check(new, path)
        if problem is not None:
            refusals = [*refusals, problem]
    return Outcome(path, old, new, tuple(refusals), tuple(notes))


def _source_roots(existing: dict[str, Any] | None, path: Path) -> tuple[Path, ...]:
    roots = (existing or {}).get("source-roots", ["."])
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        raise UsageError(f"{path}: tool.rpcsurface.source-roots: expected an array of paths")
    return tuple(Path(os.path.realpath(path.parent / root)) for root in roots)


def render(proposal: Proposal, existing: dict[str, Any] | None) -> tuple[str, list[str], list[str]]:
    """The TOML text to append (``""``: nothing new), the refusals and the notes."""
    refusals: list[str] = []
    notes = list(proposal.notes)
    configured_methods = {
        str(table.get("method"))
        for table in (existing or {}).get("dispatch", [])
        if isinstance(table, dict)
    }
    configured_classes: set[str] = set()
    names: set[str] = set()
    for table in (existing or {}).get("surface", []):
        if isinstance(table, dict):
            names.add(str(table.get("name")))
            for key in ("handlers", "base-handlers"):
                values = table.get(key, [])
                configured_classes.update(str(v) for v in values if isinstance(values, list))
    blocks: list[str] = []
    for dispatch in proposal.dispatch:
        if dispatch.method in configured_methods:
            continue
        lines = [
            "[[tool.rpcsurface.dispatch]]",
            _line("method", dispatch.method, dispatch.evidence),
        ]
        for choice in dispatch.keys:
            lines.extend(_choice_lines(choice, f"dispatch {dispatch.method!r}", notes))
        blocks.append("\n".join(lines))
    for surface in proposal.surfaces:
        if surface.refused is not None:
            refusals.append(
                f"surface of {', '.join(c for c, _ in surface.callers)}: {surface.refused}: "
                + "; ".join(surface.candidates)
            )
            continue
        if {h for h, _ in surface.handlers} & configured_classes:
            continue
        blocks.append(_surface_block(surface, names, notes))
    if existing is None and not proposal.dispatch:
        refusals.append(
            "no dispatch found: no method sends a name parameter that its call sites fill "
            "with string literals that are mostly one class's method names"
        )
    if not blocks:
        return "", refusals, notes
    head = "" if existing is not None else f"[tool.rpcsurface]\n{_HEADER}\n\n"
    return head + "\n\n".join(blocks) + "\n", refusals, notes


def _surface_block(surface: SurfaceProposal, names: set[str], notes: list[str]) -> str:
    name = surface.name
    while name in names:
        name += "-2"
    names.add(name)
    lines = [
        "[[tool.rpcsurface.surface]]",
        _line("name", name, f"named after its handler: {surface.handlers[0][1]}"),
        *_list_lines("callers", surface.callers),
        *_list_lines("handlers", surface.handlers),
    ]
    if surface.base_handlers:
        lines.extend(_list_lines("base-handlers", surface.base_handlers))
    if surface.registry is not None:
        lines.extend(_choice_lines(surface.registry, f"surface {name!r}", notes))
    return "\n".join(lines)


def _choice_lines(choice: Choice, owner: str, notes: list[str]) -> list[str]:
    if choice.value is None:
        if not choice.candidates:
            return []
        notes.append(
            f"{owner}: {choice.key} not written, the evidence is ambiguous: "
            + "; ".join(choice.candidates)
        )
        return [
            f"# {choice.key}: not written, the evidence is ambiguous:",
            *(f"#   {_comment(candidate)}" for candidate in choice.candidates),
        ]
    return [_line(choice.key, choice.value, choice.evidence)]


def _line(key: str, value: object, evidence: str) -> str:
    return f"{key} = {_toml(value)}  # {_comment(evidence)}"


def _list_lines(key: str, entries: tuple[tuple[str, str], ...]) -> list[str]:
    return [
        f"{key} = [",
        *(f"    {_toml(value)},  # {_comment(evidence)}" for value, evidence in entries),
        "]",
    ]


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))  # a JSON string is a TOML basic string


def _comment(text: str) -> str:
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def _appended(old: bytes, text: str) -> bytes:
    """*old* with *text* after it, in its line endings; no byte of *old* changes."""
    newline = b"\r\n" if old.count(b"\r\n") * 2 > old.count(b"\n") else b"\n"
    added = text.encode("utf-8").replace(b"\n", newline)
    if not old:
        return added
    separator = b"" if old.endswith(b"\n") else newline
    return old + separator + newline + added


def _check(new: bytes, path: Path) -> str | None:
    """Why the new file would not hold a valid table, or None."""
    try:
        document = tomllib.loads(new.decode("utf-8-sig"))
        table = document["tool"]["rpcsurface"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as error:
        return f"{path}: the table can't be appended to this file ({error}); nothing written"
    try:
        parse_table(table, path)
    except ConfigError as error:
        return f"the proposed table does not validate: {error}"
    return None


def _write(path: Path, data: bytes) -> None:
    """Replace *path* with *data* at once, keeping its permissions."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise

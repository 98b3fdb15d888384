"""``rpcsurface init [--diff] [PATH]``: propose the ``[tool.rpcsurface]`` table.

The project in PATH (the current folder by default) is read with astroid, never imported
(:mod:`pylint_rpcsurface.discovery`), and the table it proposes is
appended to its ``pyproject.toml``: every byte already there stays as it was. ``--diff``
prints the change instead of writing it.

* Every key is followed by a comment naming its evidence (``file:line``).
* A key whose evidence is ambiguous, or only that a constant shares the names sent (a
  registry, a base handler), is not written: its candidates are listed in a comment and on
  stderr. A surface whose handlers the code doesn't prove (no binding of the object the
  names are looked up on to them, only classes sharing names, or an annotation admitting
  several) is written commented out: its evidence (the call sites, the overlap), what the
  user must confirm, and a table that is valid once uncommented. Nothing unproven is ever
  active; the summary line counts the active tables and those waiting for the user.
* Ray actor handles a class keeps on an attribute and calls by name are a ``proxy``
  table (``remote = true``) when every binding of the attribute holds actors of one class.
* With a ``[tool.rpcsurface]`` table already there, only additions are proposed: a
  ``[[tool.rpcsurface.dispatch]]`` for a method no dispatch table names, a
  ``[[tool.rpcsurface.surface]]`` for handlers no surface names. A key the user wrote is
  never rewritten, so a second run proposes nothing new.

It writes as ``fix`` does (:func:`~pylint_rpcsurface.commands.fix.write.update`): only
if the file still holds what it planned from, else it plans again from the new text (the
analysis stands: only the table changes), keeping the file's owner, group, mode and hard
links; a read-only file is refused unless ``--force``. A new file gets the mode the umask
gives. Only a regular file within the size cap is read.

Exit status: 0 written (commented-out tables too) or nothing to change, 1 with ``--diff``
when there is a change, 2 refused (no dispatch found, a pyproject.toml that can't be read
or appended to).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pylint_rpcsurface.commands.fix.edit import Refused
from pylint_rpcsurface.commands.fix.write import SourceFile, create, update
from pylint_rpcsurface.commands.package_folders import PackageFolder, package_folders
from pylint_rpcsurface.commands.progress import Progress
from pylint_rpcsurface.commands.projects import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    UsageError,
    write_options,
)
from pylint_rpcsurface.config import PYPROJECT, ConfigError, existing_table, parse_table
from pylint_rpcsurface.sources import UnreadableSource, read_source

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - tomli is the dependency below 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

if TYPE_CHECKING:
    from pylint_rpcsurface.discovery import Choice, Proposal, ProxyProposal, SurfaceProposal

_HEADER = "# Proposed by `rpcsurface init`: each comment names the evidence for its key."


HELP = "find the project's dispatch surface and write its [tool.rpcsurface] table"
DESCRIPTION = (
    "Read the project with astroid (never importing it), find where RPCs "
    f"are sent and answered by name, and append the [tool.rpcsurface] table to its "
    f"{PYPROJECT}, keeping every other byte. Each key has a comment naming its "
    "evidence; an ambiguous key is left out with its candidates listed, and a surface "
    "whose handlers the code doesn't prove is written commented out, for you to "
    "confirm and uncomment. With a table "
    "already there, only new dispatch methods and surfaces are added. It writes as fix "
    "does: only if the file still holds what it planned from (else it plans again), "
    "keeping its owner, group, mode and hard links; a read-only file is refused unless "
    "--force. Exit status: 0 written or nothing to change, 1 with --diff when there is "
    "a change, 2 refused."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``rpcsurface init`` takes."""
    parser.add_argument(
        "path", nargs="?", default=".", metavar="PATH", help="the project's folder (.)"
    )
    write_options(parser, PYPROJECT)


@dataclass(frozen=True)
class Outcome:
    """What init would do to one pyproject.toml."""

    path: Path
    old: bytes
    new: bytes
    refusals: tuple[str, ...]
    notes: tuple[str, ...]
    exists: bool  # a pyproject.toml was there (*old* may be empty all the same)
    roots: tuple[Path, ...]  # the source roots the proposal was found under
    proposal: Proposal
    tables: tuple[int, int] = (0, 0)  # how many are active, and commented out to confirm
    # The folders proven to hold packages (src/), source roots of a table init writes.
    folders: tuple[PackageFolder, ...] = ()

    @property
    def changed(self) -> bool:
        return self.old != self.new


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with Progress(err, "rpcsurface init: ") as progress:
        outcome = plan(Path(arguments.path), progress)
    if not outcome.refusals and outcome.changed and not arguments.diff:
        try:
            outcome = write(outcome, force=arguments.force)
        except Refused as refused:
            _say(outcome, err)
            err.write(f"rpcsurface init: refused: {outcome.path}: {refused.why}\n")
            return EXIT_ERROR
        except OSError as error:
            raise UsageError(
                f"{outcome.path}: can't be written: {error.strerror or error}"
            ) from None
        _say(outcome, err)
        if outcome.changed:
            err.write(
                f"rpcsurface init: wrote the [tool.rpcsurface] table to {outcome.path}: "
                f"{_summary(outcome)}\n"
            )
            return EXIT_CLEAN
    else:
        _say(outcome, err)
    if outcome.refusals:
        if arguments.diff and outcome.changed:
            out.write(diff(outcome))
        err.write(f"rpcsurface init: nothing written to {outcome.path}\n")
        return EXIT_ERROR
    if not outcome.changed:
        err.write(f"rpcsurface init: nothing new to propose for {outcome.path}\n")
        return EXIT_CLEAN
    out.write(diff(outcome))
    return EXIT_FINDINGS


def _summary(outcome: Outcome) -> str:
    active, waiting = outcome.tables
    return (
        f"{active} {'table' if active == 1 else 'tables'} active, {waiting} commented out "
        "waiting for you to confirm"
    )


def _say(outcome: Outcome, err: TextIO) -> None:
    for note in outcome.notes:
        err.write(f"rpcsurface init: {note}\n")
    for refusal in outcome.refusals:
        err.write(f"rpcsurface init: refused: {refusal}\n")


def write(outcome: Outcome, *, force: bool) -> Outcome:
    """Write *outcome* as fix writes a registry: the outcome written, planned again from
    the file's new text when another program changed it since it was read (unchanged:
    the other program wrote what init proposes). Raises Refused (a read-only file, a
    refusal of the new plan, a file that keeps changing) or OSError."""
    path = str(outcome.path)
    if not outcome.exists and create(path, outcome.new):
        return outcome
    written = outcome

    def planner(source: SourceFile) -> bytes | None:
        nonlocal written
        written = outcome
        if source.data != outcome.old or not outcome.exists:
            written = replan(outcome, source.data)
        if written.refusals:
            raise Refused(1, "; ".join(written.refusals))
        return written.new if written.changed else None

    if not update(path, planner, force=force, command="init", decode=SourceFile.undecoded):
        return replace(written, new=written.old)
    return written


def replan(outcome: Outcome, data: bytes) -> Outcome:
    """*outcome*'s proposal planned again for the file holding *data*; Refused when the
    new text can't be appended to, or moves the source roots the analysis read."""
    try:
        existing, roots = _existing(data, outcome.path)
    except UsageError as error:
        raise Refused(1, f"another program changed the file meanwhile: {error}") from None
    roots = _with_folders(existing, roots, outcome.folders, outcome.path.parent)
    if roots != outcome.roots and existing is not None and outcome.folders:
        raise Refused(
            1,
            "another program wrote a [tool.rpcsurface] table while init read the project "
            f"with {_listed_folders(outcome.folders)} as source roots too; nothing written: "
            "re-run `rpcsurface init`",
        )
    if roots != outcome.roots:
        raise Refused(
            1,
            "another program changed tool.rpcsurface.source-roots while init read the "
            "project; nothing written: re-run `rpcsurface init`",
        )
    return _outcome(outcome.path, data, existing, outcome.proposal, roots, folders=outcome.folders)


def diff(outcome: Outcome) -> str:
    old = outcome.old.decode("utf-8", errors="replace").splitlines(keepends=True)
    new = outcome.new.decode("utf-8", errors="replace").splitlines(keepends=True)
    name = outcome.path.name
    lines = list(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def plan(folder: Path, progress: Progress | None = None) -> Outcome:
    """What init proposes for the project in *folder*; raises UsageError when it can't
    read the folder or its pyproject.toml. *progress* is told each phase."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (expected the project's folder)")
    # Not resolved: the project is the folder the file is in, a link's target is not;
    # the write goes through a link.
    path = Path(os.path.abspath(folder / PYPROJECT))
    old = _read(path)
    existing, roots = _existing(old or b"", path)
    folders = () if "source-roots" in (existing or {}) else package_folders(path.parent)
    roots = _with_folders(existing, roots, folders, path.parent)
    # astroid is imported by the analysis only: --help stays cheap.
    from pylint_rpcsurface.discovery import (  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
        discover,
    )

    if progress is not None:
        progress.phases(3)  # reading the files, finding the surface, checking the table
    proposal = discover(path.parent, roots, progress)
    if progress is not None:
        progress.phase("checking the proposed table")
    outcome = _outcome(path, old or b"", existing, proposal, roots, folders=folders)
    return outcome if old is not None else replace(outcome, exists=False)


def _with_folders(
    existing: dict[str, object] | None,
    roots: tuple[Path, ...],
    folders: tuple[PackageFolder, ...],
    project: Path,
) -> tuple[Path, ...]:
    """*roots*, and the *folders* proven to hold packages after them, where init writes
    the table (which says so); a table already there keeps its roots."""
    if existing is None:
        return (*roots, *(Path(os.path.realpath(project / f.folder)) for f in folders))
    return roots


def _listed_folders(folders: tuple[PackageFolder, ...]) -> str:
    return ", ".join(f"{f.folder}/" for f in folders)


def _read(path: Path) -> bytes | None:
    """The bytes of *path*, None when there is no such file; only a regular file within
    the size cap is read (a FIFO would hang init, a link to /dev/zero never end)."""
    try:
        data, _ = read_source(str(path))
    except FileNotFoundError:
        return None
    except UnreadableSource as error:
        reason = str(error).removeprefix(f"{path}: ").removeprefix("not read: ")
        raise UsageError(f"{path}: can't be read: {reason}") from None
    except OSError as error:
        raise UsageError(f"{path}: can't be read: {error.strerror or error}") from None
    return data


def _existing(data: bytes, path: Path) -> tuple[dict[str, object] | None, tuple[Path, ...]]:
    """The table already in the file holding *data* (None: none) and its source roots."""
    try:
        document = tomllib.loads(data.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: can't be read as TOML: {error}") from None
    except RecursionError:
        raise UsageError(f"{path}: can't be read as TOML: nested too deeply") from None
    try:
        return existing_table(document, path)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _outcome(
    path: Path,
    old: bytes,
    existing: dict[str, object] | None,
    proposal: Proposal,
    roots: tuple[Path, ...],
    *,
    folders: tuple[PackageFolder, ...] = (),
) -> Outcome:
    rendered = render(proposal, existing, old.decode("utf-8", errors="replace"), folders)
    new = old
    refusals = rendered.refusals
    if rendered.text:
        new = _appended(old, rendered.text)
        problem = _check(new, path)
        if problem is not None:
            refusals = (*refusals, problem)
    return Outcome(
        path,
        old,
        new,
        refusals,
        rendered.notes,
        True,
        roots,
        proposal,
        (rendered.active, rendered.waiting),
        folders,
    )


@dataclass(frozen=True)
class Rendered:
    """The TOML text to append (``""``: nothing new), the refusals, the notes, and how
    many tables it holds active and commented out for the user to confirm."""

    text: str
    refusals: tuple[str, ...]
    notes: tuple[str, ...]
    active: int
    waiting: int


def render(
    proposal: Proposal,
    existing: dict[str, object] | None,
    old_text: str = "",
    folders: tuple[PackageFolder, ...] = (),
) -> Rendered:
    """What init appends to the file holding *old_text* whose table is *existing*;
    *folders*, those proven to hold packages, are a new table's ``source-roots``."""
    refusals: list[str] = []
    notes = list(proposal.notes)
    roots = f"[{', '.join(_toml(root) for root in ['.', *(f.folder for f in folders)])}]"
    if existing is not None:
        notes.extend(
            f"{found.comment()}: the table has no source-roots, so the modules under "
            f"{found.folder}/ are named {found.folder}.{found.package}...: add "
            f"source-roots = {roots} to [tool.rpcsurface]"
            for found in folders
        )
    configured_methods = {str(table.get("method")) for table in _tables(existing, "dispatch")}
    configured_classes: set[str] = set()
    names: set[str] = set()
    for table in _tables(existing, "surface"):
        names.add(str(table.get("name")))
        for key in ("handlers", "base-handlers", "tables"):
            configured_classes.update(str(v) for v in _listed(table, key))
    blocks: list[str] = []
    waiting: list[str] = []
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
            listed = surface.candidates or surface.overlap
            said = f"surface of {', '.join(c for c, _ in surface.callers)}: {surface.refused}: "
            if not surface.unproven:
                refusals.append(said + "; ".join(listed))
                continue
            marker = _waiting_marker(surface)
            if {h for h, _ in surface.unproven} & configured_classes or marker in old_text:
                continue  # the user configured it, or still has it to confirm
            notes.append(f"{said}{'; '.join(listed)}: written commented out, for you to confirm")
            waiting.append(_commented_block(surface, marker, names))
            continue
        if {h for h, _ in (*surface.handlers, *surface.tables)} & configured_classes:
            continue
        blocks.append(_surface_block(surface, names, notes))
    proxy_names = {str(table.get("name")) for table in _tables(existing, "proxy")}
    proxied = {
        str(handler)
        for table in _tables(existing, "proxy")
        for handler in _listed(table, "handlers")
    }
    for proxy in proposal.proxies:
        if not {h for h, _ in proxy.handlers} & proxied:
            blocks.append(_proxy_block(proxy, proxy_names))
    if existing is None and not proposal.dispatch and not proposal.proxies:
        refusals.append(
            "no dispatch found: no method sends a name parameter that its call sites fill "
            "with string literals that are mostly one class's method names"
        )
    if not blocks and not waiting:
        return Rendered("", tuple(refusals), tuple(notes), 0, 0)
    head = "" if existing is not None else f"[tool.rpcsurface]\n{_HEADER}\n\n"
    if existing is None and folders:
        proofs = "; ".join(found.comment() for found in folders)
        head = f"[tool.rpcsurface]\n{_HEADER}\nsource-roots = {roots}  # {_comment(proofs)}\n\n"
    return Rendered(
        head + "\n\n".join([*blocks, *waiting]) + "\n",
        tuple(refusals),
        tuple(notes),
        len(blocks),
        len(waiting),
    )


def _tables(existing: dict[str, object] | None, key: str) -> list[dict[str, object]]:
    """The ``[[tool.rpcsurface.KEY]]`` tables already there (their shapes are checked)."""
    tables = (existing or {}).get(key, [])
    return (
        [table for table in tables if isinstance(table, dict)] if isinstance(tables, list) else []
    )


def _unique(name: str, names: set[str]) -> str:
    """*name*, or it with "-2" added until no table of *names* has it; added to them."""
    while name in names:
        name += "-2"
    names.add(name)
    return name


def _listed(table: dict[str, object], key: str) -> list[object]:
    """The list *table* holds at *key* (none: an empty one)."""
    values = table.get(key, [])
    return values if isinstance(values, list) else []


def _surface_block(surface: SurfaceProposal, names: set[str], notes: list[str]) -> str:
    name = _unique(surface.name, names)
    if surface.tables:
        named = _line("name", name, f"named after its table {surface.tables[0][0]}")
        answers = _list_lines("tables", surface.tables)
    elif surface.one_of:
        named = _line("name", name, "named after its caller")
        answers = [
            *_list_lines("handlers", surface.handlers),
            _line("one-of", True, surface.one_of),
        ]
    else:
        named = _line("name", name, f"named after its handler: {surface.handlers[0][1]}")
        answers = _list_lines("handlers", surface.handlers)
    lines = ["[[tool.rpcsurface.surface]]", named, *_when_lines(surface)]
    if surface.dispatch:
        who = "the table answers" if surface.tables else "its handlers answer"
        lines.append(
            f"dispatch = [{', '.join(_toml(m) for m in surface.dispatch)}]  "
            f"# {who} these calls only"
        )
    lines.extend([*_list_lines("callers", surface.callers), *answers])
    if surface.base_handlers:
        lines.extend(_list_lines("base-handlers", surface.base_handlers))
    elif surface.base_overlap:
        notes.append(
            f"surface {name!r}: base-handlers not written, candidates by overlap only: "
            + "; ".join(surface.base_overlap)
        )
        lines.append("# base-handlers: not written, candidates by overlap only (not written):")
        lines.extend(f"#   {_comment(candidate)}" for candidate in surface.base_overlap)
    if surface.registry is not None:
        lines.extend(_choice_lines(surface.registry, f"surface {name!r}", notes))
    if surface.answered_before_lookup:
        lines.extend(_list_lines("answered-before-lookup", surface.answered_before_lookup))
    return "\n".join(lines)


def _proxy_block(proxy: ProxyProposal, names: set[str]) -> str:
    """*proxy*'s table: Ray actor handles kept on an attribute of its callers."""
    return "\n".join(
        [
            "[[tool.rpcsurface.proxy]]",
            _line("name", _unique(proxy.name, names), "named after its handler"),
            *_list_lines("callers", proxy.callers),
            *_list_lines("receivers", proxy.receivers),
            *_list_lines("handlers", proxy.handlers),
            _line("remote", True, "the calls are <receiver>.<name>.remote(...): Ray actor handles"),
        ]
    )


def _waiting_marker(surface: SurfaceProposal) -> str:
    """The first line of *surface*'s commented-out table: while the file holds it, the
    surface waits for the user and is not proposed again."""
    callers = ", ".join(c for c, _ in surface.callers)
    return f"# Not proven: the surface of {_comment(callers)}"


def _commented_block(surface: SurfaceProposal, marker: str, names: set[str]) -> str:
    """*surface*'s table commented out: its evidence, what the user must confirm, and
    lines that are a valid table once their leading ``# `` is removed."""
    name = _unique(surface.name, names)
    table = [
        "[[tool.rpcsurface.surface]]",
        _line("name", name, "named after its caller"),
        *_when_lines(surface),
        *_list_lines("callers", surface.callers),
        *_list_lines("handlers", surface.unproven),
    ]
    if surface.dispatch:
        table.append(f"dispatch = [{', '.join(_toml(m) for m in surface.dispatch)}]")
    return "\n".join(
        [
            marker,
            f"# Why: {_comment(surface.refused or '')}.",
            f"# Confirm {_comment(surface.confirm)};",
            "# then remove the '# ' that starts each line below.",
            *(f"# {line}" for line in table),
        ]
    )


def _when_lines(surface: SurfaceProposal) -> list[str]:
    """*surface*'s ``when``: the condition of the callers' code it judges the calls under."""
    return [_line("when", surface.when, surface.when_evidence)] if surface.when else []


def _choice_lines(choice: Choice, owner: str, notes: list[str]) -> list[str]:
    if choice.value is None:
        if not choice.candidates:
            return []
        notes.append(
            f"{owner}: {choice.key} not written, {choice.why}: " + "; ".join(choice.candidates)
        )
        return [
            f"# {choice.key}: not written, {_comment(choice.why)}:",
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

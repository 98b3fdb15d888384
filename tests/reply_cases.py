"""The end-to-end reply cases: None replies, stale replies, reply arity, handler
signatures and helpers.

Each case is a folder of tests/fixtures/replies, a small project: its ``pyproject.toml``,
one module (the caller ``<module>.Core``, the handler ``<module>.Runner`` unless the
configuration says otherwise) and ``case.toml``, which says what the case is about:

- ``message``: the message the case is about, for the closing table;
- ``description``: what it shows, in one line;
- ``texts`` (optional): fragments some message of the case must contain; ``{line:X}`` in
  a fragment is the number of the line of the module that contains X;
- ``opt-in-off`` (optional): lint it with pylint's defaults, not ``--enable=rpcsurface``.

A line of the module ending in ``# [symbol]`` (several comma-separated) expects exactly
that message on that line; a case without markers must be silent. To add a case, add a
folder.

All cases are linted in one pylint run (each file finds its own pyproject.toml), which
keeps the table cheap enough to grow.
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from support import marked_findings

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is a dependency of the package below 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

FIXTURES = Path(__file__).parent / "fixtures" / "replies"
_CASE_KEYS = {"message", "description", "texts", "opt-in-off"}


@dataclass(frozen=True)
class ReplyCase:
    id: str  # the folder's name
    module: str  # the module's name, without .py
    message: str
    description: str
    source: str  # the module's text
    texts: tuple[str, ...] = ()
    opt_in_off: bool = False


def _load(folder: Path) -> ReplyCase:
    meta = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    assert set(meta) <= _CASE_KEYS, f"{folder}/case.toml: unknown keys {set(meta) - _CASE_KEYS}"
    modules = sorted(folder.glob("*.py"))
    assert len(modules) == 1, f"{folder}: a case is one module, not {len(modules)}"
    assert (folder / "pyproject.toml").is_file(), f"{folder}: no pyproject.toml"
    (module,) = modules
    return ReplyCase(
        folder.name,
        module.stem,
        meta["message"],
        meta["description"],
        module.read_text(encoding="utf-8"),
        tuple(meta.get("texts", ())),
        bool(meta.get("opt-in-off", False)),
    )


def expected(case: ReplyCase) -> set[tuple[str, int]]:
    return marked_findings(case.source)


def resolve(case: ReplyCase, fragment: str) -> str:
    """Replace ``{line:X}`` by the number of the (only) line containing X."""
    lines = case.source.splitlines()

    def number(match: re.Match[str]) -> str:
        hits = [n for n, line in enumerate(lines, start=1) if match[1] in line]
        assert len(hits) == 1, f"{case.id}: {match[1]!r} is on lines {hits}, not one line"
        return str(hits[0])

    return re.sub(r"\{line:([^}]*)\}", number, fragment)


def write_cases(root: Path, cases: tuple[ReplyCase, ...]) -> None:
    """Each case's folder, copied to ``root/cases/<id>``."""
    for case in cases:
        shutil.copytree(
            FIXTURES / case.id,
            root / "cases" / case.id,
            ignore=shutil.ignore_patterns("__pycache__", "case.toml"),
        )


CASES: tuple[ReplyCase, ...] = tuple(
    _load(folder) for folder in sorted(FIXTURES.iterdir()) if folder.is_dir()
)
CASES_BY_ID = {case.id: case for case in CASES}

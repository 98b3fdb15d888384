"""The progress bar on a terminal: ``init`` counts the files it reads, and check, report,
fix and init count their phases (``step i/n``), each on the one line the next rewrite
erases; piped, one plain line a phase; never a byte of it on standard output."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from support import (
    APP,
    PLANTED,
    PYPROJECT,
    TerminalRun,
    project,
    run_cli,
    run_on_a_terminal,
)

FIXTURES = Path(__file__).parent / "fixtures"
CELLS = 20  # the bar's width, as docs/init.md shows it

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")


def _bar(done: int, total: int) -> str:
    """The bar for *done* of *total*, as the documentation describes it."""
    filled = CELLS * done // total
    return "[" + "#" * filled + "." * (CELLS - filled) + "]"


def _unconfigured(tmp_path: Path) -> Path:
    """A copy of the init_vllm fixture without its table: init has work to propose."""
    folder = Path(shutil.copytree(FIXTURES / "init_vllm", tmp_path / "init_vllm"))
    (folder / "pyproject.toml").unlink()
    return folder


def _planted(tmp_path: Path) -> Path:
    """A project with findings and a registry fix would change."""
    app = APP.replace('FAST_RPCS = ("fast_step",)', "FAST_RPCS = ()") + PLANTED
    return project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})


def _lines(run: TerminalRun, prefix: str) -> list[str]:
    """The progress line's texts before its last erasure, in order, each once: the
    seconds are left out, and with them the rewrites that only moved them on."""
    texts = [re.sub(r" \(\d+ s\)$", "", write) for write in run.writes[:-1]]
    return list(dict.fromkeys(text for text in texts if text.startswith(prefix)))


@posix_only
def test_init_counts_the_files_it_reads_in_a_bar(tmp_path: Path) -> None:
    folder = _unconfigured(tmp_path)
    files = len(list(folder.rglob("*.py")))
    assert files > 2
    piped = run_cli(folder, "init", "--diff", env={"RPCSURFACE_PROGRESS": "never"})
    shown = run_on_a_terminal(folder, "init", "--diff")
    assert shown.returncode == piped.returncode == 1, shown.shown
    assert shown.stdout == piped.stdout  # the diff, and nothing of the progress
    assert shown.stdout.startswith("--- a/pyproject.toml")
    reading = f"rpcsurface init: reading {files} Python files"
    # The phase is step 1 of 3 until the first file is read; then every file read moves
    # the count, in order; then steps 2 and 3.
    assert _lines(shown, "rpcsurface init: ") == [
        f"{reading} {_bar(0, 3)} step 1/3",
        *(f"{reading} {_bar(done, files)} {done}/{files}" for done in range(1, files + 1)),
        f"rpcsurface init: finding the dispatch surface {_bar(1, 3)} step 2/3",
        f"rpcsurface init: checking the proposed table {_bar(2, 3)} step 3/3",
    ], shown.shown
    # The line is erased before the notes, which are lines of their own.
    assert "\n" not in "".join(shown.writes[:-1])
    assert shown.writes[-1] == piped.stderr.replace("\n", "\r\n")


@posix_only
@pytest.mark.parametrize(
    ("command", "phases"),
    [
        (("check",), ["analysing 1 Python file in {root}"]),
        (("report",), ["analysing 1 Python file in {root}", "building the tables of {root}"]),
        (
            ("fix", "--diff"),
            ["analysing 1 Python file in {root}", "planning the registry rewrites of {root}"],
        ),
    ],
    ids=lambda c: c[0] if isinstance(c, tuple) else "",
)
def test_each_command_counts_its_phases(
    tmp_path: Path, command: tuple[str, ...], phases: list[str]
) -> None:
    root = _planted(tmp_path)
    piped = run_cli(root, *command, "--no-cache", env={"RPCSURFACE_PROGRESS": "never"})
    shown = run_on_a_terminal(root, *command, "--no-cache")
    assert shown.returncode == piped.returncode != 2, shown.shown
    assert shown.stdout == piped.stdout
    assert shown.stdout
    prefix = f"rpcsurface {command[0]}: "
    steps = len(phases)
    expected = [
        f"{prefix}{phase.format(root=root)} {_bar(step, steps)} step {step + 1}/{steps}"
        for step, phase in enumerate(phases)
    ]
    assert _lines(shown, prefix) == expected, shown.shown
    assert shown.writes[-1] == piped.stderr.replace("\n", "\r\n")


@posix_only
def test_a_narrow_terminal_cuts_the_phase_and_keeps_the_bar(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    shown = run_on_a_terminal(root, "report", "--no-cache", columns=50)
    assert shown.returncode == 0, shown.shown
    lines = _lines(shown, "rpcsurface ")  # the text is cut, the prefix too
    assert len(lines) == 2, shown.shown
    for line in lines:
        # One column is left free: a line as wide as the terminal would wrap.
        assert len(line) <= 49, line
        assert re.search(r"\.\.\. \[[#.]{20}\] step [12]/2$", line), line


def test_piped_init_writes_one_plain_line_a_phase(tmp_path: Path) -> None:
    folder = _unconfigured(tmp_path)
    files = len(list(folder.rglob("*.py")))
    quiet = run_cli(folder, "init", "--diff", env={"RPCSURFACE_PROGRESS": "never"})
    shown = run_cli(folder, "init", "--diff", env={"RPCSURFACE_PROGRESS": "always"})
    assert shown.returncode == quiet.returncode == 1
    assert shown.stdout == quiet.stdout
    phases = [
        f"reading {files} Python files",
        "finding the dispatch surface",
        "checking the proposed table",
        "done",
    ]
    progress_lines = [
        line for line in shown.stderr.splitlines() if line not in quiet.stderr.splitlines()
    ]
    assert [re.sub(r" \(\d+ s\)$", "", line) for line in progress_lines] == [
        f"rpcsurface init: {phase}" for phase in phases
    ], shown.stderr
    assert all(re.search(r" \(\d+ s\)$", line) for line in progress_lines)
    assert "[" not in "".join(progress_lines)
    assert "\r" not in shown.stderr
    assert "\x1b" not in shown.stderr

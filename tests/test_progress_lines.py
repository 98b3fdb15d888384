"""Progress on standard error for check, report and fix: a line rewritten in place on a
terminal, one line a phase when piped (``RPCSURFACE_PROGRESS=always``, or a run that
works long), nothing for a quick run, and never a byte of it on standard output."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import (
    APP,
    CONSOLE_SCRIPT,
    PLANTED,
    PYPROJECT,
    clean_environment,
    project,
    run_cli,
    run_on_a_terminal,
)

from pylint_rpcsurface.commands import progress
from pylint_rpcsurface.commands.progress import Progress

COMMANDS = (("check",), ("report",), ("fix", "--diff"))


def _planted(tmp_path: Path) -> Path:
    """A project with findings, a registry fix would change, and a second module."""
    app = APP.replace('FAST_RPCS = ("fast_step",)', "FAST_RPCS = ()") + PLANTED
    return project(
        tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app, "other.py": "VALUE = 1\n"}
    )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_piped_progress_is_one_line_a_phase_and_stdout_is_untouched(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    root = _planted(tmp_path)
    files = len(list(root.rglob("*.py")))
    quiet = run_cli(root, *command, "--no-cache", env={"RPCSURFACE_PROGRESS": "never"})
    shown = run_cli(root, *command, "--no-cache", env={"RPCSURFACE_PROGRESS": "always"})
    assert quiet.returncode == shown.returncode != 2, shown
    assert shown.stdout == quiet.stdout
    assert shown.stdout  # the findings, the table or the diff
    name = command[0]
    phases = {
        "check": [f"analysing {files} Python files in {root}"],
        "report": [f"analysing {files} Python files in {root}", f"building the tables of {root}"],
        "fix": [
            f"analysing {files} Python files in {root}",
            f"planning the registry rewrites of {root}",
        ],
    }[name]
    expected = [re.escape(f"rpcsurface {name}: {phase}") + r" \(\d+ s\)" for phase in phases]
    expected.append(re.escape(f"rpcsurface {name}: done") + r" \(\d+ s\)")
    lines = shown.stderr.splitlines()
    assert len(lines) == len(expected), shown.stderr
    for line, pattern in zip(lines, expected, strict=True):
        assert re.fullmatch(pattern, line), (line, shown.stderr)
    assert "\r" not in shown.stderr
    assert "\x1b" not in shown.stderr
    assert quiet.stderr == ""


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_quick_run_says_nothing_on_a_pipe(tmp_path: Path, command: tuple[str, ...]) -> None:
    root = _planted(tmp_path)
    run = run_cli(root, *command, "--no-cache", env={"RPCSURFACE_PROGRESS": ""})
    assert run.stdout
    assert run.stderr == ""


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_terminal_gets_one_line_rewritten_in_place(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    files = len(list(root.rglob("*.py")))
    # Wide enough for the whole phase: a longer one is cut at the terminal's width.
    run = run_on_a_terminal(root, "report", "--no-cache", columns=1000)
    assert run.returncode == 0
    assert "RPC" in run.stdout
    # Each phase starts at the line's start with the line erased, its bar after it
    # (tests/test_progress_bar.py); the last write erases it for good, and no line is
    # ever ended.
    writes, shown = run.writes, run.shown
    assert writes[0] == "", shown
    assert writes[-1] == "", shown
    for phase in (f"analysing {files} Python files in {root}", f"building the tables of {root}"):
        assert any(w.startswith(f"rpcsurface report: {phase} [") for w in writes), shown
    assert "\n" not in shown


def test_a_bad_setting_is_a_usage_error(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    run = run_cli(root, "check", env={"RPCSURFACE_PROGRESS": "loud"})
    assert run.returncode == 2
    assert run.stderr == (
        "rpcsurface: error: RPCSURFACE_PROGRESS='loud': expected one of auto, always, never\n"
    )
    assert run.stdout == ""


def test_closed_standard_error_is_no_crash(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    expected = run_cli(root, "check", "--no-cache")
    closed = subprocess.run(
        [*CONSOLE_SCRIPT, "check", "--no-cache"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        pass_fds=(),
        preexec_fn=lambda: os.close(2),
        env=clean_environment({"RPCSURFACE_PROGRESS": "always"}),
        check=False,
        text=True,
    )
    assert (closed.returncode, closed.stdout) == (expected.returncode, expected.stdout)
    assert expected.returncode == 1


def _burn(seconds: float) -> None:
    """Work the processor for *seconds* of its time."""
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def test_a_pipe_gets_the_phases_once_the_run_has_worked_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RPCSURFACE_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.2)
    stream = io.StringIO()
    with Progress(stream, "rpcsurface check: ", interval=0.02) as shown:
        shown.phase("reading")
        _burn(0.05)
        shown.phase("analysing")  # still quick: not written
        _burn(0.3)
        time.sleep(0.1)  # the ticker writes the phase that made it long
        shown.phase("writing")
    lines = stream.getvalue().splitlines()
    assert [line.rpartition(" (")[0] for line in lines] == [
        "rpcsurface check: analysing",
        "rpcsurface check: writing",
        "rpcsurface check: done",
    ], lines

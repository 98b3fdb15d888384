"""Every ``rpcsurface`` command stops quietly when its reader closes the pipe early
(``rpcsurface check | head -1``): no traceback, and the status a shell reports for a
program ended by SIGPIPE, 141, as ``cat`` or ``git log`` give.

The pipe's reading end is closed before the command starts, so its first write fails
whatever its output's size: the test doesn't depend on how fast a reader goes away. Each
runs with stdout buffered, as a user's is (the write fails when the buffer is flushed, at
exit unless the command flushes it), and unbuffered (PYTHONUNBUFFERED=1: it fails at once).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support import CONSOLE_SCRIPT, clean_environment

from pylint_rpcsurface.commands.main import EXIT_PIPE_CLOSED

FIXTURE = Path(__file__).parent / "fixtures" / "real_layout"  # has findings: check exits 1


def _with_a_closed_pipe(
    cwd: Path, *args: str, buffered: bool = True
) -> subprocess.CompletedProcess[str]:
    env = clean_environment()
    env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    reading, writing = os.pipe()
    os.close(reading)
    try:
        return subprocess.run(
            [*CONSOLE_SCRIPT, *args],
            cwd=cwd,
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            env=env,
            check=False,
        )
    finally:
        os.close(writing)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path_factory.mktemp("pipe") / "real_layout"))


@pytest.mark.parametrize(
    "args",
    [
        ("check",),
        ("check", "--format", "json"),
        ("check", "--format", "sarif"),
        ("report",),
        ("report", "--format", "markdown"),
        ("fix", "--diff"),
        ("explain",),
        ("explain", "rpc-unlisted"),
    ],
    ids=" ".join,
)
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_a_closed_pipe_ends_the_command_quietly_with_141(
    args: tuple[str, ...], buffered: bool, project: Path
) -> None:
    run = _with_a_closed_pipe(project, *args, buffered=buffered)
    assert (run.returncode, run.stderr) == (EXIT_PIPE_CLOSED, ""), run


def test_the_status_is_sigpipes() -> None:
    signal = pytest.importorskip("signal")
    if not hasattr(signal, "SIGPIPE"):
        pytest.skip("no SIGPIPE on this platform")
    assert EXIT_PIPE_CLOSED == 128 + signal.SIGPIPE


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("check", "--help")], ids=" ".join)
def test_argparse_output_to_a_closed_pipe_is_quiet(args: tuple[str, ...], project: Path) -> None:
    """argparse ignores a failed write of its help (status 0) on some Python versions;
    either way, nothing is printed."""
    run = _with_a_closed_pipe(project, *args)
    assert run.returncode in (0, EXIT_PIPE_CLOSED), run
    assert run.stderr == "", run

"""The ``rpcsurface`` console script ends its process without tearing down what the
analysis built, and loses nothing by it: every line of its output, its exit status and
the store it writes are those a normal exit gives.

Run through the installed console script, as a user does; the in-process ``main()`` is
the oracle for the exit statuses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import APP, CONSOLE_SCRIPT, PYPROJECT, clean_environment, project, run_cli

from pylint_rpcsurface.commands.main import main
from pylint_rpcsurface.store import CACHE_DIR_ENV, STATS_ENV

# Enough findings that the text is many times a pipe's buffer: a lost last buffer shows.
PLANTED_NAMES = tuple(f"missing_rpc_{number:04d}_{'x' * 40}" for number in range(400))


def _many_findings(root: Path) -> Path:
    """APP with one waited send of each planted name, none answered, appended to Core.run."""
    sends = "".join(
        f'        self.mgr.call_func("{name}", wait_out=True)\n' for name in PLANTED_NAMES
    )
    return project(root, {"pyproject.toml": PYPROJECT, "app.py": APP + sends})


def _buffered(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The console script run in *root* with Python's own buffering of its output, as a
    shell gives it (``PYTHONUNBUFFERED``, set by some CI runners, would hide a lost buffer)."""
    environment = clean_environment(env)
    environment.pop("PYTHONUNBUFFERED", None)
    return subprocess.run(
        [*CONSOLE_SCRIPT, *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=300,
    )


def _names(text: str) -> set[str]:
    return {line.split("'")[1] for line in text.splitlines() if "'" in line}


def test_every_line_of_a_long_report_reaches_the_pipe(tmp_path: Path) -> None:
    root = _many_findings(tmp_path / "proj")
    run = _buffered(root, "check", "--no-cache")
    assert run.returncode == 1, run.stderr
    assert _names(run.stdout) == set(PLANTED_NAMES)
    assert run.stdout.endswith("\n")
    as_json = _buffered(root, "check", "--no-cache", "--format", "json")
    assert {item["message"].split("'")[1] for item in json.loads(as_json.stdout)} == set(
        PLANTED_NAMES
    )


def test_the_store_is_written_before_the_process_ends(tmp_path: Path) -> None:
    root = _many_findings(tmp_path / "proj")
    stats = tmp_path / "stats.jsonl"
    env = {CACHE_DIR_ENV: str(tmp_path / "cache"), STATS_ENV: str(stats)}
    cold = _buffered(root, "check", env=env)
    warm = _buffered(root, "check", env=env)
    records = [json.loads(line) for line in stats.read_text(encoding="utf-8").splitlines()]
    assert [record["findings_from_store"] for record in records] == [False, True]
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)
    assert _names(warm.stdout) == set(PLANTED_NAMES)


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--version"], ["check", "--no-such-option"], [], ["explain", "no-such"]],
)
def test_the_exit_status_and_output_are_main_s(
    tmp_path: Path,
    args: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps its usage to this width
    run = run_cli(tmp_path, *args, env={"COLUMNS": "100"})
    try:
        expected = main(args)
    except SystemExit as stop:
        expected = 0 if stop.code is None else int(str(stop.code))
    shown = capsys.readouterr()
    assert run.returncode == expected
    assert (run.stdout, run.stderr) == (shown.out, shown.err)


def test_python_dash_m_ends_the_same_way(tmp_path: Path) -> None:
    root = _many_findings(tmp_path / "proj")
    command = [sys.executable, "-m", "pylint_rpcsurface.commands", "check", "--no-cache"]
    environment = clean_environment(None)
    environment.pop("PYTHONUNBUFFERED", None)
    run = subprocess.run(
        command,
        cwd=root,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    assert _names(run.stdout) == set(PLANTED_NAMES)

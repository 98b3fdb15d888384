"""``rpcsurface report``'s plain text fits where it is read: 100 columns piped, the
terminal's width on one (``COLUMNS`` when set), and no row, place or verdict lost."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest
from support import clean_environment, fast_surface, project, read_terminal

# Long names everywhere a row shows one: the callers, their module, the RPC names, the
# handler class; three findings (unanswered, unlisted, listed and never waited).
MODULE = "engine_processes_for_distributed_prefill_and_decode_workers"
LONG_APP = """\
FAST_RPCS = ("export_kv_cache_handles_to_the_decode_instance", "drain_the_stale_queue")


class BaseRunnerOfEveryWorker:
    def load_model_weights_from_the_checkpoint_shards(self):
        return 1


class DisaggregatedPrefillModelRunnerWithKvTransfer(BaseRunnerOfEveryWorker):
    def export_kv_cache_handles_to_the_decode_instance(self):
        return 1

    def receive_kv_cache_blocks_from_the_prefill_instance(self):
        return 1

    def drain_the_stale_queue(self):
        return 1


class PrefillEngineCoreOfTheDisaggregatedDeployment:
    def step(self):
        self.mgr.call_func("load_model_weights_from_the_checkpoint_shards", wait_out=True)
        self.mgr.call_func("export_kv_cache_handles_to_the_decode_instance", wait_out=True)
        self.mgr.call_func("receive_kv_cache_blocks_from_the_prefill_instance", wait_out=True)
        self.mgr.call_func("reset_the_prefix_cache_of_every_worker_process", wait_out=True)


class DecodeEngineCoreOfTheDisaggregatedDeployment(PrefillEngineCoreOfTheDisaggregatedDeployment):
    def step(self):
        self.mgr.call_func("load_model_weights_from_the_checkpoint_shards", wait_out=True)
"""
LONG_PYPROJECT = fast_surface(
    f"{MODULE}.PrefillEngineCoreOfTheDisaggregatedDeployment",
    f"{MODULE}.DisaggregatedPrefillModelRunnerWithKvTransfer",
    f"{MODULE}.BaseRunnerOfEveryWorker",
    f"{MODULE}.FAST_RPCS",
).replace('name = "fast"', 'name = "disaggregated-prefill-and-decode"')

# A user without rich: plain text on a terminal too.
WITHOUT_RICH = (
    "import sys; sys.modules['rich'] = None; "
    "from pylint_rpcsurface.commands.main import console_main; console_main()"
)


def _long_project(tmp_path: Path) -> Path:
    return project(tmp_path, {"pyproject.toml": LONG_PYPROJECT, f"{MODULE}.py": LONG_APP})


def _environment(**more: str) -> dict[str, str]:
    environment = clean_environment(more)
    if "COLUMNS" not in more:
        environment.pop("COLUMNS", None)
    return environment


def _report(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_RICH, "report", *args],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=_environment(**env),
        timeout=300,
        check=False,
    )


def _rows(root: Path) -> list[dict[str, Any]]:
    run = _report(root, "--format", "json")
    assert run.returncode == 0, run
    (surface,) = json.loads(run.stdout)
    rows: list[dict[str, Any]] = surface["rows"]
    return rows


def _assert_nothing_lost(text: str, rows: list[dict[str, Any]]) -> None:
    """Every row's name, verdict, places and handlers are in *text*, whitespace aside: a
    line breaks at a space, or inside a word longer than the line."""
    joined = "".join(text.split())
    assert any(verdict != ["ok"] for verdict in (row["verdict"] for row in rows))
    for row in rows:
        for shown in (row["rpc"], *row["verdict"], row["answeredBy"]):
            assert "".join(shown.split()) in joined, (shown, text)
        for site in row["waitedBy"]:
            assert site["at"] in joined, (row, text)


def test_piped_rows_fit_in_100_columns_and_lose_nothing(tmp_path: Path) -> None:
    root = _long_project(tmp_path)
    rows = _rows(root)
    run = _report(root)
    assert (run.returncode, run.stderr) == (0, ""), run
    lines = run.stdout.splitlines()
    title = f"surface disaggregated-prefill-and-decode (registry {MODULE}.FAST_RPCS)"
    assert len(title) > 100
    assert " ".join(line.strip() for line in lines[:2]) == title, run.stdout
    assert max(map(len, lines)) <= 100, run.stdout
    _assert_nothing_lost(run.stdout, rows)
    # As wide as the table: the aligned columns, one line a row.
    wide = _report(root, COLUMNS="400")
    assert max(map(len, wide.stdout.splitlines())) > 100
    assert len(wide.stdout.splitlines()) == 2 + len(rows)
    _assert_nothing_lost(wide.stdout, rows)


def _on_a_terminal(root: Path, columns: int, **env: str) -> str:
    """The plain report as a terminal *columns* wide shows it (rich hidden)."""
    main, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    with subprocess.Popen(
        [sys.executable, "-c", WITHOUT_RICH, "report"],
        cwd=root,
        stdout=secondary,
        stderr=subprocess.DEVNULL,
        env=_environment(TERM="xterm", **env),
    ) as process:
        os.close(secondary)
        shown = read_terminal(main)
        assert process.wait(timeout=120) == 0
    os.close(main)
    return shown.replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_terminal_gets_rows_as_wide_as_it_is(tmp_path: Path) -> None:
    root = _long_project(tmp_path)
    rows = _rows(root)
    for columns, env in ((60, {}), (200, {"COLUMNS": "60"})):
        shown = _on_a_terminal(root, columns, **env)
        assert max(map(len, shown.splitlines())) <= 60, shown
        _assert_nothing_lost(shown, rows)

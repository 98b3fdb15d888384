"""bench/server.py, the language server's rows: one short run on a copy of the real_layout
fixture gives every row with its baseline, holds the server to the oracle on the way
(a difference stops the run), and never edits the tree it was given."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import BENCH, ROOT, clean_environment, load_bench_script, real_layout_copy

server = load_bench_script("server")

CALLER = "engine/model_engine/engine_core.py"
HANDLER = "engine/model_engine/model_runner.py"


@pytest.mark.parametrize(
    "script", [("server.py",), ("run.py", "--rows", "server")], ids=["server.py", "run.py"]
)
def test_a_short_run_gives_every_row_against_its_baseline(
    tmp_path: Path, script: tuple[str, ...]
) -> None:
    tree = real_layout_copy(tmp_path)
    before = {p: p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / script[0]),
            *script[1:],
            *("--tree", str(tree), "--caller", CALLER, "--handler", HANDLER),
            *("--repeat", "1", "--edits", "2", "--workdir", str(tmp_path / "work")),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_environment(),
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = {
        match["row"]: (match["baseline"], float(match["ratio"]))
        for match in re.finditer(
            r"^\| (?P<row>[^|]+?) \| [^|]+ \| (?P<baseline>[^|]+?) \| [^|]+ \| "
            r"(?P<ratio>[0-9.]+) \| [^|]+ \|$",
            done.stdout,
            re.MULTILINE,
        )
    }
    assert {row: baseline for row, (baseline, _) in rows.items()} == {
        row: baseline for row, baseline, _ in server.ROWS
    }
    assert all(ratio > 0 for _, ratio in rows.values())
    # Every keystroke, body edit and request counted: 1 session, 2 of each.
    assert "'a keystroke mistyping an RPC name, republished': 2" in done.stdout
    assert "'hover': 2" in done.stdout
    assert {p: p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()} == before


def test_a_difference_from_the_oracle_stops_the_run() -> None:
    found = {("rpc-unanswered", "a.py", 3)}
    server._same("the last mistyped buffer", found, set(found))  # the same: nothing said
    with pytest.raises(server.Abort, match=r"only the server's \[\('rpc-unanswered'"):
        server._same("the last mistyped buffer", found, set())


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_child_s_memory_is_found_and_what_it_shares_is_told() -> None:
    # The peak RSS row counts the server's child less what it shares with the server.
    with subprocess.Popen(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == b"up\n"  # running Python, not exec'ing it
            assert child.pid in server._children(os.getpid())
            peak = server._status_kib(child.pid, "VmHWM")
            shared = server._shared_kib(child.pid)
            assert peak is not None
            assert 0 < shared < peak  # the interpreter's code is shared, its heap its own
        finally:
            child.kill()
    assert child.pid not in server._children(os.getpid())
    assert server._status_kib(child.pid, "VmHWM") is None

"""Every mode keeps one store, and no process computes what another has stored or is
storing: pylint's ``-j`` workers, pylint after ``rpcsurface check`` and the other way
round, through the real pylint and ``rpcsurface`` on a project laid out as an engine is.

What each run did is read from its own ``RPCSURFACE_STATS`` record; every answer is
held to ``--no-cache``'s.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from support import (
    CONSOLE_SCRIPT,
    clean_environment,
    real_layout_copy,
    run_check,
    run_pylint,
    stats_env,
    stats_records,
)

CALLER = "engine/model_engine/engine_core.py"
HANDLER = "engine/model_engine/model_runner.py"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return real_layout_copy(tmp_path)


def _computed(records: list[dict[str, Any]]) -> int:
    """How many of *records* are analyses that computed their findings."""
    return sum(not record["findings_from_store"] for record in records)


def _pylint(tree: Path, *args: str, **options: Any) -> Any:
    """pylint as the user's shell, editor or pre-commit hook starts it: its console
    script."""
    return run_pylint(tree, *args, script=True, **options)


def _keys(run: Any) -> set[tuple[str, str, int]]:
    return {(m.symbol, m.path, m.line) for m in run.messages}


def test_a_cold_j2_run_computes_once_and_leaves_the_store(tree: Path) -> None:
    oracle = _pylint(tree, "-j", "2", "--recursive=y", ".", env={"RPCSURFACE_NO_CACHE": "1"})
    assert oracle.messages, oracle.stderr  # the fixture plants findings
    cold = _pylint(tree, "-j", "2", "--recursive=y", ".", env=stats_env(tree))
    assert _keys(cold) == _keys(oracle)
    records = stats_records(tree)
    # Both workers analyse the project; the second reads what the first stored.
    assert len(records) == 2, records
    assert _computed(records) == 1, records
    # Later runs of every mode answer from what the -j run stored.
    one_file = _pylint(tree, CALLER, env=stats_env(tree))
    source = (tree / CALLER).read_text(encoding="utf-8")
    stdin = _pylint(tree, "--from-stdin", CALLER, stdin=source, env=stats_env(tree))
    checked = run_check(tree, "--format", "json", env=stats_env(tree))
    later = stats_records(tree)[len(records) :]
    assert len(later) == 3, later
    assert _computed(later) == 0, later
    in_caller = {key for key in _keys(oracle) if key[1] == CALLER}
    assert _keys(one_file) == in_caller
    assert _keys(stdin) == in_caller
    assert {(m.symbol, m.path, m.line) for m in checked.messages} == _keys(oracle)


def test_pylint_answers_from_what_check_stored_and_back(tree: Path) -> None:
    checked = run_check(tree, "--format", "json", env=stats_env(tree))
    assert checked.messages, checked.stderr
    both = _pylint(tree, "-j", "2", CALLER, HANDLER, env=stats_env(tree))
    assert _computed(stats_records(tree)) == 1  # check's own run, and no other
    assert _keys(both) == {k for k in _keys(checked) if k[1] in (CALLER, HANDLER)}
    # And the other way: check after an edit pylint analysed first.
    with (tree / HANDLER).open("a", encoding="utf-8") as stream:
        stream.write("\n# a comment pylint sees first\n")
    _pylint(tree, HANDLER, env=stats_env(tree))
    before = len(stats_records(tree))
    again = run_check(tree, "--format", "json", env=stats_env(tree))
    assert _computed(stats_records(tree)[before:]) == 0
    assert again.messages == run_check(tree, "--format", "json", "--no-cache").messages


_HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys, time
    handle = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(handle, fcntl.LOCK_EX)
    print("held", flush=True)
    time.sleep(600)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX's")
def test_a_holder_killed_mid_analysis_lets_the_next_run_go_on(tree: Path) -> None:
    """A process that dies holding the lock (killed in the middle of its analysis) never
    leaves the others waiting: the system releases its lock."""
    cold = run_check(tree, "--format", "json", env=stats_env(tree))  # makes the store's folder
    (store,) = (tree.parent / "cache").glob("*/store-*.json")
    with (tree / CALLER).open("a", encoding="utf-8") as stream:
        stream.write("\nEDITED = 1  # the next check misses the store\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, f"{store}.lock"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        waiting = subprocess.Popen(
            [*CONSOLE_SCRIPT, "check", "--format", "json"],
            cwd=tree,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=clean_environment(stats_env(tree)),
        )
        time.sleep(3)
        assert waiting.poll() is None  # it waits for the holder ...
        holder.kill()  # ... which dies without a word
        out, err = waiting.communicate(timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert waiting.returncode == cold.returncode, err
    assert json.loads(out) == json.loads(cold.stdout)

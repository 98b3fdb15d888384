"""What each run builds with astroid, as the run itself says (``RPCSURFACE_STATS``), through
the real ``rpcsurface`` command and real pylint on a project laid out as an engine is: an
edit costs a build of the modules it changed, no more, and every answer is the one of
``--no-cache``.

These count what a user pays for (a module built with astroid) instead of how the store
keeps its pieces, so they hold whatever its layout.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from support import (
    Reported,
    load_bench_script,
    real_layout_copy,
    run_check,
    run_pylint,
    stats_env,
    stats_records,
)

from pylint_rpcsurface.store import STATS_ENV

CALLER = "engine/model_engine/engine_core.py"  # it holds pylint pragmas
HANDLER = "engine/model_engine/model_runner.py"  # it holds none
GROUPS = "engine/model_engine/groups.py"  # a finding in it, and no pragma


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return real_layout_copy(tmp_path)


def _checked(tree: Path) -> tuple[tuple[Reported, ...], dict[str, Any]]:
    """``rpcsurface check``'s findings, held to ``--no-cache``'s, and what the cached run
    did (its record: the oracle's comes after it)."""
    found = run_check(tree, "--format", "json", env=stats_env(tree))
    assert found.returncode in (0, 1), found.stderr
    record = stats_records(tree)[-1]
    oracle = run_check(tree, "--format", "json", "--no-cache", env=stats_env(tree))
    assert found.messages == oracle.messages
    assert found.messages  # the fixture plants findings: an empty answer proves nothing
    return found.messages, record


def _body_edit(tree: Path, relative: str, number: int) -> str:
    """*relative*'s text with one statement inserted in a method that dispatches (the
    benchmark's body edit)."""
    bench = load_bench_script("run")
    text = (tree / relative).read_text(encoding="utf-8")
    edited, _ = bench.edit_text(text, number, bench.dispatches_of(tree / "pyproject.toml"))
    assert edited != text
    return str(edited)


def test_each_check_builds_what_its_edit_changed(tree: Path) -> None:
    _, cold = _checked(tree)
    assert not cold["findings_from_store"]
    assert {CALLER, HANDLER} <= set(cold["modules_built"])
    assert {CALLER, HANDLER, GROUPS} <= set(cold["texts_searched"])
    _, unchanged = _checked(tree)
    assert unchanged["findings_from_store"]
    assert unchanged["modules_built"] == []
    # A comment in a module with a finding and no pragma: its finding's state needs no
    # module.
    groups = tree / GROUPS
    groups.write_text(groups.read_text(encoding="utf-8") + "# a note\n", encoding="utf-8")
    messages, commented = _checked(tree)
    assert GROUPS in {m.path for m in messages}
    assert not commented["findings_from_store"]
    assert commented["modules_built"] == []
    assert commented["texts_searched"] == [GROUPS]  # the other files' records held
    # A statement in the caller's dispatching method: that module, and what the method's
    # code reads (its helpers' modules), never the handlers' module.
    (tree / CALLER).write_text(_body_edit(tree, CALLER, 1), encoding="utf-8")
    _, edited = _checked(tree)
    assert CALLER in edited["modules_built"]
    assert HANDLER not in edited["modules_built"]
    assert len(edited["modules_built"]) < len(cold["modules_built"]) / 2
    # The same in the handler module: the caller's pieces hold, so it is not built.
    handler = tree / HANDLER
    handler.write_text(_body_edit(tree, HANDLER, 2), encoding="utf-8")
    _, handler_edited = _checked(tree)
    assert HANDLER in handler_edited["modules_built"]
    assert CALLER not in handler_edited["modules_built"]


def test_an_editor_buffer_costs_no_build(tree: Path) -> None:
    """pylint builds the buffer it lints, and the analysis takes that module: a comment in
    the buffer builds nothing more, and a statement added to a method builds at most the
    modules that method's code reads (never the handlers')."""
    env = stats_env(tree)
    saved = (tree / CALLER).read_text(encoding="utf-8")
    assert run_pylint(tree, "--from-stdin", CALLER, stdin=saved, env=env).messages

    def linted(buffer: str) -> dict[str, Any]:
        found = run_pylint(tree, "--from-stdin", CALLER, stdin=buffer, env=env)
        record = stats_records(tree)[-1]
        oracle = run_pylint(
            tree, "--from-stdin", CALLER, "--rpcsurface-no-cache=y", stdin=buffer, env=env
        )
        assert found.messages == oracle.messages
        assert record["pieces_reused"] > record["pieces_computed"], record
        return record

    assert linted(saved + "# a comment\n")["modules_built"] == []
    edited = linted(_body_edit(tree, CALLER, 3))["modules_built"]
    assert CALLER not in edited
    assert HANDLER not in edited


def test_a_stats_file_that_cannot_be_written_is_said_and_changes_nothing(tree: Path) -> None:
    env = stats_env(tree)
    expected = run_check(tree, "--format", "json", env=env)
    env[STATS_ENV] = str(tree)  # a folder
    found = run_check(tree, "--format", "json", "--no-cache", env=env)
    assert (found.returncode, found.messages) == (expected.returncode, expected.messages)
    reason = os.strerror(errno.EISDIR)
    assert found.stderr.strip() == f"rpcsurface: {STATS_ENV}: can't write {tree}: {reason}"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_stats_fifo_nobody_reads_is_said_not_waited_on(tree: Path) -> None:
    fifo = tree.parent / "stats.fifo"
    os.mkfifo(fifo)
    env = {**stats_env(tree), STATS_ENV: str(fifo)}
    found = run_check(tree, "--format", "json", "--no-cache", env=env, timeout=120)
    assert found.returncode == 1, found.stderr  # the findings, as ever
    reason = os.strerror(errno.ENXIO)
    assert found.stderr.strip() == f"rpcsurface: {STATS_ENV}: can't write {fifo}: {reason}"

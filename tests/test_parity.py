"""Every way of running pylint gives the same findings: the whole tree, one file alone,
``-j 2``, and ``--from-stdin``.

Every run gets a fresh copy of the fixture, so no run is served by what an earlier run
left behind in the project folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acceptance_cases import (
    ALIAS_LISTED,
    BUSY,
    CASES_BY_ID,
    CONFIG,
    ENGINE_CORE,
    FAST_CORES,
    FIXTURE,
    assert_no_duplicates,
    assert_ran,
    expected_findings,
    explain,
    make_copy,
    markers_in_text,
    python_files,
    sentinels,
)
from support import PylintRun, Reported, run_pylint

WHOLE_TREE = ("--recursive=y", "atom")

# Every .py file of the busy mutation: the fixture's and the ones its edits create.
BUSY_FILES = sorted(set(python_files(FIXTURE)) | {path for path, old, _ in BUSY if old is None})

Full = tuple[str, str, int, int, str]


def full(messages: tuple[Reported, ...], path: str | None = None) -> set[Full]:
    """(symbol, path, line, column, text) of the messages, optionally of one file only."""
    return {
        (m.symbol, m.path, m.line, m.column, m.text)
        for m in messages
        if path is None or m.path == path
    }


@pytest.fixture(scope="module")
def busy_whole_tree(tmp_path_factory: pytest.TempPathFactory) -> PylintRun:
    copy = make_copy(tmp_path_factory.mktemp("busy") / "engine", BUSY)
    run = run_pylint(copy, *WHOLE_TREE)
    assert_ran(run)
    assert sentinels(copy) == []  # the whole tree imports nothing (test_never_imported)
    expected = expected_findings(copy)
    assert run.keys() == expected, explain(expected, run)
    return run


def test_busy_findings_span_three_modules(busy_whole_tree: PylintRun) -> None:
    assert {CONFIG, ENGINE_CORE, FAST_CORES} <= {m.path for m in busy_whole_tree.messages}


def test_no_duplicates_in_whole_tree(busy_whole_tree: PylintRun) -> None:
    assert busy_whole_tree.messages
    assert_no_duplicates(busy_whole_tree)


@pytest.mark.parametrize("relpath", BUSY_FILES)
def test_file_alone_matches_whole_tree(
    relpath: str, busy_whole_tree: PylintRun, tmp_path: Path
) -> None:
    assert busy_whole_tree.messages
    copy = make_copy(tmp_path / "engine", BUSY)
    alone = run_pylint(copy, relpath)
    assert_ran(alone)
    assert sentinels(copy) == []  # nor does linting one file (test_never_imported)
    assert {m.path for m in alone.messages} <= {relpath}
    assert full(alone.messages) == full(busy_whole_tree.messages, relpath)


def test_jobs_2_matches_jobs_1(tmp_path: Path) -> None:
    one = run_pylint(make_copy(tmp_path / "one", BUSY), "-j", "1", *WHOLE_TREE)
    two = run_pylint(make_copy(tmp_path / "two", BUSY), "-j", "2", *WHOLE_TREE)
    assert_ran(one)
    assert_ran(two)
    assert sentinels(tmp_path / "one") == sentinels(tmp_path / "two") == []  # nor -j 2
    assert one.messages
    assert two.messages == one.messages
    assert_no_duplicates(two)


# ---------------------------------------------------------------------------
# --from-stdin: the buffer, not the file on disk, is what gets linted.


def _mutated_text(tmp_path: Path, case_id: str, relpath: str) -> str:
    mutated = make_copy(tmp_path / f"mutated-{case_id}", CASES_BY_ID[case_id].edits)
    return (mutated / relpath).read_text(encoding="utf-8")


def test_stdin_buffer_with_a_finding_over_a_clean_file(tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine")
    buffer = _mutated_text(tmp_path, "M3", ENGINE_CORE)
    expected = markers_in_text(buffer, ENGINE_CORE)
    assert {symbol for symbol, _, _ in expected} == {"rpc-unanswered"}

    run = run_pylint(copy, "--from-stdin", ENGINE_CORE, stdin=buffer)
    assert_ran(run)
    assert run.keys() == expected, explain(expected, run)

    disk = run_pylint(copy, ENGINE_CORE)
    assert_ran(disk)
    assert disk.messages == ()


def test_clean_stdin_buffer_over_a_file_with_a_finding(tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", CASES_BY_ID["M3"].edits)
    clean = (FIXTURE / ENGINE_CORE).read_text(encoding="utf-8")

    run = run_pylint(copy, "--from-stdin", ENGINE_CORE, stdin=clean)
    assert_ran(run)
    assert run.messages == ()
    assert run.returncode == 0

    disk = run_pylint(copy, ENGINE_CORE)  # the finding is really on disk
    assert_ran(disk)
    expected = expected_findings(copy)
    assert expected
    assert disk.keys() == expected, explain(expected, disk)


def test_stdin_registry_buffer(tmp_path: Path) -> None:
    """The registry is read from the buffer when the registry module comes on stdin."""
    copy = make_copy(tmp_path / "engine")
    buffer = _mutated_text(tmp_path, "M2b", CONFIG)
    expected = markers_in_text(buffer, CONFIG)
    assert expected

    run = run_pylint(copy, "--from-stdin", CONFIG, stdin=buffer)
    assert_ran(run)
    assert run.keys() == expected, explain(expected, run)


# ---------------------------------------------------------------------------
# The registry module alone still sees the callers in every other module.


def test_registry_alone_sees_a_waiter_in_another_module(tmp_path: Path) -> None:
    """The only waiter of drain_stream_pool is TurboPrefill in fast_cores.py; the registry
    lists it, so config.py alone must not call it unwaited."""
    alone = run_pylint(make_copy(tmp_path / "alone", ALIAS_LISTED), CONFIG)
    assert_ran(alone)
    assert alone.messages == ()
    assert alone.returncode == 0

    whole = run_pylint(make_copy(tmp_path / "whole", ALIAS_LISTED), *WHOLE_TREE)
    assert_ran(whole)
    assert whole.messages == ()


def test_registry_alone_matches_whole_tree(tmp_path: Path) -> None:
    edits = ALIAS_LISTED + CASES_BY_ID["X6"].edits  # lists release_kv_cache, sent unwaited
    alone_copy = make_copy(tmp_path / "alone", edits)
    alone = run_pylint(alone_copy, CONFIG)
    whole = run_pylint(make_copy(tmp_path / "whole", edits), *WHOLE_TREE)
    assert_ran(alone)
    assert_ran(whole)

    expected = expected_findings(alone_copy)
    assert expected
    assert whole.keys() == expected, explain(expected, whole)
    assert full(alone.messages) == full(whole.messages, CONFIG)

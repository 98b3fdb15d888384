"""Issue 13 end to end: each case of engine_cases.py linted with real pylint, compared
with its ``# [symbol]`` markers and text fragments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_cases import CASES, EngineCase, expected, write_cases
from support import PylintRun, assert_no_crash, describe_run, run_cli, run_pylint


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PylintRun:
    """One pylint run over every case; each file finds its own pyproject.toml."""
    root = tmp_path_factory.mktemp("engine_cases")
    write_cases(root, CASES)
    found = run_pylint(root, *(f"cases/{c.id}/{c.module}.py" for c in CASES))
    assert_no_crash(found)
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_engine_case(case: EngineCase, run: PylintRun) -> None:
    path = f"cases/{case.id}/{case.module}.py"
    mine = [m for m in run.messages if m.path == path]
    assert {(m.symbol, m.line) for m in mine} == expected(case), describe_run(run)
    for fragment in case.texts:
        assert any(fragment in m.text for m in mine), f"{fragment!r} not in:\n{describe_run(run)}"


def test_report_json_keeps_every_caller_of_a_capped_site(tmp_path: Path) -> None:
    (case,) = [c for c in CASES if c.id == "CALLERS-CAPPED"]
    write_cases(tmp_path, (case,))
    completed = run_cli(tmp_path / "cases" / case.id, "report", "--format", "json")
    assert completed.returncode in (0, 1), completed.stderr
    (surface,) = json.loads(completed.stdout)
    (row,) = [r for r in surface["rows"] if r["rpc"] == "gone"]
    (site,) = row["waitedBy"]
    module = case.module
    assert site["callers"] == [
        f"{module}.{name}"
        for name in ("Executor", "ExternalExecutor", "MpExecutor", "RayExecutor", "UniExecutor")
    ]

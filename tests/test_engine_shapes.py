"""Issue 13 end to end: each case of engine_cases.py linted with real pylint, compared
with its ``# [symbol]`` markers and text fragments."""

from __future__ import annotations

import pytest
from engine_cases import CASES, EngineCase, expected, write_cases
from support import PylintRun, assert_no_crash, describe_run, run_pylint


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

"""Engine shapes end to end: each case of engine_cases.py linted with real pylint, compared
with its ``# [symbol]`` markers and text fragments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_cases import CASES, RUN_WORKERS, EngineCase, expected, write_cases
from support import (
    PylintRun,
    assert_no_crash,
    describe_run,
    marked_findings,
    project,
    run_check,
    run_cli,
    run_pylint,
)


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


def _chained_forwardings() -> str:
    """A forwarding 24 names deep, each name bound from two reads of the one before (the
    reads to follow double at each step unless a read judged once is judged for good),
    and a plain chain 600 names deep (beyond any proof's depth, and Python's recursion
    limit if followed read by read): proved silent, and rpc-name-uninferable."""
    wide = [f"        b{i} = b{i - 1} if flag else b{i - 1}" for i in range(1, 25)]
    deep = [f"        a{i} = a{i - 1}" for i in range(1, 600)]
    return "\n".join(
        [
            "class Worker:",
            "    def load(self):",
            "        return 1",
            "",
            "",
            "class Executor:",
            "    def start(self):",
            '        self._run_workers("load")',
            '        self._run_workers("gone")  # [rpc-unanswered]',
            "",
            "    def wide(self, method, flag):",
            "        b0 = method",
            *wide,
            "        return self._run_workers(b24)",
            "",
            "    def deep(self, method):",
            "        a0 = method",
            *deep,
            "        return self._run_workers(a599)  # [rpc-name-uninferable]",
            "",
        ]
    )


def test_long_and_branching_forwarding_chains_are_judged_at_once(tmp_path: Path) -> None:
    """No hang on names that branch at every step, no RecursionError on a long chain,
    and rpcsurface check agrees with pylint."""
    source = _chained_forwardings()
    table = "[tool.rpcsurface]\n" + RUN_WORKERS.replace("{m}", "chains")
    project(tmp_path, {"pyproject.toml": table, "chains.py": source})
    found = run_pylint(tmp_path, "chains.py", timeout=120)
    assert_no_crash(found)
    assert {(m.symbol, m.line) for m in found.messages} == marked_findings(source), describe_run(
        found
    )
    check = run_check(tmp_path, "--format", "json", "--no-cache", timeout=120)
    assert check.returncode == 1, check.stderr
    assert {(m.symbol, m.path, m.line, m.column, m.text) for m in check.messages} == {
        (m.symbol, m.path, m.line, m.column, m.text) for m in found.messages
    }

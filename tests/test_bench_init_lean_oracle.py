"""bench/init_lean_oracle.py: init's answer with the lean build against astroid's full
build, progress lines aside."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import load_bench_script

oracle = load_bench_script("init_lean_oracle")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "engine"

NOTE = (
    "rpcsurface init: vllm/v1/engine/async_llm.py:542: encode() sends its parameter "
    "'prompt', but the literal names at its {} call sites are not mostly the methods of "
    "one class"
)


def _stderr(sites: int, seconds: int) -> str:
    return (
        "rpcsurface init: reading 4 Python files\n"
        f"rpcsurface init: finding the dispatch surface ({seconds} s)\n"
        f"{NOTE.format(sites)}\n"
        f"rpcsurface init: done ({seconds} s)\n"
    )


def test_progress_lines_are_no_part_of_the_answer_and_a_note_is() -> None:
    lean = oracle.answer("+[tool.rpcsurface]\n", _stderr(29, 5))
    full = oracle.answer("+[tool.rpcsurface]\n", _stderr(29, 7))
    assert oracle.differences(lean, full) == []
    changed = oracle.answer("+[tool.rpcsurface]\n", _stderr(30, 5))
    found = oracle.differences(changed, full)
    assert f"-{NOTE.format(29)}" in found
    assert f"+{NOTE.format(30)}" in found


def test_a_table_line_that_differs_is_a_difference() -> None:
    lean = oracle.answer('+method = "call_func"\n', "")
    full = oracle.answer('+method = "collective_rpc"\n', "")
    assert oracle.differences(lean, full) == [
        "--- full",
        "+++ lean",
        "@@ -1 +1 @@",
        '-+method = "collective_rpc"',
        '++method = "call_func"',
    ]


def test_the_bundled_example_proposes_the_same_lean_and_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "engine"
    shutil.copytree(EXAMPLE, tree)
    assert oracle.main(["--tree", str(tree)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| engine")]
    assert len(rows) == 1
    assert rows[0].endswith("| yes |")


def test_a_tree_whose_answers_differ_fails_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The lean and the full run, told apart by the environment each is given.
    def run_init(tree: Path, env: dict[str, str]) -> tuple[list[str], float, int]:
        sites = 29 if env == oracle.FULL else 30
        return oracle.answer("", _stderr(sites, 5)), 1.0, 1

    monkeypatch.setattr(oracle, "run_init", run_init)
    assert oracle.main(["--tree", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1].endswith("| no |")
    assert f"+{NOTE.format(30)}" in captured.err

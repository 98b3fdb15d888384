"""The vLLM-shaped fixture (tests/fixtures/vllm_like): ``collective_rpc("name", args=...,
kwargs=...)`` against a WorkerBase/Worker hierarchy, through forwarding layers.

Every line ending in ``# [symbol]`` expects exactly that message; nothing else may be
reported: the forwarding layers and the callables sent as the method are silent, and
``get_kv_cache_spec``, defined only by the base stub that raises NotImplementedError,
is answered.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from support import assert_no_crash, describe_run, marked_findings, run_pylint

FIXTURE = Path(__file__).parent / "fixtures" / "vllm_like"


def markers(root: Path) -> set[tuple[str, str, int]]:
    found = set()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        marked = marked_findings(path.read_text("utf-8"))
        found.update((symbol, relative, number) for symbol, number in marked)
    return found


def test_the_vllm_like_fixture_gives_exactly_its_marked_findings(tmp_path: Path) -> None:
    copy = tmp_path / "vllm_like"
    shutil.copytree(FIXTURE, copy, ignore=shutil.ignore_patterns("__pycache__", "IMPORTED_*"))
    expected = markers(copy)
    assert {symbol for symbol, _, _ in expected} == {"rpc-unanswered", "rpc-handler-signature"}

    run = run_pylint(copy, "--recursive=y", "vllm_like")

    assert_no_crash(run)
    assert run.keys() == expected, describe_run(run)
    assert list(copy.rglob("IMPORTED_*")) == [], "the linter imported a module of the fixture"
    worker = (copy / "vllm_like/worker/gpu_worker.py").read_text("utf-8").splitlines()
    (save_line,) = [n for n, line in enumerate(worker, 1) if "def save_sharded_state" in line]
    assert any(
        "it got an unexpected keyword argument 'pattren'" in m.text
        and f"Worker.save_sharded_state at vllm_like/worker/gpu_worker.py:{save_line}" in m.text
        for m in run.messages
    ), describe_run(run)

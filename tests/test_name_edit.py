"""The edit the tool exists for: an RPC name typed at a send site, one keystroke at a time,
each keystroke a new buffer on pylint's standard input, as an editor sends it.

A name the handlers don't bind has no handler method to read, so no keystroke builds a
handler module; every answer is held to ``--no-cache``'s. What each run built is read from
its own ``RPCSURFACE_STATS`` record, through real pylint and the real ``rpcsurface``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from support import run_check, run_pylint

from pylint_rpcsurface.store import CACHE_DIR_ENV, STATS_ENV

FIXTURE = Path(__file__).parent / "fixtures" / "real_layout"
CALLER = "engine/model_engine/engine_core.py"
SENT = '"load_model"'  # sent from EngineCore.start, which every caller class inherits


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    return Path(os.path.realpath(root))


def _env(tree: Path) -> dict[str, str]:
    return {
        CACHE_DIR_ENV: str(tree.parent / "cache"),
        STATS_ENV: str(tree.parent / "stats.jsonl"),
    }


def _last_record(tree: Path) -> dict[str, Any]:
    lines = (tree.parent / "stats.jsonl").read_text(encoding="utf-8").splitlines()
    return dict(json.loads(lines[-1]))


def _keys(run: Any) -> set[tuple[str, str, int]]:
    return {(m.symbol, m.path, m.line) for m in run.messages}


def test_typing_a_name_builds_no_handler_module(tree: Path) -> None:
    text = (tree / CALLER).read_text(encoding="utf-8")
    assert text.count(SENT) == 1
    line = text[: text.index(SENT)].count("\n") + 1
    warm = run_check(tree, env=_env(tree))
    assert warm.returncode == 1, warm.stderr
    for typed in ("load_model_", "load_model_v", "load_model_v2", "lo", "forward"):
        buffer = text.replace(SENT, f'"{typed}"')
        edited = run_pylint(tree, "--from-stdin", CALLER, stdin=buffer, env=_env(tree))
        record = _last_record(tree)
        oracle = run_pylint(
            tree, "--from-stdin", CALLER, stdin=buffer, env={"RPCSURFACE_NO_CACHE": "1"}
        )
        assert _keys(edited) == _keys(oracle), typed
        unanswered = ("rpc-unanswered", CALLER, line) in _keys(edited)
        assert unanswered == (typed != "forward"), (typed, edited.messages)
        assert record["modules_built"] == [], (typed, record)

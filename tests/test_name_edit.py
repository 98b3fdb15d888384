"""The edit the tool exists for: an RPC name typed at a send site, one keystroke at a time,
each keystroke a new buffer on pylint's standard input, as an editor sends it.

A name the handlers don't bind has no handler method to read, so no keystroke builds a
handler module; every answer is held to ``--no-cache``'s. What each run built is read from
its own ``RPCSURFACE_STATS`` record, through real pylint and the real ``rpcsurface``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import real_layout_copy, run_check, run_pylint, stats_env, stats_records

CALLER = "engine/model_engine/engine_core.py"
SENT = '"load_model"'  # sent from EngineCore.start, which every caller class inherits


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return real_layout_copy(tmp_path)


def _keys(run: Any) -> set[tuple[str, str, int]]:
    return {(m.symbol, m.path, m.line) for m in run.messages}


def test_typing_a_name_builds_no_handler_module(tree: Path) -> None:
    text = (tree / CALLER).read_text(encoding="utf-8")
    assert text.count(SENT) == 1
    line = text[: text.index(SENT)].count("\n") + 1
    warm = run_check(tree, env=stats_env(tree))
    assert warm.returncode == 1, warm.stderr
    for typed in ("load_model_", "load_model_v", "load_model_v2", "lo", "forward"):
        buffer = text.replace(SENT, f'"{typed}"')
        edited = run_pylint(tree, "--from-stdin", CALLER, stdin=buffer, env=stats_env(tree))
        record = stats_records(tree)[-1]
        oracle = run_pylint(
            tree, "--from-stdin", CALLER, stdin=buffer, env={"RPCSURFACE_NO_CACHE": "1"}
        )
        assert _keys(edited) == _keys(oracle), typed
        unanswered = ("rpc-unanswered", CALLER, line) in _keys(edited)
        assert unanswered == (typed != "forward"), (typed, edited.messages)
        assert record["modules_built"] == [], (typed, record)

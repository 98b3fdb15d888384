"""``rpcsurface init`` proposes the keys the checker gained for callers that reach different
handlers (issue 50, item 3): the most specific caller's tables, ``when`` tables, and
``handler-args = "payload"``.

Each fixture is the shape of the checker's own test of that key (tests/test_most_specific.py,
tests/test_when.py, tests/test_payload_dispatch.py), given a receive side init can prove.
Each test runs the real console script: ``rpcsurface init`` writes the table, and the oracle
is ``rpcsurface check --no-cache`` with it, which must find exactly what it finds with the
hand-written table of the checker's test, and what the fixture's ``# [symbol]`` markers plant.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import test_most_specific
from support import marked_in, project, run_cli
from test_init_commented import located

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

_BARE = '[project]\nname = "fixture"\n'

# A worker process per manager, built from the runner class the manager is given; the
# manager sends a name and its arguments, and waits for the reply when asked to.
PROC = """\
import multiprocessing as mp


class RunnerProc:
    def __init__(self, runner, requests, replies):
        self.runner = runner
        self.requests = requests
        self.replies = replies

    @staticmethod
    def run(runner_cls, requests, replies):
        RunnerProc(runner_cls(), requests, replies).busy_loop()

    def busy_loop(self):
        while True:
            name, args = self.requests.get()
            self.replies.put(getattr(self.runner, name)(*args))


class ProcManager:
    def __init__(self, runner_cls):
        self.requests = mp.Queue()
        self.replies = mp.Queue()
        self.proc = mp.Process(
            target=RunnerProc.run, args=(runner_cls, self.requests, self.replies)
        )

    def call_func(self, name, *args, wait_out=False):
        self.requests.put((name, args))
        if wait_out:
            return self.replies.get()
        return None
"""


def _edited(text: str, *replacements: tuple[str, str]) -> str:
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def _init(tmp_path: Path, files: dict[str, str]) -> tuple[Path, dict[str, Any]]:
    """*files* with no table, after ``rpcsurface init`` wrote one; and that table."""
    folder = project(tmp_path / "generated", {**files, "pyproject.toml": _BARE})
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    return folder, tomllib.loads(text)["tool"]["rpcsurface"]


def _hand(tmp_path: Path, files: dict[str, str], config: str) -> Path:
    return project(tmp_path / "hand", {**files, "pyproject.toml": config})


def _surfaces(table: dict[str, Any]) -> dict[tuple[str, ...], dict[str, Any]]:
    """The written surfaces by their callers."""
    return {tuple(s["callers"]): s for s in table.get("surface", [])}


# --------------------------------------------------------------------------
# The most specific caller: a base reaching one runner, subclasses reaching another.
# --------------------------------------------------------------------------

# test_most_specific's ATOM-like cores, each naming its runner class: EngineCore's
# ModelRunner, the RapidServe cores' (ChunkedPrefillEngineCore inherits Prefill's).
SPECIFIC_CORES = _edited(
    test_most_specific.ENGINE_CORE,
    (
        "class EngineCore:\n    def __init__(self, mgr):\n        self.mgr = mgr\n",
        "from atom.model_runner import ModelRunner, RapidServeModelRunner\n"
        "from atom.proc import ProcManager\n\n\n"
        "class EngineCore:\n    runner_cls = ModelRunner\n\n"
        "    def __init__(self):\n        self.mgr = ProcManager(self.runner_cls)\n",
    ),
    (
        "class PrefillEngineCore(EngineCore):\n",
        "class PrefillEngineCore(EngineCore):\n    runner_cls = RapidServeModelRunner\n\n",
    ),
    (
        "class DecodeEngineCore(EngineCore):\n",
        "class DecodeEngineCore(EngineCore):\n    runner_cls = RapidServeModelRunner\n\n",
    ),
)
SPECIFIC = {
    "atom/__init__.py": "",
    "atom/engine_core.py": SPECIFIC_CORES,
    "atom/model_runner.py": test_most_specific.MODEL_RUNNER,
    "atom/proc.py": PROC,
}
# The checker test's hand-written surfaces (its verl proxy tables are not in this tree).
SPECIFIC_HAND = test_most_specific.CONFIG.split("[[tool.rpcsurface.proxy]]", 1)[0]


def test_a_subclass_reaching_other_handlers_gets_its_own_table_beside_its_base(
    tmp_path: Path,
) -> None:
    folder, table = _init(tmp_path, SPECIFIC)
    surfaces = _surfaces(table)
    # EngineCore's runner_cls is ModelRunner; Prefill's and Decode's is RapidServe's,
    # and ChunkedPrefillEngineCore inherits Prefill's: it is judged as its base is.
    assert set(surfaces) == {
        ("atom.engine_core.EngineCore",),
        ("atom.engine_core.DecodeEngineCore", "atom.engine_core.PrefillEngineCore"),
    }
    assert surfaces[("atom.engine_core.EngineCore",)]["handlers"] == [
        "atom.model_runner.ModelRunner"
    ]
    rapid = surfaces[("atom.engine_core.DecodeEngineCore", "atom.engine_core.PrefillEngineCore")]
    assert rapid["handlers"] == ["atom.model_runner.RapidServeModelRunner"]
    # The oracle: what the hand-written tables find, and what the fixture plants.
    planted = marked_in(SPECIFIC)
    assert planted
    assert located(folder) == located(_hand(tmp_path, SPECIFIC, SPECIFIC_HAND))
    assert {(symbol, path, line) for path, line, symbol in located(folder)} == planted

"""The most specific caller wins: a class that is a caller of two tables describing the
same calls (surfaces judging the same dispatch method, proxy tables naming the same
receiver) is judged by the table that names its nearest configured ancestor, its
inherited calls included.

Shapes from real trees: an ATOM-like ``EngineCore`` talking to ``ModelRunner`` while its
subclasses ``PrefillEngineCore``/``DecodeEngineCore`` talk to ``RapidServeModelRunner``
(surfaces over ``call_func``), and verl's ``FullyAsyncRayPPOTrainer(RayPPOTrainer)``,
whose worker group is built from ``DetachActorWorker`` (proxy tables over
``self.actor_rollout_wg``). Expected findings come from the ``# [symbol]`` markers of the
fixture's source; every mode must give exactly those.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import (
    assert_no_crash,
    line_of,
    marked_in,
    project,
    run_check,
    run_cli,
    run_pylint,
)

ENGINE_CORE = """\
class EngineCore:
    def __init__(self, mgr):
        self.mgr = mgr

    def start(self):
        return self.mgr.call_func("load_model", wait_out=True)

    def send_kv(self, batch):
        # Run by EngineCore (the base table: ModelRunner has no transfer_kv) and by its
        # subclasses (their own table: RapidServeModelRunner has it).
        return self.mgr.call_func("transfer_kv", batch, wait_out=True)  # [rpc-unanswered]


class PrefillEngineCore(EngineCore):
    def prefill(self, batch):
        return self.mgr.call_func("transfer_kv", batch, wait_out=True)

    def warm(self):
        return self.mgr.call_func("warm_up", wait_out=True)  # [rpc-unanswered]


class DecodeEngineCore(EngineCore):
    def decode(self, batch):
        return self.mgr.call_func("transfer_kv", batch, wait_out=True)


class ChunkedPrefillEngineCore(PrefillEngineCore):
    def chunk(self, batch):
        return self.mgr.call_func("transfer_kv", batch, wait_out=True)
"""

MODEL_RUNNER = """\
class ModelRunner:
    def load_model(self):
        return True


class RapidServeModelRunner(ModelRunner):
    def transfer_kv(self, batch):
        return batch
"""

TRAINER = """\
class RayPPOTrainer:
    def __init__(self, actor_rollout_wg):
        self.actor_rollout_wg = actor_rollout_wg

    def init_workers(self):
        return self.actor_rollout_wg.init_model()

    def dump(self):
        return self.actor_rollout_wg.save_model_to_cpu(1)  # [rpc-proxy-unanswered]


class FullyAsyncRayPPOTrainer(RayPPOTrainer):
    def checkpoint(self):
        return self.actor_rollout_wg.save_model_to_cpu(1)
"""

WORKERS = """\
class ActorRolloutRefWorker:
    def init_model(self):
        return True


class DetachActorWorker(ActorRolloutRefWorker):
    def save_model_to_cpu(self, n):
        return n
"""

CONFIG = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.surface]]
name = "base"
dispatch = ["call_func"]
callers = ["atom.engine_core.EngineCore"]
handlers = ["atom.model_runner.ModelRunner"]

[[tool.rpcsurface.surface]]
name = "rapidserve"
dispatch = ["call_func"]
callers = ["atom.engine_core.PrefillEngineCore", "atom.engine_core.DecodeEngineCore"]
handlers = ["atom.model_runner.RapidServeModelRunner"]

[[tool.rpcsurface.proxy]]
name = "trainer"
callers = ["verl.trainer.RayPPOTrainer"]
receivers = ["self.actor_rollout_wg"]
handlers = ["verl.workers.ActorRolloutRefWorker"]

[[tool.rpcsurface.proxy]]
name = "fully-async"
callers = ["verl.trainer.FullyAsyncRayPPOTrainer"]
receivers = ["self.actor_rollout_wg"]
handlers = ["verl.workers.DetachActorWorker"]
"""

FILES = {
    "pyproject.toml": CONFIG,
    "atom/__init__.py": "",
    "atom/engine_core.py": ENGINE_CORE,
    "atom/model_runner.py": MODEL_RUNNER,
    "verl/__init__.py": "",
    "verl/trainer.py": TRAINER,
    "verl/workers.py": WORKERS,
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("most_specific"), FILES)


def test_pylint_whole_tree(tree: Path) -> None:
    run = run_pylint(tree, "--recursive=y", "atom", "verl")
    assert_no_crash(run)
    assert run.keys() == marked_in(FILES)


def test_check_names_the_callers_each_table_judged(tree: Path) -> None:
    run = run_check(tree, "--format", "json", "--no-cache")
    assert {(m.symbol, m.path, m.line) for m in run.messages} == marked_in(FILES)
    base = next(m for m in run.messages if m.symbol == "rpc-unanswered" and "transfer_kv" in m.text)
    # The base table judged the inherited send for EngineCore alone: its subclasses'
    # table answers it for them.
    assert "EngineCore" in base.text
    for subclass in ("PrefillEngineCore", "DecodeEngineCore", "ChunkedPrefillEngineCore"):
        assert subclass not in base.text


def _judged_for(table: dict[str, Any], sites: str, names: str) -> dict[tuple[str, str], list[str]]:
    """Each (RPC, file:line) row site of a report table, and the callers it lists."""
    return {(row["rpc"], site["at"]): site[names] for row in table["rows"] for site in row[sites]}


def test_report_shows_which_table_judged_each_call(tree: Path) -> None:
    completed = run_cli(tree, "report", "--format", "json", "--no-cache")
    assert completed.returncode == 0, completed.stderr
    tables = {t.get("surface", t.get("proxy")): t for t in json.loads(completed.stdout)}
    base = _judged_for(tables["base"], "waitedBy", "callers")
    rapid = _judged_for(tables["rapidserve"], "waitedBy", "callers")
    send_kv = f"atom/engine_core.py:{line_of(ENGINE_CORE, 'batch, wait_out=True)  # [')}"
    start = f"atom/engine_core.py:{line_of(ENGINE_CORE, 'load_model')}"
    subclasses = [
        "atom.engine_core.ChunkedPrefillEngineCore",
        "atom.engine_core.DecodeEngineCore",
        "atom.engine_core.PrefillEngineCore",
    ]
    # One send in EngineCore, judged by each table for its own callers.
    assert base[("transfer_kv", send_kv)] == ["atom.engine_core.EngineCore"]
    assert rapid[("transfer_kv", send_kv)] == subclasses
    assert base[("load_model", start)] == ["atom.engine_core.EngineCore"]
    assert rapid[("load_model", start)] == subclasses
    trainer = _judged_for(tables["trainer"], "calledBy", "callers")
    fully_async = _judged_for(tables["fully-async"], "calledBy", "callers")
    dump = f"verl/trainer.py:{line_of(TRAINER, '[rpc-proxy-unanswered]')}"
    assert trainer[("save_model_to_cpu", dump)] == ["verl.trainer.RayPPOTrainer"]
    assert fully_async[("save_model_to_cpu", dump)] == ["verl.trainer.FullyAsyncRayPPOTrainer"]
    # FullyAsyncRayPPOTrainer's own call is its table's alone.
    assert [key for key in trainer if key[0] == "save_model_to_cpu"] == [
        ("save_model_to_cpu", dump)
    ]

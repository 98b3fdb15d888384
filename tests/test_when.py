"""``when`` on a surface or proxy table: the table judges the calls that run under its
condition, read from the callers' code as a syntax tree.

The shape is verl's ``RayPPOTrainer``: ``use_legacy_worker_impl`` chooses the critic's
worker class and guards the calls, ``if self.use_legacy_worker_impl == "disable":
self.critic_wg.reset() ... else: self.critic_wg.init_model()``; the engine's
``TrainingWorker`` answers the first branch's names, the legacy ``CriticWorker`` the
second's. An ATOM-like engine does the same on its dispatch calls (surfaces), with a
guard ``if not self.use_rapidserve: return ...``. Expected findings come from the
``# [symbol]`` markers of the fixture's source.
"""

from __future__ import annotations

import json
from pathlib import Path

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

TRAINER = """\
class RayPPOTrainer:
    def __init__(self, config, critic_wg):
        self.use_legacy_worker_impl = config.use_legacy_worker_impl
        self.critic_wg = critic_wg

    def init_workers(self):
        if self.use_legacy_worker_impl == "disable":
            self.critic_wg.reset()
        else:
            self.critic_wg.init_model()

    def update_critic(self, batch):
        # Written with other quotes and spacing: the same syntax tree.
        if self.use_legacy_worker_impl != 'disable' :
            return self.critic_wg.update_critic(batch)
        # After "if <negation>: return": runs only where the engine worker is used.
        return self.critic_wg.train_batch(batch)

    def save(self, steps):
        if self.use_legacy_worker_impl == "disable":
            for _ in range(steps):
                if steps > 1:
                    # Nested deeper: still under the condition.
                    self.critic_wg.save_checkpoint_engine()
        elif steps:
            # An elif runs under the negation of the tests before it.
            self.critic_wg.save_checkpoint()

    def mixed_up(self):
        if self.use_legacy_worker_impl == "disable":
            self.critic_wg.init_model()  # [rpc-proxy-unanswered]
        # Under no table's condition: every table of the receiver judges it.
        return self.critic_wg.shared_name()  # [rpc-proxy-unanswered]
"""

WORKERS = """\
class TrainingWorker:
    def reset(self):
        return True

    def train_batch(self, batch):
        return batch

    def save_checkpoint_engine(self):
        return True

    def shared_name(self):
        return True


class CriticWorker:
    def init_model(self):
        return True

    def update_critic(self, batch):
        return batch

    def save_checkpoint(self):
        return True
"""

ENGINE = """\
class EngineCore:
    def __init__(self, mgr, config):
        self.mgr = mgr
        self.use_rapidserve = config.use_rapidserve

    def start(self):
        return self.mgr.call_func("load_model", wait_out=True)

    def step(self, batch):
        if not self.use_rapidserve:
            return self.mgr.call_func("forward", batch, wait_out=True)
        return self.mgr.call_func("transfer_kv", batch, wait_out=True)

    def misrouted(self, batch):
        if self.use_rapidserve:
            return self.mgr.call_func("forward", batch, wait_out=True)  # [rpc-unanswered]
        return None
"""

RUNNERS = """\
class ModelRunner:
    def load_model(self):
        return True

    def forward(self, batch):
        return batch


class RapidServeModelRunner:
    def load_model(self):
        return True

    def transfer_kv(self, batch):
        return batch
"""

CONFIG = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.surface]]
name = "plain"
callers = ["atom.engine_core.EngineCore"]
handlers = ["atom.model_runner.ModelRunner"]
when = "not self.use_rapidserve"

[[tool.rpcsurface.surface]]
name = "rapidserve"
callers = ["atom.engine_core.EngineCore"]
handlers = ["atom.model_runner.RapidServeModelRunner"]
when = "self.use_rapidserve"

[[tool.rpcsurface.proxy]]
name = "critic-engine"
callers = ["verl.trainer.RayPPOTrainer"]
receivers = ["self.critic_wg"]
handlers = ["verl.workers.TrainingWorker"]
when = 'self.use_legacy_worker_impl == "disable"'

[[tool.rpcsurface.proxy]]
name = "critic-legacy"
callers = ["verl.trainer.RayPPOTrainer"]
receivers = ["self.critic_wg"]
handlers = ["verl.workers.CriticWorker"]
when = 'self.use_legacy_worker_impl != "disable"'
"""

FILES = {
    "pyproject.toml": CONFIG,
    "atom/__init__.py": "",
    "atom/engine_core.py": ENGINE,
    "atom/model_runner.py": RUNNERS,
    "verl/__init__.py": "",
    "verl/trainer.py": TRAINER,
    "verl/workers.py": WORKERS,
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("when"), FILES)


def test_pylint_whole_tree(tree: Path) -> None:
    run = run_pylint(tree, "--recursive=y", "atom", "verl")
    assert_no_crash(run)
    assert run.keys() == marked_in(FILES)


def test_check(tree: Path) -> None:
    run = run_check(tree, "--format", "json", "--no-cache")
    assert {(m.symbol, m.path, m.line) for m in run.messages} == marked_in(FILES)


def _keys(tree: Path, *args: str) -> set[tuple[str, str, int]]:
    run = run_check(tree, "--format", "json", *args)
    assert run.returncode in (0, 1), run
    return {(m.symbol, m.path, m.line) for m in run.messages}


def test_an_edit_that_takes_a_call_out_of_its_branch_is_judged_again(tmp_path: Path) -> None:
    tree = project(tmp_path, FILES)
    assert _keys(tree) == marked_in(FILES)  # the cache now holds the pieces
    edited = TRAINER.replace(
        'def init_workers(self):\n        if self.use_legacy_worker_impl == "disable":',
        'def init_workers(self):\n        if self.use_legacy_worker_impl == "disabled":',
    )
    assert edited != TRAINER
    (tree / "verl" / "trainer.py").write_text(edited, encoding="utf-8")
    warm = _keys(tree)
    assert warm == _keys(tree, "--no-cache")
    # Under no table's condition now: each is judged by both tables, and one lacks it.
    reset = line_of(edited, "self.critic_wg.reset()")
    assert edited.splitlines()[reset + 1].strip() == "self.critic_wg.init_model()"
    flipped = {
        ("rpc-proxy-unanswered", "verl/trainer.py", reset),
        ("rpc-proxy-unanswered", "verl/trainer.py", reset + 2),
    }
    assert warm == marked_in({**FILES, "verl/trainer.py": edited}) | flipped


@pytest.mark.parametrize("table", ["surface", "proxy"])
def test_a_condition_that_does_not_parse_is_a_config_error_naming_the_key(
    tmp_path: Path, table: str
) -> None:
    broken = CONFIG.replace(
        'when = "self.use_rapidserve"'
        if table == "surface"
        else "when = 'self.use_legacy_worker_impl != \"disable\"'",
        'when = "self.use_rapidserve =="',
    )
    assert broken != CONFIG
    tree = project(tmp_path, {**FILES, "pyproject.toml": broken})
    run = run_check(tree)
    assert run.returncode == 2, run
    key = (
        "tool.rpcsurface.surface[1].when" if table == "surface" else "tool.rpcsurface.proxy[1].when"
    )
    assert f"{key}: expected a Python expression" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_report_names_each_tables_condition_and_the_calls_it_judged(tree: Path) -> None:
    completed = run_cli(tree, "report", "--format", "json", "--no-cache")
    assert completed.returncode == 0, completed.stderr
    tables = {t.get("surface", t.get("proxy")): t for t in json.loads(completed.stdout)}
    assert tables["critic-engine"]["when"] == 'self.use_legacy_worker_impl == "disable"'
    assert tables["rapidserve"]["when"] == "self.use_rapidserve"
    engine = {row["rpc"] for row in tables["critic-engine"]["rows"]}
    legacy = {row["rpc"] for row in tables["critic-legacy"]["rows"]}
    assert engine == {"reset", "train_batch", "save_checkpoint_engine", "init_model", "shared_name"}
    assert legacy == {"init_model", "update_critic", "save_checkpoint", "shared_name"}
    text = run_cli(tree, "report", "--no-cache")
    assert "surface rapidserve (no registry, when self.use_rapidserve)" in text.stdout
    assert 'proxy critic-legacy (when self.use_legacy_worker_impl != "disable")' in text.stdout


# Issue 46's item 6 shape (verl): a branch a caller class never runs. RayPPOTrainer's one
# binding of async_rollout_mode is True, so it never runs `if not self.async_rollout_mode:`;
# OneStepOffRayTrainer sets it False too, and runs it.
SETTLED_TRAINER = """\
class RayPPOTrainer:
    def __init__(self, actor_rollout_wg):
        self.actor_rollout_wg = actor_rollout_wg
        self.async_rollout_mode = True

    def generate(self, batch):
        if not self.async_rollout_mode:
            return self.actor_rollout_wg.generate_sequences(batch)
        return self.actor_rollout_wg.async_generate(batch)

    def validate(self, batch):
        if self.async_rollout_mode:
            return self.actor_rollout_wg.async_generate(batch)
        # After "if self.async_rollout_mode: return": never run by RayPPOTrainer either.
        return self.actor_rollout_wg.generate_sequences(batch)


class OneStepOffRayTrainer(RayPPOTrainer):
    def __init__(self, actor_rollout_wg):
        super().__init__(actor_rollout_wg)
        self.async_rollout_mode = False
"""

SETTLED_WORKERS = """\
class AsyncRolloutWorker:
    def async_generate(self, batch):
        return batch


class OneStepOffWorker(AsyncRolloutWorker):
    def generate_sequences(self, batch):
        return batch
"""

SETTLED_CONFIG = """\
[tool.rpcsurface]

[[tool.rpcsurface.proxy]]
name = "trainer"
callers = ["verl.trainer.RayPPOTrainer"]
receivers = ["self.actor_rollout_wg"]
handlers = ["verl.workers.AsyncRolloutWorker"]

[[tool.rpcsurface.proxy]]
name = "one-step-off"
callers = ["verl.trainer.OneStepOffRayTrainer"]
receivers = ["self.actor_rollout_wg"]
handlers = ["verl.workers.OneStepOffWorker"]
"""

# The lines of the two sends of generate_sequences.
SENDS = {
    number
    for number, line in enumerate(SETTLED_TRAINER.splitlines(), 1)
    if "generate_sequences" in line
}

SETTLED_FILES = {
    "pyproject.toml": SETTLED_CONFIG,
    "verl/__init__.py": "",
    "verl/trainer.py": SETTLED_TRAINER,
    "verl/workers.py": SETTLED_WORKERS,
}


def _unanswered_lines(tree: Path) -> set[int]:
    run = run_pylint(tree, "--recursive=y", "verl")
    assert_no_crash(run)
    check = run_check(tree, "--format", "json", "--no-cache")
    assert {(m.symbol, m.path, m.line) for m in check.messages} == run.keys()
    assert {m.symbol for m in run.messages} <= {"rpc-proxy-unanswered"}, run.messages
    return {m.line for m in run.messages if m.path == "verl/trainer.py"}


def test_a_branch_a_caller_never_runs_is_not_judged_for_it(tmp_path: Path) -> None:
    assert _unanswered_lines(project(tmp_path, SETTLED_FILES)) == set()


@pytest.mark.parametrize(
    ("where", "text"),
    [
        ("verl/main.py", "def run(trainer):\n    trainer.async_rollout_mode = False\n"),
        ("verl/main.py", "def run(trainer):\n    setattr(trainer, 'async_rollout_mode', 0)\n"),
        ("verl/trainer.py", SETTLED_TRAINER + "\n\ndef sync(t):\n    t.async_rollout_mode = 0\n"),
    ],
    ids=["assigned-on-an-instance", "setattr", "assigned-in-the-same-module"],
)
def test_a_branch_another_assignment_may_open_is_judged(
    tmp_path: Path, where: str, text: str
) -> None:
    """An assignment on something but self, anywhere, may change it on RayPPOTrainer's
    instances: both sends of generate_sequences are judged for it again."""
    tree = project(tmp_path, {**SETTLED_FILES, where: text})
    assert len(SENDS) == 2
    assert _unanswered_lines(tree) == SENDS


def test_a_caller_that_binds_both_truths_runs_the_branch(tmp_path: Path) -> None:
    """OneStepOffRayTrainer's own code binds True (its base's __init__, through super())
    and False: it may run either branch, and its table judges both (its worker answers)."""
    edited = SETTLED_WORKERS.replace(
        "    def generate_sequences(self, batch):\n        return batch\n", "    pass\n"
    )
    assert edited != SETTLED_WORKERS
    tree = project(tmp_path, {**SETTLED_FILES, "verl/workers.py": edited})
    assert _unanswered_lines(tree) == SENDS

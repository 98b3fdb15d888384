"""``one-of = true``: the worker holds one of the handlers, not known which, so a call is
judged by what holds whichever handler it meets (vLLM 0.7.3's V0 and V1 workers behind
one annotated ``self.worker``, picked by a platform setting the executors never read).

The project below has two executors, V0 and V1, that send ``initialize_cache`` with the
arguments of their own workers. Read with each handler as one every call meets, each
executor's call is judged against the other's worker too; read one-of, only what fails
whichever worker is held is reported: a name no worker answers, arguments neither binds.
The ``# [symbol]`` markers plant what the one-of surface must report; pylint and the
``rpcsurface`` command are run as users run them, and must agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import line_of, marked_in, project, run_check, run_cli, run_pylint

from pylint_rpcsurface.store import CACHE_DIR_ENV

EXECUTORS = """\
from eng.wrapper import WorkerWrapper


class ExecutorBase:
    def __init__(self):
        self.driver = WorkerWrapper()

    def collective_rpc(self, method, args=()):
        return [self.driver.execute_method(method, *args)]

    def load(self):
        self.collective_rpc("load_model")
        self.collective_rpc("laod_model")  # [rpc-unanswered]


class V0Executor(ExecutorBase):
    def initialize(self, num_gpu_blocks, num_cpu_blocks):
        self.collective_rpc("initialize_cache", args=(num_gpu_blocks, num_cpu_blocks))


class V1Executor(ExecutorBase):
    def initialize(self, kv_cache_configs):
        self.collective_rpc("initialize_cache", args=(kv_cache_configs,))
        self.collective_rpc("get_kv_cache_spec")

    def reset(self):
        self.collective_rpc("initialize_cache", args=(1, 2, 3))  # [rpc-handler-signature]
"""
FILES = {
    "eng/__init__.py": "",
    "eng/wrapper.py": """\
from typing import Optional

from eng.workers import WorkerBase


class WorkerWrapper:
    def __init__(self):
        self.worker: Optional[WorkerBase] = None

    def execute_method(self, method, *args):
        return getattr(self.worker, method)(*args)
""",
    "eng/workers.py": """\
class WorkerBase:
    def load_model(self):
        return True


class V0Worker(WorkerBase):
    def initialize_cache(self, num_gpu_blocks, num_cpu_blocks):
        return num_gpu_blocks + num_cpu_blocks


class V1Worker(WorkerBase):
    def initialize_cache(self, kv_cache_configs):
        return kv_cache_configs

    def get_kv_cache_spec(self):
        return {}
""",
    "eng/executors.py": EXECUTORS,
}
CONFIG = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "collective_rpc"
waits = true
args-from = "args"
unknown-name = "raises"

[[tool.rpcsurface.surface]]
name = "workers"
callers = ["eng.executors.ExecutorBase"]
handlers = ["eng.workers.V0Worker", "eng.workers.V1Worker"]
"""


def _project(root: Path, *, one_of: bool) -> Path:
    config = CONFIG + ("one-of = true\n" if one_of else "")
    return project(root, {**FILES, "pyproject.toml": config})


def test_a_one_of_surface_reports_only_what_fails_whichever_worker_is_held(
    tmp_path: Path,
) -> None:
    folder = _project(tmp_path, one_of=True)
    expected = {key for key in marked_in(FILES) if key[1] == "eng/executors.py"}
    linted = run_pylint(folder, "eng")
    assert linted.keys() == expected, linted.stderr
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 1, checked.stderr
    assert {(m.symbol, m.path, m.line) for m in checked.messages} == expected


def test_without_one_of_each_worker_is_judged_as_one_every_call_meets(tmp_path: Path) -> None:
    # The oracle for the key: the same project read without it reports each executor's
    # initialize_cache against the other's worker as well.
    folder = _project(tmp_path, one_of=False)
    crossed = {
        ("rpc-handler-signature", "eng/executors.py", line_of(EXECUTORS, fragment))
        for fragment in ("args=(num_gpu_blocks, num_cpu_blocks)", "args=(kv_cache_configs,)")
    }
    linted = run_pylint(folder, "eng")
    assert linted.keys() == {*marked_in(FILES), *crossed}, linted.stderr


@pytest.mark.parametrize("value", ['"yes"', "1", "[true]"])
def test_one_of_takes_a_bool(tmp_path: Path, value: str) -> None:
    folder = project(tmp_path, {**FILES, "pyproject.toml": CONFIG + f"one-of = {value}\n"})
    checked = run_check(folder, "--no-cache")
    assert checked.returncode == 2
    assert "tool.rpcsurface.surface[0].one-of" in checked.stderr, checked.stderr


def test_the_cached_answer_follows_the_key(tmp_path: Path) -> None:
    # Oracle: a run that keeps its store, the key turned on after a run without it, gives
    # what a run with no store gives.
    folder = _project(tmp_path / "tree", one_of=False)
    env = {CACHE_DIR_ENV: str(tmp_path / "cache")}
    before = run_check(folder, "--format", "json", env=env)
    assert before.returncode == 1, before.stderr
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8") + "one-of = true\n", "utf-8")
    cached = run_check(folder, "--format", "json", env=env)
    fresh = run_check(folder, "--format", "json", "--no-cache")
    assert cached.messages == fresh.messages
    assert len(cached.messages) < len(before.messages)


def test_the_report_says_which_surfaces_are_one_of(tmp_path: Path) -> None:
    for one_of in (True, False):
        folder = _project(tmp_path / str(one_of), one_of=one_of)
        text = run_cli(folder, "report", env={"COLUMNS": "100"})
        assert text.returncode == 0, text.stderr
        first = text.stdout.splitlines()[0]
        assert first == (
            "surface workers (no registry, one-of)" if one_of else "surface workers (no registry)"
        )
        markdown = run_cli(folder, "report", "--format", "markdown")
        assert ("one-of" in markdown.stdout.splitlines()[0]) is one_of
        (surface,) = json.loads(run_cli(folder, "report", "--format", "json").stdout)
        assert surface["oneOf"] is one_of

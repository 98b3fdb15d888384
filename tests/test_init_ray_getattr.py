"""``rpcsurface init`` on an executor shaped like LMDeploy 0.7.3's ``RayExecutor``: the
actors it keeps on ``self.workers`` are called by name (``self.workers[0].x.remote()``)
and through ``collective_rpc(method, ...)``, which runs ``getattr(worker, method).remote()``
on each of them. The dispatch surface judges the names sent through ``collective_rpc``;
a proxy table on ``self.workers`` would also judge the getattr itself, a call whose name
no proxy table can infer (``rpc-name-uninferable``), so init proposes none for it.

The oracle is the real console script: ``rpcsurface check --no-cache`` and pylint on the
whole tree find with init's table exactly what they find with the hand-written one (the
corpus's bench/engines/lmdeploy.toml shape) and what the ``# [symbol]`` markers plant.
"""

from __future__ import annotations

import sys
from pathlib import Path

from support import marked_in, project, run_cli, run_pylint
from test_init_commented import located

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

EXECUTOR = """\
import ray


class RayWorkerWrapper:
    def build_model(self):
        return None

    def get_free_mem(self):
        return 0

    def set_cache_config(self, cache_config):
        self.cache_config = cache_config

    def get_input_processor(self):
        return None

    def warmup_dist(self):
        return None


class RayExecutor:
    def __init__(self, world_size):
        self.workers = [
            ray.remote(num_gpus=1.0)(RayWorkerWrapper).remote() for _ in range(world_size)
        ]

    def warmup(self):
        ray.get([worker.warmup_dist.remote() for worker in self.workers])

    def collective_rpc(self, method, args=None, kwargs=None, timeout=None):
        if args is None:
            args = list()
        if kwargs is None:
            kwargs = dict()
        return ray.get(
            [getattr(worker, method).remote(*args, **kwargs) for worker in self.workers],
            timeout=timeout,
        )

    def build_model(self):
        self.collective_rpc("build_model")

    def gather_free_mem(self):
        return self.collective_rpc("get_free_mem")

    def set_cache_config(self, cache_config):
        self.collective_rpc("set_cache_config", (cache_config,))

    def release(self):
        self.collective_rpc("exit")  # [rpc-unanswered]

    def get_input_processor(self):
        return ray.get(self.workers[0].get_input_processor.remote())
"""
FILES = {"engine/__init__.py": "", "engine/ray_executor.py": EXECUTOR}
HAND = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "collective_rpc"
waits = true
args-from = "args"
kwargs-from = "kwargs"
unknown-name = "raises"

[[tool.rpcsurface.surface]]
name = "ray"
callers = ["engine.ray_executor.RayExecutor"]
handlers = ["engine.ray_executor.RayWorkerWrapper"]
"""


def test_actors_a_dispatch_looks_names_up_on_are_left_to_its_surface(tmp_path: Path) -> None:
    folder = project(tmp_path / "generated", {**FILES, "pyproject.toml": '[project]\nname = "x"\n'})
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    table = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    assert [d["method"] for d in table["dispatch"]] == ["collective_rpc"]
    assert [s["handlers"] for s in table["surface"]] == [["engine.ray_executor.RayWorkerWrapper"]]
    assert "proxy" not in table
    # Left out with the evidence, never silently.
    note = next(line for line in written.stderr.splitlines() if "no proxy table" in line)
    assert "engine/ray_executor.py:30: collective_rpc() looks up getattr(..., method)" in note
    assert "(line 36)" in note
    assert "(engine/ray_executor.py:53: self.workers[0].get_input_processor.remote(...))" in note

    hand = project(tmp_path / "hand", {**FILES, "pyproject.toml": HAND})
    planted = marked_in(FILES)
    assert {(symbol, path, line) for path, line, symbol in located(folder)} == planted
    assert located(folder) == located(hand)
    assert run_pylint(folder, "engine").keys() == run_pylint(hand, "engine").keys() == planted

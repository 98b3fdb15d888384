"""``rpcsurface init`` on a worker wrapper shaped like vLLM 0.11's ``WorkerWrapperBase``:
the executor's names are looked up on the wrapper, which answers a few itself and passes
every other one on to the worker it holds through ``__getattr__``
(``return getattr(self.worker, attr)``), a worker whose class is only annotated. The
wrapper alone is not the surface's handler (the names it lacks would be reported
unanswered), and which worker it holds is not proven, only that it is one the annotation
admits: init writes the surface active with ``one-of``, the wrapper and those workers its
handlers.

The oracle is the real console script: ``rpcsurface check --no-cache`` finds nothing with
init's table, nor with the hand-written one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from support import line_of, project, run_cli
from test_init_commented import located

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

FILES = {
    "eng/__init__.py": "",
    "eng/worker_base.py": """\
from typing import Optional


class WorkerBase:
    def init_device(self):
        raise NotImplementedError


class WorkerWrapperBase:
    def __init__(self):
        self.worker: Optional[WorkerBase] = None

    def init_worker(self, kwargs):
        self.kwargs = kwargs

    def __getattr__(self, attr):
        return getattr(self.worker, attr)
""",
    "eng/workers.py": """\
from eng.worker_base import WorkerBase


class GPUWorker(WorkerBase):
    def init_device(self):
        return "cuda"

    def load_model(self):
        return True


class CPUWorker(WorkerBase):
    def init_device(self):
        return "cpu"

    def load_model(self):
        return True
""",
    "eng/executor.py": """\
from eng.worker_base import WorkerWrapperBase


def run_method(obj, method, args, kwargs):
    func = getattr(obj, method)
    return func(*args, **kwargs)


class Executor:
    def __init__(self):
        self.driver_worker = WorkerWrapperBase()
        self.collective_rpc("init_worker", args=({},))
        self.collective_rpc("init_device")
        self.collective_rpc("load_model")

    def collective_rpc(self, method, args=(), kwargs=None):
        return [run_method(self.driver_worker, method, args, kwargs or {})]
""",
}
HAND = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "collective_rpc"
waits = true
args-from = "args"
kwargs-from = "kwargs"
unknown-name = "raises"

[[tool.rpcsurface.surface]]
name = "workers"
callers = ["eng.executor.Executor"]
handlers = ["eng.worker_base.WorkerWrapperBase", "eng.workers.GPUWorker"]
"""


def test_a_wrapper_forwarding_what_it_lacks_is_not_the_handler_alone(tmp_path: Path) -> None:
    folder = project(tmp_path / "generated", {**FILES, "pyproject.toml": '[project]\nname = "x"\n'})
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    table = tomllib.loads(text)["tool"]["rpcsurface"]
    assert [d["method"] for d in table["dispatch"]] == ["collective_rpc"]
    (surface,) = table["surface"]
    assert surface["handlers"] == [
        "eng.worker_base.WorkerWrapperBase",
        "eng.worker_base.WorkerBase",
        "eng.workers.CPUWorker",
        "eng.workers.GPUWorker",
    ]
    assert surface["one-of"] is True
    assert (
        "one-of = true  # eng.worker_base.WorkerWrapperBase.__getattr__ "
        "(eng/worker_base.py:16) passes the 2 names it lacks on to self.worker, whose "
        "annotation admits each of the others, and nothing in the code says which it holds; "
        "a class supplied from outside the project is not covered\n"
    ) in text
    assert "# Not proven" not in text

    assert located(folder) == set()
    assert located(project(tmp_path / "hand", {**FILES, "pyproject.toml": HAND})) == set()


def test_a_wrapper_forwarding_to_an_object_nothing_binds_is_left_to_the_user(
    tmp_path: Path,
) -> None:
    # The worker comes from the caller's keywords: no annotation, no construction says
    # what it is, so no class is proven beside the wrapper, and the surface waits,
    # commented out, for the user to add the workers.
    unbound = (
        FILES["eng/worker_base.py"]
        .replace("        self.worker: Optional[WorkerBase] = None\n", "        pass\n")
        .replace("        self.kwargs = kwargs\n", '        self.worker = kwargs["worker"]\n')
    )
    files = {**FILES, "eng/worker_base.py": unbound, "pyproject.toml": '[project]\nname = "x"\n'}
    folder = project(tmp_path, files)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert "surface" not in tomllib.loads(text)["tool"]["rpcsurface"]
    hook = f"eng/worker_base.py:{line_of(unbound, 'def __getattr__')}"
    assert (
        "# Why: the names eng.executor.Executor sends reach eng.worker_base.WorkerWrapperBase, "
        f"whose __getattr__ ({hook}) passes the 2 it lacks on to self.worker, "
        "and nothing says which class that holds.\n"
    ) in text
    assert (
        "# Confirm which classes self.worker holds: add them beside "
        "eng.worker_base.WorkerWrapperBase;\n"
    ) in text
    assert f'#     "eng.worker_base.WorkerWrapperBase",  # {hook}: forwards what' in text

"""``rpcsurface init`` writes a surface only on structural evidence.

A handler is written when the dispatch's receive side reaches the class in the code: the
object a received name is looked up on is bound to it (``self.worker = Worker()``, a Ray
actor made from it, a parameter filled with one). How many of the names sent a class
happens to define is no evidence: such a class is listed in a comment, never written.
The same for a registry (the code must test a name against it or iterate it) and for
base handlers. Each shape below is one found on a real engine; each test runs
the real ``rpcsurface`` command.
"""

from __future__ import annotations

import sys
from pathlib import Path

from support import project, run_check, run_cli

from pylint_rpcsurface.config import load_config

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# (a) The engine client sends 8 names by `broadcast_utility_command_sync`; the engine
# process answers them from a table of string keys. An unrelated mixin defines 5 of them.
UTILITY_TABLE = {
    "eng/__init__.py": "",
    "eng/memory.py": (
        "class MemoryManagerMixin:\n"
        "    def sleep(self, level):\n        return level\n"
        "    def wake_up(self):\n        return True\n"
        "    def clear_kv_cache(self):\n        return None\n"
        "    def reset_prefix_cache(self):\n        return True\n"
        "    def profile(self, on):\n        return on\n"
    ),
    "eng/core.py": (
        "class EngineCoreProc:\n"
        "    def __init__(self, sock_in, sock_out):\n"
        "        self.sock_in, self.sock_out = sock_in, sock_out\n"
        "        self._handlers = {\n"
        '            "sleep": self._sleep, "wake_up": self._wake_up,\n'
        '            "clear_kv_cache": self._clear, "reset_prefix_cache": self._reset,\n'
        '            "profile": self._profile, "abort_request": self._abort,\n'
        '            "add_lora": self._lora, "pin_lora": self._lora,\n'
        "        }\n\n"
        "    def loop(self):\n"
        "        while True:\n"
        "            method, args = self.sock_in.recv_pyobj()\n"
        "            self.sock_out.send_pyobj(self._handlers[method](*args))\n\n"
        "    def _sleep(self, level):\n        return level\n\n"
        "    def _wake_up(self):\n        return True\n\n"
        "    def _clear(self):\n        return None\n\n"
        "    def _reset(self):\n        return True\n\n"
        "    def _profile(self, on):\n        return on\n\n"
        "    def _abort(self, rid):\n        return rid\n\n"
        "    def _lora(self, lora):\n        return lora\n"
    ),
    "eng/client.py": (
        "class EngineClient:\n"
        "    def broadcast_utility_command_sync(self, method, *args):\n"
        "        self.sock_out.send_pyobj((method, args))\n"
        "        return self.sock_in.recv_pyobj()\n\n"
        "    def run(self):\n"
        '        self.broadcast_utility_command_sync("sleep", 1)\n'
        '        self.broadcast_utility_command_sync("wake_up")\n'
        '        self.broadcast_utility_command_sync("clear_kv_cache")\n'
        '        self.broadcast_utility_command_sync("reset_prefix_cache")\n'
        '        self.broadcast_utility_command_sync("profile", True)\n'
        '        self.broadcast_utility_command_sync("abort_request", 3)\n'
        '        self.broadcast_utility_command_sync("add_lora", None)\n'
        '        self.broadcast_utility_command_sync("pin_lora", None)\n'
    ),
}


def test_a_class_that_only_shares_names_is_listed_and_not_written(tmp_path: Path) -> None:
    folder = project(tmp_path, UTILITY_TABLE)
    shown = run_cli(folder, "init", "--diff")
    # As a surface whose handlers can't be chosen: commented out, never active.
    assert shown.returncode == 1, shown.stderr
    assert "+[[tool.rpcsurface.surface]]" not in shown.stdout
    assert "MemoryManagerMixin" not in "".join(
        line for line in shown.stdout.splitlines() if not line.startswith("+#")
    )
    assert "+# Not proven: the surface of eng.client.EngineClient\n" in shown.stdout
    assert (
        '+#     "eng.memory.MemoryManagerMixin",  # eng/memory.py:1: answers 5 of 8 names '
        "sent, by overlap only\n" in shown.stdout
    )
    assert "eng.memory.MemoryManagerMixin answers 5 of 8 names sent" in shown.stderr
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    assert load_config(folder / "pyproject.toml").surfaces == ()


# (b) A helper that wraps a method in place, called with literal names: never a dispatch.
# Beside it, a real dispatch whose worker holds the runner.
PATCHED = {
    "app/__init__.py": "",
    "app/runner.py": (
        "class ModelRunner:\n"
        "    def execute_model(self, batch):\n        return batch\n\n"
        "    def sample(self, logits, temperature):\n        return logits\n\n"
        "    def profile(self):\n        return True\n"
    ),
    "app/worker.py": (
        "import threading\n\n"
        "from app.runner import ModelRunner\n\n\n"
        "def _wrap_with_req_id_snapshot(obj, method_name):\n"
        "    orig = getattr(obj, method_name)\n\n"
        "    def wrapper(*args, **kwargs):\n"
        "        snapshot = list(args)\n"
        "        return orig(*snapshot, **kwargs)\n\n"
        "    setattr(obj, method_name, wrapper)\n\n\n"
        "class Worker:\n"
        "    def __init__(self, requests, replies):\n"
        "        self.requests, self.replies = requests, replies\n"
        "        self.model_runner = ModelRunner()\n"
        '        _wrap_with_req_id_snapshot(self.model_runner, "execute_model")\n'
        '        _wrap_with_req_id_snapshot(self.model_runner, "sample")\n\n'
        "    def busy_loop(self):\n"
        "        while True:\n"
        "            method, args = self.requests.get()\n"
        "            self.replies.put(getattr(self.model_runner, method)(*args))\n\n\n"
        "class Engine:\n"
        "    def __init__(self, requests, replies):\n"
        "        self.requests, self.replies = requests, replies\n"
        "        worker = Worker(requests, replies)\n"
        "        threading.Thread(target=worker.busy_loop).start()\n\n"
        "    def call(self, method, *args):\n"
        "        self.requests.put((method, args))\n"
        "        return self.replies.get()\n\n"
        "    def step(self, batch):\n"
        '        self.call("profile")\n'
        '        return self.call("execute_model", batch)\n'
    ),
}


def test_a_monkey_patching_helper_is_never_a_dispatch_method(tmp_path: Path) -> None:
    folder = project(tmp_path, PATCHED)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    table = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    assert [d["method"] for d in table["dispatch"]] == ["call"]
    assert [(s["callers"], s["handlers"]) for s in table["surface"]] == [
        (["app.worker.Engine"], ["app.runner.ModelRunner"])
    ]
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 0, checked.stderr
    assert not checked.messages  # no rpc-unanswered, no rpc-handler-signature in the helper


# The worker loop of (c) and of the annotation case: the received name is looked up on
# self.worker, whatever that is bound to.
BUSY_LOOP = (
    "    def busy_loop(self):\n"
    "        while True:\n"
    "            method, args = self.mq.dequeue()\n"
    "            self.out.enqueue(getattr(self.worker, method)(*args))\n"
)


def _executor(head: str, third: str) -> str:
    """An executor module: *head* (its imports, the class and how it starts the worker
    loop), then a queue-backed collective_rpc and a setup() that sends load_model,
    init_device and the call whose arguments are *third*."""
    return (
        head + "    def collective_rpc(self, method, *args):\n"
        "        self.mq.enqueue((method, args))\n"
        "        return self.out.dequeue()\n\n"
        "    def setup(self):\n"
        '        self.collective_rpc("load_model")\n'
        '        self.collective_rpc("init_device")\n'
        f"        self.collective_rpc({third})\n"
    )


# (c) The worker holds `self.worker = Worker(...)` and looks the received name up on it:
# Worker is the handler, though it answers only 1 of the 3 names sent.
PROVEN = {
    "proj/__init__.py": "",
    "proj/worker.py": (
        "class Worker:\n"
        "    def __init__(self, rank):\n        self.rank = rank\n\n"
        "    def load_model(self):\n        return True\n\n\n"
        "class Other:\n"
        "    def adjust_rank(self, mapping):\n        return mapping\n\n"
        "    def init_device(self):\n        return 0\n\n\n"
        "class WorkerProc:\n"
        "    def __init__(self, rank, mq, out):\n"
        "        self.worker = Worker(rank)\n"
        "        self.mq, self.out = mq, out\n\n" + BUSY_LOOP
    ),
    "proj/executor.py": _executor(
        "from proj.worker import WorkerProc\n\n\n"
        "class Executor:\n"
        "    def __init__(self, mq, out):\n"
        "        self.mq, self.out = mq, out\n\n"
        "    def start(self, rank):\n"
        "        WorkerProc(rank, self.mq, self.out).busy_loop()\n\n",
        '"adjust_rank", {}',
    ),
}


def test_a_proven_handler_is_written_though_it_answers_few_names(tmp_path: Path) -> None:
    folder = project(tmp_path, PROVEN)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    table = tomllib.loads(text)["tool"]["rpcsurface"]
    assert [d["method"] for d in table["dispatch"]] == ["collective_rpc"]
    (surface,) = table["surface"]
    assert surface["callers"] == ["proj.executor.Executor"]
    assert surface["handlers"] == ["proj.worker.Worker"]  # not Other, which answers 2 of 3
    # The evidence is the binding, not the overlap.
    assert "constructed: Worker(rank)" in text
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 1, checked.stderr
    assert sorted((m.symbol, m.line) for m in checked.messages) == [
        ("rpc-unanswered", 17),
        ("rpc-unanswered", 18),
    ]


# A Ray actor group: the handles are made by `Actor.options(...).remote()`, looked up by
# `getattr(actor, name).remote()`.
RAY = {
    "rl/__init__.py": "",
    "rl/actors.py": (
        "import ray\n\n\n"
        "@ray.remote\n"
        "class Actor:\n"
        "    def fit(self, batch):\n        return batch\n\n"
        "    def save(self, tag):\n        return tag\n\n\n"
        "class Lookalike:\n"
        "    def fit(self, batch):\n        return batch\n\n"
        "    def save(self, tag):\n        return tag\n"
    ),
    "rl/trainer.py": (
        "import ray\n\n"
        "from rl.actors import Actor\n\n\n"
        "def run_all(actors, method, *args):\n"
        "    return ray.get([getattr(a, method).remote(*args) for a in actors])\n\n\n"
        "class Trainer:\n"
        "    def __init__(self, n):\n"
        "        self.actors = [Actor.options(num_gpus=1).remote() for _ in range(n)]\n\n"
        "    def step(self, batch):\n"
        '        run_all(self.actors, "fit", batch)\n'
        '        run_all(self.actors, "save", "x")\n'
    ),
}


def test_ray_actor_handles_prove_their_class(tmp_path: Path) -> None:
    folder = project(tmp_path, RAY)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
    assert surface["handlers"] == ["rl.actors.Actor"]
    assert "an actor made from Actor" in text


# A registry and a base handler that only share names with the surface are listed, not
# written; the handler itself is proven (`runner = RapidRunner()` in the loop).
REGISTRY = {
    "seed/__init__.py": "",
    "seed/config.py": ('RPCS = ("prefill", "decode", "warmup")\n'),
    "seed/runner.py": (
        "class ModelRunner:\n"
        "    def forward(self, x):\n        return x\n\n\n"
        "class RapidRunner(ModelRunner):\n"
        "    def prefill(self, x):\n        return x\n\n"
        "    def decode(self, x):\n        return x\n\n"
        "    def warmup(self):\n        return True\n"
    ),
    "seed/mgr.py": (
        "import multiprocessing as mp\n\n"
        "from seed.runner import RapidRunner\n\n\n"
        "def busy_loop(requests, replies):\n"
        "    runner = RapidRunner()\n"
        "    while True:\n"
        "        name, args = requests.get()\n"
        "        replies.put(getattr(runner, name)(*args))\n\n\n"
        "class Manager:\n"
        "    def __init__(self):\n"
        "        self.requests, self.replies = mp.Queue(), mp.Queue()\n"
        "        mp.Process(target=busy_loop, args=(self.requests, self.replies)).start()\n\n"
        "    def call_func(self, name, *args):\n"
        "        self.requests.put((name, args))\n"
        "        return self.replies.get()\n\n"
        "    def step(self, x):\n"
        '        self.call_func("warmup")\n'
        '        self.call_func("prefill", x)\n'
        '        self.call_func("decode", x)\n'
        '        return self.call_func("forward", x)\n'
    ),
}


def test_a_registry_or_base_that_only_shares_names_is_listed_not_written(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path, REGISTRY)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
    assert surface["handlers"] == ["seed.runner.RapidRunner"]
    assert "registry" not in surface
    assert "base-handlers" not in surface
    assert "# registry: not written, candidates by overlap only (not written)" in text
    assert "#   seed.config.RPCS (seed/config.py:1" in text
    assert "registry not written, candidates by overlap only" in written.stderr


def test_a_registry_the_code_tests_names_against_is_written(tmp_path: Path) -> None:
    files = dict(REGISTRY)
    files["seed/mgr.py"] = REGISTRY["seed/mgr.py"].replace(
        "from seed.runner import RapidRunner\n",
        "from seed.config import RPCS\nfrom seed.runner import RapidRunner\n",
    ) + ("\n\ndef is_rapid(name):\n    return name in RPCS\n")
    folder = project(tmp_path, files)
    assert run_cli(folder, "init").returncode == 0
    text = (folder / "pyproject.toml").read_text("utf-8")
    (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
    assert surface["registry"] == "seed.config.RPCS"
    assert "seed/mgr.py:31: tested for membership" in text


# The vLLM family's Ray path: `_run_workers` sends `worker.execute_method.remote(method)`
# to actors made from RayWorkerWrapper, whose execute_method runs the name on
# `self if self.worker is None else self.worker`. The wrapper answers adjust_rank.
RAY_WRAPPER = {
    "vl/__init__.py": "",
    "vl/utils.py": (
        "def run_method(obj, method, args, kwargs):\n"
        "    return getattr(obj, method)(*args, **kwargs)\n"
    ),
    "vl/worker_base.py": (
        "from typing import Optional\n\n"
        "from vl.utils import run_method\n\n\n"
        "class WorkerBase:\n"
        "    def init_device(self):\n        raise NotImplementedError\n\n\n"
        "class WorkerWrapperBase:\n"
        "    def __init__(self, rank):\n"
        "        self.rank = rank\n"
        "        self.worker: Optional[WorkerBase] = None\n\n"
        "    def adjust_rank(self, mapping):\n"
        "        self.rank = mapping.get(self.rank, self.rank)\n\n"
        "    def execute_method(self, method, *args, **kwargs):\n"
        "        target = self if self.worker is None else self.worker\n"
        "        return run_method(target, method, args, kwargs)\n"
    ),
    "vl/gpu_worker.py": (
        "from vl.worker_base import WorkerBase\n\n\n"
        "class Worker(WorkerBase):\n"
        "    def init_device(self):\n        return 0\n\n"
        "    def load_model(self):\n        return True\n"
    ),
    "vl/ray_executor.py": (
        "import ray\n\n"
        "from vl.worker_base import WorkerWrapperBase\n\n\n"
        "class RayWorkerWrapper(WorkerWrapperBase):\n"
        "    def get_node_ip(self):\n        return '127.0.0.1'\n\n\n"
        "class RayExecutor:\n"
        "    def __init__(self, n):\n"
        "        self.workers = [\n"
        "            ray.remote(num_gpus=1)(RayWorkerWrapper).remote(rank) for rank in range(n)\n"
        "        ]\n\n"
        "    def _run_workers(self, method, *args, **kwargs):\n"
        "        refs = [w.execute_method.remote(method, *args, **kwargs) for w in self.workers]\n"
        "        return ray.get(refs)\n\n"
        "    def start(self):\n"
        '        self._run_workers("adjust_rank", {0: 1})\n'
        '        self._run_workers("init_device")\n'
        '        self._run_workers("load_model")\n'
    ),
}


def test_the_ray_worker_wrapper_that_answers_adjust_rank_is_a_handler(tmp_path: Path) -> None:
    folder = project(tmp_path, RAY_WRAPPER)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    (surface,) = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"][
        "rpcsurface"
    ]["surface"]
    assert surface["handlers"] == ["vl.gpu_worker.Worker", "vl.worker_base.WorkerWrapperBase"]
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 0, checked.stderr  # adjust_rank is answered


# vLLM 0.7.3's shape: the worker process holds `self.worker: Optional[WorkerBase]`, its
# class chosen at run time from a qualname string. The annotation proves some subclass is
# held, not which: two real subclasses compete, so the surface is refused, both listed.
ANNOTATED = {
    "an/__init__.py": "",
    "an/base.py": (
        "from typing import Optional\n\n\n"
        "class WorkerBase:\n"
        "    def load_model(self):\n        raise NotImplementedError\n\n\n"
        "class WorkerProc:\n"
        "    def __init__(self, mq, out):\n"
        "        self.worker: Optional[WorkerBase] = None\n"
        "        self.mq, self.out = mq, out\n\n" + BUSY_LOOP
    ),
    "an/workers.py": (
        "from an.base import WorkerBase\n\n\n"
        "class CpuWorker(WorkerBase):\n"
        "    def load_model(self):\n        return 1\n\n"
        "    def init_device(self):\n        return 'cpu'\n\n"
        "    def initialize_cache(self, num_gpu_blocks, num_cpu_blocks):\n        return 0\n\n\n"
        "class GpuWorker(WorkerBase):\n"
        "    def load_model(self):\n        return 2\n\n"
        "    def initialize_cache(self, kv_cache_configs):\n        return 0\n"
    ),
    "an/executor.py": _executor(
        "from an.base import WorkerProc\n\n\n"
        "class Executor:\n"
        "    def start(self):\n"
        "        WorkerProc(self.mq, self.out).busy_loop()\n\n",
        '"initialize_cache", []',
    ),
}


def test_an_annotation_admitting_two_workers_is_written_one_of(tmp_path: Path) -> None:
    # vLLM 0.7.3's shape: the annotation proves the worker holds a CpuWorker or a
    # GpuWorker, not which (a platform setting picks it), and the two disagree on
    # initialize_cache: the surface is written active, one-of, so a call is judged by
    # what holds whichever one it meets.
    folder = project(tmp_path, ANNOTATED)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    pyproject = folder / "pyproject.toml"
    text = pyproject.read_text("utf-8")
    assert '    "an.workers.CpuWorker",  # an/workers.py:4: the annotation admits it' in text
    assert '    "an.workers.GpuWorker",  # an/workers.py:15: the annotation admits it' in text
    assert (
        "one-of = true  # the names are looked up on an object whose annotation admits each "
        "of these classes, and nothing in the code says which it holds; a class supplied "
        "from outside the project is not covered\n"
    ) in text
    assert "# Confirm" not in text  # nothing waits for the user
    (surface,) = load_config(pyproject).surfaces
    assert surface.one_of
    assert surface.handlers == ("an.workers.CpuWorker", "an.workers.GpuWorker")
    # initialize_cache([]) binds to GpuWorker's (kv_cache_configs), not to CpuWorker's two
    # parameters: the worker may be the GpuWorker, so no message.
    assert run_check(folder, "--no-cache").returncode == 0


def test_a_one_of_surface_reports_what_fails_whichever_worker_is_held(tmp_path: Path) -> None:
    # Three arguments bind to neither initialize_cache: whichever worker is held, the call
    # fails, and check says so.
    folder = project(tmp_path, ANNOTATED)
    assert run_cli(folder, "init").returncode == 0
    executor = folder / "an" / "executor.py"
    sent = '"initialize_cache", []'
    executor.write_text(
        executor.read_text("utf-8").replace(sent, '"initialize_cache", 1, 2, 3'), "utf-8"
    )
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 1, checked.stderr
    assert {(m.path, m.line, m.symbol) for m in checked.messages} == {
        ("an/executor.py", 15, "rpc-handler-signature")
    }


# nano-vllm-voxcpm's server: the loop answers `stop` itself (`if method_name == "stop":`
# returns its reply) before `getattr(srv, method_name)`; ServerImpl, which the loop
# constructs, answers the rest. `flush` nobody answers.
def _server(stop_branch: str) -> dict[str, str]:
    return {
        "vox/__init__.py": "",
        "vox/server.py": (
            "import multiprocessing as mp\n\n\n"
            "class ServerImpl:\n"
            "    def __init__(self, path):\n        self.path = path\n\n"
            "    def health(self):\n        return True\n\n"
            "    def encode(self, wav):\n        return wav\n\n\n"
            "def main_loop(queue_in, queue_out, path):\n"
            "    srv = ServerImpl(path)\n"
            '    states = {"stopped": False}\n\n'
            "    def method_call(cmd):\n"
            "        try:\n"
            '            method_name = cmd["type"]\n'
            f"{stop_branch}"
            '            ret = getattr(srv, method_name)(*cmd["args"])\n'
            '            return {"type": "response", "data": ret}\n'
            "        except Exception as error:\n"
            '            return {"type": "error", "error": str(error)}\n\n'
            '    while not states["stopped"]:\n'
            "        cmd = queue_in.get()\n"
            "        queue_out.put(method_call(cmd))\n\n\n"
            "class AsyncServer:\n"
            "    def __init__(self, path):\n"
            "        self.queue_in, self.queue_out = mp.Queue(), mp.Queue()\n"
            "        self.process = mp.Process(\n"
            "            target=main_loop, args=(self.queue_in, self.queue_out, path)\n"
            "        )\n\n"
            "    def submit(self, cmd, *args):\n"
            '        self.queue_in.put_nowait({"type": cmd, "args": args})\n'
            "        return self.queue_out.get()\n\n"
            "    def health(self):\n"
            '        return self.submit("health")\n\n'
            "    def encode(self, wav):\n"
            '        return self.submit("encode", wav)\n\n'
            "    def stop(self):\n"
            '        return self.submit("stop")\n\n'
            "    def flush(self):\n"
            '        return self.submit("flush")\n'
        ),
    }


STOP_ANSWERED = (
    '            if method_name == "stop":\n'
    '                states["stopped"] = True\n'
    '                return {"type": "response", "data": None}\n'
)


def test_a_name_the_loop_answers_before_its_lookup_is_written(tmp_path: Path) -> None:
    folder = project(tmp_path, _server(STOP_ANSWERED))
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
    assert surface["handlers"] == ["vox.server.ServerImpl"]
    assert surface["answered-before-lookup"] == ["stop"]
    assert (
        "vox/server.py:22: the loop answers 'stop' itself, before the lookup at vox/server.py:25"
        in text
    )
    checked = run_check(folder, "--format", "json", "--no-cache")
    # 'stop' is answered; 'flush' is not, and is still reported.
    assert [(m.symbol, m.line) for m in checked.messages] == [("rpc-unanswered", 56)]


# Shapes that prove nothing: the test is on another name, the branch only skips (no reply
# where the lookup's is returned), the test comes after the lookup.
NOT_ANSWERED = (
    '            if cmd["type"] == "stop":\n'
    '                return {"type": "response", "data": None}\n',
    '            if method_name == "stop":\n                return None\n',
    '            if method_name == "stop":\n                states["stopped"] = True\n',
)


def test_a_loop_test_that_does_not_answer_before_the_lookup_writes_nothing(
    tmp_path: Path,
) -> None:
    for number, branch in enumerate(NOT_ANSWERED):
        folder = project(tmp_path / str(number), _server(branch))
        written = run_cli(folder, "init")
        assert written.returncode == 0, written.stderr
        text = (folder / "pyproject.toml").read_text("utf-8")
        (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
        assert surface["handlers"] == ["vox.server.ServerImpl"], branch
        assert "answered-before-lookup" not in surface, branch


# The loop sends the reply itself: `if method == "stop": out.put(...)` then `continue`
# answers it before the lookup; without the `continue` it falls through to the lookup too.
def _inline(branch: str) -> dict[str, str]:
    return {
        "inl/__init__.py": "",
        "inl/worker.py": (
            "class Worker:\n"
            "    def load_model(self):\n        return True\n\n"
            "    def init_device(self):\n        return 0\n\n\n"
            "class WorkerProc:\n"
            "    def __init__(self, mq, out):\n"
            "        self.worker = Worker()\n"
            "        self.mq, self.out = mq, out\n\n"
            "    def busy_loop(self):\n"
            "        while True:\n"
            "            method, args = self.mq.dequeue()\n"
            f"{branch}"
            "            self.out.enqueue(getattr(self.worker, method)(*args))\n"
        ),
        "inl/executor.py": _executor(
            "from inl.worker import WorkerProc\n\n\n"
            "class Executor:\n"
            "    def __init__(self, mq, out):\n"
            "        self.mq, self.out = mq, out\n\n"
            "    def start(self):\n"
            "        WorkerProc(self.mq, self.out).busy_loop()\n\n",
            '"shutdown"',
        ),
    }


def test_a_loop_that_sends_its_own_reply_and_skips_the_lookup_answers_the_name(
    tmp_path: Path,
) -> None:
    sends = (
        '            if method in ("shutdown", "ping"):\n                self.out.enqueue(None)\n'
    )
    for number, (branch, answered) in enumerate(
        [(sends + "                continue\n", ["shutdown"]), (sends, None)]
    ):
        folder = project(tmp_path / str(number), _inline(branch))
        written = run_cli(folder, "init")
        assert written.returncode == 0, written.stderr
        text = (folder / "pyproject.toml").read_text("utf-8")
        (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
        assert surface["handlers"] == ["inl.worker.Worker"], branch
        assert surface.get("answered-before-lookup") == answered, branch


def test_a_name_one_loop_answers_and_another_looks_up_is_not_written(tmp_path: Path) -> None:
    """The executor starts two loops holding the same Worker: one answers 'shutdown'
    itself, the other looks it up on the worker, so it is not answered for the surface."""
    files = _inline(
        '            if method == "shutdown":\n'
        "                self.out.enqueue(None)\n"
        "                continue\n"
    )
    files["inl/plain.py"] = (
        "from inl.worker import Worker\n\n\n"
        "class PlainProc:\n"
        "    def __init__(self, mq, out):\n"
        "        self.worker = Worker()\n"
        "        self.mq, self.out = mq, out\n\n" + BUSY_LOOP
    )
    files["inl/executor.py"] = (
        files["inl/executor.py"]
        .replace(
            "from inl.worker import WorkerProc\n",
            "from inl.plain import PlainProc\nfrom inl.worker import WorkerProc\n",
        )
        .replace(
            "        WorkerProc(self.mq, self.out).busy_loop()\n",
            "        WorkerProc(self.mq, self.out).busy_loop()\n"
            "        PlainProc(self.mq, self.out).busy_loop()\n",
        )
    )
    folder = project(tmp_path, files)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    (surface,) = tomllib.loads(text)["tool"]["rpcsurface"]["surface"]
    assert surface["handlers"] == ["inl.worker.Worker"]
    assert "answered-before-lookup" not in surface

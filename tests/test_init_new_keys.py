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

import pytest
import test_most_specific
import test_payload_dispatch
import test_when
from support import line_of, marked_in, project, run_cli
from test_init_commented import located, uncommented

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
    # What it wrote, active or commented out, it does not propose again.
    again = run_cli(folder, "init", "--diff")
    assert (again.returncode, again.stdout) == (0, ""), again.stderr
    return folder, tomllib.loads(text)["tool"]["rpcsurface"]


def _hand(tmp_path: Path, files: dict[str, str], config: str) -> Path:
    return project(tmp_path / "hand", {**files, "pyproject.toml": config})


def _atom_tree(engine_core: str, model_runner: str) -> dict[str, str]:
    """An ATOM-like engine: its cores, its runners, and the worker process they start."""
    return {
        "atom/__init__.py": "",
        "atom/engine_core.py": engine_core,
        "atom/model_runner.py": model_runner,
        "atom/proc.py": PROC,
    }


def _without_proxies(config: str) -> str:
    """A checker test's hand-written table without its proxy tables: verl's trainer, not
    in these trees (init proposes no proxy tables)."""
    return config.split("[[tool.rpcsurface.proxy]]", 1)[0]


def _finds_as_hand_written(tmp_path: Path, folder: Path, files: dict[str, str], hand: str) -> None:
    """The oracle: ``check`` with init's table in *folder* finds what it finds with the
    hand-written table *hand*, and what the markers of *files* plant."""
    planted = marked_in(files)
    assert planted
    found = located(folder)
    assert found == located(_hand(tmp_path, files, hand))
    assert {(symbol, path, line) for path, line, symbol in found} == planted


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
SPECIFIC = _atom_tree(SPECIFIC_CORES, test_most_specific.MODEL_RUNNER)
SPECIFIC_HAND = _without_proxies(test_most_specific.CONFIG)


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
    _finds_as_hand_written(tmp_path, folder, SPECIFIC, SPECIFIC_HAND)


# --------------------------------------------------------------------------
# handler-args = "payload": the keywords sent as one dict, which the handler takes whole.
# --------------------------------------------------------------------------

# test_payload_dispatch's manager, which also starts the utility handler's loop.
PAYLOAD_CORE = _edited(
    test_payload_dispatch.CORE_MGR,
    ("import pickle\n", "import pickle\n\nfrom engine.utility import EngineUtilityHandler\n"),
    (
        "        self.sockets = sockets\n",
        "        self.sockets = sockets\n\n"
        "    def serve(self, inbox):\n        EngineUtilityHandler(inbox).handle()\n",
    ),
)
# Its utility handler, whose handle() receives the payload itself: it calls the command's
# handler with the one dict it received.
PAYLOAD_UTILITY = "import pickle\n\n\n" + _edited(
    test_payload_dispatch.UTILITY,
    (
        "    def handle(self, args):\n",
        "    def __init__(self, inbox):\n        self.inbox = inbox\n\n"
        "    def handle(self):\n        args = pickle.loads(self.inbox.recv())\n",
    ),
)
PAYLOAD_FILES = {
    "engine/__init__.py": "",
    "engine/core_mgr.py": PAYLOAD_CORE,
    "engine/utility.py": PAYLOAD_UTILITY,
}
PAYLOAD_HAND = test_payload_dispatch.PYPROJECT.format(handler_args=test_payload_dispatch.PAYLOAD)


def _payload_dispatch_named(table: dict[str, Any], method: str) -> dict[str, Any]:
    (dispatch,) = [d for d in table["dispatch"] if d["method"] == method]
    return dispatch  # type: ignore[no-any-return]


def _payload_dispatch(table: dict[str, Any]) -> dict[str, Any]:
    return _payload_dispatch_named(table, "broadcast_utility_command")


def test_keywords_packed_into_the_one_value_a_handler_gets_are_a_payload(tmp_path: Path) -> None:
    folder, table = _init(tmp_path, PAYLOAD_FILES)
    assert _payload_dispatch(table)["handler-args"] == "payload"
    text = (folder / "pyproject.toml").read_text("utf-8")
    sends = line_of(PAYLOAD_CORE, "socket.send(pickle.dumps(payload))")
    calls = line_of(PAYLOAD_UTILITY, "getattr(self, handler_name)(args)")
    assert f"engine/core_mgr.py:{sends}:" in text
    assert f"engine/utility.py:{calls}:" in text
    # The oracle: what test_payload_dispatch's hand-written table finds here, and what it
    # says of these senders: _handle_pause takes no argument, _handle_resume wants a
    # second, _handle_sleep reads args["level"] where its sender packs lvl.
    expected = {
        (
            "engine/core_mgr.py",
            line_of(PAYLOAD_CORE, f'command("{command}"'),
            "rpc-handler-signature",
        )
        for command in ("pause", "resume", "sleep")
    }
    assert located(_hand(tmp_path, PAYLOAD_FILES, PAYLOAD_HAND)) == expected
    assert located(folder) == expected


def test_a_loop_that_unpacks_the_payload_is_mixed_evidence(tmp_path: Path) -> None:
    # The loop calls the handler with the dict's keywords: not the one dict.
    unpacked = _edited(
        PAYLOAD_UTILITY,
        ("getattr(self, handler_name)(args)", "getattr(self, handler_name)(**args)"),
    )
    folder, table = _init(tmp_path, {**PAYLOAD_FILES, "engine/utility.py": unpacked})
    assert "handler-args" not in _payload_dispatch(table)
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert "# handler-args: not written, the evidence is mixed:" in text
    calls = line_of(unpacked, "getattr(self, handler_name)(**args)")
    assert f"engine/utility.py:{calls}: the loop calls the handler as" in text


# The loop's call of the handler is a run_method helper's (not read as the loop's own):
# the handler methods say what they take.
HELPER_PAYLOAD = {
    "svc/__init__.py": "",
    "svc/manager.py": """\
from svc.server import Server


class Manager:
    def __init__(self, queue):
        self.queue = queue

    def serve(self):
        Server(self.queue).loop()

    def send_command(self, name, **kwargs):
        self.queue.put((name, kwargs))

    def load(self, path):
        self.send_command("load", path=path)

    def unload(self):
        self.send_command("unload")
""",
    "svc/server.py": """\
def run_method(obj, method, payload):
    return getattr(obj, method)(payload)


class Worker:
    def load(self, args):
        return args["path"]

    def unload(self, args):
        return args


class Server:
    def __init__(self, queue):
        self.queue = queue
        self.worker = Worker()

    def loop(self):
        while True:
            name, payload = self.queue.get()
            run_method(self.worker, name, payload)
""",
}
HELPER_HAND = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "send_command"
handler-args = "payload"

[[tool.rpcsurface.surface]]
name = "worker"
callers = ["svc.manager.Manager"]
handlers = ["svc.server.Worker"]
"""


def test_handler_methods_that_each_take_the_one_dict_are_a_payload(tmp_path: Path) -> None:
    folder, table = _init(tmp_path, HELPER_PAYLOAD)
    assert _payload_dispatch_named(table, "send_command")["handler-args"] == "payload"
    text = (folder / "pyproject.toml").read_text("utf-8")
    load = line_of(HELPER_PAYLOAD["svc/server.py"], "def load(self, args):")
    assert f"svc/server.py:{load}: Worker.load() takes one positional argument" in text
    # Without the key, send_command("unload") would forward no argument to unload(args).
    assert located(folder) == located(_hand(tmp_path, HELPER_PAYLOAD, HELPER_HAND)) == set()


def test_handler_methods_that_disagree_are_mixed_evidence(tmp_path: Path) -> None:
    server = _edited(
        HELPER_PAYLOAD["svc/server.py"], ("def unload(self, args):", "def unload(self):")
    )
    folder, table = _init(tmp_path, {**HELPER_PAYLOAD, "svc/server.py": server})
    assert "handler-args" not in _payload_dispatch_named(table, "send_command")
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert "# handler-args: not written, the evidence is mixed:" in text
    unload = line_of(server, "def unload(self):")
    assert f"svc/server.py:{unload}: Worker.unload() does not take one positional argument" in text


# --------------------------------------------------------------------------
# when: a flag of the caller chooses its runner and guards its calls.
# --------------------------------------------------------------------------

# test_when's ATOM-like core, which builds its runner from the class the flag chooses.
WHEN_CORE = _edited(
    test_when.ENGINE,
    (
        "class EngineCore:\n"
        "    def __init__(self, mgr, config):\n"
        "        self.mgr = mgr\n"
        "        self.use_rapidserve = config.use_rapidserve\n",
        "from atom.model_runner import ModelRunner, RapidServeModelRunner\n"
        "from atom.proc import ProcManager\n\n\n"
        "class EngineCore:\n"
        "    def __init__(self, config):\n"
        "        self.use_rapidserve = config.use_rapidserve\n"
        "        if self.use_rapidserve:\n"
        "            runner_cls = RapidServeModelRunner\n"
        "        else:\n"
        "            runner_cls = ModelRunner\n"
        "        self.mgr = ProcManager(runner_cls)\n",
    ),
)
WHEN = _atom_tree(WHEN_CORE, test_when.RUNNERS)
WHEN_HAND = _without_proxies(test_when.CONFIG)


_CHOOSER = (
    "        if self.use_rapidserve:\n"
    "            runner_cls = RapidServeModelRunner\n"
    "        else:\n"
    "            runner_cls = ModelRunner\n"
    "        self.mgr = ProcManager(runner_cls)\n"
)
# Other ways the flag chooses: each branch builds the manager, or a conditional
# expression picks the class (the same lines, so the markers stay where they were).
FLAG_FORMS = {
    "a class per branch": _CHOOSER,
    "a manager per branch": _CHOOSER.replace(
        "runner_cls = RapidServeModelRunner", "self.mgr = ProcManager(RapidServeModelRunner)"
    )
    .replace("runner_cls = ModelRunner", "self.mgr = ProcManager(ModelRunner)")
    .replace("        self.mgr = ProcManager(runner_cls)\n", "        pass\n"),
    "a conditional expression": (
        "        runner_cls = (\n"
        "            RapidServeModelRunner\n"
        "            if self.use_rapidserve else ModelRunner\n"
        "        )\n"
        "        self.mgr = ProcManager(runner_cls)\n"
    ),
}


@pytest.mark.parametrize("form", sorted(FLAG_FORMS))
def test_a_flag_choosing_the_runner_and_guarding_the_calls_gives_when_tables(
    tmp_path: Path, form: str
) -> None:
    files = {**WHEN, "atom/engine_core.py": _edited(WHEN_CORE, (_CHOOSER, FLAG_FORMS[form]))}
    folder, table = _init(tmp_path, files)
    # engine_core.py: under `self.use_rapidserve` the runner is RapidServeModelRunner,
    # else ModelRunner; step() and misrouted() send under the same test or its negation,
    # and start()'s load_model, under neither, is answered by both runners.
    whens = {s["when"]: s["handlers"] for s in table["surface"]}
    assert whens == {
        "self.use_rapidserve": ["atom.model_runner.RapidServeModelRunner"],
        "not self.use_rapidserve": ["atom.model_runner.ModelRunner"],
    }
    assert all(s["callers"] == ["atom.engine_core.EngineCore"] for s in table["surface"])
    _finds_as_hand_written(tmp_path, folder, files, WHEN_HAND)


def test_a_call_under_neither_value_of_the_flag_leaves_the_when_tables_unproven(
    tmp_path: Path,
) -> None:
    # forward, which only ModelRunner answers, sent whatever the flag is.
    unguarded = _edited(
        WHEN_CORE,
        (
            "    def start(self):\n",
            "    def warm(self, batch):\n"
            '        return self.mgr.call_func("forward", batch, wait_out=True)\n\n'
            "    def start(self):\n",
        ),
    )
    folder, table = _init(tmp_path, {**WHEN, "atom/engine_core.py": unguarded})
    assert "surface" not in table  # nothing unproven is active
    text = (folder / "pyproject.toml").read_text("utf-8")
    warm = line_of(unguarded, "def warm(self, batch):") + 1
    assert f"atom/engine_core.py:{warm} sends 'forward'" in text
    assert text.count("# Not proven: the surface of atom.engine_core.EngineCore") == 2
    # Confirmed and uncommented, both load: the hand-written tables, found as they find.
    (folder / "pyproject.toml").write_text(uncommented(text), "utf-8")
    confirmed = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))
    assert {s["when"] for s in confirmed["tool"]["rpcsurface"]["surface"]} == {
        "self.use_rapidserve",
        "not self.use_rapidserve",
    }
    hand = _hand(tmp_path, {**WHEN, "atom/engine_core.py": unguarded}, WHEN_HAND)
    assert located(folder) == located(hand)


# --------------------------------------------------------------------------
# Ray proxies: actor handles kept on an attribute the callers call by name.
# --------------------------------------------------------------------------

RAY = {
    "rl/__init__.py": "",
    "rl/actors.py": """\
import ray


@ray.remote
class PolicyActor:
    def fit(self, batch):
        return len(batch)

    def save(self, step):
        return step


class CriticActor:
    def evaluate(self):
        return 0.5
""",
    "rl/trainer.py": """\
import ray

from rl.actors import CriticActor, PolicyActor


class Trainer:
    def __init__(self, config):
        self.policy = PolicyActor.remote()
        self.critic = ray.remote(CriticActor).remote()
        self.workers = [PolicyActor.options(num_gpus=1).remote() for _ in range(config.n)]
        self.spare = None

    def step(self, batch):
        ray.get(self.policy.fit.remote(batch))
        ray.get(self.critic.evaluate.remote())
        self.critic.save.remote(1)  # [rpc-proxy-unanswered]
        return ray.get(self.workers[0].fit.remote(batch, 2))  # [rpc-handler-signature]

    def shutdown(self):
        self.policy.__ray_terminate__.remote()
""",
}
RAY_HAND = """\
[tool.rpcsurface]

[[tool.rpcsurface.proxy]]
name = "policy"
callers = ["rl.trainer.Trainer"]
receivers = ["self.policy", "self.workers"]
handlers = ["rl.actors.PolicyActor"]
remote = true

[[tool.rpcsurface.proxy]]
name = "critic"
callers = ["rl.trainer.Trainer"]
receivers = ["self.critic"]
handlers = ["rl.actors.CriticActor"]
remote = true
"""


def test_actor_handles_kept_on_an_attribute_are_proxy_tables(tmp_path: Path) -> None:
    folder, table = _init(tmp_path, RAY)
    # trainer.py: self.policy and self.workers hold PolicyActor actors (an @ray.remote
    # class's .remote(), .options(...).remote() in a list), self.critic a
    # ray.remote(CriticActor) actor; self.spare is None and called nothing on.
    proxies = {tuple(p["receivers"]): (p["handlers"], p["remote"]) for p in table["proxy"]}
    assert proxies == {
        ("self.critic",): (["rl.actors.CriticActor"], True),
        ("self.policy", "self.workers"): (["rl.actors.PolicyActor"], True),
    }
    assert all(p["callers"] == ["rl.trainer.Trainer"] for p in table["proxy"])
    _finds_as_hand_written(tmp_path, folder, RAY, RAY_HAND)


def test_a_handle_also_bound_to_something_else_is_no_proxy(tmp_path: Path) -> None:
    trainer = _edited(
        RAY["rl/trainer.py"],
        (
            "        self.spare = None\n",
            "        self.spare = None\n\n    def swap(self, other):\n"
            "        self.critic = other\n",
        ),
    )
    _, table = _init(tmp_path, {**RAY, "rl/trainer.py": trainer})
    # self.critic may hold what swap() is given: its handler is not proven.
    assert [p["receivers"] for p in table["proxy"]] == [["self.policy", "self.workers"]]

"""``rpcsurface init`` proposes a table surface where the code proves one: the worker loop
the dispatch's senders name (they start it, or import it) looks the received name up in
a table and calls the result. The table is read by the checker's own reader, so a table
written is one ``check`` reads; one it can't read (changed at run time, say) is a note,
never a key. Each case runs the real ``rpcsurface`` command, then ``check`` on what it
wrote, with a name planted that the table lacks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support import project, run_check, run_cli

from pylint_rpcsurface.config import load_config

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

CLIENT = """\
from eng.core import EngineCoreProc


class EngineClient:
    def start(self, sock_in, sock_out):
        return EngineCoreProc(sock_in, sock_out)

    def broadcast_utility_command_sync(self, method, *args):
        self.sock_out.send_pyobj((method, args))
        return self.sock_in.recv_pyobj()

    def run(self):
        self.broadcast_utility_command_sync("sleep", 1)
        self.broadcast_utility_command_sync("wake_up")
        self.broadcast_utility_command_sync("clear_kv_cache")
"""

# An unrelated mixin defines every name sent: overlap, which the table outranks.
MIXIN = """\
class MemoryManagerMixin:
    def sleep(self, level):
        return level

    def wake_up(self):
        return True

    def clear_kv_cache(self):
        return None
"""

# The instance attribute of method references, called where it is read.
BY_REFERENCE = """\
class EngineCoreProc:
    def __init__(self, sock_in, sock_out):
        self.sock_in, self.sock_out = sock_in, sock_out
        self._handlers = {
            "sleep": self._sleep,
            "wake_up": self._wake_up,
            "clear_kv_cache": self._clear,
        }

    def loop(self):
        while True:
            method, args = self.sock_in.recv_pyobj()
            self.sock_out.send_pyobj(self._handlers[method](*args))

    def _sleep(self, level):
        return level

    def _wake_up(self):
        return True

    def _clear(self):
        return True
"""

# A ClassVar of method names on a base class, read with .get and run with getattr (the
# seed engine's _UTILITY_HANDLERS).
BY_NAME = """\
from typing import ClassVar


class UtilityHandler:
    _UTILITY_HANDLERS: ClassVar[dict[str, str]] = {
        "sleep": "_handle_sleep",
        "wake_up": "_handle_wake_up",
        "clear_kv_cache": "_handle_clear",
    }

    def _handle_sleep(self, level):
        return level

    def _handle_wake_up(self):
        return True

    def _handle_clear(self):
        return True


class EngineCoreProc(UtilityHandler):
    def __init__(self, sock_in, sock_out):
        self.sock_in, self.sock_out = sock_in, sock_out

    def loop(self):
        while True:
            command, args = self.sock_in.recv_pyobj()
            handler_name = self._UTILITY_HANDLERS.get(command)
            if handler_name is None:
                continue
            self.sock_out.send_pyobj(getattr(self, handler_name)(*args))
"""

# A module constant of functions, looked up in a function the class's loop calls.
BY_FUNCTION = """\
def sleep(level):
    return level


def wake_up():
    return True


def clear_kv_cache():
    return True


COMMANDS = {"sleep": sleep, "wake_up": wake_up, "clear_kv_cache": clear_kv_cache}


class EngineCoreProc:
    def __init__(self, sock_in, sock_out):
        self.sock_in, self.sock_out = sock_in, sock_out

    def loop(self):
        while True:
            name, args = self.sock_in.recv_pyobj()
            run = COMMANDS[name]
            self.sock_out.send_pyobj(run(*args))
"""


@pytest.mark.parametrize(
    ("core", "table"),
    [
        (BY_REFERENCE, "eng.core.EngineCoreProc._handlers"),
        (BY_NAME, "eng.core.UtilityHandler._UTILITY_HANDLERS"),
        (BY_FUNCTION, "eng.core.COMMANDS"),
    ],
    ids=["instance-dict-of-references", "classvar-of-names-on-a-base", "module-dict-of-functions"],
)
def test_a_table_the_receive_side_reads_is_written_and_check_reads_it(
    tmp_path: Path, core: str, table: str
) -> None:
    files = {
        "eng/__init__.py": "",
        "eng/memory.py": MIXIN,
        "eng/core.py": core,
        "eng/client.py": CLIENT,
    }
    folder = project(tmp_path, files)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    config = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    assert config["dispatch"] == [{"method": "broadcast_utility_command_sync", "waits": True}]
    (surface,) = config["surface"]
    assert surface["tables"] == [table]
    assert surface["callers"] == ["eng.client.EngineClient"]
    assert surface["dispatch"] == ["broadcast_utility_command_sync"]
    assert "handlers" not in surface  # the mixin that shares the names is not written
    clean = run_check(folder, "--format", "json", "--no-cache")
    assert clean.returncode == 0, clean.stderr
    assert not clean.messages
    # The written table is live: a command it lacks is unanswered, at its literal.
    client = CLIENT + '        self.broadcast_utility_command_sync("profile")\n'
    (folder / "eng/client.py").write_text(client, "utf-8")
    planted = run_check(folder, "--format", "json", "--no-cache")
    line = client.splitlines().index('        self.broadcast_utility_command_sync("profile")') + 1
    assert [(m.symbol, m.path, m.line) for m in planted.messages] == [
        ("rpc-unanswered", "eng/client.py", line)
    ]


def test_a_table_nothing_links_to_the_senders_is_not_written(tmp_path: Path) -> None:
    """The client neither starts nor imports the loop's class: which loop answers its
    sends is not in the code, so no table is proposed (and the mixin is overlap only)."""
    client = CLIENT.replace("from eng.core import EngineCoreProc\n\n\n", "").replace(
        "        return EngineCoreProc(sock_in, sock_out)", "        return None"
    )
    files = {
        "eng/__init__.py": "",
        "eng/memory.py": MIXIN,
        "eng/core.py": BY_REFERENCE,
        "eng/client.py": client,
    }
    folder = project(tmp_path, files)
    shown = run_cli(folder, "init", "--diff")
    assert shown.returncode == 1, shown.stderr
    assert "tables = [" not in shown.stdout
    assert "candidates by overlap only" in shown.stderr
    assert not (folder / "pyproject.toml").exists()
    # The dispatch is written; the mixin only as a commented-out surface to confirm.
    assert run_cli(folder, "init").returncode == 0
    assert load_config(folder / "pyproject.toml").surfaces == ()
    assert '#     "eng.memory.MemoryManagerMixin",' in (folder / "pyproject.toml").read_text()


def test_a_table_changed_at_run_time_is_a_note_and_not_written(tmp_path: Path) -> None:
    core = BY_REFERENCE.replace(
        "    def loop(self):",
        '    def register(self, fn):\n        self._handlers["x"] = fn\n\n    def loop(self):',
    )
    files = {
        "eng/__init__.py": "",
        "eng/memory.py": MIXIN,
        "eng/core.py": core,
        "eng/client.py": CLIENT,
    }
    folder = project(tmp_path, files)
    shown = run_cli(folder, "init", "--diff")
    assert "tables = [" not in shown.stdout
    line = (
        core.splitlines().index(
            "            self.sock_out.send_pyobj(self._handlers[method](*args))"
        )
        + 1
    )
    assert (
        f"eng/core.py:{line}: loop() answers broadcast_utility_command_sync() from "
        "eng.core.EngineCoreProc._handlers, which is changed after it is made"
    ) in shown.stderr


# LMDeploy's requests: sent as enum members; the manager's table is filled at run time by
# bind_func, called from the engine's binding method; the manager builds the senders.
REQUEST = """\
import enum


class RequestType(enum.Enum):
    ADD = enum.auto()
    STOP = enum.auto()
    END = enum.auto()


class RequestSender:
    def __init__(self, manager):
        self.manager = manager

    def _put(self, reqs):
        self.manager.requests.put_nowait(reqs)

    def send_async(self, req_type, data):
        return self._put((req_type, data))

    def send(self, req_type, data):
        self.send_async(req_type, data)
        return self.manager.replies.get()


class RequestManager:
    def __init__(self):
        self.callbacks = dict()
        self.requests = None
        self.replies = None

    def build_sender(self):
        return RequestSender(self)

    def bind_func(self, req_type, callback):
        self.callbacks[req_type] = callback

    def process_request(self, req_type, reqs):
        func = self.callbacks.get(req_type, None)
        if func is not None:
            func(reqs)
"""

ENGINE = """\
from eng.request import RequestManager, RequestType


class Engine:
    def __init__(self):
        self.req_manager = self._bind_request_manager()

    def _bind_request_manager(self):
        req_manager = RequestManager()
        req_manager.bind_func(RequestType.ADD, self._on_add)
        req_manager.bind_func(RequestType.STOP, self._on_stop)
        return req_manager

    def _on_add(self, reqs):
        return reqs

    def _on_stop(self, reqs):
        return reqs
"""

INSTANCE = """\
from eng.request import RequestType


class EngineInstance:
    def __init__(self, engine):
        self.req_sender = engine.req_manager.build_sender()

    def add(self):
        return self.req_sender.send(RequestType.ADD, None)

    def stop(self):
        return self.req_sender.send(RequestType.STOP, None)
"""


def _requests(tmp_path: Path, request: str = REQUEST) -> Path:
    files = {
        "eng/__init__.py": "",
        "eng/request.py": request,
        "eng/engine.py": ENGINE,
        "eng/instance.py": INSTANCE,
    }
    return project(tmp_path, files)


def test_a_table_a_binding_method_fills_is_written_for_enum_members_sent(
    tmp_path: Path,
) -> None:
    folder = _requests(tmp_path)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    config = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    assert [d["method"] for d in config["dispatch"]] == ["send"]
    (surface,) = config["surface"]
    assert surface["tables"] == ["eng.engine.Engine._bind_request_manager"]
    assert surface["callers"] == ["eng.instance.EngineInstance"]
    assert surface["dispatch"] == ["send"]
    clean = run_check(folder, "--format", "json", "--no-cache")
    assert clean.returncode == 0, clean.stderr
    assert not clean.messages
    # A member the engine binds no callback for is unanswered, at the member sent.
    instance = (
        INSTANCE
        + "\n    def end(self):\n        return self.req_sender.send(RequestType.END, None)\n"
    )
    (folder / "eng/instance.py").write_text(instance, "utf-8")
    planted = run_check(folder, "--format", "json", "--no-cache")
    line = len(instance.splitlines())
    assert [(m.symbol, m.path, m.line) for m in planted.messages] == [
        ("rpc-unanswered", "eng/instance.py", line)
    ]


@pytest.mark.parametrize(
    "change",
    [
        # Another method changes the table too: its entries are not all bound by calls.
        "    def merge(self, more):\n        self.callbacks.update(more)\n",
        # The table starts with an entry the binding method did not make.
        None,
    ],
    ids=["updated-elsewhere", "not-empty-at-first"],
)
def test_a_table_filled_other_than_by_its_binding_method_is_not_written(
    tmp_path: Path, change: str | None
) -> None:
    if change is None:
        request = REQUEST.replace(
            "self.callbacks = dict()", "self.callbacks = {RequestType.END: print}"
        )
    else:
        request = REQUEST.replace(
            "    def build_sender(self):", change + "\n    def build_sender(self):", 1
        )
    folder = _requests(tmp_path, request)
    shown = run_cli(folder, "init", "--diff")
    assert "tables = [" not in shown.stdout, shown.stdout


def test_beside_a_table_surface_a_handler_surface_names_its_dispatch(tmp_path: Path) -> None:
    """A project with both: the executor's `call` looked up on its worker, and the
    requests answered by the manager's table. Without a dispatch list each surface would
    judge the other's calls (the executor's `self.requests.send(...)` sends no literal)."""
    executor = """\
from eng.request import RequestManager


class Worker:
    def load(self):
        return 1

    def step(self):
        return 2


class WorkerProc:
    def __init__(self, mq, out):
        self.worker = Worker()
        self.mq, self.out = mq, out

    def busy_loop(self):
        while True:
            method, args = self.mq.get()
            self.out.put(getattr(self.worker, method)(*args))


class Executor:
    def __init__(self, mq, out):
        self.mq, self.out = mq, out
        self.manager = RequestManager()

    def start(self):
        return WorkerProc(self.mq, self.out)

    def call(self, method, *args):
        self.mq.put((method, args))
        return self.out.get()

    def setup(self, payload):
        self.call("load")
        self.call("step")
        self.manager.requests.send(payload)
"""
    folder = _requests(tmp_path)
    (folder / "eng/executor.py").write_text(executor, "utf-8")
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    config = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    surfaces = {s["name"]: s for s in config["surface"]}
    assert surfaces["Worker"]["dispatch"] == ["call"]
    assert surfaces["bind_request_manager"]["dispatch"] == ["send"]
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 0, checked.stderr
    assert not checked.messages

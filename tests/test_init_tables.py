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
    assert shown.returncode == 2, shown.stderr
    assert "tables = [" not in shown.stdout
    assert "candidates by overlap only" in shown.stderr
    assert not (folder / "pyproject.toml").exists()


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

"""``handler-args = "payload"`` on a dispatch table (issue 46, item 3): the worker calls the
handler with one dict of the keywords sent, as an inference engine's utility commands do
(``broadcast_utility_command(self, cmd, **kwargs)`` sends ``{"cmd": cmd, **kwargs}``; the
worker runs ``getattr(self, handler_name)(args)``). Each ``_handle_x(self, args)`` takes
that dict: no finding. A handler that can't take one positional argument is
``rpc-handler-signature``, and so is one that reads ``args["k"]`` on every run when a
sender's payload lacks ``k``. Run as users run it: the ``rpcsurface`` console script and
pylint, which must agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import describe_run, line_of, project, run_check, run_cli, run_pylint

PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "broadcast_utility_command"
{handler_args}

[[tool.rpcsurface.surface]]
name = "utility"
callers = ["engine.core_mgr.CoreManager"]
tables = ["engine.utility.EngineUtilityHandler._UTILITY_HANDLERS"]
"""

# The sender: the dispatch method packs the command and its keywords into one dict.
CORE_MGR = """\
import pickle


class CoreManager:
    def __init__(self, sockets):
        self.sockets = sockets

    def broadcast_utility_command(self, cmd, **kwargs):
        payload = {"cmd": cmd, **kwargs}
        for socket in self.sockets:
            socket.send(pickle.dumps(payload))

    def clear_kv_cache(self):
        self.broadcast_utility_command("clear_kv_cache")

    def abort_request(self, req_id):
        self.broadcast_utility_command("abort_request", req_id=req_id)

    def sleep(self, level):
        self.broadcast_utility_command("sleep", lvl=level)

    def pause(self):
        self.broadcast_utility_command("pause")

    def resume(self):
        self.broadcast_utility_command("resume", tag="all")

    def profile(self, options):
        self.broadcast_utility_command("profile", **options)
"""

# The receiver: the table names each command's method, which it calls with the payload.
UTILITY = """\
class EngineUtilityHandler:
    _UTILITY_HANDLERS = {
        "clear_kv_cache": "_handle_clear_kv_cache",
        "abort_request": "_handle_abort_request",
        "sleep": "_handle_sleep",
        "pause": "_handle_pause",
        "resume": "_handle_resume",
        "profile": "_handle_profile",
    }

    def handle(self, args):
        handler_name = self._UTILITY_HANDLERS[args["cmd"]]
        return getattr(self, handler_name)(args)

    def _handle_clear_kv_cache(self, args):
        return args["cmd"]

    def _handle_abort_request(self, args):
        req_id = args["req_id"]
        return req_id

    def _handle_sleep(self, args):
        level = args["level"]
        return level

    def _handle_pause(self):
        return True

    def _handle_resume(self, args, tag):
        return tag

    def _handle_profile(self, args):
        return args["steps"]
"""

PAYLOAD = 'handler-args = "payload"'


def _project(tmp_path: Path, handler_args: str = PAYLOAD, core_mgr: str = CORE_MGR) -> Path:
    return project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT.format(handler_args=handler_args),
            "engine/__init__.py": "",
            "engine/core_mgr.py": core_mgr,
            "engine/utility.py": UTILITY,
        },
    )


def _sent(command: str) -> tuple[str, str, int]:
    return (
        "rpc-handler-signature",
        "engine/core_mgr.py",
        line_of(CORE_MGR, f'broadcast_utility_command("{command}"'),
    )


def test_payload_handlers_are_judged_as_called_with_one_dict(tmp_path: Path) -> None:
    root = _project(tmp_path)
    check = run_check(root, "--format", "json", "--no-cache")
    found = {(m.symbol, m.path, m.line) for m in check.messages}
    # _handle_pause takes no argument; _handle_resume wants a second one; _handle_sleep
    # reads args["level"] while its sender packs lvl. "cmd" is the dispatch's own key;
    # "profile" sends **options, whose keys are not known: not judged for its reads.
    assert found == {_sent("pause"), _sent("resume"), _sent("sleep")}, check
    texts = {m.line: m.text for m in check.messages}
    assert (
        "takes (): it takes 0 positional argument(s) but 1 were given" in texts[_sent("pause")[2]]
    )
    assert "it is missing required argument(s) 'tag'" in texts[_sent("resume")[2]]
    assert "one payload dict of the keywords 'cmd', 'lvl'" in texts[_sent("sleep")[2]]
    assert "it reads args['level'], which the payload lacks" in texts[_sent("sleep")[2]]
    linted = run_pylint(root, "--recursive=y", "engine")
    assert {(m.symbol, m.path, m.line, m.column, m.text) for m in linted.messages} == {
        (m.symbol, m.path, m.line, m.column, m.text) for m in check.messages
    }, describe_run(linted)


def test_forwarded_is_the_default_and_binds_the_arguments_after_the_name(
    tmp_path: Path,
) -> None:
    # Without the key, a command sent alone forwards no argument: the one-dict handlers
    # are then said to miss theirs (the false findings the key removes).
    root = _project(tmp_path, handler_args="")
    check = run_check(root, "--format", "json", "--no-cache")
    assert _sent("clear_kv_cache") in {(m.symbol, m.path, m.line) for m in check.messages}


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ('key = "type"', 'expected "payload" without key = "type"'),
        ('kwargs-from = "kwargs"', 'expected "payload" without kwargs-from'),
        ('args-from = "args"', 'expected "payload" without args-from'),
        ('handler-args = "packed"', "expected 'forwarded' or 'payload', got 'packed'"),
    ],
)
def test_a_payload_with_what_contradicts_it_is_a_configuration_error(
    tmp_path: Path, extra: str, expected: str
) -> None:
    handler_args = PAYLOAD if extra.startswith(("key", "kwargs", "args")) else ""
    root = _project(tmp_path, handler_args=f"{handler_args}\n{extra}")
    run = run_cli(root, "check", "--no-cache")
    assert run.returncode == 2, run
    assert "tool.rpcsurface.dispatch[0].handler-args" in run.stdout + run.stderr, run
    assert expected in run.stdout + run.stderr, run
    assert "Traceback" not in run.stderr

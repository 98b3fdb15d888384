"""``rpcsurface init`` on a project shaped like the seed's engine (a seed-shaped engine).

``tests/fixtures/init_seed``: the RapidServe engine cores are subclasses of ``EngineCore``
(``runner_cls = ModelRunner``) beside a sibling core holding another runner; the worker's
busy loop gets each name through ``self.get_func()`` and calls the looked-up callable only
``if func is not None``; ``call_func`` drains stale replies before it sends. Each test runs
the real ``rpcsurface`` console script; the expected values are read from the fixture's
code (its comments say why), not from init's output.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from support import ROOT, marked_findings, project, run_check, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

FIXTURE = ROOT / "tests" / "fixtures" / "init_seed"


def _init(tmp_path: Path) -> tuple[Path, str, dict[str, object]]:
    folder = Path(shutil.copytree(FIXTURE, tmp_path / "init_seed"))
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    table = tomllib.loads(text)["tool"]["rpcsurface"]
    return folder, text, table


def _line(folder: Path, relpath: str, needle: str) -> int:
    """The line of *relpath* holding *needle* (once)."""
    lines = (folder / relpath).read_text("utf-8").splitlines()
    (found,) = [number for number, line in enumerate(lines, 1) if needle in line]
    return found


def _comment(text: str, key: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(f"{key} = ")]
    return line.split("#", 1)[1]


def test_each_core_is_the_caller_of_the_runner_it_holds(tmp_path: Path) -> None:
    folder, _, table = _init(tmp_path)
    surfaces = {s["name"]: s for s in table["surface"]}  # type: ignore[union-attr]
    assert sorted(surfaces) == ["DraftModelRunner", "ModelRunner", "RapidServeModelRunner"]
    # engine_core.py: the base EngineCore's runner_cls is ModelRunner; its table judges
    # its own calls, each subclass's the nearest configured ancestor's table.
    base = surfaces["ModelRunner"]
    assert base["callers"] == ["rapid.engine_core.EngineCore"]
    assert base["handlers"] == ["rapid.model_runner.ModelRunner"]
    rapid = surfaces["RapidServeModelRunner"]
    # engine_core.py: the two cores whose runner_cls is RapidServeModelRunner; their
    # base EngineCore holds a ModelRunner and DraftEngineCore a DraftModelRunner.
    assert rapid["callers"] == [
        "rapid.engine_core.DecodeEngineCore",
        "rapid.engine_core.PrefillEngineCore",
    ]
    assert rapid["handlers"] == ["rapid.model_runner.RapidServeModelRunner"]
    assert rapid["base-handlers"] == ["rapid.model_runner.ModelRunner"]
    assert rapid["registry"] == "rapid.config.RAPIDSERVE_RPCS"
    draft = surfaces["DraftModelRunner"]
    assert draft["callers"] == ["rapid.engine_core.DraftEngineCore"]
    assert draft["handlers"] == ["rapid.model_runner.DraftModelRunner"]
    # With the table written, check gives what the fixture plants, and nothing about
    # the sibling's names (no propose_draft unanswered by the RapidServe runner).
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 1, checked.stderr
    planted = {
        (symbol, "rapid/engine_core.py", line)
        for symbol, line in marked_findings((folder / "rapid/engine_core.py").read_text("utf-8"))
    }
    assert planted
    assert {(m.symbol, m.path, m.line) for m in checked.messages} == planted


def test_the_worker_loop_facts_are_read_through_the_get_func_helper(tmp_path: Path) -> None:
    folder, text, table = _init(tmp_path)
    (dispatch,) = table["dispatch"]  # type: ignore[misc]
    assert dispatch["method"] == "call_func"
    # async_proc.py: `if func is not None:` before the call: an unknown name is skipped;
    # `if out is not None: self.replies.put_nowait(out)`: one queue, the bare result.
    assert dispatch["unknown-name"] == "skipped"
    assert dispatch["drops-none"] is True
    assert dispatch["shared-reply-queue"] is True
    put = _line(folder, "rapid/async_proc.py", "self.replies.put_nowait(out)")
    assert f"rapid/async_proc.py:{put}:" in _comment(text, "drops-none")


def test_the_evidence_cites_the_receive_and_the_test_of_none(tmp_path: Path) -> None:
    folder, text, table = _init(tmp_path)
    (dispatch,) = table["dispatch"]  # type: ignore[misc]
    # The receive after the send, under `if wait_out:`; not the drain loop before it.
    assert dispatch["waits"] == "wait_out"
    receive = _line(folder, "rapid/async_proc.py", "return self.replies.get()")
    drain = _line(folder, "rapid/async_proc.py", "self.replies.get_nowait()")
    assert f"rapid/async_proc.py:{receive}:" in _comment(text, "waits")
    assert f"rapid/async_proc.py:{drain}:" not in text
    # The line after the getattr tests for None: that line is the evidence.
    test = _line(folder, "rapid/async_proc.py", "if func is not None:")
    assert f"rapid/async_proc.py:{test}:" in _comment(text, "unknown-name")
    assert "no test of None" not in text


# The callable, not the name, comes back from the helper: `func, args = self.get_func()`,
# where get_func does the getattr; the loop tests it for None and puts the reply.
CALLABLE_HELPER = {
    "svc/__init__.py": "",
    "svc/runner.py": (
        "class Runner:\n"
        "    def load(self):\n        return True\n\n"
        "    def warm(self):\n        return None\n"
    ),
    "svc/proc.py": (
        "from svc.runner import Runner\n\n\n"
        "class Proc:\n"
        "    def __init__(self, inbox, outbox):\n"
        "        self.runner = Runner()\n"
        "        self.inbox, self.outbox = inbox, outbox\n\n"
        "    def get_func(self):\n"
        "        name, *args = self.inbox.get()\n"
        "        func = getattr(self.runner, name, None)\n"
        "        return func, args\n\n"
        "    def busy_loop(self):\n"
        "        while True:\n"
        "            func, args = self.get_func()\n"
        "            if func is None:\n"
        "                continue\n"
        "            out = func(*args)\n"
        "            if out is not None:\n"
        "                self.outbox.put_nowait(out)\n\n\n"
        "class Client:\n"
        "    def __init__(self, inbox, outbox):\n"
        "        self.inbox, self.outbox = inbox, outbox\n\n"
        "    def start(self):\n"
        "        Proc(self.inbox, self.outbox).busy_loop()\n\n"
        "    def call(self, method, *args, wait=False):\n"
        "        self.inbox.put((method, *args))\n"
        "        if wait:\n"
        "            return self.outbox.get()\n"
        "        return None\n\n"
        "    def setup(self):\n"
        '        self.call("load", wait=True)\n'
        '        self.call("warm")\n'
    ),
}


def test_a_helper_returning_the_looked_up_callable_is_followed(tmp_path: Path) -> None:
    folder = project(tmp_path, CALLABLE_HELPER)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    (dispatch,) = tomllib.loads(text)["tool"]["rpcsurface"]["dispatch"]
    assert dispatch["unknown-name"] == "skipped"  # `if func is None: continue`
    assert dispatch["drops-none"] is True  # `if out is not None: put_nowait(out)`
    assert dispatch["shared-reply-queue"] is True
    test = _line(folder, "svc/proc.py", "if func is None:")
    assert f"svc/proc.py:{test}:" in _comment(text, "unknown-name")


def _sender(names: list[str]) -> dict[str, str]:
    """A client sending *names* on a queue nothing in the project reads, and a class that
    answers only `load`: the overlap is all there is."""
    calls = "".join(f"        self.send({name!r})\n" for name in names)
    return {
        "app/__init__.py": "",
        "app/runner.py": "class Runner:\n    def load(self):\n        return 1\n\n"
        "    def save(self):\n        return 2\n",
        "app/client.py": (
            "class Client:\n"
            "    def __init__(self, queue):\n        self.queue = queue\n\n"
            "    def send(self, method, *args):\n"
            "        self.queue.put((method, args))\n\n"
            "    def run(self):\n" + calls
        ),
    }


def test_a_dispatch_needs_more_than_half_of_its_names_answered(tmp_path: Path) -> None:
    # 1 of 2 names is a half, not more than half (docs/init.md): not a dispatch.
    half = project(tmp_path / "half", _sender(["load", "unknown_thing"]))
    shown = run_cli(half, "init", "--diff")
    assert shown.returncode == 2, shown.stderr
    assert "[[tool.rpcsurface.dispatch]]" not in shown.stdout
    assert re.search(r"send\(\) sends its parameter 'method'.*not a dispatch", shown.stderr)
    # 2 of 3 is more than half: the dispatch is written.
    more = project(tmp_path / "more", _sender(["load", "save", "unknown_thing"]))
    shown = run_cli(more, "init", "--diff")
    assert '+method = "send"' in shown.stdout, shown.stderr

"""The helper filter on calls through an attribute of ``self`` (``self.queue.put(x)``):
skipped only where every value astroid may give the attribute is a builtin's or the
standard library's; a value a call may have been handed the project's object through is
still inferred, and the helpers reached that way still count."""

from __future__ import annotations

from pathlib import Path

import astroid
from astroid import nodes
from support import fast_surface, project, run_check, run_pylint, stats_env, stats_records

from pylint_rpcsurface.analysis.helper_calls import reaches_only_python_itself
from pylint_rpcsurface.sources import SourceTree

MODULE = """\
import asyncio
import collections
import helpers_mod


class Engine:
    mode = helpers_mod.Factory

    def __init__(self):
        self.queue = asyncio.Queue()
        self.waiting: asyncio.Queue = None
        self.pending = []
        self.counts = collections.Counter()
        self.factory = helpers_mod.Factory
        self.named = getattr(helpers_mod, "Factory")
        self.bounded = collections.deque([helpers_mod.Factory])
        self.task = None
        self.made = None
        self.mixed = asyncio.Queue()
        self.parent = super()

    def start(self):
        loop = asyncio.get_event_loop()
        self.task = loop.create_task(self._run())
        self.made = loop.create_task(self._make())
        self.mixed = helpers_mod.Factory()

    async def _run(self):
        await self.queue.get()

    def _make(self):
        return helpers_mod.Factory

    def calls(self, item):
        self.queue.put_nowait(item)        # asyncio.Queue(): skipped
        self.waiting.put_nowait(item)      # None: skipped
        self.pending.append(item)          # a list's own method: skipped
        self.counts.most_common(1)         # collections.Counter(): skipped
        self.task.cancel()                 # from a method that returns nothing: skipped
        self.queue._loop.call_soon(item)   # attributes of a stdlib value: skipped
        self.factory.make(item)            # a project class: inferred
        self.named.make(item)              # getattr with a name: inferred
        self.bounded.pop().make(item)      # a call on the way; a deque given the project's
        self.made.cancel()                 # from a method that returns a value: inferred
        self.mixed.put(item)               # also assigned a project object: inferred
        self.pending[0].make(item)         # a subscript on the way: inferred
        self.mode.make(item)               # bound in the class alone: inferred
        self.factory(item)                 # the attribute itself is called: inferred
        self.parent.make(item)             # super(): the bases' methods, inferred

    @staticmethod
    def static(self):
        self.queue.put_nowait(1)           # not an instance: inferred
"""

SKIPPED = {
    "self.queue.put_nowait",
    "self.waiting.put_nowait",
    "self.pending.append",
    "self.counts.most_common",
    "self.task.cancel",
    "self.queue._loop.call_soon",
}
INFERRED = {
    "self.factory.make",
    "self.named.make",
    "self.bounded.pop().make",
    "self.bounded.pop",
    "self.made.cancel",
    "self.mixed.put",
    "self.pending[0].make",
    "self.mode.make",
    "self.factory",
    "self.parent.make",
}


def test_an_attribute_of_self_is_skipped_only_when_every_value_is_python_itself(
    tmp_path: Path,
) -> None:
    (tmp_path / "helpers_mod.py").write_text(
        "class Factory:\n    @staticmethod\n    def make(item):\n        pass\n"
    )
    tree = SourceTree((tmp_path,))
    module = astroid.parse(MODULE, module_name="app")
    functions = {f.name: f for f in module.nodes_of_class(nodes.FunctionDef)}
    decided = {
        call.func.as_string(): reaches_only_python_itself(call, tree)
        for call in functions["calls"].nodes_of_class(nodes.Call)
    }
    assert {call for call, skipped in decided.items() if skipped} == SKIPPED
    assert {call for call, skipped in decided.items() if not skipped} == INFERRED
    (in_static,) = functions["static"].nodes_of_class(nodes.Call)
    assert not reaches_only_python_itself(in_static, tree)


# An engine whose caller holds asyncio's queue and task on self, and reaches two helpers
# through attributes of self: a class bound on self, and one getattr gives by name.
HELPERS = """\
class Sender:
    @staticmethod
    def send(mgr):
        mgr.call_func("sent_through_the_class", wait_out=True)


class Named:
    @staticmethod
    def send(mgr):
        mgr.call_func("sent_through_getattr", wait_out=True)
"""
HANDLERS = """\
FAST_RPCS = ()


class Runner:
    def step(self):
        return 1


class FastRunner(Runner):
    pass
"""
CORE = """\
import asyncio

import helpers


class Core:
    def __init__(self, mgr):
        self.mgr = mgr
        self.outputs = asyncio.Queue()
        self.task = None
        self.sender = helpers.Sender
        self.named = getattr(helpers, "Named")

    def start(self):
        loop = asyncio.get_event_loop()
        self.task = loop.create_task(self._run())

    async def _run(self):
        self.mgr.call_func("step", wait_out=True)

    def run(self, out):
        self.outputs.put_nowait(out)
        self.task.cancel()
        self.sender.send(self.mgr)
        self.named.send(self.mgr)
"""
PYPROJECT = fast_surface("core.Core", "runners.FastRunner", "runners.Runner", "runners.FAST_RPCS")


def _engine(root: Path, core: str) -> Path:
    return project(
        root / "proj",
        {
            "pyproject.toml": PYPROJECT,
            "core.py": core,
            "helpers.py": HELPERS,
            "runners.py": HANDLERS,
        },
    )


def test_helpers_reached_through_self_still_count_and_asyncio_is_not_built(
    tmp_path: Path,
) -> None:
    tree = _engine(tmp_path / "with", CORE)
    unanswered = {
        ("rpc-unanswered", "helpers.py", 4),
        ("rpc-unanswered", "helpers.py", 10),
    }
    linted = run_pylint(tree, ".")
    assert {(m.symbol, m.path, m.line) for m in linted.messages} == unanswered, linted.stderr
    checked = run_check(tree, "--format", "json", "--no-cache", env=stats_env(tree))
    assert {(m.symbol, m.path, m.line) for m in checked.messages} == unanswered, checked.stderr

    # The same engine without the two calls on asyncio's objects builds what the one with
    # them builds: neither call is inferred, so asyncio is never built.
    without = _engine(
        tmp_path / "without",
        CORE.replace("        self.outputs.put_nowait(out)\n", "").replace(
            "        self.task.cancel()\n", ""
        ),
    )
    run_check(without, "--no-cache", env=stats_env(without))
    (built,) = stats_records(tree)
    (built_without,) = stats_records(without)
    assert built["other_modules_built"] == built_without["other_modules_built"]

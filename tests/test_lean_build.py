"""The project's modules built lean (analysis/lean_build.py): astroid's transforms run on a
node when it is first inferred, a method's ``self.x = ...`` joins its class's members when
they are first read, and the modules leave astroid's cache when the analysis ends.

Each answer is held to astroid's full build (``RPCSURFACE_BUILD=full``) through the real
``rpcsurface`` and real pylint; what pylint's other checkers report is held to pylint
without the plugin; what the lean build saves is read from ``RPCSURFACE_STATS``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import (
    project,
    real_layout_copy,
    run_check,
    run_pylint,
    stats_env,
    stats_records,
)

FULL = {"RPCSURFACE_BUILD": "full"}
REQUESTS = '[[tool.rpcsurface.surface]]\nname = "requests"'

PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = true

[[tool.rpcsurface.surface]]
name = "runners"
dispatch = ["call_func"]
callers = ["pkg.engine.Engine"]
handlers = ["pkg.runners.Runner"]

[[tool.rpcsurface.surface]]
name = "requests"
dispatch = ["send"]
callers = ["pkg.engine.Engine"]
tables = ["pkg.runners.Runner.TABLE"]

[[tool.rpcsurface.dispatch]]
method = "send"
waits = true

[[tool.rpcsurface.proxy]]
name = "actors"
callers = ["pkg.engine.Engine"]
receivers = ["self.actors"]
handlers = ["pkg.runners.Actor"]
remote = true
"""

# The shapes astroid's brains and the inference of ``self`` make: an enum whose members
# key a table, a dataclass, a namedtuple, functools.partial, a handle kept on self by a
# base class's __init__ and used by a subclass's method, a self.a.b assignment.
KINDS = """\
import enum
from collections import namedtuple
from dataclasses import dataclass, field


class Kind(enum.Enum):
    ADD = enum.auto()
    STOP = enum.auto()
    GHOST = enum.auto()


@dataclass
class Request:
    kind: Kind
    sizes: list = field(default_factory=list)


Reply = namedtuple("Reply", ["ok", "data"])


class Mode(enum.Enum):
    FAST = 1
"""

RUNNERS = """\
import functools

import ray

from pkg.kinds import Kind, Reply


class Runner:
    TABLE = {Kind.ADD: "on_add", Kind.STOP: "on_stop"}

    def __init__(self):
        self.state = Reply(True, None)
        self.state.count = 0

    def load(self, path):
        return functools.partial(print, path)

    def on_add(self, request):
        return Reply(True, request)

    def on_stop(self):
        return None


@ray.remote
class Actor:
    def save(self, step):
        return step
"""

ENGINE = """\
import ray

from pkg.kinds import Kind, Request
from pkg.runners import Actor


class Base:
    def __init__(self, mgr, count):
        self.mgr = mgr
        self.actors = [Actor.remote() for _ in range(count)]


class Engine(Base):
    def run(self):
        self.mgr.call_func("load", "/weights")
        self.mgr.call_func("unload")
        self.mgr.send(Kind.ADD, Request(Kind.ADD))
        self.mgr.send(Kind.GHOST)
        ray.get([actor.save.remote(1) for actor in self.actors])
        return ray.get([actor.restore.remote() for actor in self.actors])
"""


def _project(tmp_path: Path) -> Path:
    return project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/kinds.py": KINDS,
            "pkg/runners.py": RUNNERS,
            "pkg/engine.py": ENGINE,
        },
    )


def _answer(stdout: str) -> list[Any]:
    return json.loads(stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("tree", ["shapes", "real_layout"])
def test_a_lean_build_answers_as_astroid_s_full_build(tmp_path: Path, tree: str) -> None:
    root = _project(tmp_path) if tree == "shapes" else real_layout_copy(tmp_path)
    lean = run_check(root, "--format", "json", "--no-cache")
    full = run_check(root, "--format", "json", "--no-cache", env=FULL)
    assert lean.returncode == full.returncode == 1, (lean.stderr, full.stderr)
    assert lean.messages
    assert _answer(lean.stdout) == _answer(full.stdout)
    if tree == "shapes":
        assert {(m.symbol, m.line) for m in lean.messages} == {
            ("rpc-unanswered", 16),  # unload
            ("rpc-unanswered", 18),  # Kind.GHOST
            ("rpc-proxy-unanswered", 20),  # restore
        }


def test_pylint_s_other_checkers_see_astroid_s_full_build(tmp_path: Path) -> None:
    """The analysis builds kinds.py lean, never inferring Mode; pylint's typecheck of
    engine.py then reads its own build of it, where the enum's members have a name."""
    root = _project(tmp_path)
    checks = ("--disable=all", "--enable=no-member,rpc-unanswered")
    edited = (root / "pkg/engine.py").read_text(encoding="utf-8")
    edited = edited.replace("import Kind, Request", "import Kind, Mode, Request")
    edited += "\n\ndef make():\n    return Mode.FAST.name, Kind.ADD.value\n"
    (root / "pkg/engine.py").write_text(edited, encoding="utf-8")
    with_plugin = run_pylint(root, *checks, "pkg/engine.py", only_ours=False)
    without = run_pylint(
        root, *checks, "--disable=rpc-unanswered", "pkg/engine.py", only_ours=False
    )
    ours = {m for m in with_plugin.messages if m.symbol.startswith("rpc-")}
    assert {m.line for m in ours} == {16, 18}, with_plugin.stdout
    assert set(with_plugin.messages) - ours == set(without.messages), with_plugin.stdout
    assert (10, "no-member") in {(m.line, m.symbol) for m in without.messages}  # Actor.remote


def test_a_module_read_for_its_interface_builds_less_of_the_standard_library(
    tmp_path: Path,
) -> None:
    """The handlers' module is read for the names its class binds: built lean, neither
    its imports (kinds.py) nor the standard library they would pull in are built."""
    root = project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT.split(
                '[[tool.rpcsurface.surface]]\nname = "requests"', maxsplit=1
            )[0],
            "pkg/__init__.py": "",
            "pkg/kinds.py": KINDS,
            "pkg/runners.py": RUNNERS,
            "pkg/engine.py": ENGINE.replace("from pkg.kinds import Kind, Request\n", ""),
        },
    )
    env = stats_env(root)
    lean = run_check(root, "--no-cache", env=env)
    lean_record = stats_records(root)[-1]
    full = run_check(root, "--no-cache", env={**env, **FULL})
    full_record = stats_records(root)[-1]
    assert lean.returncode == 1, lean.stderr
    assert lean.stdout == full.stdout
    # runners.py imports kinds.py: astroid's full build infers through the import
    # (Reply(...) assigned to self), the lean one leaves it for a query that needs it.
    assert "pkg/kinds.py" in full_record["modules_built"]
    assert lean_record["modules_built"] == ["pkg/engine.py", "pkg/runners.py"], lean_record
    assert lean_record["other_modules_built"] < full_record["other_modules_built"] / 2, (
        lean_record,
        full_record,
    )

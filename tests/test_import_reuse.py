"""A module astroid's imports built during the analysis is the one the analysis reads:
a handler's base class module, reached while its subclass's module was built,
is not built a second time, unless its file may have been written since astroid read it."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest
from astroid import builder
from support import fast_surface, project

from pylint_rpcsurface import engine
from pylint_rpcsurface.analysis import modules
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.sources import TIMESTAMP_TICK_NS

FILES = {
    "pyproject.toml": fast_surface("core.Core", "fast.FastRunner", "base.Runner", "fast.FAST"),
    "base.py": "class Runner:\n    def step(self):\n        return 1\n",
    "fast.py": (
        # A star import is resolved as astroid builds the module, whatever else it
        # leaves for later (analysis/lean_build.py): base.py is built by that import.
        "from base import *\n\nFAST = ('fast_step',)\n\n\n"
        "class FastRunner(Runner):\n    def fast_step(self):\n        return 2\n"
    ),
    "core.py": (
        "class Core:\n    def __init__(self, mgr):\n        self.mgr = mgr\n\n"
        "    def run(self):\n        self.mgr.call_func('step', wait_out=True)\n"
        "        self.mgr.call_func('fast_step', wait_out=True)\n"
        "        self.mgr.call_func('missing', wait_out=True)\n"
    ),
}


def _builds(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each file is built from now on, by path."""
    counted: Counter[str] = Counter()
    original = builder.AstroidBuilder.file_build

    def counting(self: builder.AstroidBuilder, path: str, modname: str | None = None) -> object:
        counted[os.path.realpath(path)] += 1
        return original(self, path, modname)

    monkeypatch.setattr(builder.AstroidBuilder, "file_build", counting)
    return counted


def _settled() -> None:
    """Wait until every file written so far is older than a clock tick: a write sets the
    inode's ctime, which nothing sets back, so only waiting makes a file old."""
    time.sleep(3 * TIMESTAMP_TICK_NS / 1e9)


def test_a_base_module_imported_while_its_subclass_was_built_is_built_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj", FILES)
    _settled()
    config = load_config(root / "pyproject.toml")
    builds = _builds(monkeypatch)
    analysis = engine.surface_facts(config).analysis()
    base = os.path.realpath(root / "base.py")
    assert builds[base] == 1
    assert builds[os.path.realpath(root / "fast.py")] == 1
    assert [f.args[0] for f in analysis.all_findings() if f.symbol == "rpc-unanswered"] == [
        "missing"
    ]


def test_a_file_written_as_the_analysis_began_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the file may have been written between astroid's read and the store's, the
    store builds its own module, of the bytes it read."""
    root = project(tmp_path / "proj", FILES)
    _settled()
    base = root / "base.py"
    written = base.stat().st_ctime_ns
    # The analysis "begins" right as base.py was written: within a clock tick of it.
    monkeypatch.setattr(modules.time, "time_ns", lambda: written + 1)
    config = load_config(root / "pyproject.toml")
    builds = _builds(monkeypatch)
    analysis = engine.surface_facts(config).analysis()
    assert builds[os.path.realpath(base)] == 2
    assert [f.args[0] for f in analysis.all_findings() if f.symbol == "rpc-unanswered"] == [
        "missing"
    ]

"""A body edit of a base caller's method, linted as an editor lints it (the buffer on
pylint's standard input), recomputes that method's piece once: the subclasses defined in
other modules put their broadcasts together from the pieces, so none of their modules is
built, though a class outside the project (``abc.ABC``, which binds no code) lies in their
method resolution order. Every answer is held to ``--no-cache``'s, and what each run built
is read from its own ``RPCSURFACE_STATS`` record, through real pylint and the real
``rpcsurface``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import (
    PylintRun,
    fast_surface,
    project,
    run_check,
    run_pylint,
    stats_env,
    stats_records,
)

CALLER = "engine/core.py"

# The configured caller, Core, inherits EngineCore, whose base is abc.ABC; 'fast_only' is
# answered by FastRunner alone and the registry does not list it, so core.py holds an
# rpc-unlisted finding that names every caller class that waits on it: the subclasses'
# broadcasts are part of the answer for core.py. Core's order is Core, EngineCore, ABC,
# Mixin: ``super(ABC, self).setup()`` runs Mixin.setup, which EngineCore.setup overrides,
# so 'mixin_only' (unlisted too) is waited on only through a look-up that starts after
# the class outside the project.
CORE = """\
from abc import ABC


class Mixin:
    def setup(self):
        self.mgr.call_func("mixin_only", wait_out=True)


class EngineCore(ABC):
    def __init__(self, mgr):
        self.mgr = mgr

    def setup(self):
        super(ABC, self).setup()

    def step(self):
        self.mgr.call_func("prefill", wait_out=True)
        self.mgr.call_func("fast_only", wait_out=True)


class Core(EngineCore, Mixin):
    def decode(self):
        self.mgr.call_func("decode", wait_out=True)
"""

# Each subclass in a module of its own, one of them two levels down.
ROLES = {
    "engine/roles/prefill.py": """\
        from engine.core import Core


        class PrefillCore(Core):
            def extra(self):
                self.mgr.call_func("prefill", wait_out=False)
        """,
    "engine/roles/decode.py": """\
        from engine.core import Core


        class DecodeCore(Core):
            def extra(self):
                self.mgr.call_func("decode", wait_out=False)
        """,
    "engine/roles/mixed.py": """\
        from engine.roles.decode import DecodeCore


        class MixedCore(DecodeCore):
            def more(self):
                self.mgr.call_func("no_such_rpc", wait_out=True)
        """,
}

FILES: dict[str, str | bytes] = {
    "pyproject.toml": fast_surface(
        "engine.core.Core", "runners.FastRunner", "runners.Runner", "registry.FAST_RPCS"
    ),
    "engine/__init__.py": "",
    "engine/roles/__init__.py": "",
    CALLER: CORE,
    **ROLES,
    "runners.py": """\
        class Runner:
            def prefill(self):
                return 1

            def decode(self):
                return 1


        class FastRunner(Runner):
            def fast_only(self):
                return 1

            def mixin_only(self):
                return 1
        """,
    "registry.py": "FAST_RPCS = ()\n",
}

STATEMENT = '        self.mgr.call_func("prefill", wait_out=True)\n'


def _body_edit(number: int) -> str:
    """CORE with a statement added at the top of EngineCore.step's body: its interface
    is unchanged."""
    assert CORE.count(STATEMENT) == 1
    return CORE.replace(STATEMENT, f"        edited_{number} = {number}\n{STATEMENT}")


def _answer(run: PylintRun) -> list[tuple[str, str, int, int, str]]:
    return sorted((m.symbol, m.path, m.line, m.column, m.text) for m in run.messages)


@pytest.fixture(name="tree")
def _tree(tmp_path: Path) -> Path:
    return project(tmp_path / "proj", FILES)


def test_a_base_method_body_edit_builds_no_subclass_module(tree: Path) -> None:
    warm = run_check(tree, env=stats_env(tree))
    assert warm.returncode == 1, warm.stderr
    for number in (1, 2, 3):
        buffer = _body_edit(number)
        edited = run_pylint(tree, "--from-stdin", CALLER, stdin=buffer, env=stats_env(tree))
        record = stats_records(tree)[-1]
        oracle = run_pylint(
            tree, "--from-stdin", CALLER, stdin=buffer, env={"RPCSURFACE_NO_CACHE": "1"}
        )
        assert _answer(edited) == _answer(oracle), number
        unlisted = sorted(m.text for m in edited.messages if m.symbol == "rpc-unlisted")
        assert len(unlisted) == 2, edited.messages
        assert unlisted[0].startswith("'fast_only'"), unlisted
        assert unlisted[1].startswith("'mixin_only'"), unlisted
        for subclass in ("PrefillCore", "DecodeCore", "MixedCore"):
            assert all(subclass in text for text in unlisted), unlisted
        assert record["modules_built"] == [], (number, record)

"""The incremental answer is the answer from nothing when an edit changes a class's
members: the pieces that read a class by its members (``member C.N``, see
``engine.digests``) are computed again exactly when a member they read changes, and
those that read none of the class's changed members are not.

Each scenario is a small project in two versions, A and B, as in
``test_incremental_bodies.py``; here B edits what a top-level class binds (a class
attribute, a member a base shadows, an import in the class's body, a nested class, a
statement of the class's body that binds names only on a branch, an instance attribute
set in a new method), in a module the caller's code reads only through that class. A
property runs random sequences of these edits, saved or as buffers.
"""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

import astroid
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import fast_surface
from test_incremental_bodies import (
    CORE,
    GHOSTED,
    HANDLERS,
    SUB_SENDS_ITS_RPC,
    UNANSWERED,
    Scenario,
    _analyse,
    _answer,
    _folder,
    _memo,
    _write,
    as_a_buffer,
    back_and_forth,
    in_sequence,
)

from pylint_rpcsurface.config import Config, load_config
from pylint_rpcsurface.engine import surface_facts

# Sub sends self.rpc, which it finds in the first class of its MRO that binds it.
SUB_OF_MID = """\
from base import Base
from mid import Mid


class Sub(Mid, Base):
    def run(self):
        return self.mgr.call_func(self.rpc, wait_out=True)  # the call
"""

BASE_BINDS_THE_NAME = """\
from core import Core


class Base(Core):
    rpc = "alpha"
"""

SCENARIOS = (
    Scenario(
        # The member Sub's code looked up in Mid and did not find becomes one.
        "m1-a-class-attribute-added-shadows-the-base",
        a={
            "core.py": CORE,
            "base.py": BASE_BINDS_THE_NAME,
            "mid.py": "class Mid:\n    size = 1\n",
            "sub.py": SUB_OF_MID,
        },
        b={"mid.py": 'class Mid:\n    size = 1\n    rpc = "ghost"\n'},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        # A class attribute that names another member of its class: the class's scope.
        "m2-a-class-attribute-names-another",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core


class Base(Core):
    NAME = "alpha"
    rpc = NAME
""",
            "sub.py": SUB_SENDS_ITS_RPC,
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        # An import in the class's body binds the member.
        "m4-an-import-in-the-class-body",
        a={
            "core.py": CORE,
            "names.py": 'ALPHA = "alpha"\nGHOST = "ghost"\n',
            "base.py": """\
from core import Core


class Base(Core):
    from names import ALPHA as rpc
""",
            "sub.py": SUB_SENDS_ITS_RPC,
        },
        b={
            "base.py": """\
from core import Core


class Base(Core):
    from names import GHOST as rpc
"""
        },
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        # A class nested in the class's body: the member is the whole nested class.
        "m5-a-nested-class-holds-the-name",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core


class Base(Core):
    class Names:
        rpc = "alpha"
""",
            "sub.py": """\
from base import Base


class Sub(Base):
    def run(self):
        return self.mgr.call_func(self.Names.rpc, wait_out=True)  # the call
""",
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        # A statement that binds a name only on one branch: the whole class is read.
        "m6-a-name-bound-in-a-branch-of-the-class-body",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core

FAST = True


class Base(Core):
    if FAST:
        rpc = "alpha"
    size = 1
""",
            "sub.py": SUB_SENDS_ITS_RPC,
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        # An attribute of the instance, set in a method of the class added in B: the
        # instance attribute shadows the class attribute the call read.
        "m7-a-method-added-sets-an-instance-attribute",
        a={
            "core.py": CORE,
            "base.py": BASE_BINDS_THE_NAME,
            "mid.py": "class Mid:\n    size = 1\n",
            "sub.py": SUB_OF_MID,
        },
        b={
            "mid.py": """\
class Mid:
    size = 1

    def __init__(self):
        self.rpc = "ghost"
"""
        },
        expect_a=(),
        expect_b=None,  # type: ignore[arg-type]  # both names: the answer from nothing
    ),
)


def _expected(scenario: Scenario) -> bool:
    """Whether the scenario says what B's answer from nothing is (else it is only
    compared with the memo's)."""
    return scenario.expect_b is not None


CHECKED = [s for s in SCENARIOS if _expected(s)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_the_memo_after_an_edit_of_a_class_gives_the_answer_from_nothing(
    scenario: Scenario,
) -> None:
    back_and_forth(scenario, check_b=_expected(scenario))


@pytest.mark.parametrize("scenario", CHECKED, ids=lambda s: s.id)
def test_an_unsaved_buffer_editing_a_class_gives_the_answer_from_nothing(
    scenario: Scenario,
) -> None:
    as_a_buffer(scenario)


# The default run draws 10 sequences; the campaign below draws 40 (marked slow).
_SEQUENCES = settings(
    max_examples=10,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
_STEPS = given(
    st.lists(
        st.tuples(st.sampled_from(SCENARIOS), st.sampled_from("ab"), st.booleans()),
        min_size=2,
        max_size=5,
    )
)


@_SEQUENCES
@_STEPS
def test_sequences_of_class_edits_give_the_answer_from_nothing(
    steps: list[tuple[Scenario, str, bool]],
) -> None:
    """Scenarios in random order, each to A or B, B on disk or as a buffer over A."""
    in_sequence(steps, checked=_expected)


@pytest.mark.slow  # a hypothesis campaign of 40 sequences
@settings(_SEQUENCES, max_examples=40)
@_STEPS
def test_sequences_of_class_edits_give_the_answer_from_nothing_campaign(
    steps: list[tuple[Scenario, str, bool]],
) -> None:
    """The same on 40 sequences."""
    in_sequence(steps, checked=_expected)


# ---------------------------------------------------------------------------
# What an edit of a class builds again

# The caller's method reads a module-level name of names.py through the class Tools,
# which is no caller and whose module names no caller.
PRECISION = {
    "core.py": CORE,
    "names.py": 'RPC = "alpha"\n',
    "tools.py": """\
from names import RPC


class Tools:
    rpc = RPC

    def second(self):
        return 1
""",
    "sub.py": """\
from core import Core
from tools import Tools


class Sub(Core):
    def run(self):
        return self.mgr.call_func(Tools.rpc, wait_out=True)
""",
}
MODULES = frozenset(name.removesuffix(".py") for name in PRECISION)


def _built_by(config: Config, root: Path, modules: Container[str] = MODULES) -> set[str]:
    """The project's *modules* an analysis with *root*'s memo built, started from an
    empty cache of astroid's: its counts (a module it builds lean leaves that cache as
    it ends, see analysis/lean_build.py)."""
    astroid.MANAGER.clear_cache()
    facts = surface_facts(config, memo=_memo(root))
    return {Path(path).stem for path in facts.counts.built if Path(path).stem in modules}


def test_a_method_added_to_a_class_builds_no_module_that_reads_another_member() -> None:
    """After a new method in Tools, the caller's piece holds (it read Tools's member
    rpc alone): neither sub.py nor names.py is built. An edit of that member builds
    them again, and the answer is the one from nothing."""
    table = fast_surface("core.Core", "handlers.FastRunner", "handlers.Runner", "handlers.RPCS")
    with _folder() as root:
        _write(root, {**PRECISION, "handlers.py": HANDLERS, "pyproject.toml": table})
        config = load_config(root / "pyproject.toml")
        warm = _analyse(config, memo=_memo(root))
        added = PRECISION["tools.py"].replace(
            "    def second(self):",
            "    def third(self):\n        return 2\n\n    def second(self):",
        )
        _write(root, {"tools.py": added})
        assert _built_by(config, root) <= {"tools"}
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(warm)
        _write(root, {"tools.py": added.replace("rpc = RPC", "rpc = RPC or 'ghost'")})
        assert {"sub", "tools", "names"} <= _built_by(config, root)
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(_analyse(config))


def test_a_method_added_to_the_caller_class_builds_no_module_another_method_reads() -> None:
    """The engine builds sub.py itself here (no module of pylint's), and astroid's steps
    after parsing walk every class it holds: that walk is no read of Sub's by any piece.
    So after a new method in Sub, run()'s piece holds (it read Sub's members run, mgr and
    name, not the whole class), and names.py, which only name() reads, is not built."""
    table = fast_surface("core.Core", "handlers.FastRunner", "handlers.Runner", "handlers.RPCS")
    sub = """\
from core import Core
from names import RPC


class Sub(Core):
    mgr = None

    def run(self):
        return self.mgr.call_func(self.name(), wait_out=True)

    def name(self):
        return RPC
"""
    files = {"core.py": CORE, "names.py": 'RPC = "alpha"\n', "sub.py": sub}
    with _folder() as root:
        _write(root, {**files, "handlers.py": HANDLERS, "pyproject.toml": table})
        config = load_config(root / "pyproject.toml")
        warm = _analyse(config, memo=_memo(root))
        _write(root, {"sub.py": sub + "\n    def third(self):\n        return 2\n"})
        assert "names" not in _built_by(config, root)
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(warm)
        assert _answer(warm) == _answer(_analyse(config))


def test_a_statement_added_beside_an_attribute_s_assignment_builds_no_module_its_value_reads() -> (
    None
):
    """A handler's reply is read through an attribute another method sets
    (``self.agent = make_agent()``, LMDeploy's worker): the handler's piece reads that
    statement (the module's interface holds it) and what ``make_agent`` names in that
    method, not the method's other statements. So after a statement added to the method
    that sets it, the piece holds and agent.py, which only the attribute's value reads,
    is not built; the answer is the one from nothing. Set to something else, it is built
    again. (The dispatch drops None replies, so the rules read the handler's reply.)"""
    table = fast_surface(
        "core.Core", "handlers.FastRunner", "handlers.Runner", "handlers.RPCS"
    ).replace('waits = "wait_out"\n', 'waits = "wait_out"\ndrops-none = true\n')
    assert "drops-none" in table
    handlers = """\
from agent import make_agent

RPCS = ()


class Runner:
    def build(self):
        self.agent = make_agent()

    def free(self):
        return self.agent.free()


class FastRunner(Runner):
    pass
"""
    agent = """\
class Agent:
    def free(self):
        return 1


def make_agent():
    return Agent()
"""
    core = """\
class Core:
    def step(self):
        return self.mgr.call_func("free", wait_out=True)
"""
    edited = handlers.replace(
        "    def build(self):\n", "    def build(self):\n        edited = 1\n"
    )
    with _folder() as root:
        _write(root, {"core.py": core, "agent.py": agent, "handlers.py": handlers})
        _write(root, {"pyproject.toml": table})
        config = load_config(root / "pyproject.toml")
        warm = _analyse(config, memo=_memo(root))
        _write(root, {"handlers.py": edited})
        assert "agent" not in _built_by(config, root, {"agent"})
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(_analyse(config))
        assert _answer(warm) == _answer(_analyse(config))
        _write(root, {"handlers.py": edited.replace("make_agent()", "make_agent() or None")})
        assert "agent" in _built_by(config, root, {"agent"})
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(_analyse(config))

"""The incremental answer is the answer from nothing when an edit changes only a
function's body in another module, or only moves lines (the pieces' keys, see
``engine.dependencies``).

Each scenario is a small project in two versions, A and B, whose only difference is the
body of one function (its text, or where it starts): a helper that returns the RPC
name, a method that holds the call, an ``__init__`` that sets the attribute the call
reads, a property, a class attribute (a lambda) that delegates to a module-level
function, a function that sets a global, a factory that returns the base class, a helper
two calls deep, a handler's helper that decides whether it replies None, and lines
inserted before the method or helper that holds a call. :func:`_outline` checks that
each edit really is of bodies only: the modules without their function bodies and
positions are the same in A and B.

For every scenario: A is analysed with a memo, B is written (or, for a few, sent as an
unsaved buffer), and the analysis of B that reuses the memo must equal B's analysis from
nothing; A's and B's findings from nothing must differ (the scenario is not vacuous) and
be the ones the scenario expects, each at the line of the fragment it names. A property
runs random sequences of these edits; three scenarios run end to end with the real
``rpcsurface check`` and real pylint, the cache on and off.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import describe_run, fast_surface, line_of, project, run_check, run_pylint

from pylint_rpcsurface.config import Config, load_config
from pylint_rpcsurface.engine import Memo, surface_facts
from pylint_rpcsurface.model import Analysis

# The handlers every scenario shares (scenario 10 has its own): 'alpha' and 'beta' are
# answered by the base handler, 'ghost' by nobody.
HANDLERS = """\
RPCS = ()


class Runner:
    def alpha(self):
        return 1

    def beta(self):
        return 2


class FastRunner(Runner):
    pass
"""

CORE = """\
class Core:
    pass
"""

# (symbol, file, a fragment of the one line of that file the finding is on)
Expected = tuple[str, str, str]


# In a scenario's B: the module is A's with the name it sends, "alpha", changed to the
# unanswered "ghost" (the edit most scenarios make).
GHOSTED = "<A's text, with 'alpha' sent as 'ghost'>"


def _ghosted(text: str) -> str:
    edited = text.replace('"alpha"', '"ghost"')
    assert edited != text, "the module sends no 'alpha'"
    return edited


@dataclass(frozen=True)
class Scenario:
    id: str
    a: dict[str, str]  # version A's modules, besides handlers.py and pyproject.toml
    b: dict[str, str]  # the modules the edit changes, in version B
    expect_a: tuple[Expected, ...]
    expect_b: tuple[Expected, ...]
    handlers: str = HANDLERS
    drops_none: bool = False
    # (file, fragment): the place "file:line" of the fragment's line is quoted in the
    # text of a finding, in both versions.
    places: tuple[tuple[str, str], ...] = ()

    def edited(self) -> dict[str, str]:
        """The modules the edit changes, as version B has them."""
        return {
            relpath: _ghosted(self.a[relpath]) if text is GHOSTED else text
            for relpath, text in self.b.items()
        }

    def files(self, version: str) -> dict[str, str]:
        modules = {**self.a, **(self.edited() if version == "b" else {})}
        table = fast_surface("core.Core", "handlers.FastRunner", "handlers.Runner", "handlers.RPCS")
        if self.drops_none:
            table = table.replace('waits = "wait_out"\n', 'waits = "wait_out"\ndrops-none = true\n')
        return {"pyproject.toml": table, "handlers.py": self.handlers, **modules}

    def quoted(self, version: str) -> set[str]:
        files = self.files(version)
        return {
            f"{relpath}:{line_of(files[relpath], fragment)}" for relpath, fragment in self.places
        }

    def expected(self, version: str, root: Path) -> set[tuple[str, str, int]]:
        files = self.files(version)
        wanted = self.expect_b if version == "b" else self.expect_a
        return {
            (symbol, str(root / relpath), line_of(files[relpath], fragment))
            for symbol, relpath, fragment in wanted
        }


UNANSWERED = "rpc-unanswered"
NONE_REPLY = "rpc-waited-none-reply"

# 2, 7 and 11: a class that is no caller itself holds the call; the caller Sub mixes it in.
HELPER_MODULE = """\
class Helper:
    def unrelated(self):
        return 1

    def _send(self):
        return self.mgr.call_func("ghost", wait_out=True)  # the send
"""
# Only blank lines and a comment: every statement stays as it was, one line lower.
HELPER_SHIFTED = HELPER_MODULE.replace(
    "        return 1\n",
    "        # a comment and blank lines before the method with the call\n\n\n        return 1\n",
)
# A statement more, in the method before the one with the call.
HELPER_GROWN = HELPER_MODULE.replace(
    "        return 1\n", "        value = 1\n        return value\n"
)
MIXED_SUB = """\
from base import Helper
from core import Core


class Sub(Core, Helper):
    def run(self):
        return self._send()
"""

# Modules two scenarios share.
SUB_SENDS_ITS_RPC = """\
from base import Base


class Sub(Base):
    def run(self):
        return self.mgr.call_func(self.rpc, wait_out=True)  # the call
"""
CORE_CALLS_THE_HELPER = """\
from helpers import helper


class Core:
    def step(self):
        return helper(self.mgr)
"""

# 13: the caller's classes build on the standard library.
ABSTRACT_CORE = """\
from abc import ABC, abstractmethod


class Core(ABC):
    @abstractmethod
    def step(self):
        \"\"\"Send this step's RPC.\"\"\"
"""
LOCKED_SUB = """\
import threading

from core import Core


class Sub(Core):
    def __init__(self, mgr):
        self.mgr = mgr
        self._lock = threading.Lock()

    def step(self):
        with self._lock:
            self._lock.locked()
        return self.mgr.call_func("alpha", wait_out=True)  # the call
"""
THREAD_CORE = """\
import functools
import queue
import threading


class Core(threading.Thread):
    def __init__(self, mgr):
        super().__init__(daemon=True)
        self.mgr = mgr
        self._outputs = queue.Queue()
        self._send = functools.partial(self._send_alpha, 1)

    def _send_alpha(self, step):
        self._outputs.put(step)
        return self.mgr.call_func("alpha", wait_out=True)  # the send

    def run(self):
        self._outputs.put(0)
        return self._send()
"""


def _sub_running(expression: str) -> str:
    """sub.py: a subclass of base.Base whose run() returns *expression*."""
    head = "from base import Base\n\n\nclass Sub(Base):\n    def run(self):\n"
    return f"{head}        return {expression}\n"


def _base_init(*lines: str) -> str:
    """base.py: Base, whose ``__init__`` sets ``self.mgr`` and then runs *lines*, with a
    module constant ``RPC = "alpha"``."""
    body = "".join(f"        {line}\n" for line in lines)
    head = 'from core import Core\n\nRPC = "alpha"\n\n\nclass Base(Core):\n'
    return f"{head}    def __init__(self, mgr):\n        self.mgr = mgr\n{body}"


SCENARIOS = (
    Scenario(
        "1-helper-returns-the-name",
        a={
            "names.py": 'def pick():\n    return "alpha"\n',
            "core.py": """\
from names import pick


class Core:
    def step(self):
        return self.mgr.call_func(pick(), wait_out=True)  # the call
""",
        },
        b={"names.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "core.py", "# the call"),),
    ),
    Scenario(
        "2a-base-method-holds-the-call",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core


class Base(Core):
    def _send(self):
        return self.mgr.call_func("alpha", wait_out=True)  # the send
""",
            "sub.py": _sub_running("self._send()"),
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "base.py", "# the send"),),
    ),
    Scenario(
        "2b-mixin-method-holds-the-call",
        a={
            "core.py": CORE,
            "base.py": HELPER_MODULE.replace("ghost", "alpha"),
            "sub.py": MIXED_SUB,
        },
        b={"base.py": HELPER_MODULE},
        expect_a=(),
        expect_b=((UNANSWERED, "base.py", "# the send"),),
    ),
    Scenario(
        "3-init-sets-the-name",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core


class Base(Core):
    def __init__(self, mgr):
        self.mgr = mgr
        self.rpc = "alpha"
""",
            "sub.py": SUB_SENDS_ITS_RPC,
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    # 3b and 3c: the attribute's statement is the same text in A and B, and the module's
    # interface too; only which binding its name's look-up finds has changed.
    Scenario(
        "3b-a-local-shadows-the-module-name-an-attribute-is-set-to",
        a={"core.py": CORE, "base.py": _base_init("self.rpc = RPC"), "sub.py": SUB_SENDS_ITS_RPC},
        b={"base.py": _base_init('RPC = "ghost"', "self.rpc = RPC")},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        "3c-a-local-binding-moved-above-the-attribute-set-to-its-name",
        a={
            "core.py": CORE,
            "base.py": _base_init("self.rpc = RPC", 'for RPC in ("ghost",):', "    pass"),
            "sub.py": SUB_SENDS_ITS_RPC,
        },
        b={"base.py": _base_init('for RPC in ("ghost",):', "    pass", "self.rpc = RPC")},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        "4-property-returns-the-name",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core


class Base(Core):
    @property
    def rpc(self):
        return "alpha"
""",
            "sub.py": SUB_SENDS_ITS_RPC,
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        # The class attribute is a lambda that calls the module-level function (a plain
        # alias, send = _send_impl, is an engine case: METHOD-BY-ASSIGNMENT).
        "5-class-attribute-delegates-to-a-module-function",
        a={
            "core.py": CORE,
            "base.py": """\
from core import Core


def _send_impl(self):
    return self.mgr.call_func("alpha", wait_out=True)  # the send


class Base(Core):
    send = lambda self: _send_impl(self)
""",
            "sub.py": _sub_running("self.send()"),
        },
        b={"base.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "base.py", "# the send"),),
    ),
    Scenario(
        "6-global-set-in-a-function",
        a={
            "names.py": """\
def configure():
    global RPC
    RPC = "beta"
""",
            "core.py": """\
import names


class Core:
    def step(self):
        return self.mgr.call_func(names.RPC, wait_out=True)  # the call
""",
        },
        b={
            "names.py": """\
def configure():
    global RPC
    RPC = "ghost"
"""
        },
        expect_a=(),
        expect_b=((UNANSWERED, "core.py", "# the call"),),
    ),
    Scenario(
        "7a-lines-shift-in-the-mixin-module",
        a={"core.py": CORE, "base.py": HELPER_MODULE, "sub.py": MIXED_SUB},
        b={"base.py": HELPER_SHIFTED},
        expect_a=((UNANSWERED, "base.py", "# the send"),),
        expect_b=((UNANSWERED, "base.py", "# the send"),),
    ),
    Scenario(
        "7e-a-statement-more-in-the-mixin-module",
        a={"core.py": CORE, "base.py": HELPER_MODULE, "sub.py": MIXED_SUB},
        b={"base.py": HELPER_GROWN},
        expect_a=((UNANSWERED, "base.py", "# the send"),),
        expect_b=((UNANSWERED, "base.py", "# the send"),),
    ),
    Scenario(
        "7b-lines-shift-in-the-caller-module",
        a={
            "core.py": """\
class Core:
    def unrelated(self):
        return 1

    def step(self):
        return self.mgr.call_func("ghost", wait_out=True)  # the call
"""
        },
        b={
            "core.py": """\
class Core:
    def unrelated(self):
        # a comment and a statement


        value = 1
        return value

    def step(self):
        return self.mgr.call_func("ghost", wait_out=True)  # the call
"""
        },
        expect_a=((UNANSWERED, "core.py", "# the call"),),
        expect_b=((UNANSWERED, "core.py", "# the call"),),
    ),
    Scenario(
        "7c-lines-shift-before-a-helper-in-another-module",
        a={
            "helpers.py": """\
def unrelated():
    return 1


def send(mgr):
    return mgr.call_func("ghost", wait_out=True)  # the send
""",
            "core.py": """\
from helpers import send


class Core:
    def step(self):
        return send(self.mgr)
""",
        },
        b={
            "helpers.py": """\
def unrelated():
    # moved down


    return 1


def send(mgr):
    return mgr.call_func("ghost", wait_out=True)  # the send
"""
        },
        expect_a=((UNANSWERED, "helpers.py", "# the send"),),
        expect_b=((UNANSWERED, "helpers.py", "# the send"),),
    ),
    Scenario(
        # Only a place the finding's text quotes moves: the call of helper2 in helper.
        "7d-lines-shift-in-a-helper-s-body-in-another-module",
        a={
            "helpers.py": """\
def helper2(mgr):
    return mgr.call_func("ghost", wait_out=True)  # the send


def helper(mgr):
    return helper2(mgr)
""",
            "core.py": CORE_CALLS_THE_HELPER,
        },
        b={
            "helpers.py": """\
def helper2(mgr):
    return mgr.call_func("ghost", wait_out=True)  # the send


def helper(mgr):
    # one more line

    return helper2(mgr)
"""
        },
        expect_a=((UNANSWERED, "helpers.py", "# the send"),),
        expect_b=((UNANSWERED, "helpers.py", "# the send"),),
        places=(("helpers.py", "return helper2(mgr)"),),
    ),
    Scenario(
        "8-factory-returns-the-base",
        a={
            "core.py": CORE,
            "factory.py": """\
from core import Core


class Plain:
    pass


def make_base(preferred):
    return Plain
""",
            "sub.py": """\
from core import Core
from factory import make_base

Base = make_base(Core)


class Sub(Base):
    def run(self):
        return self.mgr.call_func("ghost", wait_out=True)  # the call
""",
        },
        b={
            "factory.py": """\
from core import Core


class Plain:
    pass


def make_base(preferred):
    return preferred
"""
        },
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        "9-helper-two-calls-deep",
        a={
            "helpers.py": """\
def helper(mgr):
    return helper2(mgr)


def helper2(mgr):
    return mgr.call_func("alpha", wait_out=True)  # the send
""",
            "core.py": CORE_CALLS_THE_HELPER,
        },
        b={"helpers.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "helpers.py", "# the send"),),
    ),
    Scenario(
        "10-handler-replies-through-a-helper",
        a={
            "replies.py": "def answer():\n    return 1\n",
            "core.py": """\
class Core:
    def step(self):
        return self.mgr.call_func("alpha", wait_out=True)  # the call
""",
        },
        b={"replies.py": "def answer():\n    return None\n"},
        handlers="""\
from replies import answer

RPCS = ()


class Runner:
    def alpha(self):
        return answer()


class FastRunner(Runner):
    pass
""",
        drops_none=True,
        expect_a=(),
        expect_b=((NONE_REPLY, "core.py", "# the call"),),
    ),
    # 13: the standard library in the callers' classes, as in every real engine: a base
    # from outside the project puts the caller's members together from its nodes, not
    # from the pieces; inferring self's attributes builds threading and queue.
    Scenario(
        "13a-the-caller-derives-from-an-abc-and-holds-a-lock",
        a={"core.py": ABSTRACT_CORE, "sub.py": LOCKED_SUB},
        b={"sub.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        "13b-lines-shift-above-a-caller-with-an-abc-base",
        a={"core.py": ABSTRACT_CORE, "sub.py": _ghosted(LOCKED_SUB)},
        b={
            "sub.py": _ghosted(LOCKED_SUB).replace(
                "    def step(self):\n",
                "    # a comment and blank lines above the method\n\n\n    def step(self):\n",
            )
        },
        expect_a=((UNANSWERED, "sub.py", "# the call"),),
        expect_b=((UNANSWERED, "sub.py", "# the call"),),
    ),
    Scenario(
        "13c-a-thread-subclass-sends-from-a-helper-bound-with-partial",
        a={"core.py": THREAD_CORE},
        b={"core.py": GHOSTED},
        expect_a=(),
        expect_b=((UNANSWERED, "core.py", "# the send"),),
    ),
)

# 11: the edits of 2b, 7a and 7d, sent as an unsaved buffer with the file on disk unchanged.
BUFFERED = (
    "2b-mixin-method-holds-the-call",
    "7a-lines-shift-in-the-mixin-module",
    "7d-lines-shift-in-a-helper-s-body-in-another-module",
)
BY_ID = {s.id: s for s in SCENARIOS}


# ---------------------------------------------------------------------------
# Helpers


def _outline(text: str) -> str:
    """*text* without its functions' bodies and without positions: what an edit of
    bodies only leaves as it was."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


@contextmanager
def _folder() -> Iterator[Path]:
    with TemporaryDirectory() as folder:
        yield Path(os.path.realpath(folder))


def _write(root: Path, files: Mapping[str, str]) -> None:
    """Write the files that differ from what is on disk (an editor's save)."""
    for relpath, text in files.items():
        target = root / relpath
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def _answer(analysis: Analysis) -> tuple[object, ...]:
    return (analysis.config_errors, analysis.all_findings())


def _keys(analysis: Analysis) -> set[tuple[str, str, int]]:
    assert analysis.config_errors == (), analysis.config_errors
    return {(f.symbol, f.location.path, f.location.line) for f in analysis.all_findings()}


def _check(scenario: Scenario, version: str, root: Path, scratch: Analysis) -> None:
    """The findings from nothing are the ones *scenario* expects of *version*."""
    assert _keys(scratch) == scenario.expected(version, root), (scenario.id, version)
    texts = " ".join(arg for f in scratch.all_findings() for arg in f.args)
    for place in scenario.quoted(version):
        assert f"at {place}" in texts, (scenario.id, version, place, texts)


def _analyse(
    config: Config, overrides: Mapping[str, str] | None = None, memo: Memo | None = None
) -> Analysis:
    """:func:`surface_facts` in this process, as an IDE's language server runs it: astroid's
    module cache keeps the modules earlier analyses imported (names.py, helpers.py,
    replies.py: only imported, never built by the engine's store), and the engine must
    read them anew (see the last test of this file)."""
    return surface_facts(config, overrides, memo=memo).analysis()


def _memo(root: Path) -> Memo:
    return Memo(root / ".memo.json", "the test's identity")


def _overrides(root: Path, scenario: Scenario) -> dict[str, str]:
    edited = scenario.edited()
    return {os.path.realpath(root / relpath): text for relpath, text in edited.items()}


# ---------------------------------------------------------------------------
# The table


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_an_edit_of_bodies_only_is_what_it_claims(scenario: Scenario) -> None:
    """Each edit changes function bodies only, in modules version A has."""
    assert scenario.b, scenario.id
    for relpath, text in scenario.edited().items():
        before = scenario.files("a")[relpath]
        assert text != before, relpath
        assert _outline(text) == _outline(before), relpath


def back_and_forth(scenario: Scenario, *, check_b: bool = True) -> None:
    """A, then B, A, B saved in turn: each version's answer with the memo of the ones
    before is its answer from nothing, and the one the scenario expects (B's only when
    *check_b*)."""
    with _folder() as root:
        _write(root, scenario.files("a"))
        config = load_config(root / "pyproject.toml")
        before = _analyse(config, memo=_memo(root))
        scratch_a = _analyse(config)
        assert _answer(before) == _answer(scratch_a)
        _check(scenario, "a", root, scratch_a)
        # A, B, A, B: each version also comes back to a memo that holds the other's pieces.
        for step, version in enumerate("bab", 1):
            _write(root, scenario.files(version))
            memo = _memo(root)
            incremental = _analyse(config, memo=memo)
            scratch = _analyse(config)
            assert _answer(incremental) == _answer(scratch), (step, version)
            if version == "a" or check_b:
                _check(scenario, version, root, scratch)
            assert memo.hits, (step, version)  # the memo was used, not just written
        assert _answer(scratch) != _answer(scratch_a)  # A and B differ: not vacuous


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_the_memo_after_an_edit_of_a_body_gives_the_answer_from_nothing(
    scenario: Scenario,
) -> None:
    back_and_forth(scenario)


@pytest.mark.parametrize("scenario", [BY_ID[i] for i in BUFFERED], ids=lambda s: s.id)
def test_an_unsaved_buffer_with_an_edit_of_a_body_gives_the_answer_from_nothing(
    scenario: Scenario,
) -> None:
    """11: the editor's case: B is a buffer, the file on disk stays A's."""
    as_a_buffer(scenario)


def as_a_buffer(scenario: Scenario) -> None:
    """B as an unsaved buffer over A on disk, twice (its pieces are not kept), then the
    buffer closed: each answer is the one from nothing, and A's file stays A's."""
    with _folder() as root:
        _write(root, scenario.files("a"))
        config = load_config(root / "pyproject.toml")
        scratch_a = _analyse(config)
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(scratch_a)
        overrides = _overrides(root, scenario)
        for step in range(2):  # the buffer's pieces are not kept: the same answer again
            memo = _memo(root)
            incremental = _analyse(config, overrides, memo=memo)
            scratch = _analyse(config, overrides)
            assert _answer(incremental) == _answer(scratch), step
            _check(scenario, "b", root, scratch)
            assert memo.hits, step
        assert _answer(scratch) != _answer(scratch_a)
        # The buffer closed, the file on disk: A's answer again, from the memo too.
        assert _answer(_analyse(config, memo=_memo(root))) == _answer(scratch_a)
        for relpath, text in scenario.files("a").items():
            assert (root / relpath).read_text(encoding="utf-8") == text  # never saved


# ---------------------------------------------------------------------------
# Sequences of edits over several scenarios at once


# The default run draws 5 sequences; the campaign below draws 60 (marked slow).
_SEQUENCES = settings(
    max_examples=5,
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
def test_sequences_of_body_edits_give_the_answer_from_nothing(
    steps: list[tuple[Scenario, str, bool]],
) -> None:
    """Scenarios in random order, each to A or B, B on disk or as a buffer over A on
    disk; each scenario has a folder of its own, whose memo carries over from step to
    step."""
    in_sequence(steps)


@pytest.mark.slow  # a hypothesis campaign of 60 sequences
@settings(_SEQUENCES, max_examples=60)
@_STEPS
def test_sequences_of_body_edits_give_the_answer_from_nothing_campaign(
    steps: list[tuple[Scenario, str, bool]],
) -> None:
    """The same on 60 sequences."""
    in_sequence(steps)


def in_sequence(
    steps: list[tuple[Scenario, str, bool]], checked: Callable[[Scenario], bool] = bool
) -> None:
    """Each step's scenario to its version (B on disk, or as a buffer over A when the
    step says so), the memo's answer against the answer from nothing, which is the one
    the scenario expects where *checked*."""
    with _folder() as top:
        for step, (scenario, version, buffered) in enumerate(steps):
            root = top / scenario.id
            if not root.exists():
                root.mkdir()
                _write(root, scenario.files("a"))
                _analyse(load_config(root / "pyproject.toml"), memo=_memo(root))
            config = load_config(root / "pyproject.toml")
            overrides: dict[str, str] = {}
            if buffered and version == "b":
                _write(root, scenario.files("a"))
                overrides = _overrides(root, scenario)
            else:
                _write(root, scenario.files(version))
            incremental = _analyse(config, overrides, memo=_memo(root))
            scratch = _analyse(config, overrides)
            assert _answer(incremental) == _answer(scratch), (step, scenario.id, version)
            if version == "a" or checked(scenario):
                _check(scenario, version, root, scratch)


# ---------------------------------------------------------------------------
# End to end: the real `rpcsurface check` and real pylint, the cache on and off

END_TO_END = (
    "1-helper-returns-the-name",
    "3-init-sets-the-name",
    "7a-lines-shift-in-the-mixin-module",
)


def _check_answer(root: Path, *extra: str, env: dict[str, str]) -> list[str]:
    run = run_check(root, "--format", "json", *extra, env=env)
    assert run.returncode in (0, 1), run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    return sorted(json.dumps(m.__dict__, sort_keys=True) for m in run.messages)


def _pylint_answer(root: Path, *extra: str, env: dict[str, str]) -> list[tuple[object, ...]]:
    run = run_pylint(root, *extra, "--recursive=y", ".", env=env)
    assert "Traceback" not in run.stderr, describe_run(run)
    assert run.stdout.lstrip().startswith("{"), describe_run(run)
    return sorted((m.path, m.line, m.column, m.symbol, m.text) for m in run.messages)


@pytest.mark.parametrize("scenario", [BY_ID[i] for i in END_TO_END], ids=lambda s: s.id)
def test_check_and_pylint_with_the_cache_after_an_edit_of_a_body(
    scenario: Scenario, tmp_path: Path
) -> None:
    """A, then B on disk: each cached run of B starts from the cache (and memo) its
    own kind of run left for A, never from one the other wrote, and answers as a run
    without the cache. A's cached runs start from empty caches: each is held to the
    scenario's findings (a run without the cache on A would only compute them again)."""
    caches = {kind: tmp_path / f"cache-{kind}" for kind in ("check", "pylint")}
    env = {kind: {"RPCSURFACE_CACHE_DIR": str(folder)} for kind, folder in caches.items()}
    root = project(tmp_path / "proj", scenario.files("a"))
    answers = {}
    for version in "ab":
        _write(root, scenario.files(version))
        checked = _check_answer(root, env=env["check"])
        linted = _pylint_answer(root, env=env["pylint"])
        if version == "b":
            assert checked == _check_answer(root, "--no-cache", env=env["check"]), version
            no_cache = _pylint_answer(root, "--rpcsurface-no-cache=y", env=env["pylint"])
            assert linted == no_cache, version
        wanted = {
            (s, str(Path(p).relative_to(root)), n) for s, p, n in scenario.expected(version, root)
        }
        assert {(m[3], m[0], m[1]) for m in linted} == wanted, version
        found = [json.loads(text) for text in checked]
        assert {(f["symbol"], f["path"], f["line"]) for f in found} == wanted, version
        answers[version] = (checked, linted)
    assert answers["a"] != answers["b"]
    for kind, folder in caches.items():
        assert any(folder.rglob("*")), f"the cached {kind} runs wrote no cache"


def test_a_second_analysis_in_one_process_reads_an_imported_module_anew(tmp_path: Path) -> None:
    """What an IDE's long-lived process does (pylint's --clear-cache-post-run=n, its
    default): analyse, save an edit of names.py, analyse again. The second analysis
    used to see names.py as the first read it ('alpha')."""
    scenario = BY_ID["1-helper-returns-the-name"]
    root = Path(os.path.realpath(tmp_path))
    _write(root, scenario.files("a"))
    config = load_config(root / "pyproject.toml")
    assert _keys(surface_facts(config).analysis()) == scenario.expected("a", root)
    _write(root, scenario.files("b"))
    assert _keys(surface_facts(config).analysis()) == scenario.expected("b", root)

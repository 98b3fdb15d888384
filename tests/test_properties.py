"""Property tests: random projects, properties that must always hold.

Most properties call the engine (``engine.surface_facts``) directly: a pylint run per example
would make the budget tiny. Two need real pylint (file order on the command line and
``-j 2``) and run few examples.

Budget: the default run is bounded and derandomized (the same examples every time, so CI
is reproducible). ``RPCSURFACE_PROPERTY_EXAMPLES=N`` sets the engine properties' examples
to N (and the pylint ones to N // 10, at least 2) and draws fresh random examples; see
docs/reliability.md for the documented run.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import assert_no_crash, describe_run, fast_surface, run_check, run_pylint

from pylint_rpcsurface.config import ConfigError, load_config
from pylint_rpcsurface.engine import surface_facts
from pylint_rpcsurface.model import Finding

_ENV = "RPCSURFACE_PROPERTY_EXAMPLES"
_BIG = os.environ.get(_ENV)
ENGINE_EXAMPLES = int(_BIG) if _BIG else 25
PYLINT_EXAMPLES = max(2, int(_BIG) // 10) if _BIG else 2

_COMMON = {
    "deadline": None,
    "database": None,
    "derandomize": not _BIG,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
ENGINE = settings(max_examples=ENGINE_EXAMPLES, **_COMMON)  # type: ignore[arg-type]
PYLINT = settings(max_examples=PYLINT_EXAMPLES, **_COMMON)  # type: ignore[arg-type]

NAMES = ("alpha", "beta", "gamma", "delta", "omega")

PYPROJECT = fast_surface("core.Core", "handlers.FastRunner", "handlers.Runner", "handlers.RPCS")

# ---------------------------------------------------------------------------
# The generated projects

Call = tuple[str, bool]  # RPC name, waited


@dataclass(frozen=True)
class Sub:
    name: str
    base: str  # "Core" or an earlier Sub's name
    calls: tuple[Call, ...]
    module: int  # subs<module>.py


@dataclass(frozen=True)
class Project:
    base_answers: frozenset[str]
    fast_answers: frozenset[str]
    registry: tuple[str, ...]
    core_calls: tuple[Call, ...]
    subs: tuple[Sub, ...]
    moved: frozenset[str] = frozenset()  # subs placed in moved.py instead

    def module_of(self, cls: str) -> str:
        if cls == "Core":
            return "core"
        sub = next(s for s in self.subs if s.name == cls)
        return "moved" if sub.name in self.moved else f"subs{sub.module}"

    def leaves(self) -> list[str]:
        bases = {s.base for s in self.subs}
        return [s.name for s in self.subs if s.name not in bases]


calls = st.lists(st.tuples(st.sampled_from(NAMES), st.booleans()), max_size=4).map(tuple)


@st.composite
def projects(draw: st.DrawFn) -> Project:
    subs: list[Sub] = []
    for index in range(draw(st.integers(0, 4))):
        base = draw(st.sampled_from(["Core", *(s.name for s in subs)]))
        floor = 0 if base == "Core" else next(s.module for s in subs if s.name == base)
        module = draw(st.integers(floor, 2))  # never before the base's module: no cycles
        subs.append(Sub(f"Sub{index}", base, draw(calls), module))
    return Project(
        base_answers=frozenset(draw(st.sets(st.sampled_from(NAMES)))),
        fast_answers=frozenset(draw(st.sets(st.sampled_from(NAMES)))),
        registry=tuple(draw(st.lists(st.sampled_from(NAMES), unique=True))),
        core_calls=draw(calls),
        subs=tuple(subs),
    )


def _methods(cls: str, answers: frozenset[str]) -> str:
    body = "".join(f"    def {name}(self):\n        return 1\n\n" for name in sorted(answers))
    return f"class {cls}:\n" + (body or "    pass\n")


def _caller(cls: str, base: str, own: tuple[Call, ...]) -> str:
    lines = [f"class {cls}({base}):" if base else f"class {cls}:"]
    if not own:
        lines.append("    pass")
    else:
        lines.append(f"    def run_{cls.lower()}(self):")
        lines += [f'        self.mgr.call_func("{n}", wait_out={w})' for n, w in own]
    return "\n".join(lines) + "\n"


def render(project: Project) -> dict[str, str]:
    """The project's files: handlers.py, core.py and the subs modules."""
    handlers = (
        f"RPCS = ({''.join(repr(n) + ', ' for n in project.registry)})\n\n\n"
        + _methods("Runner", project.base_answers)
        + "\n\n"
        + _methods("FastRunner(Runner)", project.fast_answers)
    )
    files = {"handlers.py": handlers, "core.py": _caller("Core", "", project.core_calls)}
    for sub in project.subs:
        module = project.module_of(sub.name)
        text = files.get(f"{module}.py", "")
        base_module = project.module_of(sub.base)
        if base_module != module:
            text = f"from {base_module} import {sub.base}\n" + text
        files[f"{module}.py"] = text + "\n\n" + _caller(sub.name, sub.base, sub.calls)
    files["pyproject.toml"] = PYPROJECT
    return files


@contextmanager
def written(files: dict[str, str]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for relpath, text in files.items():
            (root / relpath).write_text(text, encoding="utf-8")
        yield root


def findings_of(root: Path) -> list[Finding]:
    """Every finding of the analysis of the project in *root*, in the order of files."""
    analysis = surface_facts(load_config(root / "pyproject.toml")).analysis()
    assert analysis.config_errors == (), analysis.config_errors
    found: list[Finding] = []
    for path in sorted(root.glob("*.py")):
        found.extend(analysis.findings_in(str(path)))
    return found


def essence(findings: list[Finding]) -> set[tuple[str, str]]:
    """(symbol, RPC name): every message text starts with the RPC name (args[0])."""
    return {(f.symbol, f.args[0]) for f in findings}


# A quoted place: 'at mod.py:6'.
_PLACE = re.compile(r"\s*\bat [^\s,()]+:\d+")
# The first of several sites, quoted with the classes that run it: 'by A and B at
# mod.py:6 (and 2 more)'. Sites are sorted by place, so which one comes first (and so
# which classes are named) can change when a class moves; how many sites there are can't.
_FIRST_OF_SEVERAL = re.compile(r"\bby [^()]+? at [^\s,()]+:\d+ \(and (\d+) more\)")


def texts(findings: list[Finding]) -> set[tuple[str, tuple[tuple[str, ...], ...]]]:
    """(symbol, args), places in the texts ('at mod.py:6') dropped, each list of names
    ('by A, B and C') as a sorted tuple of its names, and the first of several quoted
    sites as just the number of sites."""
    return {(f.symbol, tuple(_words(arg) for arg in f.args)) for f in findings}


def _words(arg: str) -> tuple[str, ...]:
    arg = _FIRST_OF_SEVERAL.sub(lambda m: f"by the first of {int(m[1]) + 1} sites", arg)
    return tuple(sorted(w for w in re.split(r", | and |\bby ", _PLACE.sub("", arg)) if w))


# ---------------------------------------------------------------------------
# Engine properties


@ENGINE
@given(projects())
def test_findings_are_sorted_and_repeatable(project: Project) -> None:
    """Within a file, findings come sorted by place and symbol; analysing the same
    project twice gives the same findings."""
    with written(render(project)) as root:
        first = findings_of(root)
        second = findings_of(root)
    assert first == second
    for path in {f.location.path for f in first}:
        mine = [f for f in first if f.location.path == path]
        assert mine == sorted(mine)


@ENGINE
@given(projects(), st.data())
def test_moving_a_caller_subclass_changes_only_locations(
    project: Project, data: st.DataObject
) -> None:
    """Moving a subclass (one nothing derives from, so no import cycle appears) to a new
    module keeps the set of (symbol, RPC name) findings, and even their texts up to the
    places they quote, the order of class names (they show short names, which don't
    change, but are sorted by qualified name, which does), and which of several sites a
    text quotes first (see texts())."""
    leaves = project.leaves()
    if not leaves:
        return
    leaf = data.draw(st.sampled_from(leaves))
    with written(render(project)) as root:
        before = findings_of(root)
    with written(render(replace(project, moved=frozenset({leaf})))) as root:
        after = findings_of(root)
    assert essence(after) == essence(before)
    assert texts(after) == texts(before)


def test_moving_the_class_of_the_first_quoted_site() -> None:
    """The example fresh random examples found (2026-11-30): Sub1 and Sub2 both broadcast
    'alpha' without waiting. Before the move the first site is Sub1's (subs0.py), run by
    Sub1 and Sub2; moved, Sub2's own site (moved.py) sorts first, run by Sub2 alone. The
    texts name different classes, rightly, and texts() compares them as equal."""
    project = Project(
        base_answers=frozenset(),
        fast_answers=frozenset({"alpha"}),
        registry=("alpha",),
        core_calls=(),
        subs=(
            Sub("Sub0", "Core", (), 0),
            Sub("Sub1", "Sub0", (("alpha", False),), 0),
            Sub("Sub2", "Sub1", (("alpha", False),), 0),
        ),
    )
    with written(render(project)) as root:
        before = findings_of(root)
    with written(render(replace(project, moved=frozenset({"Sub2"})))) as root:
        after = findings_of(root)
    details = [f.args[2] for f in (*before, *after)]
    assert len(details) == 2, details
    assert "by Sub1 and Sub2 at subs0.py:" in details[0], details
    assert "by Sub2 at moved.py:" in details[1], details
    assert texts(after) == texts(before)


UNRELATED_MODULE = """\
from core import Core


def helper(mgr):
    mgr.call_func("unrelated_rpc", wait_out=True)


class Other:
    def run(self):
        self.mgr.call_func("{name}", wait_out=True)
        self.mgr.call_func("unrelated_rpc", wait_out=False)


class Another(Other):
    rpc = "{name}"


def make():
    return Core
"""

UNRELATED_TAIL = """


class Elsewhere:
    def go(self):
        self.mgr.call_func("{name}", wait_out=True)
"""


@ENGINE
@given(projects(), st.sampled_from((*NAMES, "unrelated_rpc")))
def test_unrelated_modules_classes_and_calls_add_no_finding(project: Project, name: str) -> None:
    """A module with classes and calls that are not callers', and a class appended to
    every existing module, change no finding (appending moves no line)."""
    files = render(project)
    with written(files) as root:
        before = findings_of(root)
    grown = {
        relpath: text + UNRELATED_TAIL.format(name=name) if relpath.endswith(".py") else text
        for relpath, text in files.items()
    }
    grown["unrelated.py"] = UNRELATED_MODULE.format(name=name)
    with written(grown) as root:
        after = findings_of(root)
    assert [(f.symbol, f.args, f.location.line) for f in after] == [
        (f.symbol, f.args, f.location.line) for f in before
    ]


_WAITS = st.one_of(st.booleans(), st.sampled_from(["wait_out", "blocking"]))
_CLASSES = st.sampled_from(
    ["core.Core", "handlers.Runner", "handlers.FastRunner", "subs0.Sub0", "nowhere.Nothing"]
)


@st.composite
def configs(draw: st.DrawFn) -> str:
    """A valid [tool.rpcsurface] table (its classes may or may not exist)."""
    waits = draw(_WAITS)
    text = '[tool.rpcsurface]\n\n[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\n'
    text += f"waits = {str(waits).lower() if isinstance(waits, bool) else repr(waits)}\n"
    text += f"name-arg = {draw(st.integers(0, 2))}\n"
    if draw(st.booleans()):
        text += 'name-keyword = "name"\n'
    for index in range(draw(st.integers(0, 2))):
        text += f'\n[[tool.rpcsurface.surface]]\nname = "s{index}"\n'
        for key in ("callers", "handlers", "base-handlers"):
            chosen = draw(st.lists(_CLASSES, unique=True, min_size=key != "base-handlers"))
            text += f"{key} = {chosen!r}\n".replace("'", '"')
        if draw(st.booleans()):
            text += f'registry = "{draw(st.sampled_from(["handlers.RPCS", "core.NOPE"]))}"\n'
    return text


def _programs() -> st.SearchStrategy[str]:
    """hypothesmith's random valid programs, its grammar built when the first example is
    drawn: importing hypothesmith and building the grammar take a second or two, which
    every pytest worker would otherwise spend collecting this module, even in runs that
    never reach the test."""

    def build() -> st.SearchStrategy[str]:
        import hypothesmith  # noqa: PLC0415  # slow to import; see above

        return hypothesmith.from_grammar()

    return st.deferred(build)


@ENGINE
@given(projects(), configs(), _programs())
def test_a_random_program_with_a_random_config_never_crashes(
    project: Project, config: str, program: str
) -> None:
    """A random valid program (hypothesmith) as a module that also derives from Core,
    in a random project under a random valid config: the analysis never raises."""
    files = render(project)
    files["pyproject.toml"] = config
    files["random_mod.py"] = program + "\n\nfrom core import Core\n\n\nclass R(Core):\n    pass\n"
    if program.strip():
        files["core.py"] += "\n\n" + program
    with written(files) as root:
        try:
            parsed = load_config(root / "pyproject.toml")
        except ConfigError as error:  # a valid table never fails to load
            raise AssertionError(f"{config}\n{error}") from error
        analysis = surface_facts(parsed).analysis()
        for path in sorted(root.glob("*.py")):
            for finding in analysis.findings_in(str(path)):
                assert finding.args, finding
                assert finding.args[0], finding


# ---------------------------------------------------------------------------
# Real pylint


@PYLINT
@given(projects())
def test_file_order_and_jobs_never_change_the_output(project: Project) -> None:
    """The same files, named in order and reversed, and the whole tree with -j 1 and
    -j 2: the same messages, byte for byte in their text and place."""
    with written(render(project)) as root:
        files = sorted(p.name for p in root.glob("*.py"))
        runs = {
            "ordered": run_pylint(root, *files),
            "reversed": run_pylint(root, *reversed(files)),
            "j1": run_pylint(root, "-j", "1", *files),
            "j2": run_pylint(root, "-j", "2", *files),
        }
    for run in runs.values():
        assert_no_crash(run)
    reference = runs["ordered"].messages
    for mode, run in runs.items():
        assert run.messages == reference, f"{mode}:\n{describe_run(run)}"


# ---------------------------------------------------------------------------
# Surfaces are independent


@st.composite
def surface_tables(draw: st.DrawFn, project: Project) -> tuple[str, ...]:
    """Two or three [[tool.rpcsurface.surface]] tables over *project*'s classes: callers
    among Core and its subclasses (a subclass in one, its base in another), handlers
    among Runner and FastRunner, a registry or none."""
    classes = ["core.Core", *(f"{project.module_of(s.name)}.{s.name}" for s in project.subs)]
    tables = []
    for index in range(draw(st.integers(2, 3))):
        callers = draw(st.lists(st.sampled_from(classes), min_size=1, max_size=2, unique=True))
        handlers = draw(
            st.lists(
                st.sampled_from(["handlers.Runner", "handlers.FastRunner"]),
                min_size=1,
                unique=True,
            )
        )
        text = f'\n[[tool.rpcsurface.surface]]\nname = "s{index}"\n'
        text += f"callers = {callers!r}\nhandlers = {handlers!r}\n".replace("'", '"')
        if draw(st.booleans()):
            text += 'registry = "handlers.RPCS"\n'
        tables.append(text)
    return tuple(tables)


_DISPATCH = (
    '[tool.rpcsurface]\n\n[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\n'
    'waits = "wait_out"\ndrops-none = true\nshared-reply-queue = true\n'
)


def _analysed(root: Path, tables: tuple[str, ...]) -> list[Finding]:
    (root / "pyproject.toml").write_text(_DISPATCH + "".join(tables), encoding="utf-8")
    analysis = surface_facts(load_config(root / "pyproject.toml")).analysis()
    assert analysis.config_errors == (), analysis.config_errors
    return list(analysis.all_findings())


def _with_none_replies(project: Project) -> dict[str, str]:
    """*project*'s files, with a handler that replies None and one that may."""
    files = render(project)
    files["handlers.py"] = files["handlers.py"].replace(
        "class Runner:\n",
        "class Runner:\n    def omega(self):\n        self.x = None\n\n"
        "    def delta(self, flag=None):\n        return flag and 1\n\n",
        1,
    )
    return files


def _callers_named(table: str) -> set[str]:
    """The callers a drawn surface table names."""
    match = re.search(r"^callers = (\[.*\])$", table, re.MULTILINE)
    assert match is not None, table
    return set(re.findall(r'"([^"]+)"', match.group(1)))


def _taken(project: Project, chosen: tuple[str, ...], index: int) -> bool:
    """Whether another of the *chosen* surfaces names a class that is a caller of the
    one at *index* without being named by it: that class's calls are then judged by the
    surfaces naming it, the most specific (docs/how-it-works.md#which-table-judges-a-call)."""
    own = _callers_named(chosen[index])
    bases = {f"{project.module_of(s.name)}.{s.name}": s.base for s in project.subs}

    def descends(name: str) -> bool:
        while name not in own:
            base = bases.get(name)
            if base is None:
                return False
            name = f"{project.module_of(base)}.{base}"
        return True

    return any(
        name not in own and descends(name)
        for other, table in enumerate(chosen)
        if other != index
        for name in _callers_named(table)
    )


@ENGINE
@given(st.data())
def test_each_surface_alone_is_its_share_of_every_set(data: st.DataObject) -> None:
    """Each surface's findings alone are exactly its share of the findings of every set
    of surfaces it is in, unless another surface of the set names a caller of its (a
    subclass it does not name), which that surface then judges: the same (place, symbol)
    pairs, the same texts where it is the only surface giving them; and one message per
    place and symbol always."""
    project = data.draw(projects())
    tables = data.draw(surface_tables(project))
    with written(_with_none_replies(project)) as root:
        alone = {t: _analysed(root, (t,)) for t in tables}
        together = _analysed(root, tables)
        pair = _analysed(root, tables[:2])
    for chosen, found in ((tables, together), (tables[:2], pair)):
        keys = [(f.location, f.symbol) for f in found if len(f.surfaces) > 1]
        assert len(keys) == len(set(keys)), "two messages for one place and symbol"
        for index, table in enumerate(chosen):
            if _taken(project, chosen, index):
                continue
            name = f"s{index}"
            share = [f for f in found if name in f.surfaces]
            own = alone[table]
            assert {(f.location, f.symbol) for f in share} == {
                (f.location, f.symbol) for f in own
            }, (name, chosen)
            only_mine = {(f.location, f.symbol) for f in share if f.surfaces == (name,)}
            assert sorted(f for f in share if f.surfaces == (name,)) == sorted(
                f for f in own if (f.location, f.symbol) in only_mine
            )


def test_a_subclass_named_in_its_own_surface_is_judged_by_it_alone() -> None:
    """The smallest case of a shared caller: Sub0 is a caller of s0 by its base Core;
    naming Sub0 as s1's caller makes s1 alone judge its calls (the most specific caller
    wins), while Core's stay with s0."""
    project = Project(
        base_answers=frozenset({"alpha"}),
        fast_answers=frozenset(),
        registry=(),
        core_calls=(("alpha", True),),
        subs=(Sub("Sub0", "Core", (("omega", True),), 0),),
    )
    one = '\n[[tool.rpcsurface.surface]]\nname = "s0"\ncallers = ["core.Core"]\n'
    one += 'handlers = ["handlers.Runner"]\n'
    two = '\n[[tool.rpcsurface.surface]]\nname = "s1"\ncallers = ["subs0.Sub0"]\n'
    two += 'handlers = ["handlers.FastRunner"]\n'
    with written(_with_none_replies(project)) as root:
        alone = _analysed(root, (one,))
        together = _analysed(root, (one, two))
    none_reply = [f for f in alone if f.symbol == "rpc-waited-none-reply"]
    assert len(none_reply) == 1, alone
    # FastRunner inherits Runner's omega, so s1 gives the message, for Sub0: s0 no longer
    # judges Sub0's calls.
    (judged,) = [f for f in together if f.symbol == "rpc-waited-none-reply"]
    assert judged.location == none_reply[0].location
    assert judged.surfaces == ("s1",)
    assert judged.args[1] == "Sub0"


SHARED_SUB_FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """\
class Core:
    def go(self):
        return self.mgr.call_func("load", wait_out=True)
class Sub(Core):
    def more(self):
        return self.mgr.call_func("drain", wait_out=True)
""",
    "pkg/runner.py": """\
class Runner:
    def load(self): return 1
    def drain(self): self.x = None
""",
    "pkg/other.py": """\
class Other:
    def drain(self): return True
""",
}
SHARED_SUB_ONE = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"
drops-none = true

[[tool.rpcsurface.surface]]
name = "one"
callers = ["pkg.core.Core"]
handlers = ["pkg.runner.Runner"]
"""
SHARED_SUB_TWO = """
[[tool.rpcsurface.surface]]
name = "two"
callers = ["pkg.core.Sub"]
handlers = ["pkg.other.Other"]
"""
SHARED_SUB_THREE = """
[[tool.rpcsurface.surface]]
name = "three"
callers = ["pkg.core.Sub"]
handlers = ["pkg.runner.Runner"]
"""
SHARED_SUB_FOUR = """
[[tool.rpcsurface.surface]]
name = "four"
callers = ["pkg.core.Sub"]
handlers = ["pkg.runner.Runner"]
"""


def test_a_caller_in_two_surfaces_gets_one_message_in_check_and_pylint(tmp_path: Path) -> None:
    """The smallest shared-caller case, end to end: surface 'one' judges Sub by its base
    Core; adding 'two', which names Sub, makes 'two' alone judge Sub's calls (Other's drain
    replies); with 'three' and 'four' naming Sub too, each gives the same message at the
    same node, which is one message naming both, in check and pylint."""
    root = tmp_path / "proj"
    files = {**SHARED_SUB_FILES, "pyproject.toml": SHARED_SUB_ONE}
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text, encoding="utf-8")

    def none_replies(tables: str) -> list[tuple[int, str]]:
        (root / "pyproject.toml").write_text(SHARED_SUB_ONE + tables, encoding="utf-8")
        check = run_check(root, "--format", "json", "--no-cache")
        pylint = run_pylint(root, "pkg")
        assert check.messages == pylint.messages, describe_run(pylint)
        return [(m.line, m.text) for m in check.messages if m.symbol == "rpc-waited-none-reply"]

    alone = none_replies("")
    assert [line for line, _ in alone] == [6]
    assert none_replies(SHARED_SUB_TWO) == []
    ((line, text),) = none_replies(SHARED_SUB_THREE + SHARED_SUB_FOUR)
    assert line == 6
    assert text.startswith("'drain' is waited on by Sub (in surfaces 'three' and 'four'), "), text

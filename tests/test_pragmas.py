"""Pragmas and pylint's configuration mean the same in ``check``, ``report``, SARIF and pylint.

A table of pragma placements, each site named for what pylint's documented semantics
give it (``silenced_*`` or ``reported_*``: derived by hand from pylint's rules, not from a
run), is linted by real pylint and by ``rpcsurface check``; both must drop exactly the
``silenced_*`` sites. The same source under several pylint configuration files checks
that ``check`` reads the one pylint reads.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support import project, run_check, run_cli, run_pylint

from pylint_rpcsurface.messages import BY_SYMBOL

DISPATCH = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"
drops-none = true
shared-reply-queue = true

[[tool.rpcsurface.surface]]
name = "main"
callers = ["app.core.Core"]
handlers = ["app.runners.Runner"]
registry = "app.registry.RPCS"
"""

RUNNERS = """\
class Runner:
    def maybe(self, flag):
        if flag:
            return None
        return 1

    def value(self):
        return 1
"""

# Every call waits on a name no handler answers (rpc-unanswered), except where noted.
CORE = '''\
"""Pragma placements, one site each."""


class Core:
    def trailing_symbol(self):
        self.mgr.call_func("silenced_trailing", wait_out=True)  # pylint: disable=rpc-unanswered

    def trailing_id(self):
        self.mgr.call_func("silenced_by_id", wait_out=True)  # pylint: disable=E7705

    def trailing_other_message(self):
        self.mgr.call_func("reported_other", wait_out=True)  # pylint: disable=rpc-unlisted

    def trailing_with_reason(self):
        self.mgr.call_func("silenced_reason", wait_out=True)  # pylint: disable=rpc-unanswered; ok

    def next_line(self):
        # pylint: disable-next=rpc-unanswered
        self.mgr.call_func("silenced_next", wait_out=True)
        self.mgr.call_func("reported_after_next", wait_out=True)

    def checker_name(self):
        self.mgr.call_func("silenced_checker", wait_out=True)  # pylint: disable=rpcsurface

    def category(self):
        self.mgr.call_func("silenced_category", wait_out=True)  # pylint: disable=E

    def long_category_names(self):
        # pylint has no category "error" or "warning": it says unknown-option-value.
        self.mgr.call_func("reported_error", wait_out=True)  # pylint: disable=error
        self.mgr.call_func("reported_warning", wait_out=True)  # pylint: disable=warning,W

    def old_spelling(self):
        self.mgr.call_func("silenced_old", wait_out=True)  # pylint: disable-msg=rpc-unanswered

    # On a def's line, the pragma's innermost node is the def's arguments (one line),
    # not the def: it reaches no further than that line, so the body is still linted.
    def def_line(self):  # pylint: disable=rpc-unanswered
        self.mgr.call_func("reported_def_line", wait_out=True)

    def block(self):
        # pylint: disable=rpc-unanswered
        self.mgr.call_func("silenced_block_1", wait_out=True)
        self.mgr.call_func("silenced_block_2", wait_out=True)
        # pylint: enable=rpc-unanswered
        self.mgr.call_func("reported_after_enable", wait_out=True)

    def late(self):
        self.mgr.call_func("reported_before_late", wait_out=True)
        # pylint: disable=rpc-unanswered
        self.mgr.call_func("silenced_after_late", wait_out=True)

    def ends_with_its_def(self):
        self.mgr.call_func("reported_next_def", wait_out=True)

    def in_an_if(self, flag):
        if flag:
            # pylint: disable=rpc-unanswered
            self.mgr.call_func("silenced_in_if", wait_out=True)
        self.mgr.call_func("reported_after_if", wait_out=True)

    def multi_line(self):
        self.mgr.call_func(  # pylint: disable=rpc-unanswered
            "reported_multi_line",
            wait_out=True,
        )

    def multi_line_name(self):
        self.mgr.call_func(
            "silenced_multi_line_name",  # pylint: disable=rpc-unanswered
            wait_out=True,
        )

    def opt_in(self):
        self.mgr.call_func("maybe", wait_out=True)

    def opt_in_enabled(self):
        self.mgr.call_func("maybe", wait_out=True)  # pylint: enable=rpc-waited-maybe-none

    def unwaited_exit(self):
        self.mgr.call_func("value", wait_out=False)  # pylint: disable=rpc-unwaited-reply


class Later:
    pass
'''

# A class whose body disables the message from its second line on: methods before it are
# reported, those after it are not.
CLASSES = """\
from app.core import Core


class Sub(Core):
    def first(self):
        self.mgr.call_func("reported_before_class_pragma", wait_out=True)

    # pylint: disable=rpc-unanswered

    def second(self):
        self.mgr.call_func("silenced_after_class_pragma", wait_out=True)


class Other(Core):
    def third(self):
        self.mgr.call_func("reported_other_class", wait_out=True)
"""

# A module-level disable after the docstring and an enable further down.
MODULE = '''\
"""Module pragmas."""
# pylint: disable=rpc-unanswered
from app.core import Core


class Early(Core):
    def go(self):
        self.mgr.call_func("silenced_module_block", wait_out=True)


# pylint: enable=rpc-unanswered


class Late(Core):
    def go(self):
        self.mgr.call_func("reported_module_enabled", wait_out=True)
'''

SKIPPED = """\
# pylint: skip-file
from app.core import Core


class Skipped(Core):
    def go(self):
        self.mgr.call_func("silenced_skip_file", wait_out=True)
"""

ALL = """\
from app.core import Core


class Everything(Core):
    def go(self):
        self.mgr.call_func("silenced_disable_all", wait_out=True)


# pylint: disable=all
"""

REGISTRY = """\
RPCS = (
    "silenced_listed",  # pylint: disable=rpc-listed-unanswered
    "reported_listed",
)
"""

FILES: dict[str, str] = {
    "app/__init__.py": "",
    "app/core.py": CORE,
    "app/runners.py": RUNNERS,
    "app/registry.py": REGISTRY,
    "app/classes.py": CLASSES,
    "app/module.py": MODULE,
    "app/skipped.py": SKIPPED,
    "app/everything.py": ALL,
}

Place = tuple[str, str, int, int]  # symbol, path, line, column


def _ours(messages: object) -> set[Place]:
    return {
        (m.symbol, m.path, m.line, m.column)  # type: ignore[attr-defined]
        for m in messages  # type: ignore[attr-defined]
        if m.symbol in BY_SYMBOL  # type: ignore[attr-defined]
    }


def _name_at(root: Path, place: Place) -> str:
    """The RPC name a finding is about: the quoted word at its place."""
    _, path, line, column = place
    text = (root / path).read_text(encoding="utf-8").splitlines()[line - 1].encode()
    return text[column:].decode().split('"')[1]


def _linted(root: Path) -> tuple[set[Place], set[Place]]:
    """What pylint (every checker on, its default configuration or the project's) and
    ``rpcsurface check`` report of our messages, in the same project."""
    pylint = run_pylint(root, "app", only_ours=False)
    assert "Traceback" not in pylint.stderr, pylint.stderr
    check = run_check(root, "--format", "json", "--no-cache")
    assert check.returncode in (0, 1), check
    return _ours(pylint.messages), _ours(check.messages)


@pytest.fixture(scope="module")
def default_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("pragmas"), {**FILES, "pyproject.toml": DISPATCH})


def test_check_drops_exactly_what_pylint_drops(default_project: Path) -> None:
    pylint, check = _linted(default_project)
    assert check == pylint
    names = {_name_at(default_project, place) for place in pylint}
    unanswered = {n for n in names if n.startswith(("silenced", "reported"))}
    wanted = {
        name
        for text in FILES.values()
        for name in (word.split('"')[0] for word in text.split('"reported_')[1:])
    }
    assert unanswered == {f"reported_{name}" for name in wanted}
    # The opt-in message is off by default, and on where a pragma enables it.
    maybe = sorted(p[2] for p in pylint if p[0] == "rpc-waited-maybe-none")
    assert maybe == [CORE.splitlines().index(_line_of(CORE, "opt_in_enabled")) + 2]
    assert not any(p[0] == "rpc-unwaited-reply" for p in pylint)


def _line_of(text: str, fragment: str) -> str:
    (line,) = [line for line in text.splitlines() if fragment in line]
    return line


CONFIGS = {
    "pyproject messages control": '[tool.pylint."messages control"]\n'
    'disable = ["rpc-unanswered"]\nenable = ["rpc-waited-maybe-none"]\n',
    "pyproject messages_control, a string": "[tool.pylint.messages_control]\n"
    'disable = "E7705,rpc-listed-unanswered"\n',
    "pyproject checker name, then one back": "[tool.pylint.main]\n"
    'disable = ["rpcsurface"]\n[tool.pylint.messages_control]\nenable = ["rpc-unanswered"]\n',
    # pylint applies an "all" before the other enable and disable options.
    "enable the checker, then disable all": "[tool.pylint.main]\n"
    'enable = ["rpcsurface"]\ndisable = ["all"]\n',
    "disable one, then enable all": "[tool.pylint.main]\n"
    'disable = ["rpc-unanswered"]\n[tool.pylint.messages_control]\nenable = "all"\n',
    "all inside one item of a list": "[tool.pylint.main]\n"
    'disable = ["rpc-unanswered"]\nenable = ["rpc-listed-unanswered,all"]\n',
    # Not categories: pylint reports unknown-option-value and changes nothing.
    "long category names": '[tool.pylint.main]\ndisable = ["warning", "error", "W"]\n',
    # Only the listed confidence levels are reported; empty is every level, blank none.
    "confidence HIGH": '[tool.pylint.main]\nconfidence = ["HIGH"]\n',
    "confidence INFERENCE": '[tool.pylint.main]\nconfidence = "INFERENCE,UNDEFINED"\n',
    "confidence empty": "[tool.pylint.main]\nconfidence = []\n",
    "confidence blank": '[tool.pylint.main]\nconfidence = " "\n',
    # The files pylint does not lint have no findings.
    "ignore a base name": '[tool.pylint.main]\nignore = ["classes.py", "module.py"]\n',
    "ignore-patterns": '[tool.pylint.main]\nignore-patterns = ["^cla", "^mo{1,2}d"]\n',
    "ignore-paths of a file": '[tool.pylint.main]\nignore-paths = ["app/skipped.py", "app/cl.*"]\n',
    "ignore-paths, anchored": '[tool.pylint.main]\nignore-paths = "^app/mod.*$"\n',
    "ignore nothing, not even CVS": '[tool.pylint.main]\nignore = []\nignore-patterns = ""\n',
    # With none of our messages on, pylint runs no checker of ours: pragmas enable nothing.
    "every message of ours off": '[tool.pylint.main]\ndisable = ["rpcsurface"]\n',
    # fail-on enables the messages it names, after every other option.
    "fail-on enables": '[tool.pylint.main]\ndisable = ["rpc-unanswered"]\n'
    'fail-on = ["rpc-waited-maybe-none", "E7705", "W"]\n',
}
INI = {  # label: (the file, its text)
    "pylintrc": (
        "pylintrc",
        "[MESSAGES CONTROL]\ndisable=rpc-unanswered,\n    rpc-listed-unanswered\n",
    ),
    ".pylintrc": (".pylintrc", "[messages control]\nenable=rpc-waited-maybe-none\n"),
    "setup.cfg": ("setup.cfg", "[pylint.messages_control]\ndisable = rpc-unanswered\n"),
    "pylintrc, all first": (
        "pylintrc",
        "[MAIN]\nconfidence=HIGH,INFERENCE\nignore=module.py\n"
        "[MESSAGES CONTROL]\ndisable=rpc-unanswered\nenable=all\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_pyproject_pylint_configuration_means_the_same(tmp_path: Path, name: str) -> None:
    root = project(tmp_path, {**FILES, "pyproject.toml": DISPATCH + "\n" + CONFIGS[name]})
    pylint, check = _linted(root)
    assert check == pylint


@pytest.mark.parametrize("name", sorted(INI))
def test_the_pylintrc_pylint_reads_first_means_the_same(tmp_path: Path, name: str) -> None:
    # pyproject.toml also configures pylint: the rc file comes first in pylint's order,
    # except setup.cfg, which comes after it.
    shadow = '[tool.pylint."messages control"]\ndisable = ["rpc-listed-unanswered"]\n'
    file, text = INI[name]
    files = {**FILES, "pyproject.toml": DISPATCH + "\n" + shadow, file: text}
    root = project(tmp_path, files)
    pylint, check = _linted(root)
    assert check == pylint


def test_sarif_keeps_silenced_findings_as_suppressed(default_project: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    run = run_cli(default_project, "check", "--format", "sarif", "--no-cache")
    log = json.loads(run.stdout)
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator(schema).validate(log)
    (sarif_run,) = log["runs"]
    shown: list[tuple[str, str, list[str]]] = []
    for result in sarif_run["results"]:
        physical = result["locations"][0]["physicalLocation"]
        region, uri = physical["region"], physical["artifactLocation"]["uri"]
        name = _name_at(default_project, ("", uri, region["startLine"], region["startColumn"] - 1))
        kinds = [s["kind"] for s in result.get("suppressions", [])]
        shown.append((name, result["ruleId"], kinds))
    unanswered = BY_SYMBOL["rpc-unanswered"].msgid
    assert ("silenced_trailing", unanswered, ["inSource"]) in shown
    assert ("silenced_skip_file", unanswered, ["inSource"]) in shown
    assert ("reported_other", unanswered, []) in shown
    # Off by default: kept, and marked as suppressed by configuration, not in the source.
    maybe = BY_SYMBOL["rpc-waited-maybe-none"].msgid
    assert sorted(k for n, rule, k in shown if n == "maybe" and rule == maybe) == [
        [],
        ["external"],
    ]
    # pylint's findings only: check == pylint on this project is the first test's.
    linted = run_pylint(default_project, "app", only_ours=False)
    assert "Traceback" not in linted.stderr, linted.stderr
    pylint = _ours(linted.messages)
    assert len([kinds for _, _, kinds in shown if not kinds]) == len(pylint)
    assert run.returncode == 1


def test_report_marks_silenced_verdicts(default_project: Path) -> None:
    run = run_cli(default_project, "report", "--format", "json")
    assert run.returncode == 0, run.stderr
    (surface,) = json.loads(run.stdout)
    rows = {row["rpc"]: row for row in surface["rows"]}
    assert rows["silenced_trailing"]["verdict"] == ["rpc-unanswered (silenced)"]
    assert rows["silenced_trailing"]["silenced"] == ["rpc-unanswered"]
    assert rows["reported_other"]["verdict"] == ["rpc-unanswered"]
    assert rows["reported_other"]["silenced"] == []
    text = run_cli(default_project, "report").stdout
    assert "rpc-unanswered (silenced)" in _line_of(text, "silenced_block_1")


def test_a_warm_check_honours_the_pragmas_it_cached(tmp_path: Path, cache_home: Path) -> None:
    """The pragma states are cached with the findings: the run that fills the cache and
    the one that answers from it report the same, and pylint agrees."""
    root = project(tmp_path, {**FILES, "pyproject.toml": DISPATCH})
    cold = run_check(root, "--format", "json")
    warm = run_check(root, "--format", "json")
    assert list(cache_home.glob("*/store-*.json"))
    assert _ours(warm.messages) == _ours(cold.messages)
    pylint = run_pylint(root, "app", only_ours=False, env={"RPCSURFACE_NO_CACHE": "1"})
    assert _ours(warm.messages) == _ours(pylint.messages)


# ---------------------------------------------------------------------------
# Random placements, against real pylint

_BUDGET = os.environ.get("RPCSURFACE_PROPERTY_EXAMPLES")
RANDOM = settings(
    max_examples=max(8, int(_BUDGET) // 10) if _BUDGET else 8,
    deadline=None,
    database=None,
    derandomize=not _BUDGET,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Mostly names that cover the message the calls get (rpc-unanswered), sometimes one that
# does not (rpc-unlisted).
_TARGETS = st.sampled_from(
    ["rpc-unanswered", "rpc-unanswered", "E7705", "rpcsurface", "E", "rpc-unlisted"]
)
_PRAGMA = st.builds(
    lambda action, target: f"# pylint: {action}={target}",
    st.sampled_from(["disable", "enable", "disable-next", "disable", "disable-msg"]),
    _TARGETS,
)
_HEADERS = ("if flag:", "for _ in flag:", "while flag:", "with flag:", "try:")


@st.composite
def _body(draw: st.DrawFn, depth: int) -> list[str]:
    """Statements (lines, indented relative to the block) with calls and pragmas."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["call", "call", "pragma", "block"] if depth < 2 else ["call", "pragma"]
            )
        )
        if kind == "call":
            call = 'self.mgr.call_func("NAME", wait_out=True)'
            if draw(st.booleans()):
                call += "  " + draw(_PRAGMA)
            lines.append(call)
        elif kind == "pragma":
            lines.append(draw(_PRAGMA))
        else:
            header = draw(st.sampled_from(_HEADERS))
            lines.append(header)
            lines += ["    " + line for line in draw(_body(depth + 1))]
            if header == "try:":
                lines.append("except ValueError:")
                lines += ["    " + line for line in draw(_body(depth + 1))]
            elif header == "if flag:" and draw(st.booleans()):
                lines.append("else:")
                lines += ["    " + line for line in draw(_body(depth + 1))]
    if all(line.lstrip().startswith("#") for line in lines):
        lines.append("pass")
    return lines


@st.composite
def pragma_modules(draw: st.DrawFn) -> str:
    """A module of two caller classes, pragmas at module, class and statement level."""
    out = ["from app.core import Core", ""]
    for cls in ("One", "Two"):
        if draw(st.booleans()):
            out.append(draw(_PRAGMA))
        out += ["", f"class {cls}(Core):"]
        for number in range(draw(st.integers(1, 3))):
            if draw(st.booleans()) and draw(st.booleans()):
                out.append("    " + draw(_PRAGMA))
            out.append(f"    def m{number}(self, flag):")
            out += ["        " + line for line in draw(_body(0))]
    text = "\n".join(out) + "\n"
    counter = iter(range(10_000))
    while "NAME" in text:
        text = text.replace("NAME", f"n{next(counter)}", 1)
    return text


@pytest.mark.slow  # a hypothesis campaign, a pylint run per example
@RANDOM
@given(pragma_modules())
def test_random_pragma_placements_silence_what_pylint_silences(module: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = project(Path(folder), {**FILES, "pyproject.toml": DISPATCH, "app/random.py": module})
        pylint, check = _linted(root)
    mine = {p for p in pylint if p[1] == "app/random.py"}
    assert {p for p in check if p[1] == "app/random.py"} == mine, module


@pytest.mark.parametrize(
    "flags",
    [
        ("--disable=all", "--enable=rpcsurface"),
        ("--enable=rpc-waited-maybe-none", "--disable=E7705,rpc-unlisted"),
        ("--disable=rpcsurface", "--enable=rpc-unlisted"),
        ("--enable=rpc-unanswered", "--disable=all"),  # the "all" comes first
        ("--disable=warning,error",),  # no categories
        ("--disable=W", "--enable=all"),
    ],
)
def test_check_takes_pylints_command_line_enable_and_disable(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """The flags come after the configuration file, in order, in both: the file's
    disable of rpc-unanswered does not survive --enable=rpcsurface."""
    config = '[tool.pylint."messages control"]\ndisable = ["rpc-unanswered"]\n'
    root = project(tmp_path, {**FILES, "pyproject.toml": DISPATCH + "\n" + config})
    pylint = run_pylint(root, *flags, "app", only_ours=False)
    check = run_check(root, "--format", "json", "--no-cache", *flags)
    assert check.returncode in (0, 1), check
    assert _ours(check.messages) == _ours(pylint.messages)


@pytest.mark.parametrize("spelling", ["app", "./app/", "absolute", "app/classes.py"])
def test_check_of_a_path_leaves_out_what_pylint_ignores(tmp_path: Path, spelling: str) -> None:
    """ignore-paths sees each path spelled from the argument, as pylint is given it: here
    the relative spelling of module.py, the absolute one of classes.py (both have
    findings)."""
    config = (
        "[tool.pylint.main]\n"
        'ignore-paths = ["app/module.py", "^/.*/app/cl.*$"]\n'
        'ignore-patterns = ["^reg"]\n'
    )
    root = project(tmp_path, {**FILES, "pyproject.toml": DISPATCH + "\n" + config})
    argument = str(root / "app") if spelling == "absolute" else spelling
    pylint = run_pylint(root, argument, only_ours=False)
    check = run_check(root, "--format", "json", "--no-cache", argument)
    assert check.returncode in (0, 1), check
    assert _ours(check.messages) == _ours(pylint.messages)


_NESTED_CALLER = """\
from app.core import Core


class Nested(Core):
    def go(self):
        self.mgr.call_func("reported_nested", wait_out=True)
"""
# A sub-package, a folder without __init__.py (which the plugin adds to what pylint
# lints) and a package inside that folder, each with a finding.
NESTED = {
    "app/sub/__init__.py": "",
    "app/sub/deep.py": _NESTED_CALLER,
    "app/loose/mod.py": _NESTED_CALLER,
    "app/loose/pkg/__init__.py": "",
    "app/loose/pkg/inner.py": _NESTED_CALLER,
}


@pytest.mark.parametrize(
    "ignoring",
    [
        'ignore-patterns = ["^sub$"]',  # pylint's expansion does not prune a sub-package
        'ignore-patterns = ["^loose$"]',  # the plugin's walk prunes the folder
        'ignore-patterns = ["^pkg$"]',
        'ignore = ["sub", "pkg"]',
        'ignore-paths = ["^app/sub$", "app/loose/pkg$"]',
        'ignore-paths = ["app/loose/"]',
    ],
)
@pytest.mark.parametrize("arguments", [("app",), ("--recursive=y", ".")], ids=" ".join)
def test_ignored_folders_are_left_out_as_pylint_leaves_them(
    tmp_path: Path, ignoring: str, arguments: tuple[str, ...]
) -> None:
    config = f"[tool.pylint.main]\n{ignoring}\n"
    files = {**FILES, **NESTED, "pyproject.toml": DISPATCH + "\n" + config}
    root = project(tmp_path, files)
    pylint = run_pylint(root, *arguments, only_ours=False)
    check = run_check(root, "--format", "json", "--no-cache", *arguments[-1:])
    assert check.returncode in (0, 1), check
    assert _ours(check.messages) == _ours(pylint.messages)


# Options pylint refuses: it lints nothing (a usage error, or a crash), and check says
# which file and key in one line, with its usage status.
REFUSED = {  # name: (pylint's configuration, command-line flags, the key the error names)
    "all both ways": ('[tool.pylint.main]\nenable = ["all"]\ndisable = "all"\n', (), "all"),
    "all both ways, on the command line": ("", ("--enable=all", "--disable=all"), "all"),
    "a confidence level misspelt": (
        '[tool.pylint.main]\nconfidence = ["high"]\n',
        (),
        "confidence",
    ),
    "ignore-patterns": ('[tool.pylint.main]\nignore-patterns = ["(open"]\n', (), "ignore-patterns"),
    "ignore-paths": ('[tool.pylint.main]\nignore-paths = ["app/[x"]\n', (), "ignore-paths"),
    # "No files to lint: exiting."
    "every message disabled": (
        '[tool.pylint.main]\nenable = ["E7705"]\n',
        ("--disable=all",),
        "all",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_options_pylint_refuses_are_a_one_line_usage_error(tmp_path: Path, name: str) -> None:
    config, flags, key = REFUSED[name]
    root = project(tmp_path, {**FILES, "pyproject.toml": DISPATCH + "\n" + config})
    pylint = run_pylint(root, *flags, "app", only_ours=False)
    assert pylint.returncode & (1 | 32), pylint.stderr  # fatal, or a usage error
    assert not _ours(pylint.messages)
    check = run_check(root, "--no-cache", *flags)
    assert check.returncode == 2, check
    (line,) = check.stderr.splitlines()
    assert ("the command line" if flags else str(root / "pyproject.toml")) in line, line
    assert key in line, line


# ---------------------------------------------------------------------------
# Random pylint configurations, command lines and pragma placements, against real pylint

_CONTROL_NAMES = st.sampled_from(
    [
        "rpc-unanswered",
        "E7705",
        "e7705",
        "rpc-unlisted",
        "rpc-listed-unanswered",
        "rpc-waited-maybe-none",
        "rpcsurface",
        "E",
        "w",
        "error",
        "warning",
        "all",
    ]
)
_TOGGLES = st.lists(_CONTROL_NAMES, min_size=1, max_size=3)
# Other options, each left out (None) or one of a few values.
_OTHERS = {
    "confidence": [[], ["HIGH"], ["INFERENCE"], ["HIGH", "INFERENCE", "INFERENCE_FAILURE"]],
    "ignore": [["classes.py"], ["module.py", "app"], []],
    "ignore-patterns": [["^mod"], ["^ever", "^s{1,2}k"], []],
    "ignore-paths": [["app/skipped.py"], "^app/every.*$", ["app/c"]],
    "fail-on": [["rpc-waited-maybe-none"], ["E"], ["E7705", "rpc-unlisted"]],
}


def _toml_value(value: object) -> str:
    return json.dumps(value)  # a JSON string or list of strings is TOML too


@st.composite
def pylint_configurations(draw: st.DrawFn) -> str:
    """[tool.pylint.*] tables: enable and disable in random tables and orders (a table
    holds each key once), and some of the other options pylint's findings depend on."""
    tables: list[list[str]] = []
    for _ in range(draw(st.integers(1, 3))):
        keys = draw(st.permutations(["enable", "disable"]))[: draw(st.integers(1, 2))]
        tables.append([f"{key} = {_toml_value(draw(_TOGGLES))}" for key in keys])
    for key, values in _OTHERS.items():
        if draw(st.booleans()) and draw(st.booleans()):
            value = draw(st.sampled_from(values))
            draw(st.sampled_from(tables)).append(f"{key} = {_toml_value(value)}")
    names = draw(st.permutations(["main", '"messages control"', "basic", "format"]))
    return "".join(
        f"[tool.pylint.{name}]\n" + "".join(line + "\n" for line in lines)
        for name, lines in zip(names, tables, strict=False)
    )


_FLAGS = st.lists(
    st.builds(
        lambda option, names: f"--{option}={','.join(names)}",
        st.sampled_from(["enable", "disable"]),
        _TOGGLES,
    ),
    max_size=2,
)


@pytest.mark.slow  # a hypothesis campaign, a pylint run per example
# A second a run of each: twice the other tests' examples; shrinking would cost minutes.
@settings(RANDOM, max_examples=2 * RANDOM.max_examples, phases=[Phase.explicit, Phase.generate])
@given(pylint_configurations(), _FLAGS, pragma_modules())
def test_random_configurations_give_what_pylint_gives(
    configuration: str, flags: list[str], module: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        files = {
            **FILES,
            "pyproject.toml": DISPATCH + "\n" + configuration,
            "app/random.py": module,
        }
        root = project(Path(folder), files)
        pylint = run_pylint(root, *flags, "app", only_ours=False)
        check = run_check(root, "--format", "json", "--no-cache", *flags)
    # pylint stops with a usage error for enable=all with disable=all, and when every
    # message is disabled ("No files to lint"): check too, with its own usage status.
    if "are incompatible" in pylint.stderr or "No files to lint" in pylint.stdout:
        assert check.returncode == 2, (configuration, flags, check)
        return
    assert "Traceback" not in pylint.stderr, pylint.stderr
    assert check.returncode in (0, 1), check
    assert _ours(check.messages) == _ours(pylint.messages), (configuration, flags, module)

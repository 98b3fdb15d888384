"""The parity matrix: every way a user runs the checker gives the same findings, on a
project laid out like a real inference engine (tests/fixtures/real_layout).

``engine/`` is a regular package; ``engine/model_engine/``, which holds every caller and
handler (and a regular package of its own, ``rlhf/``), has no ``__init__.py``: pylint's own
discovery never lints it (pylint#3944, #9187), and the plugin makes it (docs/modes.md).
Two surfaces share the caller ``EngineCore``; the dispatch sets ``drops-none`` and
``shared-reply-queue``.

What is expected comes from the fixture's source, never from a run: a line ending in
``# [symbol]`` (or ``# [symbol, symbol]``) holds exactly one string literal, the RPC name
the finding is about, and the finding is at that literal's line and column. A proxy call
names its RPC by the attribute it calls, not by a literal: its marker ends in ``@text``
(``# [rpc-proxy-unanswered] @actor.save_model``), and the finding is at the column where
``text`` starts on the line (the call's own column), about the RPC ``text`` ends with
(engine/model_engine/actors.py, the ``proxy`` table). A table entry's finding is at its
value, about its key: ``@"_handle_x"=x`` (engine/model_engine/utility.py, the ``utility``
surface's ``tables``). engine/model_engine/critic.py has two proxy tables with ``when``
(the setting that picks the critic's worker class guards the calls) and a subclass's own
table, which alone judges the subclass's calls, its inherited ones too. Each mode must
give exactly that set of (symbol, path, line, column); a pylint mode, on the files it
lints; ``report``, as (RPC name, symbol) from its rows' verdicts.

The one site both surfaces judge is marked ``# [rpc-waited-none-reply] shared``
(engine/model_engine/engine_core.py, EngineCore.stop): it is one message, which names
both surfaces (:func:`test_no_module_is_linted_twice` checks that). A line
``# silenced: [symbol]`` plants a finding a pragma silences, on the next line with a
string literal: no mode reports it, SARIF keeps it as suppressed in the source, and
``report`` marks it ``(silenced)``.

Every run gets a fresh copy of the fixture, so no run is served by a cache an earlier
run left in the project folder. The pre-commit rows are marked ``precommit``.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import tokenize
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import PylintRun, describe_run, run_check, run_cli, run_pylint

from pylint_rpcsurface.pylint_plugin import LINT_FOLDERS_OPTION

FIXTURE = Path(__file__).parent / "fixtures" / "real_layout"
FOLDER_WITHOUT_INIT = "engine/model_engine"

Key = tuple[str, str, int, int]  # (symbol, path, line, column)

_SYMBOLS = r"\[(?P<symbols>[a-z0-9-]+(?:\s*,\s*[a-z0-9-]+)*)\]"
# A proxy call's (or a table entry's): where its text starts on the line, and the RPC
# after "=" when the text does not end with it.
_AT = r"(?:\s+@(?P<at>[^\s=]+)(?:=(?P<rpc>\S+))?)?"
_MARKER = re.compile(r"#\s*" + _SYMBOLS + r"(?P<shared> shared)?" + _AT + "$")
# A comment line "# silenced: [symbol]" plants a finding that a pragma silences, on the
# next line that holds a string literal (the pragma itself may take that line's comment).
_SILENCED = re.compile(r"^#\s*silenced:\s*" + _SYMBOLS + _AT + "$")


@dataclass(frozen=True)
class Planted:
    symbol: str
    path: str
    line: int
    column: int  # 0-based, in UTF-8 bytes, as pylint counts
    rpc: str
    shared: bool  # judged by both surfaces
    silenced: bool = False  # a pragma silences it

    @property
    def key(self) -> Key:
        return (self.symbol, self.path, self.line, self.column)


def python_files(root: Path = FIXTURE) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*.py") if "__pycache__" not in p.parts
    )


def _planted_in(relpath: str) -> list[Planted]:
    text = (FIXTURE / relpath).read_text(encoding="utf-8")
    lines = text.splitlines()
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    found = []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        silenced = _SILENCED.match(token.string)
        match = silenced or _MARKER.search(token.string)
        if match is None:
            malformed = f"{relpath}:{token.start[0]}: a malformed marker {token.string!r}"
            assert "# [" not in token.string, malformed
            assert "silenced:" not in token.string, malformed
            continue
        line = token.start[0]
        at = match["at"]
        if silenced and at:  # the next line that holds the text
            line = next(n for n in range(line + 1, len(lines) + 1) if at in lines[n - 1])
        elif silenced:  # the next line with a string literal
            line = min(
                t.start[0] for t in tokens if t.type == tokenize.STRING and t.start[0] > line
            )
        code = lines[line - 1][: token.start[1]] if not silenced else lines[line - 1]
        if at:
            assert at in code, f"{relpath}:{line}: {at!r} is not in the code of the line"
            column = len(code[: code.index(at)].encode("utf-8"))
            rpc = match["rpc"] or at.rpartition(".")[2]
        else:
            strings = [t for t in tokens if t.type == tokenize.STRING and t.start[0] == line]
            assert len(strings) == 1, f"{relpath}:{line}: a marked line needs one string literal"
            (literal,) = strings
            column = len(lines[line - 1][: literal.start[1]].encode("utf-8"))
            rpc = ast.literal_eval(literal.string)
        for symbol in match["symbols"].split(","):
            found.append(
                Planted(
                    symbol.strip(),
                    relpath,
                    line,
                    column,
                    rpc,
                    bool(not silenced and match["shared"]),
                    bool(silenced),
                )
            )
    return found


ALL_PLANTED = [p for relpath in python_files() for p in _planted_in(relpath)]
PLANTED = [p for p in ALL_PLANTED if not p.silenced]
EXPECTED = {p.key for p in PLANTED}
SILENCED = {p.key for p in ALL_PLANTED if p.silenced}
SHARED = {p.key for p in PLANTED if p.shared}
FILES_WITH_FINDINGS = sorted({p.path for p in PLANTED})


def expected_in(paths: set[str]) -> set[Key]:
    return {key for key in EXPECTED if key[1] in paths}


def fresh_copy(tmp_path: Path) -> Path:
    return Path(
        shutil.copytree(
            FIXTURE, tmp_path / "real_layout", ignore=shutil.ignore_patterns("__pycache__")
        )
    )


def test_the_fixture_is_the_layout_and_plants_several_rules() -> None:
    """The matrix means something only if the fixture is what the docstring says."""
    assert (FIXTURE / "engine" / "__init__.py").is_file()
    assert not (FIXTURE / FOLDER_WITHOUT_INIT / "__init__.py").exists()
    assert (FIXTURE / FOLDER_WITHOUT_INIT / "rlhf" / "__init__.py").is_file()
    assert len({p.symbol for p in PLANTED}) >= 8
    assert len(EXPECTED) == len(PLANTED)  # one symbol per place, as markers are read
    # Most findings are where pylint's own discovery never looks; some are where it does.
    inside = {p for p in FILES_WITH_FINDINGS if p.startswith(FOLDER_WITHOUT_INIT + "/")}
    assert len(inside) >= 2
    assert set(FILES_WITH_FINDINGS) - inside
    assert len(SHARED) == 1
    text = (FIXTURE / "pyproject.toml").read_text(encoding="utf-8")
    assert "drops-none = true" in text
    assert "shared-reply-queue = true" in text
    # A proxy table too, whose findings are at calls of attributes, one of them silenced.
    assert "[[tool.rpcsurface.proxy]]" in text
    proxy_file = f"{FOLDER_WITHOUT_INIT}/actors.py"
    planted_there = {p.symbol for p in PLANTED if p.path == proxy_file}
    assert {"rpc-proxy-unanswered", "rpc-handler-signature"} <= planted_there
    assert any(key[1] == proxy_file for key in SILENCED)
    # Pragmas silence some sites: on the line by symbol, on the next line by id, and a
    # block by the checker's name, which an enable ends.
    source = "".join((FIXTURE / f).read_text("utf-8") for f in python_files())
    for pragma in ("disable=rpc-", "disable-next=E77", "disable=rpcsurface", "enable=rpcsurface"):
        assert f"# pylint: {pragma}" in source, pragma
    assert len(SILENCED) >= 3


# ---------------------------------------------------------------------------
# The modes. Each returns the findings as keys, and the files it lints (None: all).

Mode = Callable[[Path], tuple[set[Key], set[str] | None]]


def _pylint_keys(run: PylintRun) -> set[Key]:
    assert "Traceback" not in run.stdout + run.stderr, describe_run(run)
    assert run.stdout.lstrip().startswith("{"), describe_run(run)
    return {(m.symbol, m.path, m.line, m.column) for m in run.messages}


# `path:line:column: symbol: message`, check's text format.
_CHECK_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<symbol>[a-z0-9-]+): ")


def _check_text(copy: Path) -> tuple[set[Key], set[str] | None]:
    run = run_check(copy)
    assert run.returncode == 1, run
    lines = run.stdout.splitlines()
    keys = set()
    for line in lines:
        match = _CHECK_LINE.match(line)
        assert match, line
        keys.add((match["symbol"], match["path"], int(match["line"]), int(match["col"])))
    return keys, None


def _check_json(copy: Path) -> tuple[set[Key], set[str] | None]:
    run = run_check(copy, "--format", "json")
    assert run.returncode == 1, run
    return {(m.symbol, m.path, m.line, m.column) for m in run.messages}, None


def _check_sarif(copy: Path) -> tuple[set[Key], set[str] | None]:
    run = run_check(copy, "--format", "sarif")
    assert run.returncode == 1, run
    (sarif_run,) = json.loads(run.stdout)["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    keys, suppressed = set(), set()
    for result in sarif_run["results"]:
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        region = physical["region"]
        # SARIF columns are 1-based UTF-16 units; the fixture is ASCII, where they are
        # bytes + 1 (test_the_fixture_is_ascii).
        key = (
            rules[result["ruleIndex"]]["name"],
            physical["artifactLocation"]["uri"],
            region["startLine"],
            region["startColumn"] - 1,
        )
        # A silenced finding stays in the log, suppressed in the source.
        if result.get("suppressions"):
            assert [s["kind"] for s in result["suppressions"]] == ["inSource"], result
            suppressed.add(key)
        else:
            keys.add(key)
    assert suppressed == SILENCED, _diff(suppressed, SILENCED)
    return keys, None


# pylint's four whole-tree command lines (the README's `--recursive=y .`, a package, and
# both with -j 2) are the rows of test_no_module_is_linted_twice, which asserts these
# same findings of each and more, so they are not run again here.
MODES: dict[str, Mode] = {
    "rpcsurface check": _check_text,
    "rpcsurface check --format json": _check_json,
    "rpcsurface check --format sarif": _check_sarif,
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_gives_the_planted_findings(mode: str, tmp_path: Path) -> None:
    keys, _ = MODES[mode](fresh_copy(tmp_path))
    assert keys == EXPECTED, _diff(keys, EXPECTED)


@pytest.mark.parametrize("relpath", python_files())
def test_pylint_on_one_file_gives_its_planted_findings(relpath: str, tmp_path: Path) -> None:
    run = run_pylint(fresh_copy(tmp_path), relpath)
    keys = _pylint_keys(run)
    assert keys == expected_in({relpath}), _diff(keys, expected_in({relpath}))


@pytest.mark.parametrize("relpath", FILES_WITH_FINDINGS)
def test_pylint_from_stdin_gives_the_buffers_planted_findings(relpath: str, tmp_path: Path) -> None:
    """The editor's mode: the buffer comes on stdin. The saved file is emptied, so only
    the buffer can hold the findings (the rest of the project is read from disk)."""
    copy = fresh_copy(tmp_path)
    buffer = (copy / relpath).read_text(encoding="utf-8")
    (copy / relpath).write_text("", encoding="utf-8")
    run = run_pylint(copy, "--from-stdin", relpath, stdin=buffer)
    keys = _pylint_keys(run)
    assert keys == expected_in({relpath}), _diff(keys, expected_in({relpath}))


def test_report_verdicts_are_the_planted_findings_by_name(tmp_path: Path) -> None:
    completed = run_cli(fresh_copy(tmp_path), "report", "--format", "json")
    assert completed.returncode == 0, completed.stderr
    verdicts = {
        (row["rpc"], symbol)
        for surface in json.loads(completed.stdout)
        for row in surface["rows"]
        for symbol in row["verdict"]
        if symbol != "ok"
    }
    planted = {(p.rpc, p.symbol) for p in PLANTED}
    planted |= {(p.rpc, f"{p.symbol} (silenced)") for p in ALL_PLANTED if p.silenced}
    assert verdicts == planted


def test_the_fixture_is_ascii() -> None:
    """So that SARIF's UTF-16 columns are pylint's byte columns plus one."""
    for relpath in python_files():
        assert (FIXTURE / relpath).read_bytes().isascii(), relpath


# ---------------------------------------------------------------------------
# What the whole-tree modes lint: every module once, under the source roots only.


# A plugin that reports every module pylint lints, once per time it lints it.
_LINTED_PLUGIN = """\
from pylint.checkers import BaseChecker


class Linted(BaseChecker):
    name = "linted-probe"
    msgs = {"C9901": ("linted", "module-linted", "Once for every module linted.")}

    def visit_module(self, node):
        self.add_message("module-linted", node=node, line=1)


def register(linter):
    linter.register_checker(Linted(linter))
"""


def _linted(copy: Path, tmp_path: Path, *args: str) -> tuple[PylintRun, Counter[str]]:
    """pylint with our checker and the probe: the run, and how often it linted each file."""
    plugins = tmp_path / "probe_plugins"
    plugins.mkdir(exist_ok=True)
    (plugins / "linted_probe.py").write_text(_LINTED_PLUGIN, encoding="utf-8")
    run = run_pylint(
        copy,
        "--load-plugins=linted_probe",
        "--enable=module-linted",
        *args,
        env={"PYTHONPATH": str(plugins)},
    )
    assert "Traceback" not in run.stdout + run.stderr, describe_run(run)
    assert run.stdout.lstrip().startswith("{"), describe_run(run)
    return run, Counter(m.path for m in run.messages if m.symbol == "module-linted")


@pytest.mark.parametrize(
    "args",
    [("--recursive=y", "."), ("engine",), ("-j", "2", "--recursive=y", "."), ("-j", "2", "engine")],
    ids=" ".join,
)
def test_no_module_is_linted_twice(args: tuple[str, ...], tmp_path: Path) -> None:
    """Every module of the fixture is linted, once, and every finding is one message: the
    site both surfaces judge too (one message that names both surfaces)."""
    run, linted = _linted(fresh_copy(tmp_path), tmp_path, *args)
    assert linted == Counter(python_files()), describe_run(run)
    ours = [m for m in run.messages if m.symbol != "module-linted"]
    assert {(m.symbol, m.path, m.line, m.column) for m in ours} == EXPECTED
    counts = Counter((m.symbol, m.path, m.line, m.column, m.text) for m in ours)
    assert max(counts.values()) == 1, counts
    places = Counter((m.symbol, m.path, m.line, m.column) for m in ours)
    assert max(places.values()) == 1, places
    (shared,) = [m.text for m in ours if (m.symbol, m.path, m.line, m.column) in SHARED]
    assert "surfaces 'fast' and 'rlhf'" in shared, shared


def test_naming_a_module_twice_still_lints_it_once(tmp_path: Path) -> None:
    """The package, and a module of its folder without __init__.py named as well: by a
    relative path (pylint's spelling of the modules it adds) or by an absolute one."""
    copy = fresh_copy(tmp_path)
    inside = f"{FOLDER_WITHOUT_INIT}/engine_core.py"
    for spelling in (f"./{inside}", str((copy / inside).resolve())):
        run, linted = _linted(copy, tmp_path, "engine", spelling)
        assert linted == Counter(python_files()), describe_run(run)


def test_a_package_named_by_its_module_name(tmp_path: Path) -> None:
    """``pylint engine`` where engine is no folder of the working directory, but a package
    on the path: its folder without __init__.py is linted too."""
    copy = fresh_copy(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plugins = tmp_path / "probe_plugins"
    plugins.mkdir()
    (plugins / "linted_probe.py").write_text(_LINTED_PLUGIN, encoding="utf-8")
    run = run_pylint(
        elsewhere,
        "--load-plugins=linted_probe",
        "--enable=module-linted",
        "engine",
        env={"PYTHONPATH": os.pathsep.join((str(plugins), str(copy)))},
    )
    linted = Counter(
        Path(m.path).resolve().relative_to(copy.resolve()).as_posix()
        for m in run.messages
        if m.symbol == "module-linted"
    )
    assert linted == Counter(python_files()), describe_run(run)


@pytest.mark.parametrize(
    ("option", "left_out"),
    [
        ("--ignore=rlhf", f"{FOLDER_WITHOUT_INIT}/rlhf/"),
        ("--ignore-patterns=^model_runner", f"{FOLDER_WITHOUT_INIT}/model_runner.py"),
        ("--ignore-paths=.*/rlhf/core.py", f"{FOLDER_WITHOUT_INIT}/rlhf/core.py"),
    ],
)
def test_the_added_modules_honour_pylints_ignore_options(
    option: str, left_out: str, tmp_path: Path
) -> None:
    run, linted = _linted(fresh_copy(tmp_path), tmp_path, option, "--recursive=y", ".")
    kept = [p for p in python_files() if not p.startswith(left_out)]
    assert len(kept) < len(python_files())
    assert linted == Counter(kept), describe_run(run)


def test_the_option_off_lints_what_pylint_alone_would(tmp_path: Path) -> None:
    """``--rpcsurface-lint-folders-without-init=n``: the folder without __init__.py is
    left out again, as pylint leaves it, and so are its findings."""
    outside = {p for p in python_files() if not p.startswith(FOLDER_WITHOUT_INIT + "/")}
    run, linted = _linted(
        fresh_copy(tmp_path), tmp_path, f"--{LINT_FOLDERS_OPTION}=n", "--recursive=y", "."
    )
    assert linted == Counter(outside), describe_run(run)
    ours = {(m.symbol, m.path, m.line, m.column) for m in run.messages}
    assert {key for key in ours if key[0] != "module-linted"} == expected_in(outside)


def test_only_modules_under_the_source_roots_of_a_table_are_added(tmp_path: Path) -> None:
    """Other checkers lint the added modules too, so only our project's are added: files
    under the source roots of the [tool.rpcsurface] table that applies to them. Each module
    here gets missing-module-docstring, so the messages name the modules linted."""
    copy = tmp_path / "tree"
    copy.mkdir()
    project = fresh_copy(copy)  # tree/real_layout: the table and engine/
    (project / FOLDER_WITHOUT_INIT / "extra.py").write_text("X = 1\n", "utf-8")
    vendored = project / FOLDER_WITHOUT_INIT / "node_modules" / "vendored.py"  # not the
    vendored.parent.mkdir()  # project's own code: the analysis never reads it either
    vendored.write_text("X = 1\n", "utf-8")
    for relpath in ("tools/__init__.py", "tools/loose/script.py"):  # outside: no table
        (copy / relpath).parent.mkdir(parents=True, exist_ok=True)
        (copy / relpath).write_text("X = 1\n", encoding="utf-8")
    extra = f"real_layout/{FOLDER_WITHOUT_INIT}/extra.py"
    for config in ((), ("--rpcsurface-config=real_layout/pyproject.toml",)):
        run = run_pylint(copy, *config, "--enable=missing-module-docstring", "--recursive=y", ".")
        linted = {m.path for m in run.messages if m.symbol == "missing-module-docstring"}
        assert {"tools/__init__.py", extra} <= linted, describe_run(run)
        assert "tools/loose/script.py" not in linted, describe_run(run)
        assert vendored.relative_to(copy).as_posix() not in linted, describe_run(run)


def _diff(got: set[Key], expected: set[Key]) -> str:
    return (
        f"missing: {sorted(expected - got)}\nunexpected: {sorted(got - expected)}"
        if got != expected
        else ""
    )


# ---------------------------------------------------------------------------
# Both pre-commit hooks, run by the real pre-commit program (tests/test_pre_commit.py).

# pylint's text format: path:line:column: msgid: text (symbol)
_PYLINT_LINE = re.compile(
    r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): [EWCRIF]\d{4}: .*\((?P<symbol>[a-z0-9-]+)\)$"
)


@pytest.mark.precommit
@pytest.mark.parametrize(
    ("hook", "line_format"),
    [("pylint-rpcsurface", _PYLINT_LINE), ("rpcsurface-check", _CHECK_LINE)],
    ids=["pylint-rpcsurface", "rpcsurface-check"],
)
def test_the_pre_commit_hook_gives_the_planted_findings(
    hook: str, line_format: re.Pattern[str], tmp_path: Path
) -> None:
    from test_pre_commit import explain, git, hooks_repo, try_repo  # noqa: PLC0415

    repo = hooks_repo(tmp_path)
    project = fresh_copy(tmp_path)
    git(project, "init", "-q")
    git(project, "add", "-A")
    run = try_repo(project, repo, hook, tmp_path / "pre-commit-home")
    assert run.returncode == 1, explain(run)
    assert "Traceback" not in run.stdout + run.stderr, explain(run)
    keys = set()
    for line in run.stdout.splitlines():
        match = line_format.match(line)
        if match:
            keys.add((match["symbol"], match["path"], int(match["line"]), int(match["col"])))
    assert keys == EXPECTED, _diff(keys, EXPECTED) + explain(run)

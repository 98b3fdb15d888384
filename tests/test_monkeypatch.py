"""An assignment to a class from another module (a monkeypatch) neither adds to the class
nor replaces its own ``def``, whichever modules were built before the analysis.

astroid, building ``zpatch.py: Runner.beta = _beta``, adds ``beta`` to ``Runner``
wherever it lives. A whole-tree ``pylint .`` builds every module first; ``pylint
core.py`` builds one, ``rpcsurface check`` those its subclass search parses (a module
naming a caller). Each project here plants its findings with ``# [symbol]`` markers, and
every mode must give exactly those: pylint on the whole tree (one process and ``-j 2``),
on the files that hold the markers, on a buffer, ``rpcsurface check`` cold, warm and
without the store, and ``report``. A store left by one mode then answers the next as
``--no-cache`` does.
"""

from __future__ import annotations

import json
import uuid
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from support import (
    PylintRun,
    assert_no_crash,
    describe_run,
    fast_surface,
    marked_findings,
    project,
    pylint_argv,
    run_check,
    run_cli,
    run_pylint,
)

Key = tuple[str, str, int]

SURFACE = fast_surface("core.Core", "hand.Runner", "hand.Runner", "hand.FAST_RPCS")
HANDLERS = """\
FAST_RPCS = ()


class Runner:
    def alpha(self):
        return 1
"""

# A patch in another module adds the name the caller waits on: not seen, so unanswered.
ADDS = {
    "pyproject.toml": SURFACE,
    "hand.py": HANDLERS,
    "core.py": """\
class Core:
    def step(self):
        return self.mgr.call_func("beta", wait_out=True)  # [rpc-unanswered]
""",
    "zpatch.py": """\
from hand import Runner


def _beta(self):
    return 2


Runner.beta = _beta
""",
}

# verl's examples/split_placement: a script replaces the caller's method with its own. The
# caller's own def is what runs for everyone who doesn't import the example: still judged.
# The example names the caller, so the subclass search parses it.
REPLACES_CALLERS_METHOD = {
    "pyproject.toml": SURFACE,
    "hand.py": HANDLERS,
    "core.py": """\
class Core:
    def step(self):
        self.mgr.call_func("alpha", wait_out=True)
        return self.mgr.call_func("dump_memory", wait_out=True)  # [rpc-unanswered]
""",
    "examples/split/main.py": """\
from core import Core


def step(self):
    return self.mgr.call_func("alpha", wait_out=True)


Core.step = step
""",
}

# A patch replaces the handler's def by a lambda: the def's signature is still judged.
REPLACES_HANDLERS_METHOD = {
    "pyproject.toml": SURFACE,
    "hand.py": HANDLERS,
    "core.py": """\
class Core:
    def step(self):
        return self.mgr.call_func("alpha", 7, wait_out=True)  # [rpc-handler-signature]
""",
    "zpatch.py": """\
from hand import Runner

Runner.alpha = lambda self, value: value
""",
}

# A patch rebinds the handler's name in its module to another class, which answers.
REBINDS_THE_HANDLER = {
    **ADDS,
    "zpatch.py": """\
import hand


class Other:
    def beta(self):
        return 2


hand.Runner = Other
""",
}

PROJECTS = {
    "adds-a-method": ADDS,
    "rebinds-the-handler": REBINDS_THE_HANDLER,
    "replaces-the-callers-method": REPLACES_CALLERS_METHOD,
    "replaces-the-handlers-method": REPLACES_HANDLERS_METHOD,
}


def planted(files: dict[str, str]) -> set[Key]:
    return {
        (symbol, path, line)
        for path, text in files.items()
        if path.endswith(".py")
        for symbol, line in marked_findings(text)
    }


def pylint_keys(root: Path, *args: str) -> set[Key]:
    run = run_pylint(root, *args)
    assert_no_crash(run)
    return run.keys()


def check_keys(root: Path, *args: str) -> set[Key]:
    run = run_check(root, "--format", "json", *args)
    assert run.returncode in (0, 1), (run.stdout, run.stderr)
    return {(m.symbol, m.path, m.line) for m in run.messages}


def python_files(files: dict[str, str]) -> list[str]:
    return sorted(path for path in files if path.endswith(".py"))


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_every_mode_ignores_an_assignment_from_another_module(tmp_path: Path, name: str) -> None:
    files = PROJECTS[name]
    root = project(tmp_path, files)
    expected = planted(files)
    assert expected  # each project plants a finding the patch would hide or answer
    every_file = python_files(files)
    # Before any store exists: pylint building every module first, in one process.
    assert pylint_keys(root, "--rpcsurface-no-cache=y", *every_file) == expected
    assert pylint_keys(root, "--rpcsurface-no-cache=y", "-j", "2", *every_file) == expected
    assert check_keys(root, "--no-cache") == expected
    assert check_keys(root) == expected  # cold: the store is written
    assert check_keys(root) == expected  # warm
    for path in sorted({path for _, path, _ in expected}):
        alone = {key for key in expected if key[1] == path}
        assert pylint_keys(root, "--rpcsurface-no-cache=y", path) == alone
        buffer = (root / path).read_text(encoding="utf-8")
        run = run_pylint(root, "--rpcsurface-no-cache=y", "--from-stdin", path, stdin=buffer)
        assert run.keys() == alone, describe_run(run)
    report = run_cli(root, "report", "--no-cache", "--format", "json")
    assert report.returncode == 0, report.stderr
    verdicts = {
        symbol
        for surface in json.loads(report.stdout)
        for row in surface["rows"]
        for symbol in row["verdict"]
        if symbol != "ok"
    }
    assert verdicts == {symbol for symbol, _, _ in expected}


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_a_store_written_by_the_whole_tree_answers_one_file_as_no_cache(
    tmp_path: Path, name: str
) -> None:
    """The store keeps pieces, not what a mode happened to build: after a whole-tree run
    with the store on, one file warm is that file without the store."""
    files = PROJECTS[name]
    root = project(tmp_path, files)
    expected = planted(files)
    assert pylint_keys(root, *python_files(files)) == expected  # writes the store
    for path in python_files(files):
        warm = pylint_keys(root, path)
        assert warm == pylint_keys(root, "--rpcsurface-no-cache=y", path)
        assert warm == {key for key in expected if key[1] == path}


def test_a_patch_in_the_classs_own_module_is_seen(tmp_path: Path) -> None:
    """The class's own module assigning it a method is part of the class as every mode
    builds it: answered, whatever else was built."""
    files = dict(ADDS)
    files["hand.py"] = HANDLERS + "\n\ndef _beta(self):\n    return 2\n\n\nRunner.beta = _beta\n"
    del files["zpatch.py"]
    files["core.py"] = files["core.py"].replace("  # [rpc-unanswered]", "")
    root = project(tmp_path, files)
    assert pylint_keys(root, "--rpcsurface-no-cache=y", *python_files(files)) == set()
    assert pylint_keys(root, "--rpcsurface-no-cache=y", "core.py") == set()
    assert check_keys(root, "--no-cache") == set()


def test_pylints_own_checkers_still_see_the_patch(tmp_path: Path) -> None:
    """The assignments are out of the class only while the analysis runs: pylint's own
    checkers, linting after it, see the class as astroid built it, as without the plugin."""
    files = {**ADDS, "use.py": "from hand import Runner\n\nRunner().beta()\n"}
    root = project(tmp_path, files)
    modules = python_files(files)  # core.py first: the analysis runs before use.py is linted

    def in_use(run: PylintRun) -> set[Key]:
        assert_no_crash(run)
        return {key for key in run.keys() if key[1] == "use.py"}  # noqa: SIM118  # a method

    alone = run_pylint(root, "--disable=all", "--enable=no-member", *modules, only_ours=False)
    assert in_use(alone) == set()  # astroid built zpatch.py: Runner has beta
    both = ("--disable=all", "--enable=rpcsurface,no-member", "--rpcsurface-no-cache=y")
    run = run_pylint(root, *both, *modules, only_ours=False)
    assert in_use(run) == set()
    rpc = {key for key in run.keys() if key[0].startswith("rpc")}  # noqa: SIM118  # a method
    assert rpc == planted(files)


def test_runs_in_one_process_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor's language server runs pylint again and again in one process, where
    astroid keeps what it built: each run answers as the first."""
    from pylint.lint import Run  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    # Module names no other test of the session's process uses.
    files = {
        "pyproject.toml": fast_surface(
            "lived_core.Core", "lived.Runner", "lived.Runner", "lived.FAST_RPCS"
        ),
        "lived.py": HANDLERS,
        "lived_core.py": ADDS["core.py"],
        "lived_patch.py": ADDS["zpatch.py"].replace("from hand", "from lived"),
    }
    root = project(tmp_path, files)
    monkeypatch.chdir(root)
    expected = planted(files)

    def lint(*args: str) -> set[Key]:
        out = StringIO()
        with redirect_stdout(out):
            Run([*pylint_argv("--output-format=json2", *args)[3:]], exit=False)
        messages = json.loads(out.getvalue())["messages"]
        return {(m["symbol"], m["path"], m["line"]) for m in messages}

    for _ in range(2):
        assert lint("--rpcsurface-no-cache=y", *python_files(files)) == expected
        assert lint("--rpcsurface-no-cache=y", "lived_core.py") == expected


def test_a_library_class_patched_by_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A handler's base class from a library outside the roots, patched by a project
    module: astroid's module of the library outlives every run of an editor's process,
    the patch with it. Fresh processes and runs in one process all leave it out."""
    from pylint.lint import Run  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    library = f"patched_{uuid.uuid4().hex[:12]}"  # new to the session's astroid cache
    project(tmp_path / "libraries", {f"{library}.py": "class Base:\n    pass\n"})
    files = {
        "pyproject.toml": fast_surface(
            "patched_core.Core", "patched_hand.Runner", "patched_hand.Runner", "patched_hand.RPCS"
        ),
        "patched_hand.py": f"from {library} import Base\n\nRPCS = ()\n\n\nclass Runner(Base):\n"
        "    pass\n",
        "patched_core.py": ADDS["core.py"],
        "patched_zpatch.py": f"from {library} import Base\n\n\ndef _beta(self):\n"
        "    return 2\n\n\nBase.beta = _beta\n",
    }
    root = project(tmp_path / "project", files)
    expected = planted(files)
    env = {"PYTHONPATH": str(tmp_path / "libraries")}
    every_file = python_files(files)
    fresh = run_pylint(root, "--rpcsurface-no-cache=y", *every_file, env=env)
    assert_no_crash(fresh)
    assert fresh.keys() == expected
    monkeypatch.syspath_prepend(str(tmp_path / "libraries"))
    monkeypatch.chdir(root)
    for _ in range(3):
        out = StringIO()
        with redirect_stdout(out):
            Run(
                pylint_argv("--output-format=json2", "--rpcsurface-no-cache=y", *every_file)[3:],
                exit=False,
            )
        messages = json.loads(out.getvalue())["messages"]
        assert {(m["symbol"], m["path"], m["line"]) for m in messages} == expected

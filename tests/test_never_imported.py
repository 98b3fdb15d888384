"""The linter analyses the project; it never imports it.

Every module of the fixture (the registry module config.py, the handlers, the callers, the
other modules, model_engine/__init__.py and two conftest.py files) ends in a trap:
importing it writes an ``IMPORTED_<module>`` sentinel next to the module and raises. The
first tests prove the traps are live; the others lint in every mode (and run the CLI in
every mode, when the checkout has it) and look for sentinels. The last ones scan the
package's own source for anything that could run or import what it reads.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from acceptance_cases import (
    BUSY,
    CONFIG,
    ENGINE_CORE,
    FAST_CORES,
    FIXTURE,
    MODEL_RUNNER,
    TRAP_COMMENT,
    TRAPPED,
    assert_ran,
    make_copy,
    python_files,
    sentinels,
)
from support import run_cli, run_pylint

# ---------------------------------------------------------------------------
# The traps are real.


@pytest.mark.parametrize(
    ("module", "sentinel"),
    [
        ("atom.config", TRAPPED[CONFIG]),
        ("atom.model_engine", TRAPPED["atom/model_engine/__init__.py"]),
    ],
)
def test_importing_springs_the_trap(module: str, sentinel: str, tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    completed = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, '.'); import {module}"],
        cwd=copy,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env=env,
        check=False,
    )
    assert completed.returncode != 0
    assert "RuntimeError: the linter must never import this" in completed.stderr
    assert sentinels(copy) == [sentinel]


@pytest.mark.parametrize("relpath", sorted(TRAPPED))
def test_every_trap_springs(relpath: str, tmp_path: Path) -> None:
    """Run each module's trap (its tail, after its own imports would have run)."""
    copy = make_copy(tmp_path / "engine")
    text = (copy / relpath).read_text(encoding="utf-8")
    head, tail = text.split(TRAP_COMMENT)
    assert "import os as _os\n" in head
    namespace = {"__file__": str(copy / relpath), "__name__": "trap", "_os": os}
    with pytest.raises(RuntimeError, match="the linter must never import this"):
        exec(compile(TRAP_COMMENT + tail, relpath, "exec"), namespace)
    assert sentinels(copy) == [TRAPPED[relpath]]


def test_every_module_of_the_fixture_is_trapped() -> None:
    """The fixture's every module ends in a trap, so a mode that imported any would show."""
    assert sorted(TRAPPED) == python_files(FIXTURE)


# ---------------------------------------------------------------------------
# No mode of linting springs one.

WHOLE_TREE = ("--recursive=y", "atom")
MODES = {
    "whole-tree": WHOLE_TREE,
    "whole-folder-with-conftest": ("--recursive=y", "."),
    "jobs-2": ("-j", "2", *WHOLE_TREE),
    "package-dir": ("atom/model_engine",),
    "config-alone": (CONFIG,),
    "package-init-alone": ("atom/model_engine/__init__.py",),
    "model-runner-alone": (MODEL_RUNNER,),
    "engine-core-alone": (ENGINE_CORE,),
    "fast-cores-alone": (FAST_CORES,),
    "conftest-alone": ("conftest.py",),
    "stdin-engine-core": ("--from-stdin", ENGINE_CORE),
    "stdin-config": ("--from-stdin", CONFIG),
    "stdin-conftest": ("--from-stdin", "atom/conftest.py"),
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_no_mode_imports_the_project(mode: str, tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", BUSY)
    args = MODES[mode]
    stdin = (copy / args[1]).read_text(encoding="utf-8") if args[0] == "--from-stdin" else None
    run = run_pylint(copy, *args, stdin=stdin)
    assert_ran(run)
    assert sentinels(copy) == []


# ---------------------------------------------------------------------------
# The command line tool, when this checkout has it (it is written separately).

CLI_MODES = {
    "check": ("check",),
    "check-json": ("check", "--format", "json"),
    "check-one-file": ("check", ENGINE_CORE),
    "report": ("report",),
    "fix-diff": ("fix", "--diff"),
}


@pytest.mark.parametrize("cache", ["cache-on", "cache-off"])
@pytest.mark.parametrize("mode", sorted(CLI_MODES))
def test_no_cli_mode_imports_the_project(mode: str, cache: str, tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", BUSY)
    env = {"RPCSURFACE_NO_CACHE": "1"} if cache == "cache-off" else {}
    completed = run_cli(copy, *CLI_MODES[mode], env=env)
    assert "Traceback" not in completed.stderr, completed.stderr
    # The contract: 0 clean, 1 findings, 2 usage or configuration error. BUSY has findings.
    if mode.startswith("check"):
        assert completed.returncode == 1, (completed.returncode, completed.stderr)
    assert sentinels(copy) == []


# ---------------------------------------------------------------------------
# Nothing in the package can run code: no eval, exec or import of a computed name.

PACKAGE = Path(__file__).parent.parent / "pylint_rpcsurface"

# Builtins and functions that run code or import a module named at run time.
FORBIDDEN_NAMES = frozenset({"eval", "exec", "compile", "__import__", "execfile", "runpy"})
FORBIDDEN_ATTRIBUTES = frozenset(
    {
        "import_module",  # importlib.import_module
        "exec_module",  # a loader running a module
        "load_module",
        "spec_from_file_location",
        "module_from_spec",
        "run_module",  # runpy
        "run_path",
        "load_source",  # imp
        "reload",
    }
)


def _forbidden_module(name: str) -> bool:
    """runpy, imp and importlib run or import code; importlib.metadata only reads the
    installed distributions' metadata (the package's own version), so it is allowed."""
    top = name.split(".", 1)[0]
    if top in {"runpy", "imp"}:
        return True
    return top == "importlib" and not name.startswith("importlib.metadata")


def forbidden_uses(source: str, filename: str) -> list[str]:
    """Every use of a forbidden name, attribute or module in *source*, as 'file:line: what'."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        what = None
        if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            what = node.id
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            what = node.attr
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom):
                modules = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                modules = [alias.name for alias in node.names]
            what = ", ".join(m for m in modules if _forbidden_module(m)) or None
        if what:
            found.append(f"{filename}:{getattr(node, 'lineno', '?')}: {what}")
    return found


def test_the_package_never_evaluates_or_imports_what_it_reads() -> None:
    sources = sorted(PACKAGE.rglob("*.py"))
    assert len(sources) >= 10, sources  # the package, not an empty folder
    found = [
        use
        for path in sources
        for use in forbidden_uses(path.read_text(encoding="utf-8"), path.name)
    ]
    assert found == []


@pytest.mark.parametrize(
    "snippet",
    [
        "eval(text)",
        "exec(code, {})",
        "compile(text, 'f', 'exec')",
        "__import__(name)",
        "importlib.import_module(name)",
        "from importlib import import_module",
        "import runpy",
        "import importlib",
        "from importlib import util",
        "runpy.run_path(path)",
        "spec.loader.exec_module(module)",
        "importlib.util.module_from_spec(spec)",
    ],
)
def test_the_scan_sees_each_forbidden_use(snippet: str) -> None:
    assert forbidden_uses(f"x = 1\n{snippet}\n", "m.py") != []

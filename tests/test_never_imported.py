"""The linter analyses the project; it never imports it.

Every module of the fixture (the registry module config.py, the handlers, the callers, the
other modules, model_engine/__init__.py and two conftest.py files) ends in a trap:
importing it writes an ``IMPORTED_<module>`` sentinel next to the module and raises. The
first tests prove the traps are live; the others lint in every mode (and run the CLI in
every mode, when the checkout has it) and look for sentinels (the whole tree, -j 2 and each
file alone are test_parity.py's runs, which look there). Then the package's own
source is scanned for anything that could run or import what it reads, and the last ones
plant a trapped package for every astroid brain with a failed-import hook.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import astroid
import pytest
from acceptance_cases import (
    BUSY,
    CONFIG,
    ENGINE_CORE,
    FIXTURE,
    TRAP_COMMENT,
    TRAPPED,
    assert_ran,
    make_copy,
    python_files,
    sentinels,
)
from support import APP, PYPROJECT, clean_environment, project, run_cli, run_pylint

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

# test_parity.py runs pylint on a copy of BUSY as `--recursive=y atom`, with -j 1 and -j 2,
# and on each of its files alone, and asserts there that no sentinel was written: those
# modes are not run a second time here.
MODES = {
    "whole-folder-with-conftest": ("--recursive=y", "."),
    "package-dir": ("atom/model_engine",),
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


# ---------------------------------------------------------------------------
# astroid's brains import modules to inspect them; none of the project's may run.
#
# A failed-import hook runs when astroid can't find a module: the gi brain's calls
# ``__import__("gi.repository.<name>")``, which would run a project package named gi.
# Every brain that registers such a hook is found here by reading astroid's sources, and
# the dotted module names its hook handles are read from the hook's own string constants
# ("gi.repository.", "six.moves"): a brain added to astroid is covered without editing
# this test. For each, the project holds a package of that name whose every module
# writes a sentinel when imported, and a caller imports through it.

_BRAIN = Path(astroid.__file__).parent / "brain"
_DOTTED = re.compile(r"^[a-z_][a-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\.?$")


def _failed_import_hooks() -> dict[str, tuple[str, ...]]:
    """Each brain module with a failed-import hook, and the dotted names it handles."""
    found: dict[str, tuple[str, ...]] = {}
    for path in sorted(_BRAIN.glob("brain_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hooks = {
            call.args[0].id
            for call in ast.walk(tree)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "register_failed_import_hook"
            and call.args
            and isinstance(call.args[0], ast.Name)
        }
        names = {
            node.value.rstrip(".")
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef) and function.name in hooks
            for node in ast.walk(function)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _DOTTED.match(node.value)
        }
        if hooks:
            found[path.stem] = tuple(sorted(names))
    return found


HOOKS = _failed_import_hooks()

_TRAP = """\
import pathlib as _pathlib
_pathlib.Path(__file__).with_name("IMPORTED_" + __name__.replace(".", "_")).write_text("x")
raise RuntimeError("the linter must never import this")
"""


def _brain_project(root: Path, dotted: tuple[str, ...]) -> Path:
    """A project whose caller imports a missing module under each of *dotted*, and a
    trapped package for each name on the way."""
    files: dict[str, str] = {"pyproject.toml": PYPROJECT}
    imports = []
    for number, name in enumerate(dotted):
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            files["/".join(parts[:depth]) + "/__init__.py"] = _TRAP
        imports.append(
            f"        from {name} import Nope{number}\n"
            f"        self.mgr.call_func(Nope{number}.NAME, wait_out=True)\n"
        )
    app = APP + "\n    def through_the_brain(self):\n" + "".join(imports)
    files["app.py"] = app
    return project(root, files)


def _brain_sentinels(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("IMPORTED_*"))


def test_the_brains_with_failed_import_hooks_are_found() -> None:
    """The scan finds the gi brain's hook and the names it handles (so it finds hooks)."""
    assert "brain_gi" in HOOKS, HOOKS
    assert "gi.repository" in HOOKS["brain_gi"], HOOKS


@pytest.mark.parametrize("brain", sorted(HOOKS))
def test_the_planted_package_springs_when_imported(brain: str, tmp_path: Path) -> None:
    """The traps are live: importing each planted module writes its sentinel."""
    root = _brain_project(tmp_path / "project", HOOKS[brain])
    top = HOOKS[brain][0].split(".")[0]
    completed = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, '.'); import {top}"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_environment(),
        check=False,
    )
    assert "the linter must never import this" in completed.stderr
    assert _brain_sentinels(root) == [f"{top}/IMPORTED_{top}"]


@pytest.mark.parametrize("brain", sorted(HOOKS))
def test_no_brain_hook_imports_the_project(brain: str, tmp_path: Path) -> None:
    """pylint puts the project's root on sys.path, and so does PYTHONPATH for the
    command line: the brain's hook could import the planted package either way, and
    never does, whatever the mode."""
    root = _brain_project(tmp_path / "project", HOOKS[brain])
    run = run_pylint(root, "app.py")
    assert "Traceback" not in run.stderr, run.stderr
    assert any(m.symbol == "rpc-name-uninferable" for m in run.messages), run.stdout
    assert _brain_sentinels(root) == []
    for args in (("check", "--no-cache"), ("report",), ("fix", "--diff")):
        completed = run_cli(root, *args, env={"PYTHONPATH": str(root)})
        assert "Traceback" not in completed.stderr, completed.stderr
        assert _brain_sentinels(root) == [], args


def test_the_gi_require_version_transform_imports_nothing(tmp_path: Path) -> None:
    """The gi brain's transform of ``gi.require_version(...)`` imports gi when astroid
    builds a module calling it; the plugin builds the project's modules itself, and the
    project's gi package must not run. (pylint's own build of the linted file runs the
    transform too, as it does without the plugin: only the command line is checked.)"""
    root = _brain_project(tmp_path / "project", ("gi.repository",))
    app = (root / "app.py").read_text(encoding="utf-8")
    (root / "app.py").write_text('import gi\ngi.require_version("Gtk", "3.0")\n' + app)
    completed = run_cli(root, "check", "--no-cache", env={"PYTHONPATH": str(root)})
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "rpc-name-uninferable" in completed.stdout
    assert _brain_sentinels(root) == []


def test_the_import_guard_is_removed_after_the_analysis(tmp_path: Path) -> None:
    """Within the analysis, importing a project package is refused; afterwards, and after
    an exception inside, sys.meta_path and astroid's hooks are as before."""
    from pylint_rpcsurface.analysis.modules import (  # noqa: PLC0415
        ModuleStore,
        ProjectImportRefused,
    )
    from pylint_rpcsurface.sources import SourceTree  # noqa: PLC0415

    root = _brain_project(tmp_path / "project", ("gi.repository",))
    store = ModuleStore(SourceTree((root,)))
    finders = list(sys.meta_path)
    hooks = list(astroid.MANAGER._failed_import_hooks)
    sys.path.insert(0, str(root))
    try:
        with pytest.raises(ZeroDivisionError), store.resolving_imports():  # noqa: PT012
            with pytest.raises(ProjectImportRefused, match="never imported"):
                __import__("gi.repository")
            assert sys.meta_path[0] is not finders[0]
            raise ZeroDivisionError
    finally:
        sys.path.remove(str(root))
    assert sys.meta_path == finders
    assert astroid.MANAGER._failed_import_hooks == hooks
    assert _brain_sentinels(root) == []
    assert "gi" not in sys.modules


def test_the_guard_refuses_the_projects_modules_only(tmp_path: Path) -> None:
    """The finder itself: a package named like the project's and not imported yet is
    refused, and so is a module the other finders would load from under the roots; a
    package already imported from elsewhere (astroid's own lazy imports, when the project
    is a copy of astroid) and one already imported from the roots (the plugin analysing
    its own checkout) are left to the other finders."""
    from pylint_rpcsurface.analysis.modules import (  # noqa: PLC0415
        ProjectImportRefused,
        _NoProjectImports,
    )

    root = _brain_project(tmp_path / "project", ("gi.repository",))
    (root / "other_top.py").write_text("RAN = 1\n")
    guard = _NoProjectImports((str(root),), frozenset({"gi", "json"}))
    with pytest.raises(ProjectImportRefused):
        guard.find_spec("gi.repository.Nope")
    sys.path.insert(0, str(root))
    try:
        with pytest.raises(ProjectImportRefused):
            guard.find_spec("other_top")  # found under the roots by its file
        assert "json" in sys.modules
        assert guard.find_spec("json.no_such_module") is None  # imported from elsewhere
        package = root / "running_from_the_roots"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "sub.py").write_text("RAN = 1\n")
        running = type(sys)("running_from_the_roots")
        running.__file__ = str(package / "__init__.py")
        running.__path__ = [str(package)]
        sys.modules["running_from_the_roots"] = running
        try:
            assert guard.find_spec("running_from_the_roots.sub", running.__path__) is None
        finally:
            del sys.modules["running_from_the_roots"]
    finally:
        sys.path.remove(str(root))
    assert _brain_sentinels(root) == []

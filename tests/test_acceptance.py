"""The acceptance table, run end to end: mutate a copy of the fixture engine, lint it, and
compare every message with the ``# expect:`` markers of the mutated copy."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is a dependency of the package below 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from acceptance_cases import (
    BUSY,
    CASES,
    CASES_BY_ID,
    CONFIG,
    DIFFUSION_CORE,
    ENGINE_CORE,
    FIXTURE,
    GREEN,
    SYMBOLS,
    TRAP_COMMENT,
    TRAPPED,
    Case,
    assert_no_duplicates,
    assert_ran,
    expected_findings,
    explain,
    make_copy,
    prefill_core_lines,
    python_files,
    sentinels,
)
from support import run_check, run_pylint


def fixture_registry() -> tuple[str, ast.expr]:
    """The registry of the fixture's one surface, as its pyproject names it: the module's
    path (relative to the fixture) and the value of the module-level assignment, read
    with ``ast`` (the fixture is linted, never imported)."""
    with (FIXTURE / "pyproject.toml").open("rb") as toml:
        (surface,) = tomllib.load(toml)["tool"]["rpcsurface"]["surface"]
    module, _, constant = surface["registry"].rpartition(".")
    base = module.replace(".", "/")
    found = [path for path in (f"{base}.py", f"{base}/__init__.py") if (FIXTURE / path).is_file()]
    assert len(found) == 1, f"the registry's module {module} is {found} in the fixture"
    relpath = found[0]
    tree = ast.parse((FIXTURE / relpath).read_text(encoding="utf-8"))
    values = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == constant for t in node.targets)
    ]
    assert len(values) == 1, f"{relpath} assigns {constant} {len(values)} times at module level"
    return relpath, values[0]


def _case_id(case: Case) -> str:
    return case.id


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_case(case: Case, tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", case.edits)
    expected = expected_findings(copy)
    if case.id in GREEN:
        assert expected == set(), f"{case.id} is a silent case but carries markers"
    else:
        assert expected, f"{case.id} expects findings but its edits carry no marker"

    run = run_pylint(copy, "--recursive=y", "atom")

    assert_ran(run)
    assert run.keys() == expected, explain(expected, run)
    assert_no_duplicates(run)
    if expected:
        assert run.returncode != 0, explain(expected, run)
    else:
        assert run.returncode == 0, explain(expected, run)
    assert sentinels(copy) == [], "the linter imported a module of the fixture"

    # The command line, computed afresh, agrees with pylint to the column and the text.
    # (The cached answer equals the --no-cache one: test_incremental's oracle. pylint's
    # entry is not check's here: pylint puts the linted folders on sys.path, which is in
    # the store's key, so a second check with the cache on computed afresh as well.)
    whole = {(m.symbol, m.path, m.line, m.column, m.text) for m in run.messages}
    check = run_check(copy, "--format", "json", "--no-cache")
    assert check.returncode == (1 if expected else 0), check.stderr
    assert {(m.symbol, m.path, m.line, m.column, m.text) for m in check.messages} == whole
    assert sentinels(copy) == [], "the command line imported a module of the fixture"


# ---------------------------------------------------------------------------
# The table itself: these need no plugin, so they hold while it is being written.


def test_case_ids_are_unique_and_green_ids_exist() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))
    assert set(GREEN) <= set(ids)
    assert all(case.description and "\n" not in case.description for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_case_applies_and_compiles(case: Case, tmp_path: Path) -> None:
    """Every anchor matches exactly once, every mutated file is valid Python, and every
    marker names a known symbol (expected_findings raises otherwise)."""
    copy = make_copy(tmp_path / "engine", case.edits)
    for relpath in python_files(copy):
        compile((copy / relpath).read_text(encoding="utf-8"), relpath, "exec")
    assert {symbol for symbol, _, _ in expected_findings(copy)} <= SYMBOLS


def test_busy_mutation_applies(tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", BUSY)
    paths = {path for _, path, _ in expected_findings(copy)}
    assert {CONFIG, ENGINE_CORE, "atom/model_engine/fast_cores.py"} <= paths


def test_fixture_is_pristine() -> None:
    """The unmutated fixture has no markers, no sentinel, and the layout the spec asks for."""
    assert expected_findings(FIXTURE) == set()
    assert sentinels(FIXTURE) == []
    assert not (FIXTURE / "atom" / "__init__.py").exists()  # namespace package
    assert (FIXTURE / "atom" / "model_engine" / "__init__.py").exists()
    assert not list((FIXTURE / "atom" / "diffusion").rglob("__init__.py"))
    for relpath in python_files(FIXTURE):
        compile((FIXTURE / relpath).read_text(encoding="utf-8"), relpath, "exec")


def test_registry_has_one_element_per_line() -> None:
    """The registry the fixture's pyproject names is a tuple of distinct str literals, one
    per line (so a finding on an element's line is about that element), in the module
    the cases edit as the registry's (CONFIG)."""
    relpath, value = fixture_registry()
    assert relpath == CONFIG, f"the fixture's registry is in {relpath}, the cases edit {CONFIG}"
    assert isinstance(value, ast.Tuple)
    assert value.elts, "the fixture's registry is empty"
    names = [elt.value for elt in value.elts if isinstance(elt, ast.Constant)]
    assert len(names) == len(value.elts), "an element is not a literal"
    assert all(isinstance(name, str) for name in names), names
    assert len(set(names)) == len(names), names
    lines = [elt.lineno for elt in value.elts]
    assert len(set(lines)) == len(lines)


def test_import_traps_come_last() -> None:
    """Each trap is the tail of its module, so it shifts no line of the code above it."""
    for relpath in TRAPPED:
        text = (FIXTURE / relpath).read_text(encoding="utf-8")
        tail = text[text.index(TRAP_COMMENT) :]
        assert tail.rstrip().endswith('raise RuntimeError("the linter must never import this")')
        assert "class " not in tail
        assert "def " not in tail


def test_x4_call_lands_inside_prefill_core(tmp_path: Path) -> None:
    """The point of X4: the diffusion broadcast's line number is inside PrefillEngineCore's
    line range in the other engine_core.py."""
    for edits in (CASES_BY_ID["X4"].edits, BUSY):
        copy = make_copy(tmp_path / f"engine{len(edits)}", edits)
        first, last = prefill_core_lines((copy / ENGINE_CORE).read_text(encoding="utf-8"))
        diffusion = (copy / DIFFUSION_CORE).read_text(encoding="utf-8").splitlines()
        (line,) = [n for n, text in enumerate(diffusion, 1) if "diffusion_only_rpc" in text]
        assert first < line < last


def test_plugin_declares_every_symbol(tmp_path: Path) -> None:
    """The plugin loads and declares the messages this table expects (``--list-msgs``)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    completed = subprocess.run(
        [sys.executable, "-m", "pylint", "--load-plugins=pylint_rpcsurface", "--list-msgs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
        check=False,
    )
    assert "Traceback" not in completed.stderr, completed.stderr
    missing = sorted(s for s in SYMBOLS if f":{s} (" not in completed.stdout)
    assert not missing, f"symbols not declared by the plugin: {missing}\n{completed.stderr}"


def test_x1_called_names_the_helper_chain(tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", CASES_BY_ID["X1-CALLED"].edits)
    lines = (copy / ENGINE_CORE).read_text(encoding="utf-8").splitlines()
    (call_line,) = [n for n, line in enumerate(lines, 1) if "drain_all(self.runner_mgr)" in line]
    run = run_pylint(copy, "--recursive=y", "atom")
    (unlisted,) = [m for m in run.messages if m.symbol == "rpc-unlisted"]
    assert (
        "'drain_stream_pool' is waited on by PrefillEngineCore via drain_all() at "
        f"{ENGINE_CORE}:{call_line} and answered only by RapidServeModelRunner"
    ) in unlisted.text, unlisted.text

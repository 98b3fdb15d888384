"""The linter analyses the project; it never imports it.

The fixture's config.py, model_engine/__init__.py, model_runner.py and engine_core.py end
in a trap: importing them writes an ``IMPORTED_<module>`` sentinel next to the module and
raises. The first tests prove the traps are live; the others lint in every mode and look
for sentinels.
"""

from __future__ import annotations

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
    MODEL_RUNNER,
    TRAP_COMMENT,
    TRAPPED,
    assert_ran,
    make_copy,
    sentinels,
)
from pylint_runner import run_pylint

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


# ---------------------------------------------------------------------------
# No mode of linting springs one.

WHOLE_TREE = ("--recursive=y", "atom")
MODES = {
    "whole-tree": WHOLE_TREE,
    "jobs-2": ("-j", "2", *WHOLE_TREE),
    "package-dir": ("atom/model_engine",),
    "config-alone": (CONFIG,),
    "package-init-alone": ("atom/model_engine/__init__.py",),
    "model-runner-alone": (MODEL_RUNNER,),
    "engine-core-alone": (ENGINE_CORE,),
    "fast-cores-alone": (FAST_CORES,),
    "stdin-engine-core": ("--from-stdin", ENGINE_CORE),
    "stdin-config": ("--from-stdin", CONFIG),
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_no_mode_imports_the_project(mode: str, tmp_path: Path) -> None:
    copy = make_copy(tmp_path / "engine", BUSY)
    args = MODES[mode]
    stdin = (copy / args[1]).read_text(encoding="utf-8") if args[0] == "--from-stdin" else None
    run = run_pylint(copy, *args, stdin=stdin)
    assert_ran(run)
    assert sentinels(copy) == []

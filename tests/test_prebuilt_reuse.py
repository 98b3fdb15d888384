"""pylint mode reuses the module pylint built of the file it lints.

Each test runs real pylint on a tiny project with a ``sitecustomize`` audit hook: it
counts how often the linted file's text is compiled (pylint's build, and the engine's
unless it reuses pylint's module), or rewrites the file between pylint's read and the
engine's, which must then not reuse a module of the old text.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from support import (
    APP,
    APP_PLANTED,
    PLANTED_LINE,
    PYPROJECT,
    fast_surface,
    marked_findings,
    project,
    run_pylint,
)

_HOOK = """\
import os
import sys
import traceback

_MARK = os.environ.get("RPCSURFACE_TEST_MARK")
_COUNT = os.environ.get("RPCSURFACE_TEST_COUNT_TO")
_TARGET = os.environ.get("RPCSURFACE_TEST_REWRITE")
_STATE = {"compiled": 0, "rewritten": False}


def _ours_reading():
    return any(frame.name == "read_source" for frame in traceback.extract_stack())


def _hook(event, args):
    # The memo's parse for a module's digests (engine/digests.py) builds nothing.
    if event == "compile" and _MARK and args[1] != "<rpcsurface digests>":
        source = args[0]
        if isinstance(source, bytes):
            source = source.decode("utf-8", "replace")
        if isinstance(source, str) and _MARK in source:
            _STATE["compiled"] += 1
            if _COUNT:
                with open(_COUNT, "w", encoding="utf-8") as stream:
                    stream.write(str(_STATE["compiled"]))
    elif event == "open" and _TARGET and not _STATE["rewritten"]:
        if args[0] == _TARGET and _ours_reading():
            _STATE["rewritten"] = True  # before the plugin's first read of the file
            with open(os.environ["RPCSURFACE_TEST_REWRITE_TO"], encoding="utf-8") as s:
                text = s.read()
            with open(_TARGET, "w", encoding="utf-8") as stream:
                stream.write(text)


sys.addaudithook(_hook)
"""

MARK = "# the linted file"


def _settled_project(tmp_path: Path, app: str) -> tuple[Path, dict[str, str]]:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": app + MARK + "\n"})
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_HOOK, encoding="utf-8")
    old = time.time_ns() - 3_600 * 10**9
    os.utime(root / "app.py", ns=(old, old))
    time.sleep(0.1)  # the ctime is older than the run by more than a clock tick
    return root, {"PYTHONPATH": str(hooks), "RPCSURFACE_TEST_MARK": MARK}


@pytest.mark.parametrize("cache", ["y", "n"])
def test_the_linted_file_is_built_once(tmp_path: Path, cache: str) -> None:
    """pylint builds app.py; the engine uses that module instead of a second copy."""
    root, env = _settled_project(tmp_path, APP_PLANTED)
    count = tmp_path / "compiled"
    env["RPCSURFACE_TEST_COUNT_TO"] = str(count)
    run = run_pylint(root, f"--rpcsurface-no-cache={cache}", "app.py", env=env, timeout=120)
    found = {(m.symbol, m.path, m.line) for m in run.messages}
    assert found == {("rpc-unanswered", "app.py", PLANTED_LINE)}, run.stdout + run.stderr
    assert count.read_text(encoding="utf-8") == "1"


def test_a_file_rewritten_after_pylint_built_it_is_read_again(tmp_path: Path) -> None:
    """pylint built the planted version; the file is then rewritten (clean) just before
    the plugin reads it. The analysis is of the text on disk, never of pylint's stale
    module: no finding, as the clean text has none."""
    root, env = _settled_project(tmp_path, APP_PLANTED)
    clean = tmp_path / "clean.py"
    clean.write_text(APP + MARK + "\n", encoding="utf-8")
    env |= {
        "RPCSURFACE_TEST_REWRITE": str(root / "app.py"),
        "RPCSURFACE_TEST_REWRITE_TO": str(clean),
    }
    run = run_pylint(root, "--rpcsurface-no-cache=y", "app.py", env=env, timeout=120)
    assert (root / "app.py").read_text(encoding="utf-8") == clean.read_text(encoding="utf-8")
    assert "Traceback" not in run.stderr, run.stderr
    assert [m.symbol for m in run.messages] == [], run.stdout + run.stderr


# infer/ has no __init__.py: pylint names the modules from infer/worker and infer/engine
# ("worker.runner"), and on its search path `from infer.worker.base import Runner` finds
# nothing. Its build of runner.py infers that base (astroid's own transforms do) and
# astroid caches the failure by node; the analysis reuses pylint's modules of this run.
NAMESPACE = {
    "pyproject.toml": fast_surface(
        "infer.engine.core.Core",
        "infer.worker.runner.FastRunner",
        "infer.worker.base.Runner",
        "infer.worker.base.FAST_RPCS",
    ),
    "infer/worker/__init__.py": "",
    "infer/engine/__init__.py": "",
    "infer/worker/base.py": (
        "FAST_RPCS = ()\n\n\nclass Runner:\n    def step(self):\n        return 1\n"
    ),
    "infer/worker/runner.py": (
        "from infer.worker.base import Runner\n\n\n"
        "class FastRunner(Runner):\n    def fast_step(self):\n        return 2\n"
    ),
    "infer/engine/core.py": """\
class Core:
    def run(self):
        self.mgr.call_func("step", wait_out=True)
        self.mgr.call_func("ghost", wait_out=True)  # [rpc-unanswered]
""",
}


def test_what_pylint_inferred_while_building_a_reused_module_is_inferred_again(
    tmp_path: Path,
) -> None:
    """The whole tree's run reuses every module pylint built; the base class pylint's
    search path could not find must be found on the analysis's, or the handlers' names
    are unknown and the unanswered 'ghost' goes unreported."""
    root = project(tmp_path / "proj", NAMESPACE)
    run = run_pylint(root, "--rpcsurface-no-cache=y", "--recursive=y", ".", timeout=120)
    core = "infer/engine/core.py"
    expected = {(symbol, core, line) for symbol, line in marked_findings(NAMESPACE[core])}
    assert {(m.symbol, m.path, m.line) for m in run.messages} == expected, run.stdout + run.stderr


CORE_WITH = {
    # pylint names infer/engine/core.py "engine.core" (infer/ has no __init__.py): its
    # module stands for ours only if no relative import reads that name.
    "no relative import": ("", 1),
    "a relative import": ("from . import helpers\n", 2),
    "one written without a space": ("from.helpers import VALUE\n", 2),
    "one after a line continuation": ("from \\\n    .helpers import VALUE\n", 2),
    "only the words, in a comment": ("# see from . import helpers, in the docs\n", 1),
}


@pytest.mark.parametrize("case", sorted(CORE_WITH))
def test_a_module_pylint_named_otherwise_is_reused_unless_it_imports_relatively(
    tmp_path: Path, case: str
) -> None:
    """A relative import resolves from the module's name, and pylint gave it another:
    such a module is built again under ours; any other is pylint's, built once. (The
    text is searched for a relative import before the module is walked for one.)"""
    first_line, compiled = CORE_WITH[case]
    files = dict(NAMESPACE)
    files["infer/engine/helpers.py"] = "VALUE = 1\n"
    core = "infer/engine/core.py"
    files[core] = first_line + NAMESPACE[core] + MARK + "\n"
    root = project(tmp_path / "proj", files)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_HOOK, encoding="utf-8")
    old = time.time_ns() - 3_600 * 10**9
    for path in root.rglob("*.py"):
        os.utime(path, ns=(old, old))
    time.sleep(0.1)  # the ctimes are older than the run by more than a clock tick
    count = tmp_path / "compiled"
    env = {
        "PYTHONPATH": str(hooks),
        "RPCSURFACE_TEST_MARK": MARK,
        "RPCSURFACE_TEST_COUNT_TO": str(count),
    }
    run = run_pylint(root, "--rpcsurface-no-cache=y", core, env=env, timeout=120)
    expected = {(symbol, core, line) for symbol, line in marked_findings(files[core])}
    assert {(m.symbol, m.path, m.line) for m in run.messages} == expected, run.stdout + run.stderr
    assert count.read_text(encoding="utf-8") == str(compiled)

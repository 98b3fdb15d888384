"""One Python process, two pylint runs, and a library outside the source roots edited
between them: the second run answers as a fresh process does.

astroid keeps every module it built for the life of the process. The project's own
modules are built again when their files change (tests/test_long_lived.py); a handler's
base class in an editable sibling package on ``PYTHONPATH`` is no less read by the
analysis, and must be too, with the fact cache on or off.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pytest
from support import fast_surface, project, run_pylint
from test_long_lived import lint as lint_here  # pylint in this process, as an editor runs it

Key = tuple[str, str, int]

CORE = """\
class Core:
    def step(self):
        return self.mgr.call_func("beta", wait_out=True)
"""
LIBRARY = """\
class Base:
    def alpha(self):
        return 1
"""
LIBRARY_WITH_BETA = (
    LIBRARY
    + """
    def beta(self):
        return 2
"""
)


@pytest.fixture
def library_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project whose handler derives from a class of a library outside its roots, found
    on the search path as an editable install is; the library's name is new to the test
    session, whose astroid cache other tests share."""
    library = f"sibling_{uuid.uuid4().hex[:12]}"
    libraries = tmp_path / "libraries"
    root = project(
        tmp_path / "project",
        {
            "pyproject.toml": fast_surface("core.Core", "hand.Runner", "hand.Plain", "hand.RPCS"),
            "core.py": CORE,
            "hand.py": f"from {library}.base import Base\n\nRPCS = ()\n\n\nclass Plain:\n"
            "    pass\n\n\nclass Runner(Base):\n    pass\n",
        },
    )
    source = project(libraries, {f"{library}/__init__.py": "", f"{library}/base.py": LIBRARY})
    module = source / library / "base.py"
    monkeypatch.syspath_prepend(str(libraries))
    monkeypatch.chdir(root)
    return root, module


def lint_fresh(root: Path, search_path: str, *args: str) -> list[Key]:
    """The same run in a new process, with *search_path* as its ``PYTHONPATH``."""
    run = run_pylint(root, *args, env={"PYTHONPATH": search_path})
    assert "Traceback" not in run.stderr, run.stderr
    return sorted((m.symbol, Path(m.path).name, m.line) for m in run.messages)


@pytest.mark.parametrize("no_cache", ["y", "n"])
def test_a_library_edit_between_runs_shows_in_the_next_run(
    library_project: tuple[Path, Path], no_cache: str
) -> None:
    root, module = library_project
    flag = f"--rpcsurface-no-cache={no_cache}"
    sent_at = ("core.py", 3)
    assert lint_here(flag, "core.py") == [("rpc-unanswered", *sent_at)]
    module.write_text(LIBRARY_WITH_BETA, encoding="utf-8")
    fresh = lint_fresh(root, str(module.parents[1]), flag, "core.py")
    # Runner's base class answers "beta" now, which no base handler does: waited on,
    # answered, and in no registry.
    assert fresh == [("rpc-unlisted", *sent_at)]
    assert lint_here(flag, "core.py") == fresh
    module.write_text(LIBRARY, encoding="utf-8")
    assert lint_here(flag, "core.py") == [("rpc-unanswered", *sent_at)]


def test_a_library_edit_shows_when_pylint_lints_the_whole_tree(
    library_project: tuple[Path, Path],
) -> None:
    """pylint itself built the library's module in the first run (every module of the
    tree first, then the analysis)."""
    root, module = library_project
    assert lint_here("--rpcsurface-no-cache=y", ".") == [("rpc-unanswered", "core.py", 3)]
    module.write_text(LIBRARY_WITH_BETA, encoding="utf-8")
    expected = lint_fresh(root, str(module.parents[1]), "--rpcsurface-no-cache=y", ".")
    assert expected == [("rpc-unlisted", "core.py", 3)]
    assert lint_here("--rpcsurface-no-cache=y", ".") == expected


def test_an_unchanged_library_is_not_built_again(library_project: tuple[Path, Path]) -> None:
    """Only a changed file's module is dropped: the next run reuses the library's module
    astroid already holds."""
    from astroid import MANAGER  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    _, module = library_project
    name = f"{module.parent.name}.base"
    lint_here("--rpcsurface-no-cache=y", "core.py")
    held = MANAGER.astroid_cache[name]
    lint_here("--rpcsurface-no-cache=y", "core.py")
    assert MANAGER.astroid_cache[name] is held
    os.utime(module)  # a touch: the same bytes, but its stat says it may have changed
    lint_here("--rpcsurface-no-cache=y", "core.py")
    assert MANAGER.astroid_cache[name] is not held


def test_a_library_moved_removed_and_installed_again(
    library_project: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """astroid remembers where it found each module, and that it found none: a library
    moved to another folder of the search path, removed, then installed again is looked
    for anew by each run, as a fresh process does."""
    root, module = library_project
    package = module.parent
    elsewhere = package.parents[1] / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.syspath_prepend(str(elsewhere))
    search_path = f"{package.parent}{os.pathsep}{elsewhere}"
    flag = "--rpcsurface-no-cache=y"
    assert lint_here(flag, "core.py") == [("rpc-unanswered", "core.py", 3)]
    moved = package.rename(elsewhere / package.name)
    (moved / "base.py").write_text(LIBRARY_WITH_BETA, encoding="utf-8")
    steps = [lint_here(flag, "core.py")]
    expected = [lint_fresh(root, search_path, flag, "core.py")]
    shutil.rmtree(moved)
    steps.append(lint_here(flag, "core.py"))
    expected.append(lint_fresh(root, search_path, flag, "core.py"))
    project(package.parent, {f"{package.name}/__init__.py": "", f"{package.name}/base.py": LIBRARY})
    steps.append(lint_here(flag, "core.py"))
    expected.append(lint_fresh(root, search_path, flag, "core.py"))
    assert steps == expected
    # Answered by the moved library's Runner base; then unresolved (the callers' names
    # can't all be judged unanswered); then as at first.
    assert expected == [
        [("rpc-unlisted", "core.py", 3)],
        [],
        [("rpc-unanswered", "core.py", 3)],
    ]

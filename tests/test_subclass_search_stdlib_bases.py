"""The subclass search skips a class whose every base is, by syntax, a builtin's or the
standard library's (``enum.Enum``, ``NamedTuple``, ``Generic[T]``): such a class derives
from no class of the project, and inferring its bases built ``enum`` and ``typing`` for
nothing (vLLM 0.7.3's ``vllm/utils.py``, a fifth of a cold ``check``). A class with a
project base in the same module is still found, and its sends still judged."""

from __future__ import annotations

from pathlib import Path

import astroid
from astroid import nodes
from support import fast_surface, project, run_check, stats_env, stats_records

from pylint_rpcsurface.analysis.helper_calls import bases_of_python_itself
from pylint_rpcsurface.sources import SourceTree

STDLIB_CLASSES = """\


class Kind(enum.Enum):
    A = 1


class Info(NamedTuple):
    size: int


class Box(Generic[T]):
    pass
"""

ROLES = """\
import enum
from typing import Generic, NamedTuple, TypeVar

from pkg.core import Core

T = TypeVar("T")


class Prefill(Core):
    def run(self):
        self.mgr.call_func("prefil", wait_out=True)  # a caller: judged
"""

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        'class Core:\n    def step(self):\n        self.mgr.call_func("prefill", wait_out=True)\n'
    ),
    "pkg/runners.py": (
        "RPCS = ()\n\n\nclass Runner:\n    def prefill(self):\n        return 1\n\n\n"
        "class FastRunner(Runner):\n    pass\n"
    ),
    "pyproject.toml": fast_surface(
        "pkg.core.Core", "pkg.runners.FastRunner", "pkg.runners.Runner", "pkg.runners.RPCS"
    ),
}


def _checked(root: Path, roles: str) -> tuple[set[tuple[str, str, int]], int]:
    project(root, {**FILES, "pkg/roles.py": roles})
    cached = run_check(root, "--format", "json", env=stats_env(root))
    uncached = run_check(root, "--format", "json", "--no-cache")
    assert cached.stdout == uncached.stdout, cached.stderr
    record = stats_records(root)[0]
    return {(m.symbol, m.path, m.line) for m in cached.messages}, int(record["other_modules_built"])


def test_classes_of_the_standard_library_are_not_searched(tmp_path: Path) -> None:
    found, built = _checked(tmp_path / "with" / "proj", ROLES + STDLIB_CLASSES)
    # The caller beside them is found: its misspelled name is reported.
    assert found == {("rpc-unanswered", "pkg/roles.py", 11)}
    found_without, built_without = _checked(tmp_path / "without" / "proj", ROLES)
    assert found_without == found
    # Their bases were never inferred: no more modules were built than without them.
    assert built == built_without


def test_only_bases_of_python_itself_count(tmp_path: Path) -> None:
    project(tmp_path, {"enum.py": "class Enum:\n    pass\n", "app/__init__.py": ""})
    module = astroid.parse(
        """
import abc, threading
from typing import Generic, TypeVar
from app import Base
T = TypeVar("T")

class NoBase: pass
class Abstract(abc.ABC): pass
class Worker(threading.Thread): pass
class Box(Generic[T]): pass
class Mixed(abc.ABC, Base): pass
class Project(Base): pass
class Made(type("X", (), {})): pass
"""
    )
    classes = [node for node in module.body if isinstance(node, nodes.ClassDef)]
    tree = SourceTree([str(tmp_path)])
    assert [bases_of_python_itself(cls, tree) for cls in classes] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    shadowed = astroid.parse("import enum\n\nclass Kind(enum.Enum):\n    pass\n")
    (kind,) = [node for node in shadowed.body if isinstance(node, nodes.ClassDef)]
    # A project file named like the standard library's module is the project's.
    assert not bases_of_python_itself(kind, tree)
    assert bases_of_python_itself(kind, SourceTree([str(tmp_path / "app")]))

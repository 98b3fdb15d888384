"""``rpcsurface init`` builds its lean modules without astroid's ``position`` of each class
and function (the span of the keyword and the name, found by tokenizing the header
again): only a message's columns read it, and init writes lines alone.

The checker's lean builds keep it (its messages have columns), and so does a module
astroid builds in full, which stays in astroid's cache for pylint's checkers.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import init_diff_as_full, probe_json, project

# Built in a process of its own: the modules astroid's cache holds come from this build.
PROBE = """\
import json, sys
from pathlib import Path
import astroid
from pylint_rpcsurface.analysis.lean_build import built_lean
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.sources import SourceTree

root = Path(sys.argv[1])
store = ModuleStore(SourceTree((root,)))
options = json.loads(sys.argv[2])
with store.resolving_imports(installed_packages=False, lean_standard_library=True, **options):
    module = store.module(str(root / "pkg" / "probe.py"))
    kind = next(module.igetattr("Kind"))
    handler = next(module.igetattr("handle"))
    table = next(module.igetattr("TABLE"))  # builds collections
    cache = astroid.MANAGER.astroid_cache
    ordered = cache["collections"]["OrderedDict"]
    enum_class = cache["enum"]["auto"]
    print(json.dumps({
        "class": kind.position is not None,
        "function": handler.position is not None,
        "enum lean": built_lean(cache["enum"]),
        "enum's class": enum_class.position is not None,
        "collections lean": built_lean(cache["collections"]),
        "collections' class": ordered.position is not None,
    }))
"""

PROBED = """\
import collections
import enum

TABLE = collections.OrderedDict()


class Kind(enum.IntEnum):
    A = 1


@staticmethod
def handle(name):
    return name
"""


def _probe(tmp_path: Path, **options: bool) -> dict[str, object]:
    root = project(tmp_path / "probe", {"pkg/__init__.py": "", "pkg/probe.py": PROBED})
    return probe_json(PROBE, str(root), json.dumps(options))  # type: ignore[no-any-return]


def test_a_lean_module_built_without_positions_has_none(tmp_path: Path) -> None:
    found = _probe(tmp_path, positions=False)
    assert found["enum lean"] is True
    assert found["collections lean"] is False
    assert found["class"] is found["function"] is found["enum's class"] is False
    # collections is built in full (astroid's brain extends it): it stays in astroid's
    # cache after the block, its classes placed as pylint's checkers expect.
    assert found["collections' class"] is True


def test_every_class_and_function_is_placed_by_default(tmp_path: Path) -> None:
    found = _probe(tmp_path)
    assert found["enum lean"] is True
    assert all(found[key] for key in ("class", "function", "enum's class", "collections' class"))


HANDLERS = """\
import dataclasses
import functools


def traced(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


@dataclasses.dataclass
class Runner:
    path: str = ""

    @traced
    def load(self, path):
        self.path = path

    @functools.lru_cache
    def warm(self):
        return 1

    def step(self):
        return 2


class Loop:
    def __init__(self, queue):
        self.queue = queue
        self.runner = Runner()

    def serve(self):
        while True:
            name, args = self.queue.get()
            getattr(self.runner, name)(*args)
"""

CALLER = """\
import queue


class Client:
    def __init__(self):
        self.queue = queue.Queue()

    def call(self, method, *args):
        self.queue.put((method, args))

    def run(self):
        self.call("load", "/tmp/w")
        self.call("warm")
        self.call("step")
"""


def test_init_writes_what_a_build_with_positions_writes(tmp_path: Path) -> None:
    root = project(
        tmp_path / "proj",
        {
            "pyproject.toml": '[project]\nname = "proj"\n',
            "pkg/__init__.py": "",
            "pkg/worker.py": HANDLERS,
            "pkg/client.py": CALLER,
        },
    )
    # The full build is no lean build: every class and function is placed.
    written = init_diff_as_full(root)
    # The decorated handler class and its decorated methods are what the table names.
    assert "pkg.worker.Runner" in written
    assert "pkg/worker.py:14" in written

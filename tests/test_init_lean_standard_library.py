"""``rpcsurface init`` builds the standard library's modules lean, as it builds the
project's: what its readers infer through them is what astroid's full build gives.

Linearizing every class of the project infers bases such as ``enum.Enum``,
``asyncio.Queue`` or ``threading.Thread``, which build their packages; their transforms'
walk and attribute inference were a fifth of init on LMDeploy 0.18.0. A module that a
transform of astroid's applies to as a whole (a brain's module extender, as for
``hashlib``) is built in full: the names the extender adds must be there before anything
is inferred. bench/init_lean_oracle.py holds the same on released engines; on vLLM
0.11.2 that needs what :mod:`pylint_rpcsurface.analysis.inference_cache` does.
"""

from __future__ import annotations

from pathlib import Path

from support import FULL_BUILD, init_diff_as_full, probe_json, project

WORKER = """\
import enum
import threading


class Kind(enum.Enum):
    LOAD = "load"
    START = "start"


class Worker(threading.Thread):
    def __init__(self, conn):
        super().__init__(daemon=True)
        self.conn = conn

    def load(self, path):
        return path

    def step(self):
        return 1

    def serve(self):
        while True:
            name, args = self.conn.recv()
            result = getattr(self, name)(*args)
            self.conn.send(result)
"""

CLIENT = """\
import multiprocessing

from pkg.worker import Worker


class Client:
    def __init__(self):
        self.conn, child = multiprocessing.Pipe()
        self.worker = Worker(child)

    def call(self, method, *args):
        self.conn.send((method, args))
        return self.conn.recv()

    def run(self):
        self.call("load", "/tmp/w")
        self.call("step")
        self.call("start")
        self.call("join")
"""

# Built in a process of its own: the modules astroid's cache holds come from this build.
PROBE = """\
import json, sys
from pathlib import Path
import astroid
from astroid import nodes
from pylint_rpcsurface.analysis.lean_build import built_lean
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.sources import SourceTree

root = Path(sys.argv[1])
store = ModuleStore(SourceTree((root,)))
with store.resolving_imports(installed_packages=False, lean_standard_library=True):
    module = store.module(str(root / "pkg" / "probe.py"))
    digest = next(module.igetattr("digest"))
    kinds = next(module.igetattr("Kind"))
    cache = astroid.MANAGER.astroid_cache
    print(json.dumps({
        "digest": digest.pytype() if digest is not astroid.Uninferable else None,
        "ancestors": [c.qname() for c in kinds.ancestors()],
        "enum lean": built_lean(cache["enum"]),
        "hashlib lean": built_lean(cache["hashlib"]),
    }))
"""

PROBED = """\
import enum
import hashlib

digest = hashlib.md5(b"x")


class Kind(enum.IntEnum):
    A = 1
"""


def _init_project(tmp_path: Path) -> Path:
    return project(
        tmp_path / "proj",
        {
            "pyproject.toml": '[project]\nname = "proj"\n',
            "pkg/__init__.py": "",
            "pkg/worker.py": WORKER,
            "pkg/client.py": CLIENT,
        },
    )


def test_init_proposes_as_with_astroid_s_full_build(tmp_path: Path) -> None:
    written = init_diff_as_full(_init_project(tmp_path))
    # load and step are Worker's own; start and join it answers through
    # threading.Thread, read from the lean build of threading.
    assert "pkg.worker.Worker" in written
    assert "answers 4 of the 4 names sent" in written


def _probe(tmp_path: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    root = project(tmp_path / "probe", {"pkg/__init__.py": "", "pkg/probe.py": PROBED})
    return probe_json(PROBE, str(root), env=env)  # type: ignore[no-any-return]


def test_the_standard_library_is_built_lean_but_for_a_module_a_brain_extends(
    tmp_path: Path,
) -> None:
    lean = _probe(tmp_path)
    assert lean["enum lean"] is True
    assert lean["hashlib lean"] is False
    # hashlib.md5 is a name astroid's hashlib brain adds to the module.
    assert lean["digest"] == "hashlib.md5"
    full = _probe(tmp_path, FULL_BUILD)
    assert full["enum lean"] is False
    assert {k: v for k, v in lean.items() if "lean" not in k} == {
        k: v for k, v in full.items() if "lean" not in k
    }

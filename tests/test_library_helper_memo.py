"""A caller's code piece from the store can name a helper in a library (code outside the
source roots that a helper chain reached, known by its position): a later run that needs
that helper's facts finds its code in the library's module, as astroid builds it, instead
of starting the whole analysis again from nothing.

vLLM 0.7.3's Ray executor calls ``version.parse`` (the ``packaging`` library) and
``pkg_resources.get_distribution`` (a stub one of astroid's brains parses from a string and
hangs on the module: found among the module's names, never by the position alone, which
a node of the module's own text may hold too) in a method of a subclass of the executor
base: every edit of the base's module made the next run start again, at the cost of a
cold analysis each keystroke.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from support import project, run_check, stats_env, stats_records

# The libraries the helpers are in: pytest's own dependency, and setuptools'.
CALLS = {
    "packaging": (
        "from packaging import version\n\n"
        '                if version.parse("2.0") < version.parse("1.0"):'
    ),
    "pkg_resources": (
        "import pkg_resources\n\n"
        '                if pkg_resources.get_distribution("ray").version < "1.0":'
    ),
}

FILES = {
    "pyproject.toml": """\
        [tool.rpcsurface]

        [[tool.rpcsurface.dispatch]]
        method = "call"
        waits = true

        [[tool.rpcsurface.surface]]
        name = "workers"
        callers = ["pkg.base.Base"]
        handlers = ["pkg.worker.Worker"]
        """,
    "pkg/__init__.py": "",
    "pkg/worker.py": """\
        class Worker:
            def load(self):
                return 1

            def step(self):
                return 2
        """,
    "pkg/base.py": """\
        class Base:
            def __init__(self, mgr):
                self.mgr = mgr

            def start(self):
                self.mgr.call("load")
        """,
    "pkg/sub.py": """\
        from pkg.base import Base


        class Sub(Base):
            def check(self):
                LIBRARY_CALL
                    raise ValueError("old")
                self.mgr.call("stpe")  # [rpc-unanswered]
        """,
}


@pytest.mark.parametrize("library", sorted(CALLS))
def test_a_body_edit_of_the_base_reuses_the_pieces_of_a_subclass_calling_a_library(
    tmp_path: Path, library: str
) -> None:
    if importlib.util.find_spec(library) is None:
        pytest.skip(f"{library} is not installed")
    files = dict(FILES)
    files["pkg/sub.py"] = files["pkg/sub.py"].replace("LIBRARY_CALL", CALLS[library])
    root = project(tmp_path / "proj", files)
    env = stats_env(root)
    cold = run_check(root, "--format", "json", env=env)
    assert cold.returncode == 1, cold.stderr
    base = root / "pkg/base.py"
    text = base.read_text("utf-8")
    assert text.count('        self.mgr.call("load")\n') == 1
    base.write_text(text.replace('call("load")\n', 'call("load")\n        started = True\n'))
    warm = run_check(root, "--format", "json", env=env)
    assert warm.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    assert '"rpc-unanswered"' in warm.stdout
    record = stats_records(root)[-1]
    assert record["modules_built"] == ["pkg/base.py"], record
    assert record["pieces_reused"] > 0, record

"""pylint's message for a finding is attached to pylint's own node at the finding's span:
its enclosing object (json2's ``obj``) is the method, the nested function or the class
the call is in, as for pylint's own messages. A finding reported on the module instead
would carry no object."""

from __future__ import annotations

import json
from pathlib import Path

from support import HANDLERS, PYPROJECT, line_of, project, run_pylint

# A decorated method, a nested function, and a long module before them, so the finding's
# lines are deep inside what the adapter walks.
FILLER = "".join(
    f"def filler_{n}(x):\n    return [x * {n} for _ in range({n})]\n\n" for n in range(60)
)
APP = (
    HANDLERS
    + FILLER
    + """
def traced(function):
    return function


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    @traced
    @traced
    def run(self):
        self.mgr.call_func("missing_in_run", wait_out=True)

    def outer(self):
        def inner():
            self.mgr.call_func("missing_in_inner", wait_out=True)

        return inner
"""
)


def test_each_finding_is_on_the_node_of_its_enclosing_object(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP})
    for args in (("app.py",), ("--from-stdin", "app.py")):
        run = run_pylint(root, *args, stdin=APP if "--from-stdin" in args else None)
        found = {
            (m["line"], m["obj"])
            for m in json.loads(run.stdout)["messages"]
            if m["symbol"] == "rpc-unanswered"
        }
        assert found == {
            (line_of(APP, "missing_in_run"), "Core.run"),
            (line_of(APP, "missing_in_inner"), "Core.outer.inner"),
        }, args

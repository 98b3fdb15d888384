"""pylint's message for a finding is attached to pylint's own node at the finding's span:
its enclosing object (json2's ``obj``) is the method, the nested function or the class
the call is in, as for pylint's own messages. A finding reported on the module instead
would carry no object."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support import (
    HANDLERS,
    PYPROJECT,
    clean_environment,
    line_of,
    project,
    pylint_argv,
    run_pylint,
)

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


def test_a_report_pylint_writes_to_a_file_is_whole(tmp_path: Path) -> None:
    """pylint closes (and flushes) the files of ``--output-format=json2:FILE,text`` when
    its reporter is collected, at the latest by Python's last collection at exit:
    nothing the analysis does may keep that collection from running."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP})
    report = tmp_path / "report.json"
    run = subprocess.run(
        pylint_argv(f"--output-format=json2:{report},text", "app.py"),
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_environment(None),
        check=False,
    )
    assert "rpc-unanswered" in run.stdout, run.stderr  # the text reporter's copy
    symbols = [m["symbol"] for m in json.loads(report.read_text(encoding="utf-8"))["messages"]]
    assert symbols.count("rpc-unanswered") == 2

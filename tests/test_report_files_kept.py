"""pylint run twice in one process (as an editor's extension runs it) writes both of its
report files whole, with the store warm for the second run.

pylint closes a report file (``--output-format=json2:FILE``) only when its reporter is
collected; at the process's exit that reporter is garbage in a cycle, and Python then
finalizes the objects of the cycle in the order of the collector's lists. A text file
finalized after its own buffer loses what it held. The plugin pauses the collector while
it reads and writes the store in the middle of pylint's run: had it moved pylint's
objects among the collector's generations there, the second report was written empty.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import clean_environment, fast_surface, stats_env, stats_records

TWICE = """
import sys
from pathlib import Path
from pylint.lint import Run

first, second, *modules = sys.argv[1:]
options = ["--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface",
           "--persistent=n", "--score=n"]
Run([*options, "--output-format=json2:" + first, *modules], exit=False)
Path("core.py").write_text(Path("core.py").read_text("utf-8") + "\\n", "utf-8")
Run([*options, "--output-format=json2:" + second, *modules], exit=False)
"""


def test_both_reports_of_two_runs_in_one_process_are_written(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        fast_surface("core.Core", "lived.Runner", "lived.Base", "lived.RPCS"), "utf-8"
    )
    (project / "core.py").write_text(
        'class Core:\n    def go(self):\n        self.mgr.call_func("x", wait_out=True)\n',
        "utf-8",
    )
    (project / "lived.py").write_text(
        "RPCS = ()\n\n\nclass Base:\n    pass\n\n\nclass Runner(Base):\n    pass\n", "utf-8"
    )
    reports = [tmp_path / "first.json", tmp_path / "second.json"]
    ran = subprocess.run(
        [sys.executable, "-c", TWICE, *map(str, reports), "core.py", "lived.py"],
        cwd=project,
        env=clean_environment(stats_env(project)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert stats_records(project)[-1]["pieces_reused"] > 0  # the second run read the store
    first, second = (json.loads(path.read_text("utf-8"))["messages"] for path in reports)
    # The same finding both times (the edit appended a blank line), the second run's from
    # the store the first one wrote.
    assert [m["symbol"] for m in first] == ["rpc-unanswered"]
    assert [(m["symbol"], m["line"]) for m in second] == [(m["symbol"], m["line"]) for m in first]

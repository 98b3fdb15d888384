"""Wall time of linting the test fixture in each way pylint runs, against a baseline.

For every mode (whole tree, one file, --from-stdin, -j 2) this runs pylint with only
the rpcsurface checker enabled and, as the baseline measured in the same run, pylint
with only unused-import enabled, alternating the two. It prints the median of each
and their ratio. Timing assertions never go in tests: this machine is noisy, so speed
is a ratio against a baseline measured side by side.

    python bench/fixture_modes.py [--repeat 5] [--project tests/fixtures/engine]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CALLER_MODULE = "atom/model_engine/engine_core.py"

OURS = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface")
BASELINE = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=unused-import")
MODES: dict[str, tuple[tuple[str, ...], bool]] = {
    "whole tree": (("--recursive=y", "atom"), False),
    "one file": ((CALLER_MODULE,), False),
    "--from-stdin": (("--from-stdin", CALLER_MODULE), True),
    "whole tree -j 2": (("--recursive=y", "-j", "2", "atom"), False),
}


def once(project: Path, checks: tuple[str, ...], args: tuple[str, ...], stdin: bool) -> float:
    command = [sys.executable, "-m", "pylint", "--persistent=n", "--score=n", *checks, *args]
    source = (project / CALLER_MODULE).read_text("utf-8") if stdin else None
    start = time.perf_counter()
    subprocess.run(command, cwd=project, input=source, capture_output=True, text=True, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--project", type=Path, default=REPO / "tests" / "fixtures" / "engine")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        # A copy, so the fixture in the repository never gets caches or stray files.
        project = Path(shutil.copytree(options.project, Path(folder) / "project"))
        files = sum(1 for _ in project.rglob("*.py"))
        lines = sum(len(p.read_text("utf-8").splitlines()) for p in project.rglob("*.py"))
        print(f"project: {options.project} ({files} modules, {lines} lines)")
        python = sys.version.split()[0]
        print(f"python {python}, {os.cpu_count()} cores, median of {options.repeat}")
        print()
        print("| mode | rpcsurface only (s) | unused-import only (s) | ratio |")
        print("|---|---|---|---|")
        for mode, (args, stdin) in MODES.items():
            ours, base = [], []
            for _ in range(options.repeat):
                ours.append(once(project, OURS, args, stdin))
                base.append(once(project, BASELINE, args, stdin))
            mine, theirs = statistics.median(ours), statistics.median(base)
            print(f"| {mode} | {mine:.2f} | {theirs:.2f} | {mine / theirs:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

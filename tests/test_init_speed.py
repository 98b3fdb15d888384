"""``rpcsurface init`` costs about what analysing the same modules costs, however many
parameters its functions take and however many helper layers forward a name.

The sender search asks of every parameter of every function where it reaches, once a
round, and a round more for each layer of helpers forwarding the name. Reading the
function's body again for each question made init on vLLM 0.7.3 (627 files) take 46 s of
processor time, where a cold ``rpcsurface check`` takes 2 to 3 s. The project here is
shaped to make that show: five layers of forwarding helpers and 100 methods of eight
parameters each, with long bodies and no send. Its table is then checked cold with every
filler class named, so that ``check`` builds every module ``init`` reads: init's processor
time must stay within three times that check's (measured: 1.9 times; reading the body
again for each question, 15 times).
"""

from __future__ import annotations

import resource
import subprocess
from collections.abc import Callable
from pathlib import Path

from support import project, run_cli

FILLER_MODULES = 10
FILLER_METHODS = 10  # each with eight parameters
FILLER_STATEMENTS = 30  # pairs of an assignment and a call, in each method
BOUND = 3.0

CORE = """
class Worker:
    def load(self):
        return 1

    def step(self):
        return 2

    def stop(self):
        return 3


class Manager:
    def __init__(self):
        self.worker = Worker()

    def call(self, name, *args):
        return getattr(self.worker, name)(*args)
{layers}

class Core:
    def __init__(self):
        self.mgr = Manager()

    def run(self):
        self.mgr.call("load")
        self.mgr.call("step")
        self.mgr.call("stop")
"""


def _layers() -> str:
    """Five helpers, each forwarding the name to the one before: a round each."""
    return "".join(
        f"\n    def call{i}(self, name, *args):\n"
        f"        return self.call{i - 1 if i > 1 else ''}(name, *args)\n"
        for i in range(1, 6)
    )


def _filler(index: int) -> str:
    params = ", ".join(f"p{i}" for i in range(8))
    lines = [f"class Filler{index}:"]
    for method in range(FILLER_METHODS):
        lines.append(f"    def work{method}(self, {params}):")
        for s in range(FILLER_STATEMENTS):
            lines.append(f"        v{s} = p{s % 8} + p{(s + 3) % 8} * {s}")
            lines.append(f"        self.record(v{s}, p{(s + 5) % 8}, key=p{(s + 1) % 8})")
        lines.extend([f"        return v{FILLER_STATEMENTS - 1}", ""])
    return "\n".join(lines) + "\n"


def _processor_seconds(
    run: Callable[[], subprocess.CompletedProcess[str]],
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """The processor time (user and system) the process *run* starts and waits for takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return spent, done


def test_init_costs_about_what_analysing_its_modules_costs(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "pkg/__init__.py": "",
        "pkg/core.py": CORE.format(layers=_layers()),
    }
    files.update({f"pkg/filler{m}.py": _filler(m) for m in range(FILLER_MODULES)})
    root = project(tmp_path, files)

    init_seconds, init = _processor_seconds(lambda: run_cli(root, "init", "--diff"))
    assert init.returncode == 1, init.stderr
    table = "".join(
        line[1:] + "\n"
        for line in init.stdout.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )
    # The surface init proves, found through the five layers of helpers.
    assert 'handlers = [\n    "pkg.core.Worker",' in table, init.stdout
    fillers = ", ".join(f'"pkg.filler{m}.Filler{m}"' for m in range(FILLER_MODULES))
    # Named as base handlers, the filler classes are built by check too.
    (root / "pyproject.toml").write_text(
        table.replace(
            '    "pkg.core.Worker",', f'    "pkg.core.Worker",\n]\nbase-handlers = [{fillers}'
        ),
        encoding="utf-8",
    )
    check_seconds, check = _processor_seconds(lambda: run_cli(root, "check", "--no-cache"))
    assert check.returncode == 0, check.stdout + check.stderr
    assert init_seconds <= BOUND * check_seconds, (init_seconds, check_seconds)

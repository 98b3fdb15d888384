"""``rpcsurface fix`` loses nothing: SIGKILL it at random moments.

After every kill the registry is, byte for byte, the old text or the new one, and no
temporary file is left behind as a ``.py`` a linter or importer would pick up. The
default suite runs KILLS_DEFAULT iterations; RPCSURFACE_KILL_ITERATIONS=N runs N.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import CONSOLE_SCRIPT, clean_environment, run_cli
from test_fix import _project

from pylint_rpcsurface.commands.fix.write import write_atomically

pytestmark = pytest.mark.slow  # kills processes, 30 times over a big write

KILLS_DEFAULT = 30
STALE = 5_000  # a big registry, so the rewrite is a big write


def _big_registry() -> str:
    stale = "".join(f'    "stale_{n:05d}",  # entry {n}\n' for n in range(STALE))
    return f'RPCS = (\n    "fast_a",\n{stale})\n'


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_sigkill_at_random_points_leaves_old_or_new_bytes(tmp_path: Path) -> None:
    iterations = int(os.environ.get("RPCSURFACE_KILL_ITERATIONS", KILLS_DEFAULT))
    old = _big_registry().encode()
    root = _project(tmp_path, old)
    registry = root / "registry.py"
    started = time.monotonic()
    assert run_cli(root, "fix").returncode == 0
    duration = time.monotonic() - started
    new = registry.read_bytes()
    assert new != old
    assert new.count(b"\n") < 10
    originals = sorted(p.name for p in root.iterdir())
    rng = random.Random(int(os.environ.get("RPCSURFACE_KILL_SEED", "6")))
    outcomes = {"old": 0, "new": 0}
    for _ in range(iterations):
        registry.write_bytes(old)
        process = subprocess.Popen(
            [*CONSOLE_SCRIPT, "fix"],  # what run_cli timed above
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=clean_environment(),
        )
        time.sleep(rng.uniform(0, duration * 1.6))  # some land after it ends
        process.send_signal(signal.SIGKILL)
        process.wait()
        data = registry.read_bytes()
        assert data in (old, new), f"torn registry: {len(data)} bytes"
        outcomes["old" if data == old else "new"] += 1
        leftovers = sorted(p.name for p in root.iterdir() if p.name not in originals)
        assert not [name for name in leftovers if name.endswith(".py")], leftovers
        for name in leftovers:  # a temp file a kill left: never a module, cleaned here
            assert name.endswith(".rpcsurface.tmp"), leftovers
            (root / name).unlink()
    print(f"{iterations} kills: {outcomes}")


def test_a_failed_replace_keeps_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"RPCS = ()\n")

    def failing_replace(source: str, destination: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(str(target), b"RPCS = ('a',)\n")
    assert target.read_bytes() == b"RPCS = ()\n"
    assert [p.name for p in tmp_path.iterdir()] == ["registry.py"]

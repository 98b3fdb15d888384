"""A process killed while it wrote the store (``rpcsurface lsp`` closed by the editor,
a ``pylint -j`` worker stopped) leaves the write's temporary file behind, as large as the
store: the next run that writes the store removes those left long ago, and never one a
writer may still be writing."""

from __future__ import annotations

import os
import time
from pathlib import Path

from support import real_layout_copy, run_check, stats_env


def test_a_write_s_temporary_file_left_long_ago_goes_with_the_next_write(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    env = stats_env(project)
    first = run_check(project, env=env)
    assert first.returncode in (0, 1), first.stderr
    (folder,) = {p.parent for p in Path(env["RPCSURFACE_CACHE_DIR"]).rglob("store-*.json")}
    abandoned, fresh = folder / ".tmp-abandoned.part", folder / ".tmp-fresh.part"
    abandoned.write_bytes(b"x" * 1000)
    fresh.write_bytes(b"y" * 1000)
    two_hours_ago = time.time() - 2 * 3600
    os.utime(abandoned, (two_hours_ago, two_hours_ago))
    engine_core = project / "engine/model_engine/engine_core.py"
    engine_core.write_text(engine_core.read_text("utf-8") + "\n# edited\n", "utf-8")
    second = run_check(project, env=env)  # an edit: the store is written again
    assert second.returncode == first.returncode, second.stderr
    assert not abandoned.exists()
    assert fresh.read_bytes() == b"y" * 1000

"""``rpcsurface lsp`` publishes an analysis's diagnostics before it writes the store: the
editor waits for the diagnostics, never for the write. The write still comes before the
next analysis reads the store, and what it wrote is what ``check`` answers from.

The server is given (as sitecustomize.py) a store write that waits for a gate file the
test opens only once the diagnostics are in: a server that writes first never publishes
while the gate is shut.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from support import (
    clean_environment,
    real_layout_copy,
    run_check,
    stats_env,
    stats_records,
)
from test_lsp import ENGINE_CORE, _answered
from test_lsp_cancel import opened_in_server

GATED_WRITE = """\
import os
import time

from pylint_rpcsurface.store import StoreRun

_finish = StoreRun.finish


def _gated_finish(self, *args, **kwargs):
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["GATE"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _finish(self, *args, **kwargs)


StoreRun.finish = _gated_finish
"""


def _store_files(project: Path) -> list[Path]:
    """The store files of the cache folder :func:`stats_env` gives runs in *project*."""
    return sorted((project.parent / "cache").glob("*/store-*.json"))


def test_diagnostics_are_published_before_the_store_is_written(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(GATED_WRITE, "utf-8")
    gate = tmp_path / "gate"
    env = clean_environment({**stats_env(project), "PYTHONPATH": str(shim), "GATE": str(gate)})

    async def session() -> tuple[types.PublishDiagnosticsParams | None, list[Path], list[Path]]:
        # Started outside the project: nothing analyses it ahead (tests/test_lsp_ahead.py),
        # so the server computes the store's content and writes it itself.
        client, published = await opened_in_server(project, engine_core, env, tmp_path)
        try:
            try:
                first: types.PublishDiagnosticsParams | None = await asyncio.wait_for(
                    published.get(), timeout=40
                )
            except asyncio.TimeoutError:
                first = None
            unwritten = _store_files(project)
            gate.touch()
            await _answered(client, engine_core)  # answered once the write is done
            return first, unwritten, _store_files(project)
        finally:
            gate.touch()
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

    first, unwritten, written = asyncio.run(asyncio.wait_for(session(), timeout=120))
    assert first is not None, "no diagnostics while the store's write waited"
    assert first.version == 1
    assert unwritten == []  # they came while the write waited: before it
    assert written  # and the write was done before the request's answer
    # What the server wrote is every piece check needs: it computes none (run as the
    # server was: the store is the environment's, sys.path included).
    cached = run_check(project, "--format", "json", env=env)
    record = stats_records(project)[-1]
    assert (record["pieces_computed"], record["pieces_reused"] > 0) == (0, True), record
    assert cached.messages == run_check(project, "--format", "json", "--no-cache").messages
    expected = {(m.symbol, m.line) for m in cached.messages if m.path == ENGINE_CORE}
    assert {(str(d.code), d.range.start.line + 1) for d in first.diagnostics} == expected

"""``rpcsurface lsp`` started in a project's folder analyses that project ahead, in a child
process, while it loads pygls and greets the editor; its first analysis of the project
reads what the child wrote to the store instead of computing it again.

The answers are the same either way (the oracle: the first diagnostics are ``check
--no-cache``'s findings, navigation reaches the handler); what these tests hold is that
the project is computed once, by the child, and that the child ends with the server.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sys
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient as PlainClient
from support import (
    CONSOLE_SCRIPT,
    clean_environment,
    line_of,
    real_layout_copy,
    run_check,
    stats_env,
    stats_records,
)
from test_lsp import ENGINE_CORE, MODEL_RUNNER, _answered, _at, _lines
from test_lsp_cancel import _typed, opened_in_server

from pylint_rpcsurface.commands import lsp

# Given (as sitecustomize.py) to the server of the last test, and so to the child it forks:
# the store's write waits for a gate file that never comes, so the child outlives the
# server unless the server ends it.
STALLED_WRITE = """\
import time

from pylint_rpcsurface.store import StoreRun


def _stalled_finish(self, *args, **kwargs):
    time.sleep(120)


StoreRun.finish = _stalled_finish
"""


async def _first_and_definition(
    project: Path, env: dict[str, str], cwd: Path
) -> tuple[types.PublishDiagnosticsParams, object]:
    """The first diagnostics of the caller module opened in a server started in *cwd*, and
    the answer to go to definition on a name it sends."""
    engine_core = project / ENGINE_CORE
    client, published = await opened_in_server(project, engine_core, env, cwd)
    try:
        first = await asyncio.wait_for(published.get(), timeout=60)
        found = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=engine_core.as_uri()),
                position=_at(engine_core, 'call_func("fast_prefill"', 13),
            )
        )
        return first, found
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


def _assert_answers(project: Path, first: types.PublishDiagnosticsParams, found: object) -> None:
    """The oracle: ``check --no-cache``'s findings in the caller, the handler's ``def``."""
    fresh = run_check(project, "--format", "json", "--no-cache")
    expected = {(m.symbol, m.line) for m in fresh.messages if m.path == ENGINE_CORE}
    assert expected  # the fixture's caller module has findings to compare
    assert {(str(d.code), d.range.start.line + 1) for d in first.diagnostics} == expected
    handler = line_of((project / MODEL_RUNNER).read_text("utf-8"), "def fast_prefill(")
    assert _lines(found, project) == {(MODEL_RUNNER, handler)}


def test_a_server_on_a_store_check_filled_publishes_its_findings(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    env = clean_environment(stats_env(project))
    checked = run_check(project, env=stats_env(project))
    assert checked.returncode in (0, 1), checked.stderr
    # Started outside the project: no child; the store is the one check wrote.
    first, found = asyncio.run(asyncio.wait_for(_first_and_definition(project, env, tmp_path), 120))
    _assert_answers(project, first, found)
    check_record, server_first, *_ = stats_records(project)
    assert check_record["pieces_computed"] > 0
    assert server_first["findings_from_store"], server_first


def test_a_server_started_in_the_project_reads_what_its_child_computed(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    env = clean_environment(stats_env(project))
    first, found = asyncio.run(asyncio.wait_for(_first_and_definition(project, env, project), 120))
    _assert_answers(project, first, found)
    # Computed once, by one process; the other's findings came from the store.
    records = stats_records(project)
    assert [r["pieces_computed"] > 0 for r in records].count(True) == 1, records
    assert any(r["findings_from_store"] for r in records), records


def _children(pid: int) -> list[int]:
    """The processes whose parent is *pid*, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path("/proc", entry, "stat").read_text("utf-8")
            except OSError:
                continue
            # The command's name (in parentheses) may hold spaces: fields after its end.
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    """Whether *pid* is a process that has not ended (a zombie has)."""
    try:
        stat = Path("/proc", str(pid), "stat").read_text("utf-8")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="finds the child in /proc")
def test_the_child_ends_with_the_server(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(STALLED_WRITE, "utf-8")
    env = clean_environment({**stats_env(project), "PYTHONPATH": str(shim)})

    async def session() -> list[int]:
        client = PlainClient("rpcsurface-test", "1")
        await client.start_io(*CONSOLE_SCRIPT, "lsp", env=env, cwd=str(project))
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(), root_uri=project.as_uri()
            )
        )
        server = client._server  # pylint: disable=protected-access  # the process started
        assert server is not None
        children = _children(server.pid)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return children

    children = asyncio.run(asyncio.wait_for(session(), timeout=60))
    assert len(children) == 1  # forked before the protocol was up, and still stalled
    deadline = time.monotonic() + 10
    while _running(children[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(children[0]), "the child outlived the server"


def test_a_fork_refused_leaves_the_server_to_compute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = real_layout_copy(tmp_path)
    monkeypatch.chdir(project)

    def refused() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    assert lsp._analyse_ahead() is None  # pylint: disable=protected-access


@pytest.mark.skipif(fcntl is None, reason="the store's lock is flock")
def test_a_keystroke_never_waits_for_another_process_computing_the_store(
    tmp_path: Path,
) -> None:
    # Only a configuration's first analysis waits for the lock (it has nothing of its own
    # yet); a keystroke's reuses what the server holds, and must not wait for a `check`
    # computing the same store in a terminal (up to the lock's 300 s).
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    saved = engine_core.read_text("utf-8")
    env = clean_environment(stats_env(project))

    async def session() -> types.PublishDiagnosticsParams:
        client, published = await opened_in_server(project, engine_core, env, tmp_path)
        try:
            await asyncio.wait_for(published.get(), timeout=60)
            await _answered(client, engine_core)  # the store is written
            (store,) = (project.parent / "cache").glob("*/store-*.json")
            holder = os.open(f"{store}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another process's
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(
                            uri=engine_core.as_uri(), version=2
                        ),
                        content_changes=[
                            types.TextDocumentContentChangeWholeDocument(text=_typed(saved, 1))
                        ],
                    )
                )
                return await asyncio.wait_for(published.get(), timeout=30)
            finally:
                os.close(holder)
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

    second = asyncio.run(asyncio.wait_for(session(), timeout=120))
    assert second.version == 2
    assert any(d.code == "rpc-unanswered" for d in second.diagnostics)  # the mistyped name

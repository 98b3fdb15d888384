"""``rpcsurface lsp`` honours cancellation: an analysis an edit has made stale is never
shown (a burst of keystrokes costs the analysis of the last one, not one each), and a
request the client cancels while the server is busy is answered as cancelled.

The burst is sent while the first analysis runs (it takes tenths of a second on the
fixture, the burst microseconds), so every keystroke of it arrives during that analysis.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.lsp.client import LanguageClient as PlainClient
from pytest_lsp import LanguageClient
from support import CONSOLE_SCRIPT, clean_environment, real_layout_copy, stats_env, stats_records
from test_lsp import (
    ENGINE_CORE,
    Said,
    _answered,
    _at,
    _checked,
    _open,
    _published,
    _serve,
    _uri,
)

KEYSTROKES = 8


def _typed(text: str, count: int) -> str:
    """*text* with a name sent mistyped by *count* letters more, a new name each time."""
    assert text.count('"load_model"') == 1
    return text.replace('"load_model"', '"load_model' + "x" * count + '"')


def test_a_burst_of_keystrokes_is_analysed_once_for_its_last_text(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    saved = engine_core.read_text("utf-8")
    versions: list[int | None] = []

    async def scenario(client: LanguageClient) -> set[Said]:
        features = client.protocol.fm.features
        keeps = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def noted(params: types.PublishDiagnosticsParams) -> None:
            if params.uri == _uri(engine_core):
                versions.append(params.version)
            keeps(params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = noted
        _open(client, engine_core)
        for count in range(1, KEYSTROKES + 1):
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(
                        uri=_uri(engine_core), version=count + 1
                    ),
                    content_changes=[
                        types.TextDocumentContentChangeWholeDocument(text=_typed(saved, count))
                    ],
                )
            )
        await _answered(client, engine_core)
        return _published(client, project)

    published = _serve(project, scenario)
    analyses = len(stats_records(project))
    # The first analysis and the last text's; never one a keystroke.
    assert analyses < 1 + KEYSTROKES, analyses
    assert versions == [KEYSTROKES + 1]  # no stale text's diagnostics were ever shown
    copy = real_layout_copy(tmp_path / "saved")
    (copy / ENGINE_CORE).write_text(_typed(saved, KEYSTROKES), "utf-8")
    assert published == {said for said in _checked(copy) if said[1] == ENGINE_CORE}


def test_a_request_cancelled_while_the_server_is_busy_is_answered_cancelled(
    tmp_path: Path,
) -> None:
    """A hover sent during the first analysis waits for it; cancelled meanwhile, it is
    answered as cancelled (pygls's own client: pytest-lsp's keeps the cancellation to
    itself), and the server goes on answering."""
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE

    async def session() -> tuple[BaseException | None, object]:
        env = clean_environment(stats_env(project))
        client, _ = await opened_in_server(project, engine_core, env, project)
        hover = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=_uri(engine_core)),
            position=_at(engine_core, '"load_model"', 2),
        )
        asked = client.protocol.send_request_async(
            types.TEXT_DOCUMENT_HOVER, hover, msg_id="cancelled-hover"
        )
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancelled-hover"))
        refused: BaseException | None = None
        try:
            await asked
        except JsonRpcRequestCancelled as error:
            refused = error
        later = await client.text_document_hover_async(hover)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return refused, later

    refused, later = asyncio.run(asyncio.wait_for(session(), timeout=120))
    assert refused is not None  # answered as cancelled
    assert isinstance(later, types.Hover)  # the same hover, not cancelled, is answered
    assert "load_model" in str(later.contents)


async def opened_in_server(
    project: Path, path: Path, env: dict[str, str], cwd: Path
) -> tuple[PlainClient, asyncio.Queue[types.PublishDiagnosticsParams]]:
    """A server started with *env* in *cwd* (pygls's own client), *path* opened in it
    with its saved text, and the queue its diagnostics for *path* arrive on."""
    client = PlainClient("rpcsurface-test", "1")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == _uri(path):
            published.put_nowait(params)

    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(diagnostics)
    await client.start_io(*CONSOLE_SCRIPT, "lsp", env=env, cwd=str(cwd))
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=_uri(project))
    )
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=_uri(path), language_id="python", version=1, text=path.read_text("utf-8")
            )
        )
    )
    return client, published


# Given (as sitecustomize.py) to the server of the next test alone: its one collection,
# after the first analysis's diagnostics, takes long enough for an edit to arrive during it.
SLOW_COLLECTION = """\
import gc
import time

_collect = gc.collect


def _slow_collect(*args, **kwargs):
    time.sleep(1.5)
    return _collect(*args, **kwargs)


gc.collect = _slow_collect
"""


def test_an_edit_made_while_the_server_collects_its_garbage_is_analysed(
    tmp_path: Path,
) -> None:
    """Right after its first diagnostics the server collects the first analysis's
    garbage; a keystroke sent meanwhile finds it busy, and is analysed once it is done
    (it was lost, and its diagnostics never came)."""
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    saved = engine_core.read_text("utf-8")
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(SLOW_COLLECTION, "utf-8")
    env = clean_environment({**stats_env(project), "PYTHONPATH": str(shim)})

    async def session() -> list[types.PublishDiagnosticsParams]:
        client, published = await opened_in_server(project, engine_core, env, shim)
        first = await asyncio.wait_for(published.get(), timeout=60)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=_uri(engine_core), version=2
                ),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(text=_typed(saved, 1))
                ],
            )
        )
        try:
            second = await asyncio.wait_for(published.get(), timeout=30)
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
        return [first, second]

    first, second = asyncio.run(asyncio.wait_for(session(), timeout=120))
    assert (first.version, second.version) == (1, 2)
    copy = real_layout_copy(tmp_path / "typed")
    (copy / ENGINE_CORE).write_text(_typed(saved, 1), "utf-8")
    expected = {(s[0], s[2]) for s in _checked(copy) if s[1] == ENGINE_CORE}
    assert {(str(d.code), d.range.start.line + 1) for d in second.diagnostics} == expected
    assert expected != {(str(d.code), d.range.start.line + 1) for d in first.diagnostics}

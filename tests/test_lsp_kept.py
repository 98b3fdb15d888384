"""What ``rpcsurface lsp`` keeps between its analyses: the project's modules astroid built
from their files, the modules' digests, and the pieces that read an unsaved buffer.

A keystroke in the open caller module must build that module alone (the others are
kept, their files unwritten since), and what is kept must never answer for a file
written since: the diagnostics stay ``rpcsurface check --no-cache``'s on the same text
while files change on disk behind the editor between keystrokes.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from support import real_layout_copy, stats_records
from test_lsp import (
    ENGINE_CORE,
    MODEL_RUNNER,
    Said,
    _answered,
    _checked,
    _open,
    _published,
    _serve,
    _uri,
)

# A statement added in a method that sends (a body edit), and the edit of a name sent.
BODY_EDIT = ('        return self.runner_mgr.call_func("forward"', "        edited = 1\n")
NAME_EDIT = ('"load_model"', '"load_modle"')


def _change(client: LanguageClient, path: Path, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=_uri(path), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _body_edited(text: str, number: int) -> str:
    send, statement = BODY_EDIT
    assert text.count(send) == 1
    return text.replace(send, statement.replace("1", str(number)) + send)


def test_a_keystroke_builds_the_open_module_alone(tmp_path: Path) -> None:
    """From the second keystroke on, a body edit and a name edit of the open caller
    module build that module and no other: the modules its classes' bases and imports
    reach are the ones the last analysis built, their files unwritten since. (The first
    analysis builds lean, as check does; the first keystroke builds in full what it
    reads, which is kept from then on.)"""
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    # The caller's class derives from a class of another module, as an engine's executor
    # does: finding the module's callers again reads its bases.
    (engine_core.parent / "core_base.py").write_text(
        "class CoreBase:\n    def step(self):\n        return None\n", "utf-8"
    )
    saved = engine_core.read_text("utf-8")
    assert saved.count("class EngineCore:") == 1
    saved = "from engine.model_engine.core_base import CoreBase\n" + saved.replace(
        "class EngineCore:", "class EngineCore(CoreBase):"
    )
    engine_core.write_text(saved, "utf-8")
    time.sleep(0.05)  # the files written more than a timestamp tick before any analysis

    async def scenario(client: LanguageClient) -> None:
        _open(client, engine_core)
        await _answered(client, engine_core)
        for version, text in enumerate(
            [
                _body_edited(saved, 1),
                _body_edited(saved, 2),
                _body_edited(saved, 3),
                saved.replace(*NAME_EDIT),
            ],
            2,
        ):
            _change(client, engine_core, version, text)
            await _answered(client, engine_core)

    _serve(project, scenario)
    records = stats_records(project)
    assert len(records) == 5  # the first analysis, and one a keystroke
    first, _, *keystrokes = records
    assert len(first["modules_built"]) > 1  # the caller's module reaches others
    for record in keystrokes:
        assert record["modules_built"] == [ENGINE_CORE], record


def test_kept_modules_never_answer_for_files_written_since(tmp_path: Path) -> None:
    """Only the caller module is open; between its keystrokes, the handler module and
    the caller's saved file are written on disk (as a checkout does), and the editor
    says so. Each step's diagnostics are check's on a copy holding the buffer saved."""
    project = real_layout_copy(tmp_path)
    engine_core, model_runner = project / ENGINE_CORE, project / MODEL_RUNNER
    saved_core, saved_runner = engine_core.read_text("utf-8"), model_runner.read_text("utf-8")
    runner_edits = [
        saved_runner,
        saved_runner.replace("def forward(", "def forwards("),
        saved_runner.replace("def shutdown(", "def shut_down("),
    ]
    chooser = random.Random(4848)
    steps: list[tuple[str, str]] = []  # the caller's buffer, the handler module on disk
    buffer, on_disk = saved_core, saved_runner
    for number in range(8):
        if chooser.random() < 0.5:
            on_disk = chooser.choice(runner_edits)
        else:
            buffer = chooser.choice(
                [saved_core, _body_edited(saved_core, number), saved_core.replace(*NAME_EDIT)]
            )
        steps.append((buffer, on_disk))
    time.sleep(0.05)

    async def scenario(client: LanguageClient) -> list[set[Said]]:
        _open(client, engine_core)
        await _answered(client, engine_core)
        published = []
        for version, (text, runner) in enumerate(steps, 2):
            if model_runner.read_text("utf-8") != runner:
                model_runner.write_text(runner, "utf-8")
                client.workspace_did_change_watched_files(
                    types.DidChangeWatchedFilesParams(
                        changes=[
                            types.FileEvent(
                                uri=_uri(model_runner), type=types.FileChangeType.Changed
                            )
                        ]
                    )
                )
            _change(client, engine_core, version, text)
            await _answered(client, engine_core)
            published.append(
                {said for said in _published(client, project) if said[1] == ENGINE_CORE}
            )
        return published

    published = _serve(project, scenario)
    assert len({frozenset(said) for said in published}) > 1  # the steps change findings
    for number, ((text, runner), said) in enumerate(zip(steps, published, strict=True)):
        where = tmp_path / f"step{number}"
        where.mkdir()
        copy = real_layout_copy(where)
        (copy / ENGINE_CORE).write_text(text, "utf-8")
        (copy / MODEL_RUNNER).write_text(runner, "utf-8")
        expected = {s for s in _checked(copy) if s[1] == ENGINE_CORE}
        assert said == expected, f"step {number}"

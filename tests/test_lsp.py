"""``rpcsurface lsp``: the real console script driven over stdio by pytest-lsp's client,
as an editor drives it, on copies of the real_layout fixture.

The oracle: the diagnostics the server publishes for the open files are the findings
``rpcsurface check --format json --no-cache`` reports on the same text, saved or not.
Navigation's expected places are read from the fixture's source text, not from a run.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli is one of our dependencies there
    import tomli as tomllib

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client
from support import (
    CONSOLE_SCRIPT,
    clean_environment,
    line_of,
    real_layout_copy,
    run_check,
    run_cli,
    stats_env,
)

T = TypeVar("T")
# A finding as both sides can say it: symbol, path relative to the project, 1-based line,
# columns (the fixture is ASCII: UTF-16 code units are its bytes) and message text.
Said = tuple[str, str, int, int, int, int, str]

ENGINE_CORE = "engine/model_engine/engine_core.py"
MODEL_RUNNER = "engine/model_engine/model_runner.py"


def _uri(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri is not None
    return uri


def _relative(uri: str, project: Path) -> str:
    path = to_fs_path(uri)
    assert path is not None
    return Path(path).relative_to(project).as_posix()


def _python_files(project: Path) -> list[Path]:
    return sorted(project.rglob("*.py"))


async def _with_server(project: Path, scenario: Callable[[LanguageClient], Awaitable[T]]) -> T:
    """Start ``rpcsurface lsp``, open the session on *project*, run *scenario*, shut down."""
    client = make_test_lsp_client()
    # Its own cache folder beside the project: the store it keeps is the one check reads.
    await client.start_io(*CONSOLE_SCRIPT, "lsp", env=clean_environment(stats_env(project)))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=_uri(project),
            workspace_folders=[types.WorkspaceFolder(uri=_uri(project), name="proj")],
        )
    )
    try:
        return await scenario(client)
    finally:
        await client.shutdown_session()


def _serve(project: Path, scenario: Callable[[LanguageClient], Awaitable[T]]) -> T:
    return asyncio.run(asyncio.wait_for(_with_server(project, scenario), timeout=120))


def _open(client: LanguageClient, path: Path) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=_uri(path), language_id="python", version=1, text=path.read_text("utf-8")
            )
        )
    )


async def _answered(client: LanguageClient, path: Path) -> None:
    """Wait until the server has handled every message sent before: it handles them in
    order, so the answer to a request sent now comes after their diagnostics."""
    await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=_uri(path)),
            position=types.Position(line=0, character=0),
        )
    )


def _published(client: LanguageClient, project: Path) -> set[Said]:
    return {
        (
            str(d.code),
            _relative(uri, project),
            d.range.start.line + 1,
            d.range.start.character,
            d.range.end.line + 1,
            d.range.end.character,
            d.message,
        )
        for uri, diagnostics in client.diagnostics.items()
        for d in diagnostics
    }


def _utf16(project: Path, path: str, line: int, byte_col: int) -> int:
    """A column of check's (UTF-8 bytes) as the protocol counts it (UTF-16 code units)."""
    text = (project / path).read_text("utf-8").splitlines()[line - 1]
    return len(text.encode("utf-8")[:byte_col].decode("utf-8").encode("utf-16-le")) // 2


def _checked(project: Path) -> set[Said]:
    run = run_check(project, "--format", "json", "--no-cache")
    assert run.returncode in (0, 1), run.stderr
    return {
        (
            f["symbol"],
            f["path"],
            f["line"],
            _utf16(project, f["path"], f["line"], f["column"]),
            f["endLine"],
            _utf16(project, f["path"], f["endLine"], f["endColumn"]),
            f["message"],
        )
        for f in json.loads(run.stdout)
    }


def _at(path: Path, fragment: str, offset: int = 0) -> types.Position:
    """The position of *fragment* (plus *offset* characters) on its one line of *path*."""
    text = path.read_text("utf-8")
    line = line_of(text, fragment)
    return types.Position(
        line=line - 1, character=text.splitlines()[line - 1].index(fragment) + offset
    )


def _lines(locations: Any, project: Path) -> set[tuple[str, int]]:
    return {(_relative(at.uri, project), at.range.start.line + 1) for at in locations or ()}


# ---------------------------------------------------------------- diagnostics


def test_diagnostics_of_the_saved_files_are_checks(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    files = _python_files(project)

    async def scenario(client: LanguageClient) -> set[Said]:
        for path in files:
            _open(client, path)
        await _answered(client, files[0])
        assert set(client.diagnostics) == {_uri(path) for path in files}
        return _published(client, project)

    published = _serve(project, scenario)
    expected = _checked(project)
    assert expected  # the fixture plants findings
    # The site a pylint pragma silences has no finding in either.
    silenced = line_of((project / ENGINE_CORE).read_text("utf-8"), 'call_func("exit")')
    assert not {said for said in published if said[1:3] == (ENGINE_CORE, silenced)}
    assert published == expected


def test_an_unsaved_mistyped_name_gives_what_check_gives_on_that_text(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    edited = engine_core.read_text("utf-8").replace('"forward"', '"froward"')
    assert '"froward"' in edited

    async def scenario(client: LanguageClient) -> set[Said]:
        for path in _python_files(project):
            _open(client, path)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=_uri(engine_core), version=2
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )
        await _answered(client, engine_core)
        return _published(client, project)

    published = _serve(project, scenario)
    saved = tmp_path / "saved"
    saved.mkdir()
    other = real_layout_copy(saved)
    (other / ENGINE_CORE).write_text(edited, "utf-8")
    expected = _checked(other)
    assert expected != _checked(project)  # the edit changes the findings
    assert published == expected
    assert (project / ENGINE_CORE).read_text("utf-8") != edited  # the buffer stayed unsaved


# Edits an editor makes, each a function of a file's text: a name mistyped at a send
# site, a handler renamed, a statement with a non-ASCII name before a send site on its
# line (the columns then differ in bytes and UTF-16), a line added above everything.
EDITS: tuple[tuple[str, Callable[[str], str]], ...] = (
    (ENGINE_CORE, lambda text: text.replace('"load_model"', '"load_modle"')),
    (ENGINE_CORE, lambda text: text.replace('"fast_decode"', '"fast_decod"')),
    (MODEL_RUNNER, lambda text: text.replace("def forward(", "def forwards(")),
    (MODEL_RUNNER, lambda text: text.replace("def shutdown(", "def shut_down(")),
    (
        ENGINE_CORE,
        lambda text: text.replace(
            'return self.runner_mgr.call_func("forward"',
            'é = 0; return self.runner_mgr.call_func("forward"',
        ),
    ),
    (ENGINE_CORE, lambda text: "# ü\n" + text),
    (MODEL_RUNNER, lambda text: "\n" + text),
)


def test_the_oracle_holds_after_a_random_sequence_of_unsaved_edits(tmp_path: Path) -> None:
    """Each step edits or restores an open buffer; the diagnostics of every open file are
    then what check says of a copy with the buffers' texts saved."""
    project = real_layout_copy(tmp_path)
    saved = {name: (project / name).read_text("utf-8") for name in (ENGINE_CORE, MODEL_RUNNER)}
    chooser = random.Random(48)
    steps = []
    buffers = dict(saved)
    for _ in range(6):
        name, edit = chooser.choice(EDITS)
        buffers[name] = saved[name] if chooser.random() < 0.2 else edit(buffers[name])
        steps.append(dict(buffers))

    async def scenario(client: LanguageClient) -> list[set[Said]]:
        for path in _python_files(project):
            _open(client, path)
        published = []
        for version, texts in enumerate(steps, 2):
            for name, text in texts.items():
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(
                            uri=_uri(project / name), version=version
                        ),
                        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                    )
                )
            await _answered(client, project / ENGINE_CORE)
            published.append(_published(client, project))
        return published

    published = _serve(project, scenario)
    assert len({frozenset(said) for said in published}) > 1  # the edits change findings
    for number, (texts, said) in enumerate(zip(steps, published, strict=True)):
        where = tmp_path / f"step{number}"
        where.mkdir()
        copy = real_layout_copy(where)
        for name, text in texts.items():
            (copy / name).write_text(text, "utf-8")
        assert said == _checked(copy), f"step {number}"


def test_a_file_changed_on_disk_behind_the_editor_is_noticed(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    model_runner = project / MODEL_RUNNER
    before = _checked(project)

    async def scenario(client: LanguageClient) -> tuple[set[Said], set[Said]]:
        _open(client, engine_core)
        await _answered(client, engine_core)
        first = _published(client, project)
        # A checkout renames a handler method in a file the editor does not have open.
        text = model_runner.read_text("utf-8")
        model_runner.write_text(text.replace("def forward(", "def forwards("), "utf-8")
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=_uri(model_runner), type=types.FileChangeType.Changed)]
            )
        )
        await _answered(client, engine_core)
        return first, _published(client, project)

    first, second = _serve(project, scenario)
    assert first == {said for said in before if said[1] == ENGINE_CORE}
    after = {said for said in _checked(project) if said[1] == ENGINE_CORE}
    assert after != first
    assert second == after


def test_closing_a_file_clears_its_diagnostics(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE

    async def scenario(client: LanguageClient) -> tuple[int, int]:
        _open(client, engine_core)
        await _answered(client, engine_core)
        before = len(client.diagnostics[_uri(engine_core)])
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=_uri(engine_core))
            )
        )
        await _answered(client, engine_core)
        return before, len(client.diagnostics[_uri(engine_core)])

    before, after = _serve(project, scenario)
    assert before == len({said for said in _checked(project) if said[1] == ENGINE_CORE}) > 0
    assert after == 0


def test_a_configuration_that_cant_be_used_is_said_once_as_check_says_it(
    tmp_path: Path,
) -> None:
    project = real_layout_copy(tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text("utf-8").replace(
            "model_runner.FastModelRunner", "model_runner.NoSuchRunner"
        ),
        "utf-8",
    )
    engine_core = project / ENGINE_CORE
    check = run_check(project, "--format", "json", "--no-cache")
    assert check.returncode == 2
    said_by_check = check.stderr.strip().removeprefix("rpcsurface: error: ")
    assert "NoSuchRunner" in said_by_check

    async def scenario(client: LanguageClient) -> tuple[list[Any], int]:
        _open(client, engine_core)
        for version in (2, 3):  # two keystrokes: two more analyses, no more messages
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(
                        uri=_uri(engine_core), version=version
                    ),
                    content_changes=[
                        types.TextDocumentContentChangeWholeDocument(
                            text=engine_core.read_text("utf-8") + "\n" * version
                        )
                    ],
                )
            )
        await _answered(client, engine_core)
        return list(client.messages), len(client.diagnostics[_uri(engine_core)])

    messages, diagnostics = _serve(project, scenario)
    errors = [m for m in messages if m.type == types.MessageType.Error]
    assert [m.message for m in errors] == [f"rpcsurface: {said_by_check}"]
    assert diagnostics == 0


# ---------------------------------------------------------------- navigation


# What a navigation request sends: the document and the position asked about.
Ask = Callable[[LanguageClient, types.TextDocumentIdentifier, types.Position], Awaitable[T]]


def _ask(project: Path, path: Path, position: types.Position, ask: Ask[T]) -> T:
    """Open *path* and *ask* the server about *position* in it."""

    async def scenario(client: LanguageClient) -> T:
        _open(client, path)
        return await ask(client, types.TextDocumentIdentifier(uri=_uri(path)), position)

    return _serve(project, scenario)


def test_definition_goes_from_a_sent_name_to_the_handler_def(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    model_runner = project / MODEL_RUNNER

    found = _ask(
        project,
        engine_core,
        _at(engine_core, 'call_func("fast_prefill"', 13),
        lambda client, document, position: client.text_document_definition_async(
            types.DefinitionParams(text_document=document, position=position)
        ),
    )
    handler = (MODEL_RUNNER, line_of(model_runner.read_text("utf-8"), "def fast_prefill("))
    assert _lines(found, project) == {handler}


def test_definition_goes_from_a_proxy_attribute_to_each_actor_s_method(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    actors = project / "engine/model_engine/actors.py"
    text = actors.read_text("utf-8")
    # The handler classes come before the group that calls them: their `def fit(`.
    group = line_of(text, "class ActorGroup")
    handlers = {
        ("engine/model_engine/actors.py", number)
        for number, line in enumerate(text.splitlines(), 1)
        if "def fit(" in line and number < group
    }
    assert len(handlers) == 2

    def definition(position: types.Position) -> Any:
        return _ask(
            project,
            actors,
            position,
            lambda client, document, at: client.text_document_definition_async(
                types.DefinitionParams(text_document=document, position=at)
            ),
        )

    assert _lines(definition(_at(actors, "actor.fit.remote(batch)", 7)), project) == handlers
    # The receiver of the same call is no RPC name.
    assert _lines(definition(_at(actors, "actor.fit.remote(batch)", 2)), project) == set()


def test_references_go_from_a_handler_def_to_every_send_site(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    model_runner = project / MODEL_RUNNER
    sites = {
        (path.relative_to(project).as_posix(), number)
        for path in _python_files(project)
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if 'call_func("forward"' in line
    }
    assert sites

    found = _ask(
        project,
        model_runner,
        _at(model_runner, "def forward(", 5),
        lambda client, document, position: client.text_document_references_async(
            types.ReferenceParams(
                text_document=document,
                position=position,
                context=types.ReferenceContext(include_declaration=False),
            )
        ),
    )
    assert _lines(found, project) == sites


def test_hover_on_a_sent_name_says_who_answers_it(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE

    hover = _ask(
        project,
        engine_core,
        _at(engine_core, 'call_func("fast_prefill"', 11),
        lambda client, document, position: client.text_document_hover_async(
            types.HoverParams(text_document=document, position=position)
        ),
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "fast_prefill" in text
    assert "FastModelRunner" in text  # the handler class that defines it
    assert "engine_core.py:" in text  # where it is sent


# ---------------------------------------------------------------- without the extra


def test_without_pygls_lsp_names_the_extra_and_exits_2(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    # A pygls that can't be imported, as when the lsp extra is not installed.
    (shadow / "pygls.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pygls'\", name='pygls')\n", "utf-8"
    )
    run = run_cli(tmp_path, "lsp", env={"PYTHONPATH": str(shadow)})
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert "pip install 'pylint-rpcsurface[lsp]'" in lines[0]


# ---------------------------------------------------------------- the editors' set-up

EDITORS = Path(__file__).resolve().parents[1] / "docs" / "editors.md"


def _server_block(fence: str) -> str:
    """The one block fenced *fence* in docs/editors.md's language server section."""
    section = EDITORS.read_text("utf-8").split("\n## The language server\n", 1)[1]
    found = re.findall(rf"^```{re.escape(fence)}\n(.*?)^```", section, re.M | re.S)
    assert len(found) == 1, f"{fence}: {len(found)} blocks"
    return str(found[0])


def test_the_editors_set_ups_start_the_real_server(tmp_path: Path) -> None:
    """The commands docs/editors.md gives VS Code and Helix run `rpcsurface lsp`."""
    helix = tomllib.loads(_server_block('toml title="languages.toml"'))
    vscode = json.loads(_server_block("json"))
    server = helix["language-server"]["rpcsurface"]
    # Helix starts it for Python files: the Python language lists it among its servers.
    (python,) = [language for language in helix["language"] if language["name"] == "python"]
    assert "rpcsurface" in python["language-servers"]
    commands = [
        (server["command"], server["args"]),
        (vscode["glspc.server.command"], vscode["glspc.server.commandArguments"]),
    ]
    for command, arguments in commands:
        assert Path(command).name == "rpcsurface"
        shown = run_cli(tmp_path, *arguments, "--help")
        assert shown.returncode == 0, shown.stderr
        assert "Language Server Protocol" in shown.stdout

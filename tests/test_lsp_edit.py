"""``rpcsurface lsp``'s edits: rename, driven over stdio as an editor drives it, on copies
of the real_layout fixture.

The oracle: a rename applied to the files leaves ``rpcsurface check --no-cache`` finding
what it found before, with the new name. The places a rename edits are read from the
fixture's source text, not from a run.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, LspSpecificationWarning
from support import line_of, real_layout_copy, run_cli
from test_lsp import (
    ENGINE_CORE,
    MODEL_RUNNER,
    Said,
    _answered,
    _at,
    _checked,
    _open,
    _relative,
    _serve,
    _uri,
)

OLD = "load_model"
NEW = "boot_model"  # as long as OLD: the findings' columns stay where they were
# Every place of the fixture that holds OLD as the rename edits it: a string literal
# (send site, registry element) or a def.
_HOLDS_OLD = re.compile(rf"""(?<=")({OLD})(?=")|(?<=def ){OLD}\b""")

# A place as an edit says it: path relative to the project, 1-based line, start and end
# columns (the fixture is ASCII: UTF-16 code units are its characters).
Place = tuple[str, int, int, int]


def _places_holding_old(project: Path) -> set[Place]:
    return {
        (path.relative_to(project).as_posix(), number, match.start(), match.end())
        for path in sorted(project.rglob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        for match in _HOLDS_OLD.finditer(line)
    }


def _edited_places(edit: types.WorkspaceEdit, project: Path) -> dict[Place, str]:
    return {
        (
            _relative(uri, project),
            change.range.start.line + 1,
            change.range.start.character,
            change.range.end.character,
        ): change.new_text
        for uri, changes in (edit.changes or {}).items()
        for change in changes
        if change.range.start.line == change.range.end.line
    }


def _apply(edited: dict[Place, str], project: Path) -> None:
    """Write *edited* into the project's files, last place of each line first."""
    for place in sorted(edited, reverse=True):
        path, number, start, end = place
        lines = (project / path).read_text("utf-8").splitlines(keepends=True)
        line = lines[number - 1]
        lines[number - 1] = line[:start] + edited[place] + line[end:]
        (project / path).write_text("".join(lines), "utf-8")


def _rename_params(path: Path, position: types.Position, new: str) -> types.RenameParams:
    return types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=_uri(path)),
        position=position,
        new_name=new,
    )


def test_prepare_rename_gives_the_names_range_and_text(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    literal = _at(engine_core, f'"{OLD}"')

    async def scenario(client: LanguageClient) -> types.PrepareRenameResult | None:
        _open(client, engine_core)
        return await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(
                text_document=types.TextDocumentIdentifier(uri=_uri(engine_core)),
                position=types.Position(line=literal.line, character=literal.character + 4),
            )
        )

    prepared = _serve(project, scenario)
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == OLD
    start = types.Position(line=literal.line, character=literal.character + 1)
    end = types.Position(line=literal.line, character=literal.character + 1 + len(OLD))
    assert prepared.range == types.Range(start=start, end=end)


def _renamed_said(said: set[Said]) -> set[Said]:
    return {(*s[:-1], s[-1].replace(OLD, NEW)) for s in said}


def test_rename_from_a_send_site_and_from_a_def_edits_the_same_places(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core, model_runner = project / ENGINE_CORE, project / MODEL_RUNNER

    async def scenario(
        client: LanguageClient,
    ) -> tuple[types.WorkspaceEdit | None, types.WorkspaceEdit | None]:
        _open(client, engine_core)
        from_send = await client.text_document_rename_async(
            _rename_params(engine_core, _at(engine_core, f'"{OLD}"', 3), NEW)
        )
        from_def = await client.text_document_rename_async(
            _rename_params(model_runner, _at(model_runner, f"def {OLD}", 6), NEW)
        )
        return from_send, from_def

    from_send, from_def = _serve(project, scenario)
    assert from_send is not None
    assert from_def is not None
    edited = _edited_places(from_send, project)
    assert edited == _edited_places(from_def, project)
    expected = _places_holding_old(project)
    assert len(expected) == 3  # the send site, the handler's def, the registry element
    assert edited == dict.fromkeys(expected, NEW)

    before = _checked(project)
    assert any(OLD in said[-1] for said in before)  # the registry's rpc-listed-in-base
    _apply(edited, project)
    assert not _places_holding_old(project)
    assert _checked(project) == _renamed_said(before)


def test_a_rename_is_refused_with_its_reason(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core, model_runner = project / ENGINE_CORE, project / MODEL_RUNNER
    sent = f'        return self.runner_mgr.call_func("{OLD}", wait_out=True)\n'
    through_a_variable = (
        f'        name = "{OLD}"\n        return self.runner_mgr.call_func(name, wait_out=True)\n'
    )
    text = engine_core.read_text("utf-8")
    assert text.count(sent) == 1
    engine_core.write_text(text.replace(sent, through_a_variable), "utf-8")
    variable_line = line_of(engine_core.read_text("utf-8"), "call_func(name,")
    at_def = _at(model_runner, f"def {OLD}", 6)

    async def scenario(client: LanguageClient) -> list[str]:
        reasons = []
        for new in (NEW, "2nd_model"):
            with pytest.raises(JsonRpcException) as refused:
                await client.text_document_rename_async(_rename_params(model_runner, at_def, new))
            reasons.append(refused.value.message)
        return reasons

    variable, not_an_identifier = _serve(project, scenario)
    assert f"{engine_core}:{variable_line}" in variable
    assert "a variable or a constant defined elsewhere" in variable
    assert "'2nd_model' is not a Python identifier" in not_an_identifier


# ---------------------------------------------------------------- code actions


def _offset(text: str, position: types.Position) -> int:
    """*position* as an index of *text* (ASCII: UTF-16 code units are characters)."""
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: position.line]) + position.character


def _apply_edit(edit: types.WorkspaceEdit | None, served: Path, project: Path) -> None:
    """Write *edit*, made on the files of *served*, into the same files of *project*."""
    assert edit is not None
    assert edit.changes
    for uri, changes in edit.changes.items():
        path = project / _relative(uri, served)
        text = path.read_text("utf-8")
        for change in sorted(changes, key=lambda c: _offset(text, c.range.start), reverse=True):
            start, end = _offset(text, change.range.start), _offset(text, change.range.end)
            text = text[:start] + change.new_text + text[end:]
        path.write_text(text, "utf-8")


def _copy(tmp_path: Path, name: str) -> Path:
    (tmp_path / name).mkdir()
    return real_layout_copy(tmp_path / name)


def test_code_actions_on_the_diagnostics(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core = project / ENGINE_CORE
    text = engine_core.read_text("utf-8")
    unlisted_line = line_of(text, 'call_func("fast_decode"')
    mistyped_line = line_of(text, 'call_func("fast_prefil"')

    async def scenario(client: LanguageClient) -> dict[str, list[types.CodeAction]]:
        _open(client, engine_core)
        await _answered(client, engine_core)
        actions = {}
        for diagnostic in client.diagnostics[_uri(engine_core)]:
            if diagnostic.range.start.line + 1 in (unlisted_line, mistyped_line):
                found = await client.text_document_code_action_async(
                    types.CodeActionParams(
                        text_document=types.TextDocumentIdentifier(uri=_uri(engine_core)),
                        range=diagnostic.range,
                        context=types.CodeActionContext(diagnostics=[diagnostic]),
                    )
                )
                actions[str(diagnostic.code)] = [
                    a for a in found or () if isinstance(a, types.CodeAction)
                ]
        return actions

    actions = _serve(project, scenario)
    assert set(actions) == {"rpc-unlisted", "rpc-unanswered"}
    before = _checked(project)

    # Did you mean: the answered name closest to the mistyped one, which answers it.
    did_you_mean = [a for a in actions["rpc-unanswered"] if a.title.startswith("Did you mean")]
    assert did_you_mean[0].title == "Did you mean 'fast_prefill'?"
    assert len(did_you_mean) <= 3
    renamed = _copy(tmp_path, "did-you-mean")
    _apply_edit(did_you_mean[0].edit, project, renamed)
    assert 'call_func("fast_prefill", batch' in (renamed / ENGINE_CORE).read_text("utf-8")
    unanswered_at = (ENGINE_CORE, mistyped_line)
    assert {s for s in before if s[0] == "rpc-unanswered" and s[1:3] == unanswered_at}
    after = _checked(renamed)
    assert not {s for s in after if s[0] == "rpc-unanswered" and s[1:3] == unanswered_at}

    # The pragma: check finds what it found but that finding.
    (disable,) = [a for a in actions["rpc-unlisted"] if "pylint: disable" in a.title]
    silenced = _copy(tmp_path, "disabled")
    _apply_edit(disable.edit, project, silenced)
    line = (silenced / ENGINE_CORE).read_text("utf-8").splitlines()[unlisted_line - 1]
    assert line.endswith("# pylint: disable=rpc-unlisted")
    unlisted = {
        s for s in before if s[0] == "rpc-unlisted" and s[1:3] == (ENGINE_CORE, unlisted_line)
    }
    assert len(unlisted) == 1
    assert _checked(silenced) == before - unlisted

    # The registry: what `rpcsurface fix` writes.
    (registry,) = [a for a in actions["rpc-unlisted"] if "rpcsurface fix" in a.title]
    edited, fixed = _copy(tmp_path, "edited"), _copy(tmp_path, "fixed")
    _apply_edit(registry.edit, project, edited)
    run = run_cli(fixed, "fix", "--no-cache")
    assert run.returncode == 0, run.stderr
    config = "engine/config.py"
    assert (fixed / config).read_text("utf-8") != (project / config).read_text("utf-8")
    assert (edited / config).read_text("utf-8") == (fixed / config).read_text("utf-8")


# ---------------------------------------------------------------- progress


def test_the_first_analysis_shows_its_progress_once(tmp_path: Path) -> None:
    project = real_layout_copy(tmp_path)
    engine_core, model_runner = project / ENGINE_CORE, project / MODEL_RUNNER

    async def scenario(client: LanguageClient) -> tuple[list[str], list[str]]:
        with warnings.catch_warnings():
            # A progress used before its token was created: pytest-lsp warns.
            warnings.simplefilter("error", LspSpecificationWarning)
            _open(client, engine_core)
            await _answered(client, engine_core)
            first = list(client.progress_reports)
            _open(client, model_runner)  # the same project: its analysis is reused
            await _answered(client, model_runner)
        kinds = [type(value).__name__ for value in client.progress_reports[first[0]]]
        return first + [t for t in client.progress_reports if t not in first], kinds

    tokens, kinds = _serve(project, scenario)
    assert len(tokens) == 1
    assert kinds == ["WorkDoneProgressBegin", "WorkDoneProgressReport", "WorkDoneProgressEnd"]

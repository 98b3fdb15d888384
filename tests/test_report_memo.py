"""``report`` and ``fix`` take their facts from the memo pylint and ``check`` keep: what a
warm run computed is not computed again, and the tables and the diff are those of
``--no-cache``, before and after an edit."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from astroid.builder import AstroidBuilder
from support import run_cli

from pylint_rpcsurface.commands.main import main

EXAMPLE = Path(__file__).parent.parent / "examples" / "engine"


def _engine(tmp_path: Path) -> Path:
    """The example engine, its registry a literal that fix can rewrite (the example's
    is an expression, which fix refuses)."""
    root = Path(os.path.realpath(tmp_path)) / "engine"
    shutil.copytree(EXAMPLE, root)
    registry = root / "minimind" / "config.py"
    registry.write_text(
        'DISAGG_RPCS = ("send_kv_cache", "recv_kv_cache", "drain_kv_queue")\n',
        encoding="utf-8",
    )
    return root


@contextmanager
def _counting_builds() -> Iterator[list[str]]:
    """The files astroid builds meanwhile (a patch of its own: the test's monkeypatch
    holds the folder and the cache's, which must outlive it)."""
    built: list[str] = []
    original = AstroidBuilder.file_build

    def file_build(self: AstroidBuilder, path: str, modname: str | None = None) -> object:
        built.append(os.path.basename(path))
        return original(self, path, modname)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AstroidBuilder, "file_build", file_build)
        yield built


@pytest.mark.usefixtures("cache_home")
@pytest.mark.parametrize("command", [["report", "--format", "json"], ["fix", "--diff"]])
def test_after_check_report_and_fix_build_no_module(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    root = _engine(tmp_path)
    monkeypatch.chdir(root)
    assert main(["check"]) == 1  # the example's planted findings
    capsys.readouterr()
    with _counting_builds() as built:
        status = main(command)
    from_memo = capsys.readouterr().out
    assert built == []
    assert main([*command, "--no-cache"]) == status
    assert capsys.readouterr().out == from_memo
    assert "drain_kv_queue" in from_memo


@pytest.mark.usefixtures("cache_home")
def test_report_after_an_edit_is_the_report_from_nothing(tmp_path: Path) -> None:
    """The real console script: check fills the memo, a caller's sent name is edited,
    and report with the memo answers what report --no-cache does (and not what it said
    before the edit)."""
    root = _engine(tmp_path)
    assert run_cli(root, "check").returncode == 1
    before = run_cli(root, "report", "--format", "json")
    assert before.returncode == 0, before.stderr
    core = root / "minimind" / "engine_core.py"
    text = core.read_text(encoding="utf-8")
    assert '"forward"' in text
    core.write_text(text.replace('"forward"', '"forward_renamed"'), encoding="utf-8")
    after = run_cli(root, "report", "--format", "json")
    fresh = run_cli(root, "report", "--format", "json", "--no-cache")
    assert (after.returncode, after.stderr) == (0, "")
    assert after.stdout == fresh.stdout
    assert after.stdout != before.stdout
    assert "forward_renamed" in after.stdout

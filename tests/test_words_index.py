"""The memo's word index (engine.words_index): one piece holding each file version's
record of the subclass search, instead of one piece a file (the editor loop reads and
writes it once a run). Each record holds for its file's content hash only; a buffer's
is never written; a removed file's goes; a forged record is searched again."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support import EDITOR_FILES, project

from pylint_rpcsurface import engine
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import Memo

IDENTITY = "test"
FILES = {
    **EDITOR_FILES,
    "child.py": "from core import Core\n\n\nclass Child(Core):\n    pass\n",
    "unrelated.py": "VALUE = 0\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(os.path.realpath(project(tmp_path / "proj", FILES)))


def _run(root: Path, memo_file: Path, overrides: dict[str, str] | None = None) -> Any:
    config = load_config(root / "pyproject.toml")
    return engine.surface_facts(config, overrides, Memo(memo_file, IDENTITY))


def _searched(facts: Any) -> list[str]:
    """The files whose text the run's word search read, by name."""
    return [Path(path).name for path in facts.counts.searched]


def test_each_file_is_searched_once_and_then_not_again(root: Path, tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    first = _run(root, memo_file)
    assert _searched(first) == sorted(p.name for p in root.glob("*.py"))
    second = _run(root, memo_file)
    assert second.surfaces == first.surfaces == _run(root, tmp_path / "fresh.json").surfaces
    assert _searched(second) == []  # every file's record held


def test_an_edit_searches_only_the_edited_file_again(root: Path, tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    _run(root, memo_file)
    edited = root / "unrelated.py"
    edited.write_text("VALUE = 1  # Core\n", encoding="utf-8")
    after = _run(root, memo_file)
    assert _searched(after) == ["unrelated.py"]
    assert after.surfaces == _run(root, tmp_path / "fresh.json").surfaces
    assert _searched(_run(root, memo_file)) == []  # the edited file's new record kept


def test_a_buffer_is_never_written_and_its_files_record_stays(root: Path, tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    _run(root, memo_file)
    written = memo_file.read_bytes()
    child = str(root / "child.py")
    # A buffer that names no new class: no other file is asked a new word.
    buffer = FILES["child.py"].replace("    pass", "    def more(self):\n        return 1")
    with_buffer = _run(root, memo_file, {child: buffer})
    assert with_buffer.surfaces == _run(root, tmp_path / "fresh.json", {child: buffer}).surfaces
    assert _searched(with_buffer) == ["child.py"]  # the buffer's text was searched
    assert memo_file.read_bytes() == written  # and nothing of it kept
    assert _searched(_run(root, memo_file)) == []  # the saved file's record is still there


def test_a_removed_files_record_goes(root: Path, tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    _run(root, memo_file)
    removed = root / "unrelated.py"
    assert json.dumps(str(removed)) in memo_file.read_text(encoding="utf-8")
    removed.unlink()
    _run(root, memo_file)
    kept = memo_file.read_text(encoding="utf-8")
    assert json.dumps(str(removed)) not in kept
    assert json.dumps(str(root / "child.py")) in kept


@pytest.mark.parametrize("forged", ["index out of range", "another hash", "a negative index"])
def test_a_forged_record_is_searched_again(root: Path, tmp_path: Path, forged: str) -> None:
    """Forging a record takes the store's format (the one test here that reads it)."""
    memo_file = tmp_path / "memo.json"
    expected = _run(root, tmp_path / "other.json").surfaces
    _run(root, memo_file)
    raw = json.loads(memo_file.read_text(encoding="utf-8"))
    key = next(k for k in raw["facts"] if k.startswith('["words-index"'))
    rows = raw["facts"][key][1]
    row = next(r for r in rows if r[0].endswith("child.py"))
    if forged == "index out of range":
        row[2] = 99
    elif forged == "a negative index":
        row[2] = -1
    else:
        row[1] = "0" * 64
    row[3] = ""  # it would say the file holds no word: never believed
    memo_file.write_text(json.dumps(raw), encoding="utf-8")
    again = _run(root, memo_file)
    assert again.surfaces == expected
    assert _searched(again) == ["child.py"]

"""The memo's word index (engine.words_index): one piece holding each file version's
record of the subclass search, instead of one piece a file (the editor loop reads and
writes it once a run). Each record holds for its file's content hash only; a buffer's
is never written; a removed file's goes; a forged record is searched again."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support import EDITOR_FILES, project

from pylint_rpcsurface import engine
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import Memo
from pylint_rpcsurface.engine.words_index import WordSearch

IDENTITY = "test"
FILES = {
    **EDITOR_FILES,
    "child.py": "from core import Core\n\n\nclass Child(Core):\n    pass\n",
    "unrelated.py": "VALUE = 0\n",
}


def _index(memo_file: Path) -> tuple[list[str], dict[str, list[Any]]]:
    facts = json.loads(memo_file.read_text(encoding="utf-8"))["facts"]
    (value,) = [
        v
        for k, v in facts.items()
        if not k.startswith("direct ") and json.loads(k)[0] == "words-index"
    ]
    asked, rows = value
    return asked, {row[0]: row[1:] for row in rows}


def _searched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the word search reads from now on (a record that holds is not read)."""
    seen: list[str] = []
    original = WordSearch._search

    def counting(search: Any, path: str, words: frozenset[str]) -> Any:
        seen.append(Path(path).name)
        return original(search, path, words)

    monkeypatch.setattr(WordSearch, "_search", counting)
    return seen


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path / "proj", FILES)


def _run(root: Path, memo_file: Path, overrides: dict[str, str] | None = None) -> Any:
    config = load_config(root / "pyproject.toml")
    return engine.surface_facts(config, overrides, Memo(memo_file, IDENTITY)).surfaces


def test_the_index_holds_each_files_version_and_words(root: Path, tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    _run(root, memo_file)
    asked, rows = _index(memo_file)
    python_files = sorted(str(p.resolve()) for p in root.glob("*.py"))
    assert sorted(rows) == python_files
    for path, (digest, index, held, why) in rows.items():
        assert digest == hashlib.sha256(Path(path).read_bytes()).hexdigest()
        # The second round's word is not asked of a file the first round parsed.
        parsed = "Core" in held.split()
        assert set(asked[index].split()) == ({"Core"} if parsed else {"Core", "Child"})
        assert why is None
        text = Path(path).read_text(encoding="utf-8")
        words = asked[index].split()
        assert set(held.split()) == {w for w in words if re.search(rf"\b{w}\b", text)}


def test_an_edit_searches_only_the_edited_file_again(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo_file = tmp_path / "memo.json"
    expected = _run(root, tmp_path / "other.json")
    _run(root, memo_file)
    _, before = _index(memo_file)
    searched = _searched(monkeypatch)
    assert _run(root, memo_file) == expected
    assert searched == []  # every record held
    edited = root / "unrelated.py"
    edited.write_text("VALUE = 1  # Core\n", encoding="utf-8")
    _run(root, memo_file)
    assert searched == ["unrelated.py"]
    _, after = _index(memo_file)
    key = str(edited.resolve())
    assert after[key][0] == hashlib.sha256(edited.read_bytes()).hexdigest()
    assert after[key][2] == "Core"
    assert {p: r for p, r in after.items() if p != key} == {
        p: r for p, r in before.items() if p != key
    }


def test_a_buffer_is_never_written_and_its_files_record_stays(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo_file = tmp_path / "memo.json"
    _run(root, memo_file)
    written = memo_file.read_bytes()
    child = str((root / "child.py").resolve())
    # A buffer that names no new class: no other file is asked a new word.
    buffer = FILES["child.py"].replace("    pass", "    def more(self):\n        return 1")
    searched = _searched(monkeypatch)
    with_buffer = _run(root, memo_file, {child: buffer})
    assert with_buffer == _run(root, tmp_path / "fresh.json", {child: buffer})
    assert "child.py" in searched  # the buffer's text was searched
    assert memo_file.read_bytes() == written  # and nothing of it kept
    searched.clear()
    _run(root, memo_file)
    assert searched == []  # the saved file's record is still there


def test_a_removed_files_record_goes(root: Path, tmp_path: Path) -> None:
    memo_file = tmp_path / "memo.json"
    _run(root, memo_file)
    (root / "unrelated.py").unlink()
    _run(root, memo_file)
    _, rows = _index(memo_file)
    assert str((root / "unrelated.py").resolve()) not in rows
    assert str((root / "child.py").resolve()) in rows


@pytest.mark.parametrize("forged", ["index out of range", "another hash", "a negative index"])
def test_a_forged_record_is_searched_again(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forged: str
) -> None:
    memo_file = tmp_path / "memo.json"
    expected = _run(root, tmp_path / "other.json")
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
    searched = _searched(monkeypatch)
    assert _run(root, memo_file) == expected
    assert searched == ["child.py"]

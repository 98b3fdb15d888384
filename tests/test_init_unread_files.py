"""A file init can't read or parse is named in a note, with why, as check names one that
may hold a caller: every proof init writes reads the whole project, and a file it skipped
in silence could hold what breaks one (a value assigned to a setting, a subclass)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import init_engine, run_cli

# Each unreadable file, relative to the project, and what its note must say of it.
BROKEN: dict[str, tuple[bytes, str]] = {
    "seedengine/latin1.py": (b"NAME = '\xe9t\xe9'\n", "can't be decoded as utf-8"),
    "seedengine/half_written.py": (b"def dispatch(:\n", "syntax error"),
}
NO_PROOF = "no proof of this proposal sees what it holds"


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if NO_PROOF in line]


def test_each_file_init_could_not_read_is_named_with_why(tmp_path: Path) -> None:
    clean = init_engine(tmp_path / "clean")
    assert run_cli(clean, "init").returncode == 0
    folder = init_engine(tmp_path / "broken")
    for relative, (data, _) in BROKEN.items():
        (folder / relative).write_bytes(data)
    expected = {relative: said for relative, (_, said) in BROKEN.items()}
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "seedengine" / "pipe.py")  # never opened: init would block
        expected["seedengine/pipe.py"] = "not read: a FIFO"
    run = run_cli(folder, "init", timeout=120)
    assert run.returncode == 0, run.stderr
    notes = _notes(run.stderr)
    assert len(notes) == len(expected), run.stderr
    for relative, said in expected.items():
        (note,) = [n for n in notes if f"init: {relative}:1: " in n]
        assert said in note
    # The files hold nothing of the surface: the table is the one the clean copy gets.
    written = (folder / "pyproject.toml").read_text("utf-8")
    assert written == (clean / "pyproject.toml").read_text("utf-8")


@pytest.mark.parametrize("relative", sorted(BROKEN))
def test_a_readable_project_gets_no_such_note(tmp_path: Path, relative: str) -> None:
    """The same file, readable: no note (the note is about the file, not its name)."""
    folder = init_engine(tmp_path / "p", {relative: "NAME = 'ete'\n"})
    run = run_cli(folder, "init", "--diff", ".", timeout=120)
    assert run.returncode == 1, run.stderr  # a change: the table to write
    assert _notes(run.stderr) == []

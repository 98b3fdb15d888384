"""``rpcsurface init`` as safe as ``fix``: it loses nothing and keeps the file.

A table another program adds to pyproject.toml while init analyses is kept (init plans
again from the new text); valid TOML of a shape init can't append to is one line naming
the key; a FIFO or a link to /dev/zero is refused without being read; a read-only file
is refused unless ``--force``; the owner, group, mode and hard links are kept; a new file
gets the mode the umask gives. Each runs the real ``rpcsurface init``, but the race,
which runs init in this process to make the write happen on cue. Each write is tried on
a project whose surface init proves and on the bundled example, whose surface it writes
commented out.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import ROOT, racing_discover, run_cli

from pylint_rpcsurface.commands.main import main
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.sources import MAX_SOURCE_BYTES

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

BEFORE = b'[project]\nname = "vlike"\n'
BLACK = b"\n[tool.black]\nline-length = 100\n"


@dataclass(frozen=True)
class Subject:
    """A project init writes to: its source, and the first dispatch method it writes;
    *under_src*, its package moved into ``src/`` (a src layout: init writes the roots)."""

    source: Path
    method: str
    under_src: str | None = None


VLLM_LIKE = Subject(ROOT / "tests" / "fixtures" / "init_vllm", "collective_rpc")
SUBJECTS = {
    "vllm-like": VLLM_LIKE,
    "example": Subject(ROOT / "examples" / "engine", "call_func"),
    "example-src-layout": Subject(ROOT / "examples" / "engine", "call_func", "minimind"),
}


@pytest.fixture(params=sorted(SUBJECTS))
def subject(request: pytest.FixtureRequest) -> Subject:
    return SUBJECTS[str(request.param)]


def _folder(tmp_path: Path, pyproject: bytes | None = BEFORE, of: Subject = VLLM_LIKE) -> Path:
    folder = Path(shutil.copytree(of.source, tmp_path / "proj"))
    (folder / "pyproject.toml").unlink()
    if of.under_src is not None:
        (folder / "src").mkdir()
        (folder / of.under_src).rename(folder / "src" / of.under_src)
    if pyproject is not None:
        (folder / "pyproject.toml").write_bytes(pyproject)
    return folder


def _names_after(folder: Path) -> list[str]:
    """What *folder* holds once init wrote pyproject.toml, and nothing else."""
    return sorted({p.name for p in folder.iterdir()} | {"pyproject.toml"})


def _table(path: Path) -> dict[str, object]:
    table = tomllib.loads(path.read_text("utf-8"))["tool"]["rpcsurface"]
    assert isinstance(table, dict)
    return table


def test_a_table_appended_while_init_analyses_is_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    subject: Subject,
) -> None:
    folder = _folder(tmp_path, of=subject)
    pyproject = folder / "pyproject.toml"

    def append() -> None:
        with pyproject.open("ab") as stream:
            stream.write(BLACK)

    racing_discover(monkeypatch, append)
    assert main(["init", str(folder)]) == 0, capsys.readouterr().err
    after = pyproject.read_bytes()
    assert after.startswith(BEFORE + BLACK)
    assert tomllib.loads(after.decode())["tool"]["black"] == {"line-length": 100}
    assert load_config(pyproject).dispatch[0].method == subject.method


def test_a_dispatch_written_while_init_analyses_is_not_proposed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Another program (the user's editor) rewrites the file with its own table: init plans
    # from that text, so it adds only the surface, and never a second collective_rpc.
    folder = _folder(tmp_path)
    pyproject = folder / "pyproject.toml"
    theirs = (
        BEFORE
        + b"\n[tool.rpcsurface]\n[[tool.rpcsurface.dispatch]]\n"
        + b'method = "collective_rpc"\nwaits = true\n'
    )

    def rewrite() -> None:
        other = folder / "other"
        other.write_bytes(theirs)
        os.replace(other, pyproject)

    racing_discover(monkeypatch, rewrite)
    assert main(["init", str(folder)]) == 0, capsys.readouterr().err
    after = pyproject.read_bytes()
    assert after.startswith(theirs)
    table = _table(pyproject)
    assert table["dispatch"] == [{"method": "collective_rpc", "waits": True}]
    assert [s["name"] for s in table["surface"]] == ["Worker"]  # type: ignore[index, union-attr]


SHAPES = {
    # pyproject.toml's text: the one line init says about it, after the path
    "tool-string": ('tool = "none"\n', "tool: expected a table, got 'none'"),
    "table-integer": (
        "[tool]\nrpcsurface = 3\n",
        "tool.rpcsurface: expected a table, got integer 3",
    ),
    "surface-integer": (
        "[tool.rpcsurface]\nsurface = 3\n",
        "tool.rpcsurface.surface: expected an array of tables "
        "([[tool.rpcsurface.surface]]), got integer 3",
    ),
    "dispatch-string": (
        '[tool.rpcsurface]\ndispatch = "call"\n',
        "tool.rpcsurface.dispatch: expected an array of tables "
        "([[tool.rpcsurface.dispatch]]), got 'call'",
    ),
    "dispatch-of-integers": (
        "[tool.rpcsurface]\ndispatch = [1]\n",
        "tool.rpcsurface.dispatch[0]: expected a table, got integer 1",
    ),
    "handlers-integer": (
        '[[tool.rpcsurface.surface]]\nname = "w"\nhandlers = 5\n',
        "tool.rpcsurface.surface[0].handlers: expected an array of dotted names, got integer 5",
    ),
    "base-handlers-of-tables": (
        '[[tool.rpcsurface.surface]]\nname = "w"\nbase-handlers = [{a = 1}]\n',
        "tool.rpcsurface.surface[0].base-handlers[0]: expected a dotted name such as "
        "'package.module.Class', got a table",
    ),
    "source-roots-string": (
        '[tool.rpcsurface]\nsource-roots = "src"\n',
        "tool.rpcsurface.source-roots: expected an array of directory paths, got 'src'",
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_valid_toml_of_a_shape_init_cant_use_is_one_line_naming_the_key(
    tmp_path: Path, shape: str
) -> None:
    text, said = SHAPES[shape]
    folder = _folder(tmp_path, text.encode())
    for args in (("init",), ("init", "--diff")):
        refused = run_cli(folder, *args)
        path = folder.resolve() / "pyproject.toml"
        assert (refused.returncode, refused.stdout) == (2, ""), refused
        assert refused.stderr == f"rpcsurface: error: {path}: {said}\n"
        assert (folder / "pyproject.toml").read_text("utf-8") == text


OVER_CAP = MAX_SOURCE_BYTES + 1


def _sparse(path: Path) -> None:
    """A file one byte over the cap that takes no room: a hole, then a table."""
    with path.open("wb") as stream:
        stream.truncate(OVER_CAP - len(BEFORE))
        stream.seek(0, os.SEEK_END)
        stream.write(BEFORE)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs and devices")
@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (os.mkfifo, "a FIFO"),
        (lambda path: os.symlink("/dev/zero", path), "a character device"),
        (_sparse, f"{OVER_CAP} bytes, over the {MAX_SOURCE_BYTES}-byte size cap"),
    ],
    ids=["fifo", "dev-zero", "over-cap"],
)
def test_a_pyproject_that_is_no_regular_file_is_refused_unread(
    tmp_path: Path, make: Callable[[Path], None], kind: str
) -> None:
    folder = _folder(tmp_path, None)
    make(folder / "pyproject.toml")
    refused = run_cli(folder, "init", timeout=60)
    path = folder.resolve() / "pyproject.toml"
    assert (refused.returncode, refused.stdout) == (2, ""), refused
    assert refused.stderr.startswith(f"rpcsurface: error: {path}: can't be read: {kind}")
    assert "\n" not in refused.stderr.rstrip("\n")


def test_a_read_only_pyproject_is_refused_unless_forced(tmp_path: Path, subject: Subject) -> None:
    folder = _folder(tmp_path, of=subject)
    pyproject = folder / "pyproject.toml"
    pyproject.chmod(0o444)
    refused = run_cli(folder, "init")
    assert refused.returncode == 2, refused
    assert "the file is read-only; pass --force to write it anyway" in refused.stderr
    assert pyproject.read_bytes() == BEFORE
    forced = run_cli(folder, "init", "--force")
    assert forced.returncode == 0, forced
    assert pyproject.read_bytes().startswith(BEFORE)
    assert load_config(pyproject).dispatch[0].method == subject.method
    assert stat.S_IMODE(pyproject.stat().st_mode) == 0o444


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and links")
def test_owner_group_mode_and_hard_links_are_kept(tmp_path: Path, subject: Subject) -> None:
    folder = _folder(tmp_path, of=subject)
    names = _names_after(folder)
    pyproject = folder / "pyproject.toml"
    linked = tmp_path / "linked.toml"
    os.link(pyproject, linked)
    pyproject.chmod(0o640)
    owner = (os.geteuid(), os.getegid())
    if os.geteuid() == 0:
        owner = (4321, 8765)
        os.chown(pyproject, *owner)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written
    after = pyproject.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (*owner, 0o640)
    assert (after.st_ino, after.st_nlink) == (linked.stat().st_ino, 2)
    assert linked.read_bytes() == pyproject.read_bytes()
    assert load_config(pyproject).dispatch[0].method == subject.method
    assert sorted(p.name for p in folder.iterdir()) == names


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners")
def test_another_owners_file_keeps_its_owner_when_renamed(tmp_path: Path, subject: Subject) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file another owner")
    folder = _folder(tmp_path, of=subject)
    pyproject = folder / "pyproject.toml"
    os.chown(pyproject, 4321, 8765)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written
    after = pyproject.stat()
    assert (after.st_uid, after.st_gid) == (4321, 8765)
    assert stat.S_IMODE(after.st_mode) == 0o644


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.parametrize(("mask", "mode"), [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)])
def test_a_new_pyproject_gets_the_mode_the_umask_gives(
    tmp_path: Path, mask: int, mode: int, subject: Subject
) -> None:
    folder = _folder(tmp_path, None, subject)
    names = _names_after(folder)
    with _umask(mask):
        written = run_cli(folder, "init")
    assert written.returncode == 0, written
    pyproject = folder / "pyproject.toml"
    assert stat.S_IMODE(pyproject.stat().st_mode) == mode
    assert load_config(pyproject).dispatch[0].method == subject.method
    assert sorted(p.name for p in folder.iterdir()) == names


def test_a_pyproject_created_while_init_analyses_is_appended_to(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    subject: Subject,
) -> None:
    folder = _folder(tmp_path, None, subject)
    pyproject = folder / "pyproject.toml"
    racing_discover(monkeypatch, lambda: pyproject.write_bytes(BEFORE))
    assert main(["init", str(folder)]) == 0, capsys.readouterr().err
    assert pyproject.read_bytes().startswith(BEFORE + b"\n[tool.rpcsurface]\n")

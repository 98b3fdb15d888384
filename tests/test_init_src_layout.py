"""init on a project that keeps its package in ``src/`` (the packaging guide's src layout)
names its modules as the code imports them, writing ``source-roots`` with its proof: an
absolute import of a package under ``src``. The bundled example moved under ``src/``
must get the example's own table, its places under ``src/``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import ROOT, racing_discover, run_cli

from pylint_rpcsurface.commands.main import main

EXAMPLE = ROOT / "examples" / "engine"
ROOTS = 'source-roots = [".", "src"]'


def _copy(dest: Path, *, src: bool) -> Path:
    """The bundled example without its table, its package under ``src/`` when *src*."""
    folder = Path(shutil.copytree(EXAMPLE, dest))
    (folder / "pyproject.toml").unlink()
    if src:
        (folder / "src").mkdir()
        (folder / "minimind").rename(folder / "src" / "minimind")
    return folder


def _init(folder: Path) -> str:
    run = run_cli(folder, "init", timeout=120)
    assert run.returncode == 0, run.stderr
    return (folder / "pyproject.toml").read_text("utf-8")


def _findings(folder: Path) -> list[tuple[str, int, str]]:
    run = run_cli(folder, "check", "--format", "json", "--no-cache", timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return sorted(
        (item["path"].removeprefix("src/"), item["line"], item["symbol"])
        for item in json.loads(run.stdout)
    )


def test_a_src_layout_gets_the_flat_layout_table_with_src_as_a_root(tmp_path: Path) -> None:
    flat = _init(_copy(tmp_path / "flat", src=False))
    moved = _copy(tmp_path / "moved", src=True)
    written = _init(moved)
    (roots,) = [line for line in written.splitlines() if line.startswith("source-roots")]
    # The proof is an absolute import of the package, at its line in the moved tree.
    path, line = roots.split("# ")[1].split(": imports minimind")[0].split(":")
    assert path.startswith("src/minimind/")
    text = (moved / path).read_text("utf-8").splitlines()[int(line) - 1]
    assert text.startswith(("from minimind", "import minimind"))
    assert ROOTS in roots
    # Everything else is the flat project's table, its places under src/.
    rest = "\n".join(line for line in written.splitlines() if line != roots) + "\n"
    assert rest.replace("src/minimind/", "minimind/") == flat
    assert "src.minimind" not in written
    assert _findings(moved) == _findings(tmp_path / "flat")


def test_src_as_a_package_or_never_imported_by_name_is_no_root(tmp_path: Path) -> None:
    package = _copy(tmp_path / "package", src=True)
    (package / "src" / "__init__.py").write_text("", encoding="utf-8")
    assert "source-roots" not in _init(package)  # src.minimind is how it is imported
    relative = _copy(tmp_path / "relative", src=True)
    for module in (relative / "src" / "minimind").glob("*.py"):
        text = module.read_text("utf-8").replace("from minimind.", "from .")
        module.write_text(text, encoding="utf-8")
    # A relative import of a module named as the package proves nothing either.
    (relative / "src" / "minimind" / "minimind.py").write_text("NAME = 1\n", encoding="utf-8")
    config = relative / "src" / "minimind" / "config.py"
    config.write_text("from .minimind import NAME\n" + config.read_text("utf-8"), "utf-8")
    assert "source-roots" not in _init(relative)  # no import proves src is a root


def test_a_table_without_source_roots_is_told_what_to_add(tmp_path: Path) -> None:
    folder = _copy(tmp_path / "p", src=True)
    before = "[tool.rpcsurface]\nhelper-depth = 5\n"
    (folder / "pyproject.toml").write_text(before, encoding="utf-8")
    run = run_cli(folder, "init", "--diff", ".", timeout=120)
    assert run.returncode == 1, run.stderr
    (note,) = [line for line in run.stderr.splitlines() if "has no source-roots" in line]
    assert ": imports minimind, which is under src/" in note
    assert ROOTS in note
    assert "source-roots" not in run.stdout  # the table keeps its roots: nothing written
    # With the roots it has, the names are those the note warns of.
    assert "src.minimind." in run.stdout


BEFORE = b'[project]\nname = "minimind"\n'


def test_a_table_written_while_init_reads_a_src_layout_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another program writes a table with the default roots meanwhile: what init read
    (under src as a root too) would not fit it, so it writes nothing, saying why."""
    folder = _copy(tmp_path / "p", src=True)
    pyproject = folder / "pyproject.toml"
    pyproject.write_bytes(BEFORE)
    theirs = BEFORE + b"\n[tool.rpcsurface]\nhelper-depth = 3\n"
    racing_discover(monkeypatch, lambda: pyproject.write_bytes(theirs))
    assert main(["init", str(folder)]) == 2
    said = capsys.readouterr().err
    assert "another program wrote a [tool.rpcsurface] table while init read" in said
    assert pyproject.read_bytes() == theirs

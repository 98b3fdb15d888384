"""init on a project that keeps its package in a folder that is no package itself (the
packaging guide's ``src/``, or ``python/`` as sglang's and Ray's repositories have it)
names its modules as the code imports them, writing ``source-roots`` with its proof: an
absolute import of a package in that folder. The bundled example moved into such a
folder must get the example's own table, its places under the folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import ROOT, asked_of, racing_discover, run_cli

from pylint_rpcsurface.commands import package_folders as package_folders_module
from pylint_rpcsurface.commands.main import main
from pylint_rpcsurface.commands.package_folders import package_folders

EXAMPLE = ROOT / "examples" / "engine"


def _copy(dest: Path, under: str | None = None) -> Path:
    """The bundled example without its table, its package moved into *under*."""
    folder = Path(shutil.copytree(EXAMPLE, dest))
    (folder / "pyproject.toml").unlink()
    if under is not None:
        (folder / under).mkdir()
        (folder / "minimind").rename(folder / under / "minimind")
    return folder


def _init(folder: Path) -> str:
    run = run_cli(folder, "init", timeout=120)
    assert run.returncode == 0, run.stderr
    return (folder / "pyproject.toml").read_text("utf-8")


def _roots(written: str) -> str | None:
    found = [line for line in written.splitlines() if line.startswith("source-roots")]
    assert len(found) <= 1
    return found[0] if found else None


def _findings(folder: Path, under: str) -> list[tuple[str, int, str]]:
    run = run_cli(folder, "check", "--format", "json", "--no-cache", timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return sorted(
        (item["path"].removeprefix(f"{under}/"), item["line"], item["symbol"])
        for item in json.loads(run.stdout)
    )


@pytest.mark.parametrize("under", ["src", "python"])
def test_a_package_in_a_folder_gets_the_flat_table_with_the_folder_a_root(
    tmp_path: Path, under: str
) -> None:
    flat = _init(_copy(tmp_path / "flat"))
    moved = _copy(tmp_path / "moved", under)
    written = _init(moved)
    roots = _roots(written)
    assert roots is not None
    assert roots.startswith(f'source-roots = [".", "{under}"]  # ')
    # The proof is an absolute import of the package, at its line in the moved tree.
    path, line = (
        roots.split("# ")[1].split(f": imports minimind, which is under {under}/")[0].split(":")
    )
    assert path.startswith(f"{under}/minimind/")
    text = (moved / path).read_text("utf-8").splitlines()[int(line) - 1]
    assert text.startswith(("from minimind", "import minimind"))
    # Everything else is the flat project's table, its places under the folder.
    rest = "\n".join(line for line in written.splitlines() if line != roots) + "\n"
    assert rest.replace(f"{under}/minimind/", "minimind/") == flat
    assert f"{under}.minimind" not in written
    assert _findings(moved, under) == _findings(tmp_path / "flat", under)


def test_a_folder_is_no_root_without_its_proof(tmp_path: Path) -> None:
    package = _copy(tmp_path / "package", "src")
    (package / "src" / "__init__.py").write_text("", encoding="utf-8")
    assert _roots(_init(package)) is None  # src is a package: src.minimind is its name
    # A tests folder's packages are the tests' helpers (init does not read them).
    tests = _copy(tmp_path / "tests", "tests")
    assert "from minimind." in (tests / "tests" / "minimind" / "launch.py").read_text("utf-8")
    assert package_folders(tests) == ()
    assert package_folders(_copy(tmp_path / "tests-renamed", "checks")) != ()
    # Folders the walk of the tree never enters hold no package of the project either: a
    # virtualenv, a hidden folder, a link to a folder elsewhere.
    for holder in ("venv", ".hidden", "linked"):
        outside = _copy(tmp_path / f"outside-{holder.strip('.')}")
        elsewhere = tmp_path / f"elsewhere-{holder.strip('.')}"
        (elsewhere / "helpers").mkdir(parents=True)
        (elsewhere / "helpers" / "h.py").write_text("H = 1\n", encoding="utf-8")
        if holder == "linked":
            (outside / holder).symlink_to(elsewhere, target_is_directory=True)
        else:
            shutil.copytree(elsewhere, outside / holder)
        if holder == "venv":
            (outside / holder / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
        launch = outside / "minimind" / "launch.py"
        launch.write_text(launch.read_text("utf-8") + "\nimport helpers.h\n", "utf-8")
        assert package_folders(outside) == (), holder
    control = _copy(tmp_path / "outside-control")
    shutil.copytree(tmp_path / "elsewhere-venv", control / "tools")
    launch = control / "minimind" / "launch.py"
    launch.write_text(launch.read_text("utf-8") + "\nimport helpers.h\n", "utf-8")
    assert [found.folder for found in package_folders(control)] == ["tools"]
    shadowed = _copy(tmp_path / "shadowed", "python")
    (shadowed / "minimind").mkdir()  # `import minimind` finds this one first, not python's
    (shadowed / "minimind" / "stub.py").write_text("X = 1\n", encoding="utf-8")
    assert _roots(_init(shadowed)) is None
    relative = _copy(tmp_path / "relative", "src")
    for module in (relative / "src" / "minimind").glob("*.py"):
        text = module.read_text("utf-8").replace("from minimind.", "from .")
        module.write_text(text, encoding="utf-8")
    # A relative import of a module named as the package proves nothing either.
    (relative / "src" / "minimind" / "minimind.py").write_text("NAME = 1\n", encoding="utf-8")
    config = relative / "src" / "minimind" / "config.py"
    config.write_text("from .minimind import NAME\n" + config.read_text("utf-8"), "utf-8")
    assert _roots(_init(relative)) is None  # no import proves src is a root


def test_every_folder_proven_is_a_root_each_with_its_proof(tmp_path: Path) -> None:
    folder = _copy(tmp_path / "p", "src")
    (folder / "python" / "helpers").mkdir(parents=True)
    (folder / "python" / "helpers" / "timing.py").write_text("T = 1\n", encoding="utf-8")
    (folder / "python" / "helpers" / "unused").mkdir()
    (folder / "python" / "helpers" / "unused" / "x.py").write_text("", encoding="utf-8")
    launch = folder / "src" / "minimind" / "launch.py"
    launch.write_text(launch.read_text("utf-8") + "\nimport helpers.timing\n", "utf-8")
    roots = _roots(_init(folder))
    assert roots is not None
    assert roots.startswith('source-roots = [".", "python", "src"]  # ')
    assert "src/minimind/launch.py:" in roots
    assert ": imports helpers, which is under python/; " in roots
    assert ": imports minimind, which is under src/" in roots


def test_a_table_without_source_roots_is_told_what_to_add(tmp_path: Path) -> None:
    folder = _copy(tmp_path / "p", "src")
    before = "[tool.rpcsurface]\nhelper-depth = 5\n"
    (folder / "pyproject.toml").write_text(before, encoding="utf-8")
    run = run_cli(folder, "init", "--diff", ".", timeout=120)
    assert run.returncode == 1, run.stderr
    (note,) = [line for line in run.stderr.splitlines() if "has no source-roots" in line]
    assert ": imports minimind, which is under src/" in note
    assert 'add source-roots = [".", "src"] to [tool.rpcsurface]' in note
    assert "source-roots" not in run.stdout  # the table keeps its roots: nothing written
    # With the roots it has, the names are those the note warns of.
    assert "src.minimind." in run.stdout


BEFORE = b'[project]\nname = "minimind"\n'


def test_a_table_written_while_init_reads_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another program writes a table with the default roots meanwhile: what init read
    (with src as a root too) would not fit it, so it writes nothing, saying why."""
    folder = _copy(tmp_path / "p", "src")
    pyproject = folder / "pyproject.toml"
    pyproject.write_bytes(BEFORE)
    theirs = BEFORE + b"\n[tool.rpcsurface]\nhelper-depth = 3\n"
    racing_discover(monkeypatch, lambda: pyproject.write_bytes(theirs))
    assert main(["init", str(folder)]) == 2
    said = capsys.readouterr().err
    assert "another program wrote a [tool.rpcsurface] table while init read" in said
    assert "with src/ as source roots too" in said
    assert pyproject.read_bytes() == theirs


def test_only_files_with_an_import_line_naming_a_package_are_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``examples/llm/`` in an engine whose every file says "llm": a file is parsed only
    when a line of it imports the name (a vLLM 0.34.0-sized tree: 11.4 s to 0.7 s)."""
    folder = _copy(tmp_path / "p")
    (folder / "examples" / "llm").mkdir(parents=True)
    (folder / "examples" / "llm" / "run.py").write_text("X = 1\n", encoding="utf-8")
    for index in range(3):
        text = f'"""The llm engine."""\nllm = "llm"\nfrom vllm import llm_{index}\n'
        (folder / "minimind" / f"says_llm_{index}.py").write_text(text, encoding="utf-8")
    importer = folder / "minimind" / "uses_llm.py"
    importer.write_text('"""Runs it."""\n\nimport llm.run\n', encoding="utf-8")
    # ast.parse is the ast module's own (pytest's reports parse too): each path parsed.
    parsed = asked_of(monkeypatch, package_folders_module.ast, "parse", lambda *a, **_: a[1:2])

    (found,) = package_folders(folder)
    assert (found.folder, found.package) == ("examples", "llm")
    assert found.evidence == "minimind/uses_llm.py:3"
    assert parsed == [(str(importer.resolve()),)]


def test_the_page_shows_what_init_writes_on_the_src_layout_fixture(tmp_path: Path) -> None:
    """docs/init.md shows init's table on tests/fixtures/init_src_layout, where it is
    also that tree's own table (which tests/test_docs_configs.py loads there)."""
    fixture = ROOT / "tests" / "fixtures" / "init_src_layout"
    page = (ROOT / "docs" / "init.md").read_text("utf-8")
    shown = page.split("<!-- toml: tests/fixtures/init_src_layout -->\n```toml\n", 1)[1]
    shown = shown.split("```", 1)[0]
    folder = Path(shutil.copytree(fixture, tmp_path / "tree"))
    (folder / "pyproject.toml").unlink()
    written = _init(folder)
    assert shown == written == (fixture / "pyproject.toml").read_text("utf-8")

"""What an analysis after a one-file edit reads, and what it leaves as it found it:
the editor loop pays for the edited module, not for the whole tree."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support import EDITOR_FILES, project

from pylint_rpcsurface import engine, store
from pylint_rpcsurface.analysis import modules
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.analysis.subclasses import WordGroups
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import words_index
from pylint_rpcsurface.sources import KnownFile, SourceTree
from pylint_rpcsurface.store import snapshot


@pytest.fixture
def editor_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {**EDITOR_FILES, "unrelated.py": "VALUE = 0\n"}
    root = project(tmp_path / "proj", files)
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    return Path(os.path.realpath(root))


def _reads(monkeypatch: pytest.MonkeyPatch, *readers: object) -> list[str]:
    """The files the analysis (its module store), or each of *readers* (modules that
    import ``read_source``), reads from now on."""
    seen: list[str] = []
    for reader in readers or (modules,):
        original = reader.read_source  # type: ignore[attr-defined]

        def counting(
            path: str, original: Callable[[str], tuple[bytes, os.stat_result]] = original
        ) -> tuple[bytes, os.stat_result]:
            seen.append(path)
            return original(path)

        monkeypatch.setattr(reader, "read_source", counting)
    return seen


def test_an_edit_reads_only_the_edited_module(
    editor_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's fingerprints give the analysis every unchanged file's hash, and the
    word search's record of each file version is kept: only the edited file is read,
    by the cache (the analysis takes the bytes its fingerprint read)."""
    hour_ago = time.time_ns() - 3_600 * 10**9
    for path in editor_project.glob("*.py"):
        os.utime(path, ns=(hour_ago, hour_ago))
    time.sleep(snapshot.RACY_NS / 1e9 + 0.1)  # settled: the cache trusts their stat
    config = load_config(editor_project / "pyproject.toml")
    store.analyse_with_cache(config, {})
    edited = editor_project / "unrelated.py"
    edited.write_text("VALUE = 1\n", encoding="utf-8")
    by_analysis = _reads(monkeypatch)
    by_cache = _reads(monkeypatch, snapshot)
    incremental = store.analyse_with_cache(config, {})
    assert (set(by_cache), by_analysis) == ({str(edited)}, [])
    assert incremental == engine.surface_facts(config).analysis()


def test_a_cold_run_reads_each_file_once(
    editor_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no entry, the cache's fingerprint before the analysis reads every file, and
    the analysis takes the bytes it hashed instead of reading and hashing them again."""
    config = load_config(editor_project / "pyproject.toml")
    reads = _reads(monkeypatch)
    cold = store.analyse_with_cache(config, {})
    assert reads == []
    assert cold == engine.surface_facts(config).analysis()


def test_a_run_walks_the_roots_once(editor_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache lists the files it fingerprints, and the engine analyses that listing:
    one walk of the roots per run, cold or after an edit."""
    from pylint_rpcsurface import sources  # noqa: PLC0415

    walks: list[str] = []
    original = sources._walk_python_files

    def counting(root: str) -> object:
        walks.append(root)
        return original(root)

    monkeypatch.setattr(sources, "_walk_python_files", counting)
    config = load_config(editor_project / "pyproject.toml")
    roots = len(config.source_roots)
    cold = store.analyse_with_cache(config, {})
    assert len(walks) == roots
    (editor_project / "unrelated.py").write_text("VALUE = 2\n", encoding="utf-8")
    walks.clear()
    edited = store.analyse_with_cache(config, {})
    assert len(walks) == roots
    assert cold == edited == engine.surface_facts(config).analysis()


def test_a_file_whose_known_hash_is_stale_is_not_kept(tmp_path: Path) -> None:
    """A known hash whose stat still matches, but whose file holds other bytes when read
    (written in the same clock tick): the store takes it, then sees the difference, and
    says the run must not be kept."""
    root = project(tmp_path / "proj", {"a.py": "A = 1\n"})
    path = os.path.realpath(root / "a.py")
    info = os.stat(path)
    stale = KnownFile(
        info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev, "0" * 64
    )
    store = ModuleStore(SourceTree((root,)), known={path: stale})
    assert store.digest(path) == "0" * 64  # taken, not read
    assert not store.changed_since_read()
    store.text(path)
    assert store.changed_since_read()


def test_a_known_hash_with_another_stat_is_not_taken(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"a.py": "A = 1\n"})
    path = os.path.realpath(root / "a.py")
    info = os.stat(path)
    other = KnownFile(
        info.st_size, info.st_mtime_ns, info.st_ctime_ns + 1, info.st_ino, info.st_dev, "0" * 64
    )
    store = ModuleStore(SourceTree((root,)), known={path: other})
    assert store.digest(path) == hashlib.sha256(b"A = 1\n").hexdigest()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_is_left_as_it_was(
    editor_project: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    """Paused during the analysis, then as it was: after a run, and after one that
    failed."""
    config = load_config(editor_project / "pyproject.toml")
    seen_during: list[bool] = []
    original = engine._surface_facts  # pylint: disable=protected-access

    def watching(*args: object, **keywords: object) -> engine.Facts:
        seen_during.append(gc.isenabled())
        return original(*args, **keywords)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_surface_facts", watching)
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        engine.surface_facts(config).analysis()
        assert gc.isenabled() is enabled
        monkeypatch.setattr(engine, "_surface_facts", _fails)
        with pytest.raises(RuntimeError):
            engine.surface_facts(config).analysis()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen_during == [False]


def _fails(*args: object, **keywords: object) -> engine.Facts:
    raise RuntimeError("an analysis that fails")


def test_objects_someone_else_froze_stay_frozen(editor_project: Path) -> None:
    """The analysis counts what it allocated with the oldest objects (a freeze and an
    unfreeze) only when nothing is frozen: unfreeze() would release another's."""
    config = load_config(editor_project / "pyproject.toml")
    assert gc.get_freeze_count() == 0
    engine.surface_facts(config).analysis()
    assert gc.get_freeze_count() == 0
    probe: list[object] = [object()]  # tracked by the collector
    gc.freeze()
    try:
        assert not any(found is probe for found in gc.get_objects())  # frozen
        engine.surface_facts(config).analysis()
        assert not any(found is probe for found in gc.get_objects())  # still frozen
    finally:
        gc.unfreeze()
    assert any(found is probe for found in gc.get_objects())


def _stats_of_each_run(patch: pytest.MonkeyPatch, folder: Path) -> Path:
    """The file each analysis from now on appends what it did to (``RPCSURFACE_STATS``)."""
    target = folder / "stats.jsonl"
    patch.setenv(store.STATS_ENV, str(target))
    return target


def _records(target: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]


def test_a_buffers_pieces_are_not_written_and_the_saved_files_stay(
    editor_project: Path,
) -> None:
    """An editor's keystroke buffer is never sent twice: what depends on it is used and
    not written, nor are the buffer's findings, so the store stays as the saved files
    left it, and a run on the saved files afterwards is answered from it."""
    config = load_config(editor_project / "pyproject.toml")
    core = editor_project / "core.py"
    time.sleep(3 * snapshot.TICK_NS / 1e9)  # settled: the first run's findings are kept
    expected = engine.surface_facts(config).analysis()
    assert store.analyse_with_cache(config, {}) == expected
    (memo_file,) = (editor_project.parent / "cache").glob("*/store-*.json")
    saved = memo_file.read_bytes()
    buffer = core.read_text(encoding="utf-8") + "\nEDITED = 1\n"
    edited = store.analyse_with_cache(config, {str(core): buffer})
    assert edited == engine.surface_facts(config, {str(core): buffer}).analysis()
    assert memo_file.read_bytes() == saved
    with pytest.MonkeyPatch.context() as patch:
        stats = _stats_of_each_run(patch, editor_project.parent)
        assert store.analyse_with_cache(config, {}) == expected
    assert [r["findings_from_store"] for r in _records(stats)] == [True]  # no analysis ran
    assert memo_file.read_bytes() == saved


def test_a_buffer_that_holds_the_saved_text_shares_the_files_pieces(
    editor_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor sends the open file again, unchanged, after a save in another module:
    that buffer is the saved version of its module, so the pieces that read it are the
    file's (found, and kept for the next run on the saved files)."""
    config = load_config(editor_project / "pyproject.toml")
    core = editor_project / "core.py"
    runners = editor_project / "runners.py"
    store.analyse_with_cache(config, {})
    runners.write_text(runners.read_text(encoding="utf-8") + "\nEDITED = 1\n", "utf-8")
    same = {str(core): core.read_text(encoding="utf-8")}
    expected = (
        engine.surface_facts(config, same).analysis(),
        engine.surface_facts(config).analysis(),
    )
    stats = _stats_of_each_run(monkeypatch, editor_project.parent)
    assert (store.analyse_with_cache(config, same), store.analyse_with_cache(config, {})) == (
        expected
    )
    buffer_run, saved_run = _records(stats)
    # The handler module, edited; and the buffer, which no pylint built here (pylint's
    # module of a buffer is taken, see test_run_counts.py).
    assert buffer_run["modules_built"] == ["core.py", "runners.py"]
    # Every piece found: the buffer run kept the caller's too, and built nothing more.
    assert (saved_run["findings_from_store"], saved_run["modules_built"]) == (False, [])


def test_each_file_is_searched_for_each_word_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The subclass search asks each round's new words (a subclass found, then its own
    subclasses) of every file not yet parsed; a file's record already says which earlier
    words it holds, so no word is looked for twice in one file."""
    files = {
        **EDITOR_FILES,
        "child.py": "from core import Core\n\n\nclass Child(Core):\n    pass\n",
        "grandchild.py": "from child import Child\n\n\nclass Grandchild(Child):\n    pass\n",
        "unrelated.py": "VALUE = 0\n",
    }
    root = project(tmp_path / "proj", files)
    asked: list[tuple[int, str]] = []
    original = words_index.words_held

    def counting(text: str, groups: WordGroups) -> frozenset[str]:
        asked.extend((id(text), word) for _, words in groups for word in words)
        return original(text, groups)

    monkeypatch.setattr(words_index, "words_held", counting)
    config = load_config(root / "pyproject.toml")
    (surface,) = engine.surface_facts(config).surfaces
    assert surface.callers == ("child.Child", "core.Core", "grandchild.Grandchild")
    assert {word for _, word in asked} == {"Core", "Child", "Grandchild"}  # three rounds
    assert len(asked) == len(set(asked))


def test_a_lone_literal_registry_is_read_without_its_module(editor_project: Path) -> None:
    """The registry module holds one literal no other statement names: the analysis
    reads that statement alone and never builds the module (which pylint reports on
    from its own build, when it lints it)."""
    config = load_config(editor_project / "pyproject.toml")
    facts = engine.surface_facts(config)
    (surface,) = facts.surfaces
    built = [os.path.basename(path) for path in facts.counts.built]
    assert surface.registry is not None
    assert [e.value for e in surface.registry.elements] == ["prefill"]
    assert "registry.py" not in built
    assert "runners.py" in built  # the handlers' module is built as before

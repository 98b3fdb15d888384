"""The cache's fingerprints reuse the hashes they can trust instead of reading (issue 14).

On a miss, the fingerprint taken before the analysis keeps the hashes of the entry the
lookup rejected, and the one taken after it keeps those taken before, for every file whose
full stat is unchanged and that had settled ``_RACY_NS`` before that hash was taken. The
unit tests count the files read (``cache.read_source``); the end-to-end ones run the real
``rpcsurface check`` through edits that a stat-only or a careless reuse would miss.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support import APP, APP_PLANTED, PLANTED_LINE, PYPROJECT, project, run_check

from pylint_rpcsurface import cache
from pylint_rpcsurface.config.discovery import load_config
from pylint_rpcsurface.model import Analysis

# Modules beside app.py, never edited: the ones a fingerprint should not read again.
OTHERS = {f"helpers_{n}.py": f"def helper_{n}():\n    return {n}\n" for n in range(4)}
PLANTED = {("rpc-unanswered", "app.py", PLANTED_LINE)}
# APP_PLANTED with the planted RPC renamed to one the base handler answers: same size.
ANSWERED_SAME_SIZE = APP_PLANTED.replace('"no_such_rpc"', '"step"       ')
NOTHING = Analysis.of([], [])


def _settled_project(tmp_path: Path, app: str = APP_PLANTED) -> Path:
    """A project whose files were last written (mtime and ctime) over ``_RACY_NS`` ago:
    the only files whose known hash may be trusted without reading them."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": app, **OTHERS})
    hour_ago = time.time_ns() - 3_600 * 10**9
    for path in root.glob("*.py"):
        os.utime(path, ns=(hour_ago, hour_ago))
    time.sleep(cache._RACY_NS / 1e9 + 0.1)  # the ctimes, which can't be set back, settle
    return root


def _modules(root: Path) -> list[str]:
    return sorted(os.path.realpath(path) for path in root.glob("*.py"))


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the cache reads from now on, in order."""
    reads: list[str] = []
    real_read: Callable[[str], tuple[bytes, os.stat_result]] = cache.read_source

    def counting(path: str) -> tuple[bytes, os.stat_result]:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(cache, "read_source", counting)
    return reads


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _full(root: Path, home: Path) -> cache.Snapshot:
    """A fingerprint that knows nothing: every file read and hashed."""
    return cache.FactCache(load_config(root / "pyproject.toml"), home).fingerprint({})


# ---------------------------------------------------------------- after the analysis


def test_the_after_fingerprint_of_an_untouched_tree_reads_no_file(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _settled_project(tmp_path)
    reads = _count_reads(monkeypatch)
    facts = cache.FactCache(load_config(root / "pyproject.toml"), cache_home)
    before = facts.fingerprint({})
    assert sorted(reads) == _modules(root)  # nothing known yet: every file is read
    reads.clear()
    after = facts.fingerprint({}, since=before)
    assert reads == []
    full = _full(root, cache_home)
    assert sorted(reads) == _modules(root)
    assert after.modules == full.modules
    assert after.modules[os.path.realpath(root / "app.py")] == cache.Fingerprint(
        cache._stat(str(root / "app.py")), _sha256(root / "app.py")
    )
    assert facts.save(before, after, NOTHING, {}, []) is True


def test_a_same_size_rewrite_with_the_mtime_restored_is_read_and_not_saved(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the two fingerprints app.py gets other bytes of the same size and its old
    mtime back: only its ctime tells, so the after-fingerprint reads it again."""
    root = _settled_project(tmp_path)
    app = root / "app.py"
    facts = cache.FactCache(load_config(root / "pyproject.toml"), cache_home)
    before = facts.fingerprint({})
    old = os.stat(app)
    app.write_text(ANSWERED_SAME_SIZE, encoding="utf-8")
    os.utime(app, ns=(old.st_atime_ns, old.st_mtime_ns))
    new = os.stat(app)
    assert (new.st_size, new.st_mtime_ns, new.st_ino) == (old.st_size, old.st_mtime_ns, old.st_ino)
    reads = _count_reads(monkeypatch)
    after = facts.fingerprint({}, since=before)
    assert reads == [os.path.realpath(app)]
    fingerprint = after.modules[os.path.realpath(app)]
    assert fingerprint is not None
    assert fingerprint.sha256 == _sha256(app) != hashlib.sha256(APP_PLANTED.encode()).hexdigest()
    assert facts.save(before, after, NOTHING, {}, []) is False
    assert facts.folder is not None
    assert not (facts.folder / facts.name).exists()


def test_a_hash_taken_before_the_file_settled_is_not_trusted(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A known fingerprint with the file's very stat but a hash taken within ``_RACY_NS``
    of its last write (a write in the same timestamp tick keeps the stat) is read again;
    the same fingerprint taken once the file had settled is kept as it is."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    app = os.path.realpath(root / "app.py")
    facts = cache.FactCache(load_config(root / "pyproject.toml"), cache_home)
    stale = cache.Fingerprint(cache._stat(app), "0" * 64)  # the stat now, another text's hash
    now = time.time_ns()
    reads = _count_reads(monkeypatch)
    fresh = facts.fingerprint({}, since=cache.Snapshot(now, {app: stale}))
    assert reads == [app]
    assert fresh.modules[app] == cache.Fingerprint(cache._stat(app), _sha256(root / "app.py"))
    reads.clear()
    later = now + cache._RACY_NS + 10**9  # as if taken once the file had settled
    kept = facts.fingerprint({}, since=cache.Snapshot(later, {app: stale}))
    assert (reads, kept.modules[app]) == ([], stale)


# ---------------------------------------------------------------- before the analysis


def _entry(root: Path, home: Path) -> cache.FactCache:
    """Save an entry of *root* as the cache does (both fingerprints, then save)."""
    facts = cache.FactCache(load_config(root / "pyproject.toml"), home)
    before = facts.fingerprint({})
    assert facts.save(before, facts.fingerprint({}, since=before), NOTHING, {}, []) is True
    return facts


def test_the_before_fingerprint_reads_only_what_changed_since_the_rejected_entry(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _settled_project(tmp_path)
    _entry(root, cache_home)
    app = root / "app.py"
    app.write_text(APP, encoding="utf-8")  # the edit that makes the lookup miss
    facts = cache.FactCache(load_config(root / "pyproject.toml"), cache_home)
    assert facts.lookup({}) is None
    reads = _count_reads(monkeypatch)
    before = facts.fingerprint({})
    assert reads == [os.path.realpath(app)]
    full = _full(root, cache_home)
    assert before.modules == full.modules
    # The editor's buffer is hashed from its text, never taken for a file's known hash.
    helper = os.path.realpath(root / "helpers_0.py")
    assert facts.lookup({helper: "X = 1\n"}) is None
    reads.clear()
    buffered = facts.fingerprint({helper: "X = 1\n"})
    assert reads == [os.path.realpath(app)]
    assert buffered.modules[helper] == cache.Fingerprint(
        None, hashlib.sha256(b"X = 1\n").hexdigest()
    )


@pytest.mark.parametrize("damage", ["malformed", "foreign", "missing"])
def test_an_entry_that_is_not_read_gives_nothing_to_reuse(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    root = _settled_project(tmp_path)
    saved = _entry(root, cache_home)
    assert saved.folder is not None
    entry = saved.folder / saved.name
    if damage == "malformed":
        entry.write_bytes(b'{"modules": ')
    elif damage == "foreign":
        entry.write_bytes(entry.read_bytes().replace(b'"format":3', b'"format":2'))
    else:
        entry.unlink()
    facts = cache.FactCache(load_config(root / "pyproject.toml"), cache_home)
    assert facts.lookup({}) is None
    reads = _count_reads(monkeypatch)
    facts.fingerprint({})
    assert sorted(reads) == _modules(root)


def test_a_miss_reads_each_module_once_and_an_edit_only_the_edited_one(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``analyse_with_cache`` itself reads through the cache (the engine reads on
    its own): with no entry, each module once, by the fingerprint before the analysis;
    after an edit, the edited module alone: by the lookup (its stat differs, so its hash
    is compared), and by both fingerprints (it was written less than ``_RACY_NS`` before
    the first, so the second does not trust that hash)."""
    root = _settled_project(tmp_path)
    config = load_config(root / "pyproject.toml")
    reads = _count_reads(monkeypatch)
    first = cache.analyse_with_cache(config, {})
    assert {(f.symbol, f.location.line) for f in first.all_findings()} == {
        ("rpc-unanswered", PLANTED_LINE)
    }
    assert reads == _modules(root)
    assert cache.FactCache(config).lookup({}) is not None  # the entry was saved
    app = root / "app.py"
    app.write_text(APP, encoding="utf-8")
    time.sleep(3 * cache._TICK_NS / 1e9)  # a write this close to the run is never saved
    reads.clear()
    assert list(cache.analyse_with_cache(config, {}).all_findings()) == []
    assert reads == [os.path.realpath(app)] * 3  # lookup, before, after
    assert cache.FactCache(config).lookup({}) is not None  # and the entry was saved


# ---------------------------------------------------------------- end to end


def _keys(root: Path, *extra: str) -> set[tuple[str, str, int]]:
    run = run_check(root, "--format", "json", *extra, timeout=120)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    return {(m.symbol, m.path, m.line) for m in run.messages}


def _write(path: Path, text: str, *, restore_mtime: bool) -> None:
    old = os.stat(path)
    path.write_text(text, encoding="utf-8")
    if restore_mtime:  # `touch -r`: the old mtime back; only the ctime tells
        os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
        assert os.stat(path).st_mtime_ns == old.st_mtime_ns


@pytest.mark.parametrize(
    ("answered", "restore_mtime"),
    [(APP, False), (ANSWERED_SAME_SIZE, True)],
    ids=["edit", "same-size-mtime-restored"],
)
def test_edits_after_a_cached_run_give_the_no_cache_answer(
    tmp_path: Path, answered: str, restore_mtime: bool
) -> None:
    """The planted finding, then an edit that answers it, then the planted version again,
    each after a cached run. A reuse that trusted a stale hash would store the first
    version's hash with the second's findings, and the third run would answer from it."""
    root = _settled_project(tmp_path)
    app = root / "app.py"
    assert _keys(root) == PLANTED
    if restore_mtime:
        assert len(answered) == len(APP_PLANTED)
    _write(app, answered, restore_mtime=restore_mtime)
    assert _keys(root) == set() == _keys(root, "--no-cache")
    _write(app, APP_PLANTED, restore_mtime=restore_mtime)
    assert _keys(root) == PLANTED == _keys(root, "--no-cache")
    assert _keys(root) == PLANTED  # and from the entry the last run saved

"""A run takes one snapshot of the files and reuses the hashes it can trust.

The snapshot keeps the hashes of the store's last snapshot for every file whose full stat
is unchanged and that had settled ``RACY_NS`` before that snapshot was taken; any other
file is read and hashed, once a run. The unit tests count the files read
(``snapshot.read_source``); the end-to-end ones run the real ``rpcsurface check`` through
edits that a stat-only or a careless reuse would miss.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support import APP, APP_PLANTED, PLANTED_LINE, PYPROJECT, project, run_check

from pylint_rpcsurface import store
from pylint_rpcsurface.config.discovery import load_config
from pylint_rpcsurface.model import Analysis
from pylint_rpcsurface.store import snapshot
from pylint_rpcsurface.store.snapshot import Fingerprint, Snapshot

# Modules beside app.py, never edited: the ones a fingerprint should not read again.
OTHERS = {f"helpers_{n}.py": f"def helper_{n}():\n    return {n}\n" for n in range(4)}
PLANTED = {("rpc-unanswered", "app.py", PLANTED_LINE)}
# APP_PLANTED with the planted RPC renamed to one the base handler answers: same size.
ANSWERED_SAME_SIZE = APP_PLANTED.replace('"no_such_rpc"', '"step"       ')


def _settled_project(tmp_path: Path, app: str = APP_PLANTED) -> Path:
    """A project whose files were last written (mtime and ctime) over ``_RACY_NS`` ago:
    the only files whose known hash may be trusted without reading them."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": app, **OTHERS})
    hour_ago = time.time_ns() - 3_600 * 10**9
    for path in root.glob("*.py"):
        os.utime(path, ns=(hour_ago, hour_ago))
    time.sleep(snapshot.RACY_NS / 1e9 + 0.1)  # the ctimes, which can't be set back, settle
    return root


def _modules(root: Path) -> list[str]:
    return sorted(os.path.realpath(path) for path in root.glob("*.py"))


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the snapshot reads from now on, in order."""
    reads: list[str] = []
    real_read: Callable[[str], tuple[bytes, os.stat_result]] = snapshot.read_source

    def counting(path: str) -> tuple[bytes, os.stat_result]:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(snapshot, "read_source", counting)
    return reads


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _analyse(root: Path) -> Analysis:
    return store.analyse_with_cache(load_config(root / "pyproject.toml"), {})


def _begin(root: Path, overrides: dict[str, str] | None = None) -> store.StoreRun:
    return store.Store(load_config(root / "pyproject.toml")).begin(overrides or {})


def test_a_hit_on_an_untouched_tree_reads_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _settled_project(tmp_path)
    reads = _count_reads(monkeypatch)
    first = _analyse(root)
    assert sorted(reads) == _modules(root)  # nothing known yet: every file is read once
    reads.clear()
    run = _begin(root)
    assert (reads, run.findings()) == ([], first)
    assert run.snapshot.modules[os.path.realpath(root / "app.py")] == Fingerprint(
        snapshot.file_stat(str(root / "app.py")), _sha256(root / "app.py")
    )


def test_a_same_size_rewrite_with_the_mtime_restored_is_read_and_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app.py gets other bytes of the same size and its old mtime back: only its ctime
    tells, so the next snapshot reads it again, and the findings are not the stored ones."""
    root = _settled_project(tmp_path)
    app = root / "app.py"
    assert {(f.symbol, f.location.line) for f in _analyse(root).all_findings()} == {
        ("rpc-unanswered", PLANTED_LINE)
    }
    old = os.stat(app)
    app.write_text(ANSWERED_SAME_SIZE, encoding="utf-8")
    os.utime(app, ns=(old.st_atime_ns, old.st_mtime_ns))
    new = os.stat(app)
    assert (new.st_size, new.st_mtime_ns, new.st_ino) == (old.st_size, old.st_mtime_ns, old.st_ino)
    reads = _count_reads(monkeypatch)
    run = _begin(root)
    assert reads == [os.path.realpath(app)]
    fingerprint = run.snapshot.modules[os.path.realpath(app)]
    assert fingerprint is not None
    assert fingerprint.sha256 == _sha256(app) != hashlib.sha256(APP_PLANTED.encode()).hexdigest()
    assert run.findings() is None


def test_a_hash_taken_before_the_file_settled_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A known fingerprint with the file's very stat but a hash taken within ``RACY_NS``
    of its last write (a write in the same timestamp tick keeps the stat) is read again;
    the same fingerprint taken once the file had settled is kept as it is."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    app = os.path.realpath(root / "app.py")
    stale = Fingerprint(snapshot.file_stat(app), "0" * 64)  # the stat now, another text's hash
    now = time.time_ns()
    reads = _count_reads(monkeypatch)
    fresh = snapshot.take_snapshot([app], {}, Snapshot(now, {app: stale}))
    assert reads == [app]
    assert fresh.modules[app] == Fingerprint(snapshot.file_stat(app), _sha256(root / "app.py"))
    reads.clear()
    later = now + snapshot.RACY_NS + 10**9  # as if taken once the file had settled
    kept = snapshot.take_snapshot([app], {}, Snapshot(later, {app: stale}))
    assert (reads, kept.modules[app]) == ([], stale)


def test_a_snapshot_reads_only_what_changed_since_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _settled_project(tmp_path)
    _analyse(root)
    app = root / "app.py"
    app.write_text(APP, encoding="utf-8")  # the edit that makes the findings miss
    reads = _count_reads(monkeypatch)
    run = _begin(root)
    assert (reads, run.findings()) == ([os.path.realpath(app)], None)
    reads.clear()
    full = snapshot.take_snapshot(_modules(root), {}, None)
    assert sorted(reads) == _modules(root)
    assert run.snapshot.modules == full.modules
    # The editor's buffer is hashed from its text, never taken for a file's known hash.
    helper = os.path.realpath(root / "helpers_0.py")
    reads.clear()
    buffered = _begin(root, {helper: "X = 1\n"})
    assert reads == [os.path.realpath(app)]
    assert buffered.snapshot.modules[helper] == Fingerprint(
        None, hashlib.sha256(b"X = 1\n").hexdigest()
    )
    assert buffered.findings() is None


@pytest.mark.parametrize("damage", ["malformed", "foreign", "missing"])
def test_a_store_that_is_not_read_gives_nothing_to_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    root = _settled_project(tmp_path)
    _analyse(root)
    saved = store.Store(load_config(root / "pyproject.toml"))
    assert saved.file is not None
    if damage == "malformed":
        saved.file.write_bytes(b'{"snapshot": ')
    elif damage == "foreign":
        data = saved.file.read_bytes()
        saved.file.write_bytes(data.replace(b'"format":4', b'"format":3'))
    else:
        saved.file.unlink()
    reads = _count_reads(monkeypatch)
    run = _begin(root)
    assert run.findings() is None
    assert sorted(reads) == _modules(root)


def test_a_miss_reads_each_module_once_and_an_edit_only_the_edited_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``analyse_with_cache`` itself reads through the store (the engine reads on
    its own, the bytes the snapshot read first): with no store, each module once; after
    an edit, the edited module alone, once."""
    root = _settled_project(tmp_path)
    config = load_config(root / "pyproject.toml")
    reads = _count_reads(monkeypatch)
    first = store.analyse_with_cache(config, {})
    assert {(f.symbol, f.location.line) for f in first.all_findings()} == {
        ("rpc-unanswered", PLANTED_LINE)
    }
    assert reads == _modules(root)
    assert store.Store(config).begin({}).findings() is not None  # the findings were kept
    app = root / "app.py"
    app.write_text(APP, encoding="utf-8")
    time.sleep(3 * snapshot.TICK_NS / 1e9)  # a write this close to the run is never kept
    reads.clear()
    assert list(store.analyse_with_cache(config, {}).all_findings()) == []
    assert reads == [os.path.realpath(app)]  # one snapshot a run
    assert store.Store(config).begin({}).findings() is not None  # and the findings kept


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

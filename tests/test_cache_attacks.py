"""Attacks on the fact cache: each leaves it stale, or trusted when forged.

Each test runs the real ``rpcsurface check`` console script or real pylint on a tiny
project, attacks the cache between (or during) runs, and expects what the same tool says
with the cache off, checked against the findings the fixture plants. Every one of them
failed on the cache as it was before (kept in the project's ``.rpcsurface_cache/``,
trusting size and mtime, fingerprinting once, blind to module resolution); the helpers
find an entry in either place, so the same test runs against both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import (
    APP,
    APP_PLANTED,
    PLANTED_LINE,
    PYPROJECT,
    line_of,
    project,
    run_check,
    run_pylint,
)

from pylint_rpcsurface import store
from pylint_rpcsurface.store import file as store_file
from pylint_rpcsurface.store import snapshot
from pylint_rpcsurface.store.snapshot import Fingerprint, Snapshot

FILES = ("--recursive=y", ".")
OLD_FOLDER = ".rpcsurface_cache"  # where the cache kept its entries before, in the project
PLANTED = {("rpc-unanswered", "app.py", PLANTED_LINE)}
TOOLS = ["check", "pylint"]

Keys = set[tuple[str, str, int]]


def _tiny(tmp_path: Path, app: str = APP_PLANTED) -> Path:
    return project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": app})


def _keys(tool: str, root: Path, *extra: str, env: dict[str, str] | None = None) -> Keys:
    """The (symbol, path, line) of every finding *tool* reports in *root*; a traceback or
    a crash fails the test."""
    if tool == "check":
        run = run_check(root, "--format", "json", *extra, env=env, timeout=120)
        assert run.returncode in (0, 1), run.stdout + run.stderr
        messages, output = run.messages, run.stdout + run.stderr
    else:
        option = ("--rpcsurface-no-cache=y",) if "--no-cache" in extra else ()
        files: tuple[str, ...] = FILES
        buffer = None
        if tool == "stdin":  # the editor's run: app.py's saved text, as a buffer
            files, buffer = ("--from-stdin", str(root / "app.py")), (root / "app.py").read_text()
        pylint_run = run_pylint(root, *option, *files, stdin=buffer, env=env, timeout=120)
        assert pylint_run.stdout.lstrip().startswith("{"), pylint_run.stdout + pylint_run.stderr
        messages, output = pylint_run.messages, pylint_run.stdout + pylint_run.stderr
    assert "Traceback" not in output, output
    return {(m.symbol, m.path, m.line) for m in messages}


def _entries(root: Path, *homes: Path) -> list[Path]:
    """The cache entries of *root*'s project, wherever the cache keeps them."""
    home = store.cache_home()
    folders = [root / OLD_FOLDER, *homes, *([home] if home else [])]
    found = {
        p
        for f in folders
        for p in [*f.glob("analysis-*.json"), *f.glob("store-*.json"), *f.glob("*/store-*.json")]
    }
    return sorted(found)


# ---------------------------------------------------------------- stale


@pytest.mark.parametrize("tool", TOOLS)
def test_a_same_size_edit_with_the_mtime_restored_is_seen(tmp_path: Path, tool: str) -> None:
    """``touch -r``: the edit keeps the size and the mtime of a file that has settled, so
    its stat alone was trusted. Its ctime, which nothing can set back, tells."""
    root = _tiny(tmp_path)
    app = root / "app.py"
    hour_ago = time.time_ns() - 3_600 * 10**9
    os.utime(app, ns=(hour_ago, hour_ago))
    time.sleep(2.1)  # the ctime settles too: the stat alone is trusted from now on
    assert _keys(tool, root) == PLANTED
    assert _entries(root)
    edited = APP_PLANTED.replace('"no_such_rpc"', '"step"       ')  # answered by Runner
    assert len(edited) == len(APP_PLANTED)
    before = os.stat(app)
    app.write_text(edited, encoding="utf-8")
    os.utime(app, ns=(hour_ago, hour_ago))
    after = os.stat(app)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert _keys(tool, root) == set() == _keys(tool, root, "--no-cache")


_FLIP_HOOK = '''\
"""Rewrite a file while the analysis runs: B when the engine is imported (after the
cache took its fingerprints), A again as soon as the analysis has parsed B."""
import os
import sys

_TARGET = os.environ.get("RPCSURFACE_TEST_FLIP")
if _TARGET:
    with open(_TARGET, encoding="utf-8") as _stream:
        _A = _stream.read()
    with open(os.environ["RPCSURFACE_TEST_FLIP_TO"], encoding="utf-8") as _stream:
        _B = _stream.read()
    _STATE = {"flipped": False, "restored": False}

    def _write(text):
        with open(_TARGET, "w", encoding="utf-8") as stream:
            stream.write(text)

    def _hook(event, args):
        if event == "import" and args[0] == "pylint_rpcsurface.engine" and not _STATE["flipped"]:
            _STATE["flipped"] = True
            _write(_B)
        elif event == "compile" and _STATE["flipped"] and not _STATE["restored"]:
            source = args[0]
            if isinstance(source, bytes):
                source = source.decode("utf-8", "replace")
            if isinstance(source, str) and "# the B version" in source:
                _STATE["restored"] = True
                _write(_A)

    sys.addaudithook(_hook)
'''


@pytest.mark.parametrize("tool", TOOLS)
def test_a_file_changed_during_the_run_leaves_no_entry(tmp_path: Path, tool: str) -> None:
    """A file rewritten during one run (B written as the engine is imported, A again as
    soon as the analysis has parsed B): whatever version the run read, no entry may be
    stored under a fingerprint of another version, so the next run gives the
    ``--no-cache`` answer of the file as it is then."""
    root = _tiny(tmp_path)  # A: the planted finding
    app = root / "app.py"
    b_version = tmp_path / "b.py"
    b_version.write_text(APP + "# the B version\n", encoding="utf-8")  # B: clean
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_FLIP_HOOK, encoding="utf-8")
    env = {"PYTHONPATH": str(hooks)}  # the same search path on every run
    flip = {**env, "RPCSURFACE_TEST_FLIP": str(app), "RPCSURFACE_TEST_FLIP_TO": str(b_version)}
    during = _keys(tool, root, env=flip)
    final = app.read_text(encoding="utf-8")
    if tool == "check":
        # The snapshot, taken before the engine is imported, read A; astroid builds the
        # module from the file, which is B by then: A -> B -> A, the file A before the
        # run and after it, and the run's answer B's.
        assert (during, final) == (set(), APP_PLANTED)
    else:
        # pylint built the module from A before the engine was imported: the analysis
        # reads that version (never B, which stays: A -> B).
        assert (during, final) == (PLANTED, b_version.read_text(encoding="utf-8"))
    now = PLANTED if final == APP_PLANTED else set()
    assert _keys(tool, root, env=env) == now == _keys(tool, root, "--no-cache", env=env)


def _library_project(tmp_path: Path) -> tuple[Path, int]:
    """A project whose base handler's base is ``corelib.LibraryRunner``, outside the roots:
    'lib_step' is answered only where the library defines it."""
    app = APP.replace("class Runner:", "class Runner(LibraryRunner):")
    app = "from corelib import LibraryRunner\n\n" + app
    app += '        self.mgr.call_func("lib_step", wait_out=True)\n'
    root = _tiny(tmp_path, app)
    return root, line_of(app, '"lib_step"')


ANSWERS = "class LibraryRunner:\n    def lib_step(self):\n        return 1\n"
LACKS = "class LibraryRunner:\n    def other_step(self):\n        return 1\n"


@pytest.mark.parametrize("tool", [*TOOLS, "stdin"])
def test_a_library_installed_later_is_seen(tmp_path: Path, tool: str) -> None:
    """First the library is missing (its base is unknown: nothing is judged), then it is
    installed, in a folder already on the search path, without 'lib_step'.

    pylint mode reuses the module pylint built of the linted file (or buffer), and pylint
    looked the library up while building it, before the analysis: that look-up counts."""
    root, line = _library_project(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    env = {"PYTHONPATH": str(site)}
    assert _keys(tool, root, env=env) == set()
    (site / "corelib.py").write_text(LACKS, encoding="utf-8")
    expected = {("rpc-unanswered", "app.py", line)}
    assert _keys(tool, root, env=env) == expected == _keys(tool, root, "--no-cache", env=env)


@pytest.mark.parametrize("tool", TOOLS)
def test_switching_pythonpath_between_two_copies_of_a_library(tmp_path: Path, tool: str) -> None:
    """The entry of one environment must never answer in the other: no false
    rpc-unanswered from the copy that lacks 'lib_step', nor a missed one."""
    root, line = _library_project(tmp_path)
    answering, lacking = tmp_path / "answers", tmp_path / "lacks"
    project(answering, {"corelib.py": ANSWERS})
    project(lacking, {"corelib.py": LACKS})
    unanswered = {("rpc-unanswered", "app.py", line)}
    for site, expected in ((lacking, unanswered), (answering, set()), (lacking, unanswered)):
        env = {"PYTHONPATH": str(site)}
        assert _keys(tool, root, env=env) == expected, site
    assert _keys(tool, root, "--no-cache", env={"PYTHONPATH": str(answering)}) == set()


# ---------------------------------------------------------------- forged


def _git(folder: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(folder),
    }
    subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)


def _forge(entry: Path) -> dict[str, object]:
    data = json.loads(entry.read_bytes())
    assert data["findings"]["findings"], entry  # a real entry, about to report nothing
    data["findings"]["findings"] = []
    return data


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_an_entry_committed_to_the_repository_is_never_trusted(tmp_path: Path) -> None:
    """The attacker builds entries (with both tools), empties their findings, commits them
    with ``git add -f``; the victim clones at the same path and must see the findings."""
    root = _tiny(tmp_path)
    _git(root, "init", "-q")
    attacker = tmp_path / "attacker-cache"
    attacker.mkdir(mode=0o700)
    env = {"RPCSURFACE_CACHE_DIR": str(attacker)}
    for tool in TOOLS:
        assert _keys(tool, root, env=env) == PLANTED
    built = _entries(root, attacker)
    assert built
    for entry in built:
        forged = root / OLD_FOLDER / entry.name
        forged.parent.mkdir(exist_ok=True)
        forged.write_text(json.dumps(_forge(entry)), encoding="utf-8")
    shutil.rmtree(attacker)
    _git(root, "add", "-f", ".")
    _git(root, "commit", "-q", "-m", "forged cache")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(root), str(remote)], check=True)
    shutil.rmtree(root)
    subprocess.run(["git", "clone", "-q", str(remote), str(root)], check=True)
    assert list((root / OLD_FOLDER).glob("store-*.json"))  # the forgery is there
    for tool in TOOLS:
        assert _keys(tool, root) == PLANTED == _keys(tool, root, "--no-cache")


def _other_writable(entry: Path) -> None:
    entry.write_text(json.dumps(_forge(entry)), encoding="utf-8")
    entry.chmod(0o666)


def _group_writable_folder(entry: Path) -> None:
    entry.write_text(json.dumps(_forge(entry)), encoding="utf-8")
    entry.parent.chmod(0o770)


def _foreign_owner(entry: Path) -> None:
    entry.write_text(json.dumps(_forge(entry)), encoding="utf-8")
    os.chown(entry, 4321, 4321)


NOT_OURS: dict[str, Callable[[Path], None]] = {
    "writable-by-others": _other_writable,
    "folder-writable-by-group": _group_writable_folder,
    "another-owner": _foreign_owner,
}


@pytest.mark.parametrize("shape", sorted(NOT_OURS))
def test_an_entry_others_could_have_written_is_never_trusted(tmp_path: Path, shape: str) -> None:
    """In the user's own cache folder, an entry (or folder) another user owns or may
    write is a forgery waiting to happen: a miss, and never written through."""
    if shape == "another-owner" and (not hasattr(os, "getuid") or os.getuid() != 0):
        pytest.skip("only root can give a file to another user")
    root = _tiny(tmp_path)
    assert _keys("check", root) == PLANTED
    (entry,) = _entries(root)
    NOT_OURS[shape](entry)
    assert _keys("check", root) == PLANTED
    assert _keys("pylint", root) == PLANTED


# ---------------------------------------------------------------- malformed


def _rewrite(change: Callable[[dict[str, object]], object]) -> Callable[[Path], None]:
    def apply(entry: Path) -> None:
        data = json.loads(entry.read_bytes())
        change(data)
        entry.write_text(json.dumps(data), encoding="utf-8")

    return apply


def _first_finding(data: dict[str, Any]) -> list[Any]:
    """The fields of the first stored finding: location, symbol, args, confidence..."""
    findings = data["findings"]["findings"]
    assert isinstance(findings, list)
    assert findings
    first = findings[0]
    assert first["type"] == "Finding"
    fields = first["fields"]
    assert isinstance(fields, list)
    return fields


def _first_location(data: dict[str, Any]) -> list[Any]:
    """The fields of the first stored finding's location: path, line, column..."""
    location = _first_finding(data)[0]
    assert location["type"] == "Location"
    fields = location["fields"]
    assert isinstance(fields, list)
    return fields


def _fifo(entry: Path) -> None:
    entry.unlink()
    os.mkfifo(entry)


def _symlink_to_a_forgery(entry: Path) -> None:
    """A link to a file anyone could have written (here: beside the project)."""
    forgery = entry.parents[2] / f"forged-{entry.name}"
    forgery.write_text(json.dumps(_forge(entry)), encoding="utf-8")
    entry.unlink()
    entry.symlink_to(forgery)


def _folder(entry: Path) -> None:
    entry.unlink()
    (entry / "inside").mkdir(parents=True)


MALFORMED: dict[str, Callable[[Path], None]] = {
    "nested-100k": lambda entry: entry.write_bytes(b"[" * 100_000 + b"]" * 100_000),
    "nested-unclosed": lambda entry: entry.write_bytes(b'{"a":' * 100_000),
    "huge-line": _rewrite(lambda data: _first_location(data).__setitem__(1, 10**30)),
    "huge-digits": lambda entry: entry.write_bytes(b'{"taken_ns": ' + b"9" * 100_000 + b"}"),
    "float-line": _rewrite(lambda data: _first_location(data).__setitem__(1, 1e308)),
    "wrong-types": _rewrite(lambda data: data["findings"].__setitem__("modules", [1, "x"])),
    "wrong-snapshot": _rewrite(lambda data: data["snapshot"].__setitem__("modules", [1, "x"])),
    "wrong-pieces": _rewrite(lambda data: data.__setitem__("pieces", [1, "x"])),
    "unknown-symbol": _rewrite(lambda data: _first_finding(data).__setitem__(1, "no-such")),
    "lone-surrogate": _rewrite(lambda data: _first_finding(data).__setitem__(2, ["\ud800"])),
    "binary": lambda entry: entry.write_bytes(bytes(range(256)) * 64),
    "fifo": _fifo,
    "symlink": _symlink_to_a_forgery,
    "folder": _folder,
}


@pytest.fixture(scope="module")
def checked_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny project and the cache folder its first check filled (with one entry): the
    same first run for every malformed shape, made once. The project is never edited."""
    top = tmp_path_factory.mktemp("malformed")
    root = _tiny(top)
    home = top / "cache"
    home.mkdir(mode=0o700)
    assert _keys("check", root, env={"RPCSURFACE_CACHE_DIR": str(home)}) == PLANTED
    return root, home


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and modes are POSIX")
@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_a_malformed_entry_is_a_miss_never_a_traceback(
    checked_once: tuple[Path, Path], cache_home: Path, shape: str
) -> None:
    root, home = checked_once
    shutil.copytree(home, cache_home, dirs_exist_ok=True)  # this test's own copy
    (entry,) = _entries(root)
    assert entry.is_relative_to(cache_home), entry
    MALFORMED[shape](entry)
    assert _keys("check", root) == PLANTED  # no traceback, no hang, the true findings
    assert _keys("pylint", root) == PLANTED


# ---------------------------------------------------------------- units


def test_locating_a_module_imports_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search the cache repeats on a hit finds a submodule without importing (running)
    its package: the package's __init__ would write a file, and is never run."""
    marker = tmp_path / "ran"
    package = tmp_path / "site" / "sidefx_pkg"
    project(
        package,
        {
            "__init__.py": f"open({str(marker)!r}, 'w').close()\n",
            "sub/__init__.py": "",
            "sub/leaf.py": "X = 1\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    located = store.locate("sidefx_pkg.sub.leaf")
    assert located == os.path.realpath(package / "sub" / "leaf.py")
    assert store.locate("sidefx_pkg.sub.missing") is None
    assert store.locate("sidefx_pkg.sub.leaf.deeper") is None  # a module has no submodules
    assert store.locate("not_a_module_anywhere_4321") is None
    assert not marker.exists()
    assert "sidefx_pkg" not in sys.modules


def test_a_snapshot_of_files_written_in_its_tick_is_not_settled() -> None:
    """What a run computed is not kept when a file was written so close to its snapshot
    that a write during the run could share its timestamp."""
    now = time.time_ns()
    old = now - 10 * 10**9

    def taken(ctime_ns: int) -> Snapshot:
        return Snapshot(now, {"/p/mod.py": Fingerprint((6, old, ctime_ns, 7, 8), "a")})

    assert taken(old).settled() is True
    recent = now - snapshot.TICK_NS // 2
    assert taken(recent).settled() is False
    unreadable = Snapshot(now, {**taken(old).modules, "/p/gone.py": None})
    assert unreadable.settled() is True


def test_only_the_newest_entries_of_a_project_are_kept(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    for age in range(store._MAX_FILES + 4):
        entry = folder / f"store-{age:02}.json"
        entry.write_text("{}", encoding="utf-8")
        moment = time.time_ns() - age * 10**9  # store-00 is the newest
        os.utime(entry, ns=(moment, moment))
    store._prune(folder)
    kept = sorted(p.name for p in folder.iterdir())
    assert kept == [f"store-{age:02}.json" for age in range(store._MAX_FILES)]


def test_an_entry_over_the_size_cap_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tiny(tmp_path)
    assert _keys("check", root) == PLANTED
    (entry,) = _entries(root)
    identity = json.loads(entry.read_bytes())["identity"]
    assert store.read_store(entry, identity) is not None  # well formed, and ours
    monkeypatch.setattr(store_file, "MAX_FILE_BYTES", entry.stat().st_size - 1)
    assert store_file.read_store(entry, identity) is None


def test_the_conftest_keeps_every_test_out_of_the_users_cache(cache_home: Path) -> None:
    assert os.environ["RPCSURFACE_CACHE_DIR"] == str(cache_home)
    assert store.cache_home() == cache_home

"""``rpcsurface fix`` against a hostile file system: it loses nothing and keeps the file.

A writer appending to the registry while ``fix`` runs loses no line; the registry can be
emptied in every form; a read-only file is refused unless ``--force``; the owner, group,
mode and hard links are kept; a registry ``fix`` can't read says what to do. Each attack
runs the real ``rpcsurface fix``; unit tests below drive :mod:`.write` where a race must
be made to happen on cue.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support import clean_environment, fast_surface, project, run_cli
from test_fix import DERIVED, _names, _project

from pylint_rpcsurface.commands.fix import write
from pylint_rpcsurface.commands.fix.edit import Refused
from pylint_rpcsurface.commands.fix.write import SourceFile, update

# The slow set races the writer RACE_RUNS times per kind of file; the default run, twice.
RACE_RUNS = int(os.environ.get("RPCSURFACE_RACE_RUNS", "6"))
QUICK_RACE_RUNS = min(2, RACE_RUNS)
STALE = 'RPCS = (\n    "fast_a",\n    "fast_b",\n)\n'

# Appends "# writer <tag> <n>" to the file every 2 ms, opening it each time (as `>>`
# does), until the stop file exists; then prints how many lines it wrote.
WRITER = """
import os, sys, time
path, stop, tag = sys.argv[1:]
n = 0
while not os.path.exists(stop):
    with open(path, "a") as stream:
        stream.write(f"# writer {tag} {n}\\n")
    n += 1
    time.sleep(0.002)
print(n)
"""


def _writer_lines(text: str, tag: str) -> list[int]:
    prefix = f"# writer {tag} "
    return [int(line[len(prefix) :]) for line in text.splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize(
    "runs",
    [QUICK_RACE_RUNS, pytest.param(RACE_RUNS, marks=pytest.mark.slow)],
    ids=["quick", "campaign"],  # a race loop: the campaign is in the slow set
)
@pytest.mark.parametrize("linked", [False, True], ids=["renamed", "hard-linked"])
def test_a_writer_appending_every_2ms_loses_no_line(
    tmp_path: Path, linked: bool, runs: int
) -> None:
    """Written by a rename, or in place (a hard-linked file): no line is lost."""
    root = _project(tmp_path, STALE)
    registry = root / "registry.py"
    if linked:
        os.link(registry, tmp_path / "link")
    outcomes = {"fixed": 0, "refused": 0}
    for run in range(runs):
        registry.write_text(STALE, encoding="utf-8")  # in place: the link stays
        stop = tmp_path / f"stop{run}"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(registry), str(stop), str(run)],
            stdout=subprocess.PIPE,
            text=True,
            env=clean_environment(),
        )
        while not _writer_lines(registry.read_text(encoding="utf-8"), str(run)):
            time.sleep(0.001)
        fix = run_cli(root, "fix")
        time.sleep(0.05)  # the writer goes on after fix is done
        stop.touch()
        out, _ = writer.communicate(timeout=60)
        written = int(out)
        text = registry.read_text(encoding="utf-8")
        # Every line the writer wrote is there, once.
        assert sorted(_writer_lines(text, str(run))) == list(range(written)), (run, fix.stderr)
        if fix.returncode == 0:
            assert fix.stdout == "fixed registry.py (registry.RPCS)\n"
            assert set(_names(text)) == DERIVED
            assert registry.stat().st_nlink == (2 if linked else 1)
            outcomes["fixed"] += 1
        else:
            assert fix.returncode == 2, fix
            assert fix.stderr.startswith("registry.py:1: can't fix registry.RPCS: "), fix.stderr
            assert "re-run `rpcsurface fix`" in fix.stderr, fix.stderr
            assert _names(text) == ["fast_a", "fast_b"]
            outcomes["refused"] += 1
    print(f"{runs} runs under a writer: {outcomes}")
    assert outcomes["fixed"], outcomes  # a lease lets fix write under such a writer


# A project whose registry must be empty: the one waited name is the base handler's,
# and the handler's own name is sent without waiting.
EMPTY_APP = """\
class Runner:
    def step(self):
        return 1


class FastRunner(Runner):
    def fast_a(self):
        return 2


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    def run(self):
        self.mgr.call_func("step", wait_out=True)
        self.mgr.call_func("fast_a", wait_out=False)
"""
EMPTIED = {
    'RPCS = ("x",)\n': "RPCS = ()\n",
    'RPCS = ("a", "b",)\n': "RPCS = ()\n",
    'RPCS = ("a", "b")\n': "RPCS = ()\n",
    'RPCS = frozenset(("x",))\n': "RPCS = frozenset(())\n",
    'RPCS = tuple(("x",))\n': "RPCS = tuple(())\n",
    'RPCS = ["x"]\n': "RPCS = []\n",
    'RPCS = ["x",]\n': "RPCS = []\n",
    'RPCS = {"x"}\n': "RPCS = set()\n",
    'RPCS = {"x",}\n': "RPCS = set()\n",
    'RPCS = (\n    "x",\n    "y",\n)\n': "RPCS = (\n)\n",
}


@pytest.mark.parametrize("before", sorted(EMPTIED))
def test_a_registry_can_be_emptied_in_every_form(tmp_path: Path, before: str) -> None:
    root = project(
        tmp_path / "proj",
        {
            "pyproject.toml": fast_surface(
                "app.Core", "app.FastRunner", "app.Runner", "registry.RPCS"
            ),
            "app.py": EMPTY_APP,
            "registry.py": before,
        },
    )
    run = run_cli(root, "fix")
    assert (run.returncode, run.stderr) == (0, ""), run
    after = (root / "registry.py").read_text(encoding="utf-8")
    assert after == EMPTIED[before]
    value = eval(after.split("=", 1)[1])  # the literal only, which fix itself wrote
    assert value == type(value)()
    assert type(value) is type(eval(before.split("=", 1)[1]))
    assert run_cli(root, "fix").stdout == ""  # and the empty registry is what's wanted


def test_a_read_only_registry_is_refused_unless_forced(tmp_path: Path) -> None:
    root = _project(tmp_path, STALE)
    registry = root / "registry.py"
    registry.chmod(0o444)
    run = run_cli(root, "fix")
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        "registry.py:1: can't fix registry.RPCS: "
        "the file is read-only; pass --force to write it anyway\n"
    )
    assert registry.read_text(encoding="utf-8") == STALE
    forced = run_cli(root, "fix", "--force")
    assert (forced.returncode, forced.stderr) == (0, ""), forced
    assert set(_names(registry.read_text(encoding="utf-8"))) == DERIVED
    assert stat.S_IMODE(registry.stat().st_mode) == 0o444


def _other_owner() -> tuple[int, int]:
    """An owner and group not this process's: another user's as root; else this user
    with a group of his that is not his first, if he has one."""
    if os.geteuid() == 0:
        return 4321, 8765
    groups = [g for g in os.getgroups() if g != os.getegid()]
    if not groups:
        pytest.skip("needs root, or a second group")
    return os.geteuid(), groups[0]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners")
def test_owner_group_and_mode_are_kept(tmp_path: Path) -> None:
    root = _project(tmp_path, STALE)
    registry = root / "registry.py"
    uid, gid = _other_owner()
    os.chown(registry, uid, gid)
    registry.chmod(0o664)
    before = registry.stat()
    run = run_cli(root, "fix")
    assert (run.returncode, run.stderr) == (0, ""), run
    after = registry.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (uid, gid, 0o664)
    assert after.st_ino != before.st_ino  # written by a rename, so a kill can't tear it
    assert set(_names(registry.read_text(encoding="utf-8"))) == DERIVED


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX hard links")
def test_a_hard_link_is_kept(tmp_path: Path) -> None:
    root = _project(tmp_path, STALE)
    registry = root / "registry.py"
    other = tmp_path / "elsewhere.py"
    os.link(registry, other)
    run = run_cli(root, "fix")
    assert (run.returncode, run.stderr) == (0, ""), run
    assert registry.stat().st_ino == other.stat().st_ino
    assert registry.stat().st_nlink == 2
    assert other.read_bytes() == registry.read_bytes()
    assert set(_names(other.read_text(encoding="utf-8"))) == DERIVED
    assert sorted(p.name for p in root.iterdir()) == ["app.py", "pyproject.toml", "registry.py"]


def test_42_concatenated_tuples_say_what_to_do(tmp_path: Path) -> None:
    registry = "RPCS = " + " + ".join(f'("n{i}",)' for i in range(42)) + "\n"
    root = _project(tmp_path, registry)
    run = run_cli(root, "fix")
    assert (run.returncode, run.stdout) == (2, "")
    names = ", ".join(sorted(DERIVED))
    assert run.stderr == (
        "registry.py:1: can't fix registry.RPCS: it can't be evaluated statically: it is "
        "nested too deeply; fix edits one literal: write RPCS as one tuple, list or set of "
        f"str (the code implies: {names}), or edit it by hand, and re-run `rpcsurface fix`\n"
    )
    assert (root / "registry.py").read_text(encoding="utf-8") == registry


# --- Unit tests: races made to happen on cue.


def _adds(name: str) -> write.Planner:
    """A planner that appends a line naming *name* (and counts its calls)."""

    def planner(source: SourceFile) -> bytes:
        planner.calls += 1  # type: ignore[attr-defined]
        return source.data + f"{name}\n".encode()

    planner.calls = 0  # type: ignore[attr-defined]
    return planner


def test_a_change_before_the_compare_is_planned_from_again(tmp_path: Path) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    plan = _adds("fix")

    def changing(source: SourceFile) -> bytes:
        if plan.calls == 0:  # type: ignore[attr-defined]
            # Another program rewrites it (not an append) while fix plans.
            other = tmp_path / "other"
            other.write_bytes(b"theirs\n")
            os.replace(other, target)
        return plan(source)

    assert update(str(target), changing)
    assert target.read_bytes() == b"theirs\nfix\n"
    assert plan.calls == 2  # type: ignore[attr-defined]


def test_a_file_that_keeps_changing_is_refused_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"0\n")
    seen = []

    def changing(source: SourceFile) -> bytes:
        seen.append(source.data)
        other = tmp_path / "other"
        other.write_bytes(f"{len(seen)}\n".encode())
        os.replace(other, target)
        return source.data + b"fix\n"

    with pytest.raises(Refused) as refused:
        update(str(target), changing)
    assert refused.value.why == (
        f"the file changed while fix was writing it, {write.ATTEMPTS} times; "
        "nothing written: re-run `rpcsurface fix`"
    )
    assert target.read_bytes() == f"{write.ATTEMPTS}\n".encode()
    assert len(seen) == write.ATTEMPTS


@pytest.mark.parametrize("leased", [True, False])
def test_an_append_after_the_compare_is_carried_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leased: bool
) -> None:
    """A write that reaches the old file between the compare and the rename (the last
    moment, made to happen here) is appended to the new file."""
    if leased and sys.platform != "linux":
        pytest.skip("file leases are Linux's")
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    old_inode = target.stat().st_ino
    opened: list[int] = []

    def append() -> None:
        with open(target, "ab") as stream:
            opened.append(os.fstat(stream.fileno()).st_ino)
            stream.write(b"# theirs\n")

    if not leased:
        monkeypatch.setattr(write, "_lease", _no_lease)
    real_replace = os.replace
    writers: list[threading.Thread] = []

    def racing_replace(source: str, destination: str) -> None:
        if destination == str(target):
            if not leased:
                append()  # the old inode, just before the rename
            else:
                # The writer's open of the old inode breaks fix's read lease and waits
                # for it to end; the kernel tells the lease holder with SIGURG. Another
                # thread, so that the wait does not last the kernel's lease-break time.
                writer = threading.Thread(target=append)
                writers.append(writer)
                writer.start()
                waited = time.monotonic() + 10
                while not broken and time.monotonic() < waited:
                    time.sleep(0.001)  # the handler runs in this thread, between sleeps
                assert broken, "the open did not break the lease"
        real_replace(source, destination)

    # A list, not a threading.Event: the handler runs in the thread that waits, and an
    # Event's set() there takes the lock its wait() may hold at that moment (a hang).
    broken: list[int] = []
    previous = signal.signal(signal.SIGURG, lambda *_: broken.append(1)) if leased else None
    try:
        monkeypatch.setattr(os, "replace", racing_replace)
        assert update(str(target), _adds("fix"))
    finally:
        if leased:
            signal.signal(signal.SIGURG, previous)
        for writer in writers:
            writer.join(10)
    assert opened == [old_inode]  # the write reached the old file, not the new one
    assert target.read_bytes() == b"old\nfix\n# theirs\n"


def test_a_rewrite_after_the_compare_is_saved_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    monkeypatch.setattr(write, "_lease", _no_lease)
    real_replace = os.replace

    def racing_replace(source: str, destination: str) -> None:
        if destination == str(target):
            with open(target, "r+b") as stream:  # rewritten in place, not appended to
                stream.write(b"OLD\n")
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", racing_replace)
    with pytest.raises(Refused, match="another program rewrote the file") as refused:
        update(str(target), _adds("fix"))
    (saved,) = tmp_path.glob("registry.py.*.rpcsurface-saved")
    assert saved.read_bytes() == b"OLD\n"
    assert str(saved) in refused.value.why
    assert target.read_bytes() == b"old\nfix\n"


@pytest.mark.skipif(sys.platform != "linux", reason="leases")
def test_a_writer_holding_the_file_open_is_waited_for_then_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    monkeypatch.setattr(write, "_LEASE_WAIT", 0.2)
    keeper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; f = open(sys.argv[1], 'a'); time.sleep(30)",
            str(target),
        ],
    )
    try:
        time.sleep(0.5)  # it has the file open for writing
        with pytest.raises(Refused) as refused:
            update(str(target), _adds("fix"))
    finally:
        keeper.kill()
        keeper.wait()
    if refused.value.why.startswith("the file is"):
        pytest.skip("no lease on this file system")
    assert refused.value.why == (
        "another program keeps the file open for writing; nothing written: "
        "close it and re-run `rpcsurface fix`"
    )
    assert target.read_bytes() == b"old\n"


def test_in_place_write_keeps_the_inode_and_no_backup(tmp_path: Path) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    os.link(target, tmp_path / "link")
    inode = target.stat().st_ino
    assert update(str(target), _adds("fix"))
    assert (target.stat().st_ino, (tmp_path / "link").read_bytes()) == (inode, b"old\nfix\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "registry.py"]


def test_nothing_to_change_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    stamp = target.stat().st_mtime_ns
    assert not update(str(target), lambda source: None)
    assert not update(str(target), lambda source: source.data)
    assert target.stat().st_mtime_ns == stamp


def _no_lease(fd: int, *, writing: bool) -> contextlib.AbstractContextManager[write._Lease]:
    """What :func:`write._lease` gives where no lease can be had."""
    return contextlib.nullcontext(write._Lease(False))


def _status(mode: int, uid: int, gid: int, nlink: int = 1) -> os.stat_result:
    return os.stat_result((stat.S_IFREG | mode, 1, 1, nlink, uid, gid, 0, 0, 0, 0))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize(
    ("case", "read_only"),
    [
        ((0, 0o444, 1000, 1000), True),  # root: no write bit at all
        ((0, 0o644, 1000, 1000), False),  # root: someone may write it, so may root
        ((1000, 0o444, 1000, 1000), True),
        ((1000, 0o644, 1000, 1000), False),
        ((1000, 0o464, 2000, 1000), False),  # his group's
        ((1000, 0o646, 2000, 2000), False),  # anyone's
        ((1000, 0o664, 2000, 2000), True),  # another user's, another group's
    ],
)
def test_read_only_is_judged_for_this_user(
    monkeypatch: pytest.MonkeyPatch, case: tuple[int, int, int, int], read_only: bool
) -> None:
    euid, mode, uid, gid = case  # this user; the file's mode, owner and group
    monkeypatch.setattr(os, "geteuid", lambda: euid)
    monkeypatch.setattr(os, "getegid", lambda: 1000)
    monkeypatch.setattr(os, "getgroups", lambda: [1000])
    assert write._read_only(_status(mode, uid, gid)) is read_only


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners")
def test_a_file_whose_owner_a_rename_would_change_is_written_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "registry.py"
    target.write_bytes(b"old\n")
    inode = target.stat().st_ino
    # Seen as another user, fix could not give a new file this file's owner.
    monkeypatch.setattr(os, "geteuid", lambda: target.stat().st_uid + 1)
    assert not write._owner_kept_by_rename(str(target), target.stat())
    monkeypatch.setattr(write, "_read_only", lambda status: False)
    assert update(str(target), _adds("fix"))
    assert (target.stat().st_ino, target.read_bytes()) == (inode, b"old\nfix\n")
    assert [p.name for p in tmp_path.iterdir()] == ["registry.py"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs and devices")
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_file_that_is_no_regular_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "registry.py"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero", target)
    plan = _adds("fix")
    with pytest.raises(Refused) as refused:
        update(str(target), plan)
    assert refused.value.why == "not a regular file; nothing written"
    assert plan.calls == 0  # type: ignore[attr-defined]
    assert stat.S_ISFIFO(target.stat().st_mode) if kind == "fifo" else target.is_symlink()


def test_the_messages_name_the_command_that_writes(tmp_path: Path) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_bytes(b"0\n")

    def changing(source: SourceFile) -> bytes:
        other = tmp_path / "other"
        other.write_bytes(source.data + b"theirs\n")
        os.replace(other, target)
        return source.data + b"mine\n"

    with pytest.raises(Refused) as refused:
        update(str(target), changing, command="init", decode=SourceFile.undecoded)
    assert refused.value.why == (
        f"the file changed while init was writing it, {write.ATTEMPTS} times; "
        "nothing written: re-run `rpcsurface init`"
    )

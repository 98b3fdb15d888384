"""Hostile files under the source roots: a FIFO, a link to /dev/zero, a file over the size
cap, a folder named like a module, a broken link.

No file that is not a regular one is ever opened, and none is read past the cap
(``sources.MAX_SOURCE_BYTES``). Such a file is a module that can't be built, as one that
doesn't parse: a configured module in it is a configuration error naming the file and why,
and anything else goes on as before. Every run has a short timeout: before the fix a FIFO
blocked every mode forever, so a hang must fail here, never stall the suite.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from support import (
    APP,
    APP_PLANTED,
    PLANTED_LINE,
    PYPROJECT,
    assert_no_crash,
    describe_run,
    fast_surface,
    project,
    run_check,
    run_cli,
    run_pylint,
)

from pylint_rpcsurface import sources
from pylint_rpcsurface.sources import MAX_SOURCE_BYTES

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")

# Every run ends within this, or the test fails: a hang is the bug.
PROMPT = 60.0


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _over_cap(path: Path) -> None:
    # A valid module, one byte over the cap: it would parse, but is never read.
    with path.open("w", encoding="utf-8") as stream:
        stream.write("# " + "x" * (MAX_SOURCE_BYTES - 1) + "\n")


def _folder(path: Path) -> None:
    path.mkdir()


def _broken_link(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere" / "gone.py")


HOSTILE: dict[str, Callable[[Path], None]] = {
    "fifo": _fifo,
    "dev-zero": _dev_zero,
    "over-cap": _over_cap,
    "folder": _folder,
    "broken-link": _broken_link,
}


@pytest.mark.parametrize("make", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_file_beside_the_project(tmp_path: Path, make: Callable[[Path], None]) -> None:
    """x.py beside app.py: pylint on app.py and ``check`` in text and JSON each end promptly
    with the planted finding, as if x.py were a module that doesn't parse; a file that is
    there but never read is said once, at x.py, with why."""
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    make(root / "x.py")
    finding = ("rpc-unanswered", "app.py", PLANTED_LINE)
    never_read = make in (_fifo, _dev_zero, _over_cap)
    unknown = {("rpcsurface-config-error", "x.py", 1)} if never_read else set()

    run = run_pylint(root, "app.py", timeout=PROMPT)
    assert_no_crash(run)
    assert run.keys() == {finding}, describe_run(run)

    check = run_check(root, "--format", "json", "--no-cache", timeout=PROMPT)
    assert check.returncode == 1, check
    assert {(m.symbol, m.path, m.line) for m in check.messages} == {finding} | unknown, check
    if never_read:
        (said,) = [m for m in check.messages if m.path == "x.py"]
        assert "so the callers are not all known" in said.text, said
        assert "not read:" in said.text, said
    text = run_check(root, timeout=PROMPT)
    assert text.returncode == 1, text
    assert "Traceback" not in text.stderr + text.stdout, text
    # The cache's warm path fingerprints every file under the roots too.
    warm = run_check(root, "--format", "json", timeout=PROMPT)
    assert {(m.symbol, m.path, m.line) for m in warm.messages} == {finding} | unknown, warm
    report = run_cli(root, "report", timeout=PROMPT)
    assert "Traceback" not in report.stderr + report.stdout, report


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (_fifo, "a FIFO, not a regular file"),
        (_over_cap, f"over the {MAX_SOURCE_BYTES}-byte size cap"),
    ],
    ids=["fifo", "over-cap"],
)
def test_configured_module_that_is_not_read(
    tmp_path: Path, make: Callable[[Path], None], why: str
) -> None:
    """The registry's module is names.py, and names.py is never read: every mode says so,
    naming the file and why, once, and promptly, as it does for a registry module that
    doesn't parse. (A link to /dev/zero as the registry's module resolves outside the
    roots and is refused as that, like any link out of the roots.)"""
    pyproject = fast_surface("app.Core", "app.FastRunner", "app.Runner", "names.FAST_RPCS")
    root = project(tmp_path, {"pyproject.toml": pyproject, "app.py": APP})
    make(root / "names.py")
    expected = "names.py: not read: "

    check = run_check(root, "--no-cache", timeout=PROMPT)
    assert check.returncode not in (0, 1), check
    said = check.stdout + check.stderr
    assert said.count(expected) == 1, check
    assert why in said, check
    assert "Traceback" not in check.stderr, check

    run = run_pylint(root, "app.py", timeout=PROMPT)
    assert "Traceback" not in run.stderr, describe_run(run)
    assert expected in run.stdout + run.stderr, describe_run(run)
    assert why in run.stdout + run.stderr, describe_run(run)


def test_reading_refuses_without_opening_a_fifo(tmp_path: Path) -> None:
    """The reader itself: a FIFO with no writer is refused at once (``O_NONBLOCK``), and
    the stat check says why without opening it."""
    fifo = tmp_path / "x.py"
    os.mkfifo(fifo)
    assert sources.unreadable_reason(str(fifo)) == "not read: a FIFO, not a regular file"
    with pytest.raises(sources.UnreadableSource, match="a FIFO"):
        sources.read_source(str(fifo))
    (tmp_path / "ok.py").write_bytes(b"x = 1\n")
    assert sources.read_source(str(tmp_path / "ok.py"))[0] == b"x = 1\n"
    assert sources.unreadable_reason(str(tmp_path / "ok.py")) is None


def test_reading_takes_every_byte_whatever_the_stat_said(tmp_path: Path) -> None:
    """A file read whole, in pieces past the first, though it is bigger than its stat
    said (it grew between the stat and the read), and no further than a byte over the
    cap: what tells the reader that a file grew past it."""
    data = bytes(range(256)) * 1200  # 300 KB: several reads of 64 KB
    path = tmp_path / "big.py"
    path.write_bytes(data)
    assert sources.read_source(str(path))[0] == data
    for stated in (0, 10, len(data) - 1, len(data), len(data) + 5):
        handle = os.open(path, os.O_RDONLY)
        try:
            assert sources._read_all(handle, stated) == data
        finally:
            os.close(handle)
    empty = tmp_path / "empty.py"
    empty.write_bytes(b"")
    assert sources.read_source(str(empty))[0] == b""


def test_reading_stops_a_byte_over_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "grown.py"
    path.write_bytes(b"#" * 5000)
    monkeypatch.setattr(sources, "MAX_SOURCE_BYTES", 1000)
    handle = os.open(path, os.O_RDONLY)
    try:
        assert len(sources._read_all(handle, 10)) == 1001
    finally:
        os.close(handle)


# A registry entry that only an unseen subclass could wait on: FastRunner answers it,
# and no caller anyone can read waits on it.
_ONLY_A_SUBCLASS_COULD_WAIT = APP.replace(
    'FAST_RPCS = ("fast_step",)', 'FAST_RPCS = ("fast_step", "sub_rpc")'
).replace(
    '    def fast_step(self):\n        return "fast"\n',
    '    def fast_step(self):\n        return "fast"\n\n    def sub_rpc(self):\n        return 1\n',
)


@pytest.fixture(scope="module")
def readable_control(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The control of the test below, the same for every kind of unread module, run once:
    with x.py a readable, unrelated module, the entry only a subclass could wait on is
    said to be never waited on."""
    app = _ONLY_A_SUBCLASS_COULD_WAIT
    assert app.count("sub_rpc") == 2  # listed and answered; nobody readable waits on it
    top = tmp_path_factory.mktemp("readable")
    readable = project(top, {"pyproject.toml": PYPROJECT, "app.py": app, "x.py": "VALUE = 1\n"})
    control = run_check(readable, "--format", "json", "--no-cache", timeout=PROMPT)
    assert [m.symbol for m in control.messages] == ["rpc-listed-unwaited"], control


@pytest.mark.parametrize(
    "make", [_fifo, _dev_zero, _over_cap], ids=["fifo", "dev-zero", "over-cap"]
)
def test_a_module_that_is_not_read_may_hold_callers(
    readable_control: None, tmp_path: Path, make: Callable[[Path], None]
) -> None:
    """A module that is not read may hold a subclass of a caller that waits on a registry
    entry, exactly as one that doesn't parse: the entry is never called unwaited, and
    ``fix`` refuses to drop it. With the module a readable, unrelated one, it is (the
    control, readable_control)."""
    app = _ONLY_A_SUBCLASS_COULD_WAIT
    root = project(tmp_path / "hostile", {"pyproject.toml": PYPROJECT, "app.py": app})
    make(root / "x.py")
    run = run_check(root, "--format", "json", "--no-cache", timeout=PROMPT)
    said = [(m.symbol, m.path, m.line) for m in run.messages]
    assert (run.returncode, said) == (1, [("rpcsurface-config-error", "x.py", 1)]), run.stdout
    pylint_run = run_pylint(root, "app.py", timeout=PROMPT)
    assert_no_crash(pylint_run)
    assert pylint_run.messages == (), describe_run(pylint_run)
    fixed = run_cli(root, "fix", "--diff", timeout=PROMPT)
    assert fixed.returncode == 2, fixed
    assert "the callers are not all known" in fixed.stderr, fixed.stderr

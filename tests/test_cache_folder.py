"""A cache folder that can't be made or used costs speed only (docs/reliability.md,
"A cache folder that can't be used").

Each test points the real ``rpcsurface`` console script and real pylint at a folder that
can't hold the store: under ``/proc``, a path too long, a file where a folder should be,
a home folder that is a file, a read-only mount, and a non-root user whose home isn't
writable. Every run must give the findings of ``--no-cache``, without a traceback, and
say on standard error, once a process, the folder and why.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import (
    APP_PLANTED,
    CONSOLE_SCRIPT,
    PLANTED_LINE,
    PYPROJECT,
    Reported,
    _reported,
    assert_no_crash,
    clean_environment,
    project,
    pylint_argv,
    run_check,
    run_cli,
    run_pylint,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs /proc and Linux errors")

PLANTED = {("rpc-unanswered", "app.py", PLANTED_LINE)}


def _said(stderr: str, folder: str, reason: str) -> list[str]:
    """The lines of *stderr* that say the cache folder *folder* can't be used for *reason*."""
    pattern = re.compile(
        rf"rpcsurface: can't use the cache folder {re.escape(folder)} \((.+: )?"
        rf"{re.escape(reason)}\): running without it, which only costs speed; "
        r"RPCSURFACE_CACHE_DIR names another"
    )
    return [line for line in stderr.splitlines() if pattern.fullmatch(line)]


def _keys(messages: tuple[Reported, ...]) -> set[tuple[str, str, int]]:
    return {(m.symbol, m.path, m.line) for m in messages}


def _strerror(code: int) -> str:
    return os.strerror(code)


def _under_proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.setenv("RPCSURFACE_CACHE_DIR", "/proc")
    try:  # what /proc answers this user, asked directly
        os.mkdir("/proc/rpcsurface-probe")
    except OSError as error:
        return "/proc", error.strerror
    pytest.skip("a folder could be made under /proc")


def _xdg_under_proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.delenv("RPCSURFACE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/nope")
    return "/proc/nope/pylint-rpcsurface", _strerror(errno.ENOENT)


def _name_too_long(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    folder = str(tmp_path / ("c" * 300))
    monkeypatch.setenv("RPCSURFACE_CACHE_DIR", folder)
    return folder, _strerror(errno.ENAMETOOLONG)


def _file_in_the_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("RPCSURFACE_CACHE_DIR", str(blocker / "cache"))
    return str(blocker / "cache"), _strerror(errno.ENOTDIR)


def _home_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    home = tmp_path / "home-file"
    home.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.delenv("RPCSURFACE_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(home))
    return str(home / ".cache" / "pylint-rpcsurface"), _strerror(errno.ENOTDIR)


UNUSABLE: dict[str, Callable[[Path, pytest.MonkeyPatch], tuple[str, str]]] = {
    "cache-dir-under-proc": _under_proc,
    "xdg-cache-home-under-proc": _xdg_under_proc,
    "name-of-300-characters": _name_too_long,
    "file-where-a-folder-goes": _file_in_the_way,
    "home-is-a-file": _home_is_a_file,
}


def _app(tmp_path: Path, name: str = "proj") -> Path:
    return project(tmp_path / name, {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})


@pytest.mark.parametrize("shape", sorted(UNUSABLE))
def test_an_unusable_cache_folder_costs_speed_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """check, report and pylint on one file: the findings of --no-cache, and one line."""
    root = _app(tmp_path)
    fresh = run_check(root, "--format", "json", "--no-cache")
    fresh_report = run_cli(root, "report", "--no-cache")
    assert _keys(fresh.messages) == PLANTED, fresh
    folder, reason = UNUSABLE[shape](tmp_path, monkeypatch)

    check = run_check(root, "--format", "json")
    assert "Traceback" not in check.stderr, check
    assert (check.returncode, check.messages) == (fresh.returncode, fresh.messages), check
    assert len(_said(check.stderr, folder, reason)) == 1 == len(check.stderr.splitlines()), check

    report = run_cli(root, "report")
    assert "Traceback" not in report.stderr, report
    assert (report.returncode, report.stdout) == (fresh_report.returncode, fresh_report.stdout)
    assert len(_said(report.stderr, folder, reason)) == 1 == len(report.stderr.splitlines())

    lint = run_pylint(root, "app.py")
    assert_no_crash(lint)
    assert _keys(lint.messages) == PLANTED
    assert len(_said(lint.stderr, folder, reason)) == 1 == len(lint.stderr.splitlines()), lint


SUBS = """
from app import Core


class Sub{n}(Core):
    def go(self):
        self.mgr.call_func("ghost_{n}", wait_out=True)
"""


def test_every_mode_says_it_once_a_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pylint -j 2 on the whole tree, check on two projects at once, fix and init: each
    process says the folder at most once, and the output is the --no-cache output."""
    files: dict[str, str | bytes] = {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED}
    files.update({f"sub{n}.py": SUBS.format(n=n) for n in range(4)})
    root = project(tmp_path / "proj", files)
    other = _app(tmp_path, "other")
    lint_args = ("-j", "2", "--recursive=y", ".")
    fresh_lint = run_pylint(root, "--rpcsurface-no-cache=y", *lint_args)
    fresh_check = run_check(root, "--format", "json", "--no-cache", str(root), str(other))
    fresh_fix = run_cli(root, "fix", "--diff", "--no-cache")
    fresh_init = run_cli(other, "init", "--diff")
    assert len(fresh_lint.messages) == 5, fresh_lint  # each sub's ghost, and the planted one
    folder, reason = _file_in_the_way(tmp_path, monkeypatch)

    lint = run_pylint(root, *lint_args)
    assert_no_crash(lint)
    assert lint.messages == fresh_lint.messages
    said = _said(lint.stderr, folder, reason)
    assert 1 <= len(said) <= 2, lint.stderr  # at most one line a worker process
    assert len(said) == len(lint.stderr.splitlines()), lint.stderr

    check = run_check(root, "--format", "json", str(root), str(other))
    assert (check.returncode, check.messages) == (fresh_check.returncode, fresh_check.messages)
    assert len(_said(check.stderr, folder, reason)) == 1 == len(check.stderr.splitlines()), check

    fix = run_cli(root, "fix", "--diff")
    assert (fix.returncode, fix.stdout) == (fresh_fix.returncode, fresh_fix.stdout), fix
    said = _said(fix.stderr, folder, reason)
    assert len(said) == 1, fix
    assert fix.stderr.splitlines() == [*said, *fresh_fix.stderr.splitlines()], fix

    init = run_cli(other, "init", "--diff")  # init reads no store: nothing to say
    assert (init.returncode, init.stdout, init.stderr) == (
        fresh_init.returncode,
        fresh_init.stdout,
        fresh_init.stderr,
    )


def _run_as(prefix: list[str], root: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, *argv],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env=clean_environment(),
        check=False,
    )


def _check_and_pylint(prefix: list[str], root: Path, folder: str, reason: str) -> None:
    """check and pylint under *prefix* give the planted finding and say *folder* once."""
    check = _run_as(prefix, root, [*CONSOLE_SCRIPT, "check", "--format", "json"])
    assert check.returncode == 1, check
    assert _keys(_reported(json.loads(check.stdout), root)) == PLANTED, check
    assert len(_said(check.stderr, folder, reason)) == 1 == len(check.stderr.splitlines()), check
    lint = _run_as(prefix, root, pylint_argv("--output-format=json2", "app.py"))
    assert "Traceback" not in lint.stdout + lint.stderr, lint
    messages = _reported(json.loads(lint.stdout)["messages"], root)
    assert _keys(messages) == PLANTED, lint
    assert len(_said(lint.stderr, folder, reason)) == 1 == len(lint.stderr.splitlines()), lint


def _works(prefix: list[str]) -> bool:
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=60, check=False)
    except OSError:
        return False
    return probe.returncode == 0


@pytest.mark.parametrize("kept", [False, True], ids=["empty", "holding-a-store"])
def test_a_read_only_mount(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: bool) -> None:
    """The cache folder on a read-only file system, mounted in a mount namespace of the
    run's own (root can't write there either): an empty tmpfs, where the folder can't be
    made, or the folder of an earlier run bound read-only, where it is but can't be
    written (the store in it is not used either)."""
    root = _app(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("RPCSURFACE_CACHE_DIR", str(cache))
    if kept:
        assert _keys(run_check(root, "--format", "json").messages) == PLANTED
        (folder,) = cache.iterdir()
        assert list(folder.glob("store-*.json"))
        mount = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
        at, reason = str(folder), "can't be written"
    else:
        mount = 'mount -t tmpfs -o ro,size=1m tmpfs "$0" && exec "$@"'
        at, reason = str(cache), _strerror(errno.EROFS)
    prefix = ["unshare", "--mount", "sh", "-c", mount, str(cache)]
    if shutil.which("unshare") is None or not _works(prefix):
        pytest.skip("can't mount a read-only file system in a mount namespace here")
    _check_and_pylint(prefix, root, str(cache), reason)
    assert at in _run_as(prefix, root, [*CONSOLE_SCRIPT, "check"]).stderr


def test_a_user_whose_home_is_not_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``docker run --user 1000`` with ``HOME=/nonexistent``: the user ``nobody``, who may
    read every file (CAP_DAC_READ_SEARCH, so the interpreter under root's home and the
    test's private folder can be read) and write none it doesn't own."""
    home = Path("/nonexistent")
    prefix = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=+dac_read_search",
        "--ambient-caps=+dac_read_search",
    ]
    if os.geteuid() != 0 or shutil.which("setpriv") is None or home.exists():
        pytest.skip("needs root, setpriv and no /nonexistent to run as another user")
    if not _works(prefix):
        pytest.skip("setpriv can't hand CAP_DAC_READ_SEARCH to another user here")
    monkeypatch.delenv("RPCSURFACE_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(home))
    root = _app(tmp_path)
    _check_and_pylint(
        prefix, root, "/nonexistent/.cache/pylint-rpcsurface", _strerror(errno.EACCES)
    )
    assert not home.exists()

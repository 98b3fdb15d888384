"""The persistent fact cache: never stale, never confused by stdin, safe to share, optional.

Each test runs the real pylint plugin or the real command line on a tiny project and
edits it between runs, the way an IDE or a developer does.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from support import (
    APP,
    APP_PLANTED,
    CONSOLE_SCRIPT,
    PACKAGE,
    PLANTED_LINE,
    PYPROJECT,
    ROOT,
    Reported,
    clean_environment,
    package_sources,
    project,
    run_check,
    run_pylint,
)

from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.rules import registry_rules
from pylint_rpcsurface.store import OLD_CACHE_DIR, cache_home, disabled_by_environment

FILES = ("--recursive=y", ".")


def _tiny(tmp_path: Path, app: str = APP) -> Path:
    return project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": app})


def _entries(root: Path) -> list[Path]:
    """The entries of *root*'s project: this test's cache folder holds no other project."""
    home = cache_home()
    assert home is not None
    assert not (root / OLD_CACHE_DIR).exists()  # nothing is written into the project
    return sorted(home.glob("*/store-*.json"))


def _planted(messages: tuple[Reported, ...]) -> set[tuple[str, int]]:
    return {(m.symbol, m.line) for m in messages}


PLANTED = {("rpc-unanswered", PLANTED_LINE)}


def test_the_entry_is_in_a_private_folder_of_the_users_cache(tmp_path: Path) -> None:
    root = _tiny(tmp_path, APP_PLANTED)
    assert _planted(run_pylint(root, *FILES).messages) == PLANTED
    (entry,) = _entries(root)
    home = cache_home()
    assert home is not None
    assert entry.parent.parent == home
    # This user's alone: the project folder 0700, the entry 0600, as made under any umask.
    assert stat.S_IMODE(os.stat(entry.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o600
    # The findings are kept under the content hash of every module under the roots.
    data = json.loads(entry.read_bytes())
    assert set(data["findings"]["modules"]) == {os.path.realpath(root / "app.py")}
    assert "rpc-unanswered" in json.dumps(data["findings"]["findings"])


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({"RPCSURFACE_CACHE_DIR": "/c/x", "XDG_CACHE_HOME": "/xdg"}, "linux", "/c/x"),
        ({"XDG_CACHE_HOME": "/xdg"}, "linux", "/xdg/pylint-rpcsurface"),
        ({"XDG_CACHE_HOME": "relative"}, "linux", "~/.cache/pylint-rpcsurface"),
        ({}, "linux", "~/.cache/pylint-rpcsurface"),
        ({"XDG_CACHE_HOME": "/xdg"}, "darwin", "~/Library/Caches/pylint-rpcsurface"),
        ({"LOCALAPPDATA": "/appdata"}, "win32", "/appdata/pylint-rpcsurface"),
    ],
    ids=["override", "xdg", "xdg-relative", "linux", "macos", "windows"],
)
def test_where_the_cache_folder_is(
    environ: dict[str, str], platform: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    home = cache_home(environ, platform)
    assert home == Path(os.path.expanduser(expected))


def test_an_edit_is_seen_even_with_the_same_size_and_mtime(tmp_path: Path) -> None:
    """The edit keeps the size and the mtime of the version the cache saw. The file was
    written moments before that run, so its mtime can't be trusted and it is hashed."""
    root = _tiny(tmp_path, APP_PLANTED)
    app = root / "app.py"
    before = os.stat(app)
    assert _planted(run_check(root, "--format", "json").messages) == PLANTED
    # Same length: rename the planted RPC to one the base handler answers... padded.
    edited = APP_PLANTED.replace('"no_such_rpc"', '"step"       ')
    assert len(edited) == len(APP_PLANTED)
    app.write_text(edited, encoding="utf-8")
    os.utime(app, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(app).st_size == before.st_size
    run = run_check(root, "--format", "json")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.messages == ()


def test_an_old_file_is_trusted_by_stat_and_an_edit_changes_its_mtime(tmp_path: Path) -> None:
    root = _tiny(tmp_path, APP)
    app = root / "app.py"
    old = os.stat(app).st_mtime_ns - 3_600 * 10**9
    os.utime(app, ns=(old, old))  # settled an hour ago
    assert run_check(root).returncode == 0
    app.write_text(APP_PLANTED, encoding="utf-8")  # a real edit: new size, new mtime
    assert _planted(run_check(root, "--format", "json").messages) == PLANTED


def test_added_and_removed_modules_recompute(tmp_path: Path) -> None:
    """A new module can hold a new caller subclass; a removed one took its broadcasts."""
    root = _tiny(tmp_path, APP)
    assert run_check(root).returncode == 0
    subclass = "from app import Core\n\n\nclass Sub(Core):\n    def go(self):\n"
    subclass += '        self.mgr.call_func("missing_rpc", wait_out=True)\n'
    (root / "sub.py").write_text(subclass, encoding="utf-8")
    line = subclass.splitlines().index('        self.mgr.call_func("missing_rpc", wait_out=True)')
    run = run_check(root, "--format", "json")
    assert {(m.symbol, m.path, m.line) for m in run.messages} == {
        ("rpc-unanswered", "sub.py", line + 1)
    }
    (root / "sub.py").unlink()
    assert run_check(root).returncode == 0


def test_the_stdin_buffer_is_never_confused_with_the_saved_file(tmp_path: Path) -> None:
    root = _tiny(tmp_path, APP)
    app = str(root / "app.py")
    # The editor's unsaved buffer has the bug; the saved file doesn't.
    buffered = run_pylint(root, "--from-stdin", app, stdin=APP_PLANTED)
    assert _planted(buffered.messages) == PLANTED
    saved = run_pylint(root, "app.py")
    assert saved.messages == (), saved.stdout
    assert run_check(root).returncode == 0
    # And back: the buffer again, then saving it.
    assert _planted(run_pylint(root, "--from-stdin", app, stdin=APP_PLANTED).messages) == PLANTED
    (root / "app.py").write_text(APP_PLANTED, encoding="utf-8")
    assert _planted(run_check(root, "--format", "json").messages) == PLANTED


@pytest.fixture(scope="module")
def checked_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The tiny project with its planted finding, and the cache folder its first check
    filled: the same first run for every entry the tests below break, made once. The
    project is never edited."""
    top = tmp_path_factory.mktemp("entry")
    root = _tiny(top, APP_PLANTED)
    home = top / "cache"
    home.mkdir(mode=0o700)
    assert run_check(root, env={"RPCSURFACE_CACHE_DIR": str(home)}).returncode == 1
    return root, home


def _copied(checked_once: tuple[Path, Path]) -> tuple[Path, Path]:
    """The shared project, and its one entry in this test's own copy of the cache."""
    root, home = checked_once
    here = cache_home()
    assert here is not None
    shutil.copytree(home, here, dirs_exist_ok=True)
    (entry,) = _entries(root)
    assert entry.is_relative_to(here), entry
    return root, entry


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"[]", b'{"identity": {"format": 1}}', b"\xff\xfe\x00"],
    ids=["empty", "corrupt", "array", "foreign", "binary"],
)
def test_a_corrupt_or_foreign_entry_is_rebuilt(
    checked_once: tuple[Path, Path], content: bytes
) -> None:
    root, entry = _copied(checked_once)
    entry.write_bytes(content)
    run = run_check(root, "--format", "json")
    assert _planted(run.messages) == PLANTED, run.stderr
    assert "Traceback" not in run.stderr
    assert json.loads(entry.read_bytes())["findings"]  # rewritten whole


def test_an_entry_with_wrong_findings_from_another_version_is_ignored(
    checked_once: tuple[Path, Path],
) -> None:
    """An entry made by another plugin version must not answer, even if well formed."""
    root, entry = _copied(checked_once)
    data = json.loads(entry.read_bytes())
    environment, modules = json.loads(data["identity"])
    data["identity"] = json.dumps([{**environment, "plugin": "0.0.0-other"}, modules])
    data["findings"]["findings"] = []
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert _planted(run_check(root, "--format", "json").messages) == PLANTED


def test_concurrent_writers_leave_one_whole_entry(tmp_path: Path) -> None:
    """Six cold runs at once (``-j``, pre-commit and the IDE together): every one reports
    the same, and what is left is one valid entry and no temporary file."""
    root = _tiny(tmp_path, APP_PLANTED)
    command = [*CONSOLE_SCRIPT, "check"]
    runs = [
        subprocess.Popen(
            command, cwd=root, env=clean_environment(), stdout=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    outputs = {run.communicate(timeout=300)[0] for run in runs}
    assert [run.returncode for run in runs] == [1] * 6
    assert len(outputs) == 1
    (entry,) = _entries(root)
    # No temporary file: the entry, and the lock its writers took turns with.
    assert sorted(p.name for p in entry.parent.iterdir()) == [entry.name, f"{entry.name}.lock"]
    stored = json.loads(entry.read_bytes())
    assert stored["findings"]["findings"]  # the findings, and the pieces beside them
    assert stored["facts"]


@pytest.mark.parametrize("tool", ["check", "pylint"])
def test_without_a_usable_cache_folder_the_findings_still_come(tmp_path: Path, tool: str) -> None:
    root = _tiny(tmp_path, APP_PLANTED)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go", encoding="utf-8")
    env = {"RPCSURFACE_CACHE_DIR": str(blocker)}
    if tool == "check":
        run = run_check(root, "--format", "json", env=env)
        messages, output = run.messages, run.stdout + run.stderr
    else:
        pylint_run = run_pylint(root, *FILES, env=env)
        messages, output = pylint_run.messages, pylint_run.stdout + pylint_run.stderr
    assert _planted(messages) == PLANTED, output
    assert "Traceback" not in output
    assert blocker.read_text(encoding="utf-8").startswith("a file")
    assert not (root / OLD_CACHE_DIR).exists()


@pytest.mark.parametrize(
    ("how", "env"),
    [
        (("--rpcsurface-no-cache=y",), {}),
        ((), {"RPCSURFACE_NO_CACHE": "1"}),
    ],
    ids=["option", "environment"],
)
def test_pylint_can_run_without_the_cache(
    tmp_path: Path, how: tuple[str, ...], env: dict[str, str]
) -> None:
    root = _tiny(tmp_path, APP_PLANTED)
    run = run_pylint(root, *how, *FILES, env=env)
    assert _planted(run.messages) == PLANTED
    assert _entries(root) == []


@pytest.mark.parametrize(
    ("how", "env"),
    [(("--no-cache",), {}), ((), {"RPCSURFACE_NO_CACHE": "yes"})],
    ids=["option", "environment"],
)
def test_the_command_line_can_run_without_the_cache(
    tmp_path: Path, how: tuple[str, ...], env: dict[str, str]
) -> None:
    root = _tiny(tmp_path, APP_PLANTED)
    run = run_check(root, "--format", "json", *how, env=env)
    assert _planted(run.messages) == PLANTED
    assert _entries(root) == []


@pytest.mark.parametrize(
    ("value", "disabled"),
    [("", False), ("0", False), ("false", False), ("No", False), ("1", True), ("yes", True)],
)
def test_which_environment_values_turn_the_cache_off(value: str, disabled: bool) -> None:
    assert disabled_by_environment({"RPCSURFACE_NO_CACHE": value}) is disabled
    assert disabled_by_environment({}) is False


def test_a_library_base_class_is_fingerprinted_too(tmp_path: Path) -> None:
    """A caller whose base lives outside the source roots (an installed library) inherits
    its broadcasts; editing the library must recompute, not answer from the cache."""
    library = "class LibraryCore:\n    def warm_up(self):\n"
    library += '        self.mgr.call_func("fast_step", wait_out=True)\n'
    app = APP.replace(
        "class Core:", "from corelib import LibraryCore\n\n\nclass Core(LibraryCore):"
    ).replace('        self.mgr.call_func("fast_step", wait_out=True)\n', "")
    assert app.count("fast_step") == 2  # the registry and the handler: app.py never waits on it
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": app})
    lib = tmp_path / "site" / "corelib.py"
    lib.parent.mkdir()
    lib.write_text(library, encoding="utf-8")
    env = {"PYTHONPATH": str(lib.parent)}
    clean = run_check(root, "--format", "json", env=env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    # Now only the library's method waited on 'fast_step'; without it the entry is unwaited.
    lib.write_text(library.replace('"fast_step"', '"other_rpc"'), encoding="utf-8")
    run = run_check(root, "--format", "json", env=env)
    registry_line = app.splitlines().index('FAST_RPCS = ("fast_step",)') + 1
    assert {(m.symbol, m.path, m.line) for m in run.messages} == {
        ("rpc-listed-unwaited", "app.py", registry_line)
    }, run.stdout + run.stderr


# ---------------------------------------------------------------- an edited plugin


def _plugin_copy(tmp_path: Path) -> Path:
    """A copy of the package's sources in a folder of its own: with it on PYTHONPATH it is
    the plugin that runs (before the installed one), and the test edits it as a developer
    edits an editable install or rebuilds a wheel without changing the version."""
    site = tmp_path / "site"
    for relative in package_sources():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, site / relative)
    return site


def _edit(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of *old* in *path* by *new*, of another length, so that
    not even a stale bytecode file could pass for the edited source."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    assert len(new) != len(old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _unanswered(tool: str, root: Path, env: dict[str, str]) -> str:
    """The text of the one rpc-unanswered message that *tool* reports in *root*."""
    if tool == "check":
        run = run_check(root, "--format", "json", env=env)
        messages, output = run.messages, run.stdout + run.stderr
    else:
        pylint_run = run_pylint(root, *FILES, env=env)
        messages, output = pylint_run.messages, pylint_run.stdout + pylint_run.stderr
    texts = [m.text for m in messages if m.symbol == "rpc-unanswered"]
    assert len(texts) == 1, output
    return texts[0]


@pytest.mark.parametrize("tool", ["check", "pylint"])
def test_an_edited_plugin_reports_its_new_text(tmp_path: Path, tool: str) -> None:
    """Edit the message of the planted finding in a copy of the plugin, with the same
    version: the next run prints the new text, never the cached old one.

    The text has words from two places: the template in messages/__init__.py, filled in
    when the message is printed, and the words the rules compute, kept in the cache entry
    as the message's arguments. Only a cache that knows the plugin's code sees the second edit."""
    site = _plugin_copy(tmp_path)
    root = _tiny(tmp_path, APP_PLANTED)
    env = {"PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    template = BY_SYMBOL["rpc-unanswered"].template
    consequence = registry_rules._CONSEQUENCE["waited"]  # the rule's words for a waited RPC
    before = _unanswered(tool, root, env)
    assert before.endswith(consequence), before
    _edit(site / PACKAGE / "messages" / "__init__.py", f'"{template}"', f'"edited: {template}"')
    _edit(
        site / PACKAGE / "rules" / "registry_rules.py",
        f'"{consequence}"',
        f'"{consequence}, edited too"',
    )
    after = _unanswered(tool, root, env)
    assert after == f"edited: {before}, edited too", (before, after)


@pytest.mark.parametrize("change", ["edit", "add"])
def test_any_change_to_the_plugin_code_misses_the_old_entry(tmp_path: Path, change: str) -> None:
    """The entry is forged to report nothing. It answers while the plugin's code is as it
    was (bytecode files written beside the code included), and never after a change to
    any of the package's .py files: an edit that changes no behaviour, or an added one."""
    site = _plugin_copy(tmp_path)
    root = _tiny(tmp_path, APP_PLANTED)
    env = {"PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": ""}  # "" writes bytecode
    assert _planted(run_check(root, "--format", "json", env=env).messages) == PLANTED
    assert list((site / PACKAGE).rglob("*.pyc")), "the copy's bytecode was not written"
    (entry,) = _entries(root)
    data = json.loads(entry.read_bytes())
    data["findings"]["findings"] = []
    entry.write_text(json.dumps(data), encoding="utf-8")
    forged = run_check(root, "--format", "json", env=env)
    assert (forged.returncode, forged.messages) == (0, ()), forged.stdout + forged.stderr
    if change == "edit":
        with (site / PACKAGE / "messages" / "__init__.py").open("a", encoding="utf-8") as stream:
            stream.write("# a comment: nothing the plugin does changes\n")
    else:
        (site / PACKAGE / "rules" / "unused.py").write_text('"""Imported by nobody."""\n')
    run = run_check(root, "--format", "json", env=env)
    assert _planted(run.messages) == PLANTED, run.stdout + run.stderr

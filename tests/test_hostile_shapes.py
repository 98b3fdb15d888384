"""Hostile shapes of the project: caller modules that can't be decoded, starred
bases, files linked into the source roots, a working folder that was deleted.

Each test runs the real ``rpcsurface`` script and real pylint on a fixture project, and
each failed before the change it guards (the break-tests are listed in
docs/reliability.md, sections 4 and 7).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import textwrap
from pathlib import Path

import pytest
from support import (
    APP_PLANTED,
    CONSOLE_SCRIPT,
    HANDLERS,
    ONLY_A_SUBCLASS_WAITS,
    PYPROJECT,
    assert_no_crash,
    clean_environment,
    describe_run,
    fast_surface,
    line_of,
    project,
    run_check,
    run_cli,
    run_pylint,
)

from pylint_rpcsurface.sources import SourceTree, decode_source

SUB = textwrap.dedent(
    """\
    from app import Core


    class Sub(Core):
        def go(self):
            self.mgr.call_func("sub_rpc", wait_out=True)
    """
)


def _symbols(run: object) -> list[tuple[str, str]]:
    """The (symbol, path) of every message of a run."""
    return sorted((m.symbol, m.path) for m in getattr(run, "messages", ()))


# ---------------------------------------------------------------------------
# Item 4: a caller-subclass module that can't be decoded


UNDECODABLE: dict[str, tuple[bytes, str]] = {
    # latin-1 bytes (0xE9) and no coding cookie: not UTF-8, the default.
    "latin-1-without-cookie": (
        ("# caf\xe9\n" + SUB).encode("latin-1"),
        "can't be decoded as utf-8: byte 0xe9 at offset 5 (invalid continuation byte)",
    ),
    # UTF-16 with its BOM: Python reads no UTF-16 source, and the word search saw none
    # of its words ('C\0o\0r\0e'), so the subclass was silently missing.
    "utf-16": (
        SUB.encode("utf-16"),
        "can't be decoded as utf-8: byte 0xff at offset 0 (invalid start byte)",
    ),
    "unknown-codec": (
        ("# -*- coding: no-such-codec -*-\n" + SUB).encode(),
        "can't be decoded: unknown encoding: no-such-codec",
    ),
}


@pytest.fixture(scope="module")
def decodable_control(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The control of the test below, the same for every encoding, run once: with sub.py
    decodable, the subclass is seen and check is silent."""
    control = project(
        tmp_path_factory.mktemp("control"),
        {"pyproject.toml": PYPROJECT, "app.py": ONLY_A_SUBCLASS_WAITS, "sub.py": SUB},
    )
    clean = run_check(control, "--format", "json", "--no-cache")
    assert (clean.returncode, clean.messages) == (0, ()), clean  # the subclass seen: silent


@pytest.mark.parametrize("encoding", sorted(UNDECODABLE))
def test_undecodable_caller_subclass_module_is_said_never_clean(
    decodable_control: None, tmp_path: Path, encoding: str
) -> None:
    """sub.py holds Core's subclass that waits on 'sub_rpc', but can't be decoded. check
    says so at sub.py, naming the file and the decode error, and exits 1, never 0; no mode
    calls 'sub_rpc' unwaited; report notes it; fix refuses, naming it; pylint reports the
    file it can't read itself (its syntax-error), and nothing of ours is guessed. With
    sub.py decodable, check is silent (decodable_control)."""
    data, reason = UNDECODABLE[encoding]
    root = project(
        tmp_path, {"pyproject.toml": PYPROJECT, "app.py": ONLY_A_SUBCLASS_WAITS, "sub.py": data}
    )
    check = run_check(root, "--format", "json", "--no-cache")
    assert check.returncode == 1, check
    assert _symbols(check) == [("rpcsurface-config-error", "sub.py")], check
    (said,) = check.messages
    assert said.text.startswith(f"sub.py:1: {reason}; "), said.text
    assert "the callers are not all known" in said.text
    text = run_check(root, "--no-cache")
    assert text.returncode == 1, text
    assert f"sub.py:1:0: rpcsurface-config-error: sub.py:1: {reason}" in text.stdout, text
    warm = run_check(root, "--format", "json")  # the cache gives it too
    assert _symbols(warm) == _symbols(check), warm

    report = run_cli(root, "report", env={"COLUMNS": "1000"})  # the note on one line
    assert report.returncode == 0, report
    assert f"note: sub.py:1: {reason}" in report.stdout, report.stdout
    fixed = run_cli(root, "fix", "--diff")
    assert fixed.returncode == 2, fixed
    assert f"the callers are not all known (sub.py:1: {reason}" in fixed.stderr, fixed.stderr

    run = run_pylint(root, "app.py", "sub.py")
    assert "Traceback" not in run.stdout + run.stderr, describe_run(run)
    assert _symbols(run) == [("syntax-error", "sub.py")], describe_run(run)


def test_a_coding_cookie_decodes_and_a_module_decoding_late_fails(tmp_path: Path) -> None:
    """The decoding is Python's: a latin-1 cookie reads the same bytes; and invalid UTF-8
    after the first two lines (which Python's encoding detection does not look at) is
    still an undecodable module."""
    with_cookie = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + SUB).encode("latin-1")
    assert decode_source(with_cookie)[1] is None
    late = (SUB + "# caf\xe9\n").encode("latin-1")
    assert decode_source(late)[1] == (
        f"can't be decoded as utf-8: byte 0xe9 at offset {len(SUB) + 5} (invalid continuation byte)"
    )
    root = project(
        tmp_path,
        {"pyproject.toml": PYPROJECT, "app.py": ONLY_A_SUBCLASS_WAITS, "sub.py": with_cookie},
    )
    check = run_check(root, "--format", "json", "--no-cache")
    assert (check.returncode, check.messages) == (0, ()), check


def test_caller_subclass_module_with_a_syntax_error_is_said(tmp_path: Path) -> None:
    """A module that doesn't parse is said by check the same way, at its error's line."""
    broken = SUB + "\n    def broken(self:\n        pass\n"
    root = project(
        tmp_path, {"pyproject.toml": PYPROJECT, "app.py": ONLY_A_SUBCLASS_WAITS, "sub.py": broken}
    )
    check = run_check(root, "--format", "json", "--no-cache")
    assert check.returncode == 1, check
    (said,) = check.messages
    assert (said.symbol, said.path, said.line) == (
        "rpcsurface-config-error",
        "sub.py",
        line_of(broken, "def broken"),
    ), check
    assert "syntax error" in said.text


# ---------------------------------------------------------------------------
# Item 5: starred bases

BASES_MODULE = "from app import Core\n\nBASES = (Core,)\n"
STARRED_SUB = textwrap.dedent(
    """\
    from bases import BASES


    class Sub(*BASES):
        def go(self):
            self.mgr.call_func("sub_rpc", wait_out=True)
            self.mgr.call_func("nobody_answers", wait_out=True)
    """
)


def test_starred_bases_are_followed(tmp_path: Path) -> None:
    """``class Sub(*BASES)`` with ``BASES = (Core,)`` in another module is a Core subclass:
    its 'sub_rpc' is waited on (no rpc-listed-unwaited, and fix deletes nothing), and its
    unanswered name is reported in sub.py, by check and by pylint."""
    root = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "app.py": ONLY_A_SUBCLASS_WAITS,
            "bases.py": BASES_MODULE,
            "sub.py": STARRED_SUB,
        },
    )
    expected = {("rpc-unanswered", "sub.py", line_of(STARRED_SUB, "nobody_answers"))}
    check = run_check(root, "--format", "json", "--no-cache")
    assert {(m.symbol, m.path, m.line) for m in check.messages} == expected, check
    assert check.messages[0].text.startswith("'nobody_answers' is broadcast by Sub,")
    run = run_pylint(root, "app.py", "sub.py", "bases.py")
    assert_no_crash(run)
    assert run.keys() == expected, describe_run(run)
    fixed = run_cli(root, "fix", "--diff")
    assert '"sub_rpc"' not in fixed.stdout, fixed.stdout  # no line of the diff drops it
    report = json.loads(run_cli(root, "report", "--format", "json").stdout)
    (row,) = [r for r in report[0]["rows"] if r["rpc"] == "sub_rpc"]
    assert row["waitedBy"][0]["callers"] == ["sub.Sub"], row


FACTORY_MODULE = "from app import Core\n\n\ndef make_base():\n    return Core\n"
FACTORY_SUB = textwrap.dedent(
    """\
    from factory import make_base

    Base = make_base()


    class Sub(Base):
        def go(self):
            self.mgr.call_func("sub_rpc", wait_out=True)
            self.mgr.call_func("nobody_answers", wait_out=True)
    """
)


def test_a_base_made_by_a_factory_elsewhere_is_followed(tmp_path: Path) -> None:
    """sub.py never names Core: its base comes from factory.make_base(), which returns
    Core. The search follows the factory's name, so Sub is a caller (its 'sub_rpc' is
    waited on, and its unanswered name reported), by check and by pylint."""
    root = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "app.py": ONLY_A_SUBCLASS_WAITS,
            "factory.py": FACTORY_MODULE,
            "sub.py": FACTORY_SUB,
        },
    )
    assert "Core" not in FACTORY_SUB
    expected = {("rpc-unanswered", "sub.py", line_of(FACTORY_SUB, "nobody_answers"))}
    check = run_check(root, "--format", "json", "--no-cache")
    assert {(m.symbol, m.path, m.line) for m in check.messages} == expected, check
    run = run_pylint(root, "app.py", "sub.py", "factory.py")
    assert_no_crash(run)
    assert run.keys() == expected, describe_run(run)


def test_a_starred_base_that_does_not_infer_makes_the_callers_unknown(tmp_path: Path) -> None:
    """``class Sub(*make_bases(Core))`` with make_bases unknown: Sub may derive from Core,
    or not. It is never taken for a non-subclass: 'sub_rpc' is not called unwaited, and
    fix refuses, naming the class."""
    opaque = STARRED_SUB.replace(
        "from bases import BASES", "from app import Core\nfrom x import make_bases"
    )
    opaque = opaque.replace("(*BASES)", "(*make_bases(Core))")
    root = project(
        tmp_path,
        {"pyproject.toml": PYPROJECT, "app.py": ONLY_A_SUBCLASS_WAITS, "sub.py": opaque},
    )
    check = run_check(root, "--format", "json", "--no-cache")
    assert [m.symbol for m in check.messages] == [], check
    run = run_pylint(root, "app.py", "sub.py")
    assert_no_crash(run)
    assert run.messages == (), describe_run(run)
    fixed = run_cli(root, "fix", "--diff")
    assert fixed.returncode == 2, fixed
    assert (
        f"the callers are not all known (sub.py:{line_of(opaque, 'class Sub')}: class Sub "
        "derives from a starred base that does not infer"
    ) in fixed.stderr, fixed.stderr


def test_starred_bases_of_handlers(tmp_path: Path) -> None:
    """A handler with starred bases (a list works as a tuple does) answers its bases'
    names: the handlers' names are all known, so the planted name nobody answers is
    rpc-unanswered, and 'step', answered by Runner through the starred base, is not."""
    handlers = HANDLERS.replace(
        "class FastRunner(Runner):",
        "RUNNER_BASES = [Runner]\n\n\nclass FastRunner(*RUNNER_BASES):",
    )
    app = handlers + APP_PLANTED[len(HANDLERS) :]
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    expected = {("rpc-unanswered", "app.py", line_of(app, "no_such_rpc"))}
    check = run_check(root, "--format", "json", "--no-cache")
    assert {(m.symbol, m.path, m.line) for m in check.messages} == expected, check
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == expected, describe_run(run)


# ---------------------------------------------------------------------------
# Item 7: files linked into the source roots


def _linked_project(tmp_path: Path) -> Path:
    """core.py (the caller) in the project; runners.py (handlers and registry) and sub.py
    (a Core subclass) live outside and are linked in; core_link.py links to core.py."""
    outside = tmp_path / "outside"
    handlers = ONLY_A_SUBCLASS_WAITS[: ONLY_A_SUBCLASS_WAITS.index("\n\nclass Core")] + "\n"
    project(
        outside,
        {
            "runners.py": handlers,
            "sub.py": SUB.replace("from app", "from core")
            + '        self.mgr.call_func("sub_planted", wait_out=True)\n',
        },
    )
    root = project(
        tmp_path / "proj",
        {
            "pyproject.toml": fast_surface(
                "core.Core", "runners.FastRunner", "runners.Runner", "runners.FAST_RPCS"
            ),
            "core.py": ONLY_A_SUBCLASS_WAITS[ONLY_A_SUBCLASS_WAITS.index("\n\nclass Core") :]
            + '        self.mgr.call_func("core_planted", wait_out=True)\n',
        },
    )
    try:
        (root / "runners.py").symlink_to(outside / "runners.py")
        (root / "sub.py").symlink_to(outside / "sub.py")
        (root / "core_link.py").symlink_to(root / "core.py")
    except OSError as error:
        pytest.skip(f"can't create a symlink: {error}")
    return root


def _as_given(stdout: str) -> set[tuple[str, str, int]]:
    """(symbol, path as the tool shows it, line) of a JSON report (check's or pylint's
    json2): support's readers resolve links, which is what these tests are about."""
    report = json.loads(stdout)
    messages = report["messages"] if isinstance(report, dict) else report
    return {(m["symbol"], m["path"], m["line"]) for m in messages}


def test_files_linked_into_the_roots_are_the_projects(tmp_path: Path) -> None:
    """A file is in the project when its path is under a source root, whatever it links
    to: the linked handler module is the handlers (no "outside every source root"), the
    linked Core subclass is a caller ('sub_rpc' waited, its unanswered name reported at
    sub.py, the link's path), and a link to core.py is core.py: each finding once."""
    root = _linked_project(tmp_path)
    core_line = line_of((root / "core.py").read_text(encoding="utf-8"), "core_planted")
    sub_line = line_of((root / "sub.py").read_text(encoding="utf-8"), "sub_planted")
    expected = {("rpc-unanswered", "core.py", core_line), ("rpc-unanswered", "sub.py", sub_line)}

    check = run_cli(root, "check", "--format", "json", "--no-cache")
    assert check.returncode == 1, check
    assert _as_given(check.stdout) == expected, check.stdout
    findings = json.loads(check.stdout)
    assert len(findings) == len(expected), check.stdout  # none again through core_link.py
    real_root = Path(os.path.realpath(root))
    assert {f["absolutePath"] for f in findings} == {
        str(real_root / "core.py"),
        str(real_root / "sub.py"),  # the link's path, not the file it links to
    }
    one = run_cli(root, "check", "--format", "json", "--no-cache", "sub.py")
    assert _as_given(one.stdout) == {("rpc-unanswered", "sub.py", sub_line)}, one

    run = run_pylint(root, "core.py", "sub.py", "runners.py")
    assert_no_crash(run)
    assert _as_given(run.stdout) == expected, describe_run(run)
    via_link = run_pylint(root, "core_link.py")
    assert_no_crash(via_link)
    assert _as_given(via_link.stdout) == {("rpc-unanswered", "core_link.py", core_line)}, (
        describe_run(via_link)
    )
    stdin = run_pylint(root, "--from-stdin", "sub.py", stdin=(root / "sub.py").read_text())
    assert_no_crash(stdin)
    assert _as_given(stdin.stdout) == {("rpc-unanswered", "sub.py", sub_line)}, describe_run(stdin)


def test_fix_writes_a_linked_registry_module_through_the_link(tmp_path: Path) -> None:
    """The registry's module is linked in from outside: fix rewrites the file the link
    points to, and the link stays a link (os.replace on the link's path would replace
    the link with a copy and leave the real registry unchanged)."""
    root = _linked_project(tmp_path)
    target = tmp_path / "outside" / "runners.py"
    target.write_text(
        target.read_text(encoding="utf-8").replace('"sub_rpc")', '"sub_rpc", "bogus")'),
        encoding="utf-8",
    )
    fixed = run_cli(root, "fix")
    assert fixed.returncode == 0, fixed
    assert (root / "runners.py").is_symlink()
    assert 'FAST_RPCS = ("fast_step", "sub_rpc")\n' in target.read_text(encoding="utf-8")
    assert [p.name for p in target.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_the_key_of_a_linked_file(tmp_path: Path) -> None:
    """SourceTree.key: a link under a root to a file outside is known by its own path; a
    link to a file of the project by that file's path; a file outside by its real path."""
    root = _linked_project(tmp_path)
    real_root = Path(os.path.realpath(root))
    tree = SourceTree((root,))
    assert tree.key(str(root / "sub.py")) == str(real_root / "sub.py")
    assert tree.key(str(root / "core_link.py")) == str(real_root / "core.py")
    outside = os.path.realpath(tmp_path / "outside" / "sub.py")
    assert tree.key(outside) == outside
    assert tree.module_name(str(root / "runners.py")) == "runners"
    assert sorted(Path(p).name for p in tree.python_files()) == ["core.py", "runners.py", "sub.py"]


# ---------------------------------------------------------------------------
# Item 10a: run from a working folder that was deleted


def _in_a_deleted_folder(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``rpcsurface ARGS`` run from a folder removed after the shell entered it."""
    gone = tmp_path / "gone"
    gone.mkdir()
    command = " ".join(shlex.quote(part) for part in (*CONSOLE_SCRIPT, *args))
    return subprocess.run(
        ["sh", "-c", f"cd {shlex.quote(str(gone))} && rmdir ../gone && exec {command}"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env=clean_environment(),
        check=False,
        cwd=tmp_path,
    )


def test_check_from_a_deleted_folder(tmp_path: Path) -> None:
    """With no path (or a relative one), a clear error and exit 2; with an absolute path,
    the check runs, showing absolute paths."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    for args in (("check",), ("check", "app.py"), ("report",)):
        completed = _in_a_deleted_folder(tmp_path, *args)
        assert completed.returncode == 2, completed
        assert "Traceback" not in completed.stderr, completed.stderr
        assert completed.stderr.startswith(
            "rpcsurface: error: the current folder no longer exists"
        ), completed.stderr
    control = run_check(root, "--no-cache")
    absolute = _in_a_deleted_folder(tmp_path, "check", "--no-cache", str(root))
    assert "Traceback" not in absolute.stderr, absolute.stderr
    assert absolute.returncode == control.returncode == 1, absolute
    assert absolute.stdout == control.stdout.replace("app.py:", f"{os.path.realpath(root)}/app.py:")


DOCSTRING_ONLY = textwrap.dedent(
    '''\
    class Worker:
        def load(self):
            return 1


    class Core:
        def call(self, name):
            """Sends *name* to the workers; a subclass does it."""

        def start(self):
            """Loads the model."""
            return self.call("lod")


    class Sub(Core):
        def reset(self):
            """Only a docstring: astroid keeps no statement in its body."""
    '''
)
DOCSTRING_PYPROJECT = textwrap.dedent(
    """\
    [tool.rpcsurface]

    [[tool.rpcsurface.dispatch]]
    method = "call"
    waits = true

    [[tool.rpcsurface.surface]]
    name = "s"
    callers = ["app.Core"]
    handlers = ["app.Worker"]
    """
)


def test_a_method_of_a_docstring_alone_is_read(tmp_path: Path) -> None:
    """astroid keeps a function's docstring out of its body: a method of a docstring
    alone (an abstract dispatch method's, LMDeploy 0.18.0's) has no statement, and the
    callers' code is still read, by check (cold and warm) and by pylint."""
    root = project(tmp_path, {"pyproject.toml": DOCSTRING_PYPROJECT, "app.py": DOCSTRING_ONLY})
    expected = {("rpc-unanswered", "app.py", line_of(DOCSTRING_ONLY, '"lod"'))}
    for args in (("--no-cache",), (), ()):
        check = run_check(root, "--format", "json", *args)
        assert {(m.symbol, m.path, m.line) for m in check.messages} == expected, check
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == expected, describe_run(run)

"""One Python process, several pylint runs: what an IDE's language server does.

The checker keeps no module-level state and builds its analysis fresh for every run,
so an edit between two runs always shows in the second.
"""

from __future__ import annotations

import io
import json
import os
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from pylint.lint import Run
from support import EDITOR_CORE, EDITOR_FILES, EDITOR_RUNNERS, pylint_argv, run_pylint

from pylint_rpcsurface.analysis.lean_build import BUILD_ENV
from pylint_rpcsurface.sources import TIMESTAMP_TICK_NS


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    for name, text in EDITOR_FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def lint(*args: str) -> list[tuple[str, str, int]]:
    """Run pylint in this process, as a language server does, and read its json2."""
    out = StringIO()
    with redirect_stdout(out):
        Run(
            [
                "--load-plugins=pylint_rpcsurface",
                "--disable=all",
                "--enable=rpcsurface",
                "--output-format=json2",
                "--persistent=n",
                *args,
            ],
            exit=False,
        )
    report = json.loads(out.getvalue())
    return sorted((m["symbol"], Path(m["path"]).name, m["line"]) for m in report["messages"])


@pytest.mark.parametrize("clear_cache", ["y", "n"])
def test_an_edit_to_another_module_shows_in_the_next_run(project: Path, clear_cache: str) -> None:
    """core.py is linted both times; what changes is runners.py, which is never linted.
    Even when astroid's cache keeps run one's modules (clear-cache-post-run=n), the
    second run sees the edit, because the checker builds what it analyses fresh."""
    flag = f"--clear-cache-post-run={clear_cache}"
    assert lint(flag, "core.py") == []
    (project / "runners.py").write_text(EDITOR_RUNNERS.replace("prefill", "prefill_v2"), "utf-8")
    assert lint(flag, "core.py") == [("rpc-unanswered", "core.py", 4)]
    (project / "runners.py").write_text(EDITOR_RUNNERS, "utf-8")
    assert lint(flag, "core.py") == []


def test_an_edit_to_the_linted_file_shows_in_the_next_run(project: Path) -> None:
    assert lint("--clear-cache-post-run=y", "core.py") == []
    (project / "core.py").write_text(EDITOR_CORE.replace('"prefill"', '"prefil"'), "utf-8")
    assert lint("--clear-cache-post-run=y", "core.py") == [("rpc-unanswered", "core.py", 4)]


def test_the_registry_module_sees_a_caller_edited_between_runs(project: Path) -> None:
    assert lint("--clear-cache-post-run=y", "registry.py") == []
    unwaited = EDITOR_CORE.replace("wait_out=True", "wait_out=False")
    (project / "core.py").write_text(unwaited, "utf-8")
    assert lint("--clear-cache-post-run=y", "registry.py") == [
        ("rpc-listed-unwaited", "registry.py", 1)
    ]


def test_no_run_leaves_a_hook_in_astroid(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker records astroid's failed imports from open() to close(): after each
    run astroid's hooks are as before, and a run that ended without close() (a crash)
    leaves none behind the next one."""
    from astroid import MANAGER  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    from pylint_rpcsurface import pylint_plugin  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    hooks = MANAGER._failed_import_hooks  # pylint: disable=protected-access
    before = list(hooks)
    lint("core.py")
    lint("core.py")
    assert hooks == before
    monkeypatch.setattr(pylint_plugin.RpcSurfaceChecker, "close", lambda self: None)
    lint("core.py")  # a run whose close() never came
    assert len(hooks) == len(before) + 1
    monkeypatch.undo()
    lint("core.py")
    assert hooks == before


def test_the_modules_of_the_run_are_listed_once_per_analysis(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing astroid's cache for the modules pylint built is work for the analysis, not
    for every module pylint lints: a run over three modules does it once."""
    from pylint_rpcsurface import pylint_plugin  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    listed: list[int] = []
    original = pylint_plugin.RpcSurfaceChecker._built_in_this_run  # pylint: disable=protected-access

    def counting(self: pylint_plugin.RpcSurfaceChecker) -> dict[str, object]:
        listed.append(1)
        return original(self)  # type: ignore[return-value]

    monkeypatch.setattr(pylint_plugin.RpcSurfaceChecker, "_built_in_this_run", counting)
    lint("--rpcsurface-no-cache=y", "core.py", "runners.py", "registry.py")
    assert listed == [1]


def _project_modules(root: Path) -> set[str]:
    """The files of *root* whose modules astroid's cache holds now."""
    from astroid import MANAGER  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    held = {getattr(module, "file", None) for module in MANAGER.astroid_cache.values()}
    return {Path(f).name for f in held if isinstance(f, str) and Path(f).parent == root}


def test_a_run_drops_the_modules_its_analysis_built(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The analysis builds the handlers' module, which pylint never lints; once pylint
    is done (close()) it leaves astroid's cache, and the look-up cache that
    would keep their trees alive is empty. The module pylint linted stays, and the next
    run answers as the first."""
    from astroid import MANAGER, nodes  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    from pylint_rpcsurface import pylint_plugin  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    root = project.resolve()
    # An earlier test's core.py under the same name would keep pylint's module of this
    # one out of astroid's cache (it keeps the first module of a name), and the analysis
    # would build its own in its place.
    for name in ("core", "runners", "registry"):
        MANAGER.astroid_cache.pop(name, None)
    # Written before the run by more than a clock tick, so the analysis reuses the module
    # pylint built of core.py instead of building its own (which would take its place).
    time.sleep(3 * TIMESTAMP_TICK_NS / 1e9)
    assert lint("--rpcsurface-no-cache=y", "core.py") == []
    assert _project_modules(root) == {"core.py"}
    assert nodes.Name.lookup.cache_info().currsize == 0
    # A -j worker closes after each file: what it built stays for its next file.
    original = pylint_plugin.RpcSurfaceChecker.close

    def as_a_worker(self: pylint_plugin.RpcSurfaceChecker) -> None:
        self.linter.config.jobs = 2
        original(self)

    monkeypatch.setattr(pylint_plugin.RpcSurfaceChecker, "close", as_a_worker)
    # The modules the analysis builds lean never stay where pylint's checkers would find
    # them (analysis/lean_build.py), a worker's or not.
    assert lint("--rpcsurface-no-cache=y", "core.py") == []
    assert "runners.py" not in _project_modules(root)
    monkeypatch.setenv(BUILD_ENV, "full")
    assert lint("--rpcsurface-no-cache=y", "core.py") == []
    assert {"core.py", "runners.py"} <= _project_modules(root)


# ---------------------------------------------------------------------------
# Replay: many runs in one process, with edits on disk and unsaved buffers, each compared
# with a fresh process given the same files and the same standard input.

Full = tuple[str, str, int, int, str]  # symbol, file name, line, column, text


def lint_in_process(
    monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], stdin: str | None
) -> list[Full]:
    """One run in this process, astroid's cache kept from run to run (pylint's default:
    no --clear-cache-post-run), the persistent cache on."""
    if stdin is not None:
        # pylint re-wraps sys.stdin.buffer as UTF-8 and reads it, as from an editor's pipe.
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
    out = StringIO()
    with redirect_stdout(out):
        # The fresh process's own arguments, without its "python -m pylint".
        Run(pylint_argv("--output-format=json2", *args)[3:], exit=False)
    report = json.loads(out.getvalue())
    return sorted(
        (m["symbol"], Path(m["path"]).name, m["line"], m["column"], m["message"])
        for m in report["messages"]
    )


def lint_fresh(root: Path, args: tuple[str, ...], stdin: str | None) -> list[Full]:
    """The same run in a new process, without the persistent cache: nothing remembered."""
    run = run_pylint(root, *args, stdin=stdin, env={"RPCSURFACE_NO_CACHE": "1"})
    assert "Traceback" not in run.stderr, run.stderr
    return sorted(
        (
            m.symbol,
            Path(m.path).name,
            m.line,
            m.column,
            f"{m.text} ({m.page})" if m.page else m.text,
        )
        for m in run.messages
    )


SAVED = ("core.py", "runners.py", "registry.py")
ADDS_DECODE = 'FAST_RPCS = ("prefill", "decode")\n'
RENAMED = textwrap.dedent(EDITOR_RUNNERS).replace("prefill", "prefill_v2")
SILENCED_CORE = textwrap.dedent(EDITOR_CORE).replace(
    "wait_out=True)", "wait_out=True)  # pylint: disable=rpc-unanswered"
)
# (what to write to disk first, or None; the files to lint, or one file and its buffer)
REPLAY: tuple[tuple[tuple[str, str] | None, tuple[str, ...], str | None], ...] = (
    (None, SAVED, None),
    (None, ("--from-stdin", "registry.py"), ADDS_DECODE),  # a name never saved
    (None, SAVED, None),  # ... so the saved files are clean again
    (None, ("registry.py",), None),
    (None, ("--from-stdin", "core.py"), textwrap.dedent(EDITOR_CORE).replace("prefill", "prefil")),
    (None, ("core.py",), None),
    (("runners.py", RENAMED), ("core.py", "registry.py"), None),  # an edit on disk
    (None, ("--from-stdin", "runners.py"), textwrap.dedent(EDITOR_RUNNERS)),  # undone unsaved
    (None, ("--from-stdin", "registry.py"), ADDS_DECODE),
    (None, SAVED, None),
    (("runners.py", textwrap.dedent(EDITOR_RUNNERS)), ("--from-stdin", "core.py"), None),
    (None, ("--from-stdin", "registry.py"), 'FAST_RPCS = ("prefill", "forward")\n'),
    (("registry.py", 'FAST_RPCS = ("prefill", "forward")\n'), SAVED, None),
    (None, ("--from-stdin", "registry.py"), 'FAST_RPCS = ("prefill",)\n'),
    (None, ("core.py", "registry.py"), None),
    (None, ("--from-stdin", "core.py"), SILENCED_CORE),  # a pragma never saved
    (("runners.py", RENAMED), ("core.py",), None),  # ... silences nothing on disk
    (("runners.py", textwrap.dedent(EDITOR_RUNNERS)), SAVED, None),
)


@pytest.mark.slow  # a long campaign of runs in one process, each checked against a fresh one
def test_many_runs_with_edits_and_buffers_match_fresh_processes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A buffer counts in its own run only; the saved files count in every other."""
    reported = 0
    for step, (edit, args, unsaved) in enumerate(REPLAY):
        if edit is not None:
            name, text = edit
            (project / name).write_text(text, encoding="utf-8")
        buffer = unsaved
        if buffer is None and "--from-stdin" in args:
            buffer = (project / args[-1]).read_text(encoding="utf-8")  # the saved text
        fresh = lint_fresh(project, args, buffer)
        assert lint_in_process(monkeypatch, args, buffer) == fresh, (step, args, buffer)
        reported += len(fresh)
    assert reported >= 5  # the replay does show findings, and takes them back

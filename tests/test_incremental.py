"""The incremental answer is the ``--no-cache`` answer.

An analysis reuses the pieces of facts whose modules did not change (``engine.memo``). A
property test edits random modules of a generated project (the caller, the handlers and
registry, a subclass module, an unrelated module) in random sequences and compares, after
every edit, the analysis that reuses the memo with one computed from nothing: in the
engine (many examples), and with real pylint and the real ``rpcsurface check`` (few:
each is a process).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import (
    assert_no_crash,
    describe_run,
    fast_surface,
    marked_findings,
    project,
    run_check,
    run_pylint,
)
from test_properties import ENGINE, PYLINT, Project, projects, render

from pylint_rpcsurface import engine
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import Memo, surface_facts
from pylint_rpcsurface.engine.queries import Queries
from pylint_rpcsurface.model import Analysis

# Every edit also touches a module no surface reads, so that "nothing relevant changed"
# is among the sequences too.
UNRELATED = "unrelated.py"


def _write(root: Path, files: dict[str, str], step: int) -> None:
    """Write the files that differ from what is on disk (an editor's save)."""
    files = {**files, UNRELATED: f"VALUE = {step}\n"}
    for relpath, text in files.items():
        target = root / relpath
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    for stale in root.glob("*.py"):
        if stale.name not in files:
            stale.unlink()  # a module removed


def _answer(analysis: Analysis) -> tuple[object, ...]:
    return (analysis.config_errors, analysis.all_findings())


def _memo(root: Path) -> Memo:
    return Memo(root / ".memo.json", "the test's identity")


@contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(os.path.realpath(folder))


NONES = frozenset({"alpha", "gamma"})  # the handlers of these return None when drawn so


def _render(version: Project, nones: frozenset[str] = frozenset()) -> dict[str, str]:
    """The project's files, with ``drops-none`` on and the handlers of *nones* returning
    None: a handler's replies then matter too (``rpc-waited-none-reply``)."""
    files = render(version)
    handlers = files["handlers.py"]
    for name in nones:
        handlers = handlers.replace(
            f"    def {name}(self):\n        return 1\n",
            f"    def {name}(self):\n        return None\n",
        )
    files["handlers.py"] = handlers
    files["pyproject.toml"] = files["pyproject.toml"].replace(
        'waits = "wait_out"\n', 'waits = "wait_out"\ndrops-none = true\n'
    )
    return files


@st.composite
def edited(draw: st.DrawFn) -> list[tuple[Project, frozenset[str]]]:
    """A project and a sequence of edits, each of one module: the caller's calls, the
    handlers' or the registry's names, one subclass's calls, or the whole project."""
    nones = st.frozensets(st.sampled_from(sorted(NONES)))
    versions = [(draw(projects()), draw(nones))]
    for _ in range(draw(st.integers(1, 4))):
        current, current_nones = versions[-1]
        other = draw(projects())
        kind = draw(st.sampled_from(["core", "handlers", "replies", "sub", "all"]))
        if kind == "replies":
            versions.append((current, draw(nones)))
            continue
        if kind == "core":
            version = replace(current, core_calls=other.core_calls)
        elif kind == "handlers":
            version = replace(
                current,
                base_answers=other.base_answers,
                fast_answers=other.fast_answers,
                registry=other.registry,
            )
        elif kind == "sub" and current.subs:
            index = draw(st.integers(0, len(current.subs) - 1))
            subs = list(current.subs)
            subs[index] = replace(subs[index], calls=other.core_calls)
            version = replace(current, subs=tuple(subs))
        else:
            version = other
        versions.append((version, current_nones))
    return versions


@ENGINE
@given(edited())
def test_the_memo_gives_the_answer_of_an_analysis_from_nothing(
    versions: list[tuple[Project, frozenset[str]]],
) -> None:
    with _folder() as root:
        _edit_in_sequence(root, versions)


def _edit_in_sequence(root: Path, versions: list[tuple[Project, frozenset[str]]]) -> None:
    for step, (version, nones) in enumerate(versions):
        _write(root, _render(version, nones), step)
        config = load_config(root / "pyproject.toml")
        memo = _memo(root)
        incremental = surface_facts(config, memo=memo).analysis()
        scratch = surface_facts(config).analysis()
        assert _answer(incremental) == _answer(scratch), f"step {step}: {version}"


@ENGINE
@given(projects(), projects())
def test_an_unsaved_buffer_gives_the_answer_of_an_analysis_from_nothing(
    saved: Project, edited: Project
) -> None:
    """The editor's case: the saved project is in the memo, a buffer holds an edit of
    the caller module that is not saved."""
    with _folder() as root:
        _edit_a_buffer(root, saved, edited)


def _edit_a_buffer(root: Path, saved: Project, edited: Project) -> None:
    _write(root, render(saved), 0)
    config = load_config(root / "pyproject.toml")
    surface_facts(config, memo=_memo(root)).analysis()
    buffer = render(edited).get("core.py", "")
    overrides = {os.path.realpath(root / "core.py"): buffer}
    memo = _memo(root)
    incremental = surface_facts(config, overrides, memo=memo).analysis()
    assert _answer(incremental) == _answer(surface_facts(config, overrides).analysis())


def test_an_edit_no_surface_reads_reuses_every_piece(tmp_path: Path) -> None:
    """Without this, the property above would hold for a memo that never hits."""
    version = Project(
        base_answers=frozenset({"alpha"}),
        fast_answers=frozenset({"beta"}),
        registry=("beta",),
        core_calls=(("alpha", True), ("gamma", True)),
        subs=(),
    )
    root = Path(os.path.realpath(tmp_path))
    _write(root, render(version), 0)
    config = load_config(root / "pyproject.toml")
    first = _memo(root)
    surface_facts(config, memo=first).analysis()
    _write(root, render(version), 1)  # only the unrelated module changes
    second = surface_facts(config, memo=_memo(root))
    assert _answer(second.analysis()) == _answer(surface_facts(config).analysis())
    # What the word search knows of the edited module's new text is read from its text:
    # every piece of facts is reused, and no module is built.
    assert second.counts.built == ()
    assert second.counts.computed == 1  # the word search's record of the edited text
    assert second.counts.reused > 0


def test_an_edit_of_the_caller_recomputes_only_what_reads_it(tmp_path: Path) -> None:
    version = Project(
        base_answers=frozenset({"alpha"}),
        fast_answers=frozenset({"beta"}),
        registry=("beta",),
        core_calls=(("alpha", True),),
        subs=(),
    )
    root = Path(os.path.realpath(tmp_path))
    _write(root, render(version), 0)
    config = load_config(root / "pyproject.toml")
    surface_facts(config, memo=_memo(root)).analysis()
    _write(root, render(replace(version, core_calls=(("alpha", True), ("gamma", True)))), 0)
    facts = surface_facts(config, memo=_memo(root))
    found = facts.analysis()
    assert _answer(found) == _answer(surface_facts(config).analysis())
    assert {f.symbol for f in found.all_findings()} >= {"rpc-unanswered"}  # 'gamma'
    # The caller's module is built again, and no other: no handler binds the name now
    # sent ('gamma'), so there is no handler method to read (each class's names are a
    # piece the edit doesn't touch).
    assert [os.path.basename(path) for path in facts.counts.built] == ["core.py"]
    assert facts.counts.reused > 0
    # A name a handler binds but no caller sent before: its method is read, in the
    # handlers' module.
    calls = (("alpha", True), ("gamma", True), ("beta", True))
    _write(root, render(replace(version, core_calls=calls)), 0)
    facts = surface_facts(config, memo=_memo(root))
    assert _answer(facts.analysis()) == _answer(surface_facts(config).analysis())
    assert [os.path.basename(path) for path in facts.counts.built] == ["core.py", "handlers.py"]


def test_a_memo_that_is_not_one_is_an_empty_memo(tmp_path: Path) -> None:
    """Truncated, foreign, nested too deeply, of the wrong types, binary: no traceback,
    the answer from nothing."""
    version = Project(frozenset({"alpha"}), frozenset(), (), (("alpha", True),), ())
    root = Path(os.path.realpath(tmp_path))
    _write(root, render(version), 0)
    config = load_config(root / "pyproject.toml")
    expected = _answer(surface_facts(config).analysis())
    surface_facts(config, memo=_memo(root)).analysis()
    good = (root / ".memo.json").read_text(encoding="utf-8")
    broken = [
        good[: len(good) // 2],
        "[" * 100_000 + "]" * 100_000,
        json.dumps({"format": 2, "identity": "the test's identity", "externals": [], "facts": 7}),
        good.replace('"Location"', '"Popen"'),
        good.replace('"fields":[', '"fields":[1e400,'),
        json.dumps(
            {
                "format": 1,
                "identity": "the test's identity",
                "externals": [],
                "facts": {"k": {"frozenset": [[1] * 10]}},
            }
        ),
    ]
    for text in broken:
        (root / ".memo.json").write_text(text, encoding="utf-8")
        assert _answer(surface_facts(config, memo=_memo(root)).analysis()) == expected, text[:80]
    (root / ".memo.json").write_bytes(os.urandom(4096))
    assert _answer(surface_facts(config, memo=_memo(root)).analysis()) == expected


# ---------------------------------------------------------------------------
# The way users run it: pylint and check, the cache on and off


def _pylint_answer(root: Path, *extra: str, env: dict[str, str]) -> list[tuple[object, ...]]:
    run = run_pylint(root, *extra, "--recursive=y", ".", env=env)
    assert "Traceback" not in run.stderr, describe_run(run)
    return sorted((m.path, m.line, m.column, m.symbol, m.text) for m in run.messages)


def _check_answer(root: Path, *extra: str, env: dict[str, str]) -> list[object]:
    run = run_check(root, "--format", "json", *extra, env=env)
    assert "Traceback" not in run.stderr, run.stderr
    return sorted(json.dumps(m.__dict__, sort_keys=True, default=str) for m in run.messages)


@PYLINT
@given(st.lists(projects(), min_size=3, max_size=3))
def test_pylint_and_check_with_the_cache_answer_as_without(versions: list[Project]) -> None:
    """Three versions of a project in one folder: after each edit, the cached runs (which
    start from what the previous version left) answer as runs without the cache. The
    first version's cached runs start from nothing, so they are run only to fill the
    cache (a cold run is held to the true findings by the acceptance and fixture tests)."""
    env = {"RPCSURFACE_NO_CACHE": ""}
    with _folder() as root:
        for step, version in enumerate(versions):
            _write(root, render(version), step)
            cached = _pylint_answer(root, env=env)
            checked = _check_answer(root, env=env)
            if step:
                assert cached == _pylint_answer(root, "--rpcsurface-no-cache=y", env=env), step
                assert checked == _check_answer(root, "--no-cache", env=env), step


# ---------------------------------------------------------------------------
# The stdin buffer: pylint's module is reused only where it means the same

NAMESPACE_LAYOUT = {
    "pyproject.toml": fast_surface(
        "infer.engine.core.Core",
        "infer.engine.runner.FastRunner",
        "infer.engine.runner.Runner",
        "infer.engine.runner.RPCS",
    ),
    # Neither infer/ nor infer/engine/ has an __init__.py: pylint names core.py "core"
    # (from the folder it puts on the path), the plugin "infer.engine.core", and the
    # relative import resolves only under the latter. Under pylint's name it would not
    # resolve at all, and the call's name would be unknown, not the unanswered "ghost".
    "infer/engine/names.py": 'GHOST = "ghost"\n',
    "infer/engine/core.py": """\
        from .names import GHOST


        class Core:
            def step(self):
                return self.mgr.call_func(GHOST, wait_out=True)  # [rpc-unanswered]
        """,
    "infer/engine/runner.py": """\
        RPCS = ()


        class Runner:
            def alpha(self):
                return 1


        class FastRunner(Runner):
            pass
        """,
}


def test_a_buffer_with_a_relative_import_is_read_under_the_plugin_s_module_name(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, NAMESPACE_LAYOUT)
    core = root / "infer/engine/core.py"
    edited = core.read_text(encoding="utf-8") + "\n# an edit, not saved\n"
    expected = marked_findings(edited)
    for extra in ((), ("--rpcsurface-no-cache=y",)):
        run = run_pylint(root, *extra, "--from-stdin", str(core), stdin=edited)
        assert_no_crash(run)
        assert {(m.symbol, m.line) for m in run.messages} == expected, describe_run(run)


def test_a_module_written_during_the_analysis_keeps_its_pieces_out_of_the_memo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pieces were computed from the text before the write, under its hash; kept,
    they would be replayed for that hash after the file is restored to it (A, B, A)."""
    version = Project(frozenset({"alpha"}), frozenset(), (), (("alpha", True),), ())
    root = Path(os.path.realpath(tmp_path))
    _write(root, render(version), 0)
    config = load_config(root / "pyproject.toml")
    judged = engine.rules.findings

    def findings_then_an_edit(surfaces: object, proxies: object = ()) -> object:
        core = root / "core.py"
        core.write_text(core.read_text(encoding="utf-8") + "# saved meanwhile\n", "utf-8")
        return judged(surfaces, proxies)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.rules, "findings", findings_then_an_edit)
    surface_facts(config, memo=_memo(root)).analysis()
    monkeypatch.undo()
    assert not (root / ".memo.json").exists()


def test_a_stored_piece_whose_class_moved_starts_the_run_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memo's piece names where a class is; if that class is not there any more (the
    module was written between the hash and astroid's read), the run starts again from
    nothing, with the answer from nothing, never a traceback."""
    version = Project(frozenset({"alpha"}), frozenset(), (), (("alpha", True),), ())
    root = Path(os.path.realpath(tmp_path))
    _write(root, render(version), 0)
    config = load_config(root / "pyproject.toml")
    surface_facts(config, memo=_memo(root)).analysis()
    # A method added to the caller: its members are read again from the place the memo
    # gives for its class, which this run then does not find there.
    core = root / "core.py"
    core.write_text(
        core.read_text(encoding="utf-8") + "\n    def added(self):\n        return 1\n",
        encoding="utf-8",
    )
    expected = _answer(surface_facts(config).analysis())
    found = Queries.node
    missing: list[object] = []

    def not_there_the_first_time(run: object, ref: object) -> object:
        if not missing:
            missing.append(ref)
            return None
        return found(run, ref)  # type: ignore[arg-type]

    monkeypatch.setattr(Queries, "node", not_there_the_first_time)
    assert _answer(surface_facts(config, memo=_memo(root)).analysis()) == expected
    assert missing  # the place was asked for, and was not there

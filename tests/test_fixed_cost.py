"""What every analysis pays before it computes anything (issue 47): reading the store,
checking the stored pieces' digests, and writing the store.

- The store's JSON values hold no cycle: reading and writing them runs no cyclic garbage
  collection, which in pylint's process walks every astroid tree pylint built first.
- The "local Q N" digests of a saved module version (what a function binds to a name,
  :class:`pylint_rpcsurface.engine.digests.LocalDigests`) are kept in the store with its
  other digests: a later run parses no saved module to check a stored piece against them.
  The answers stay ``--no-cache``'s when such a module is edited and saved.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import EDITOR_FILES, project, run_check, run_pylint

from pylint_rpcsurface import store as store_module
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import digests, pieces
from pylint_rpcsurface.engine import memo as memo_module
from pylint_rpcsurface.engine.digests import LocalDigests
from pylint_rpcsurface.store import Store, analyse_with_cache, locate, read_store
from pylint_rpcsurface.store import file as store_file

# Inferring what Core.run sends, and on what, reads what Core.__init__ binds to `name`,
# `mgr` and `self` (its "local" digests), and what Manager.__init__ binds to `self`.
CORE = """\
from manager import Manager


class Core:
    def __init__(self, cfg):
        mgr = Manager(cfg)
        self.mgr = mgr
        name = "prefill"
        self.rpc = name

    def run(self):
        self.mgr.call_func(self.rpc, wait_out=True)
        self.mgr.call_func("no_such_rpc", wait_out=True)
"""
MANAGER = """\
class Manager:
    def __init__(self, cfg):
        self.cfg = cfg

    def call_func(self, name, wait_out=False):
        return name
"""
# support's editor project (its caller, runners and registry), with this caller.
FILES = {**EDITOR_FILES, "core.py": CORE, "manager.py": MANAGER}


@pytest.fixture
def warm(tmp_path: Path) -> Path:
    """The project, with a store a whole analysis wrote."""
    root = project(tmp_path / "project", FILES)
    analyse_with_cache(load_config(root / "pyproject.toml"), {})
    return root


def _recording_the_collector(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, seen: list[bool]
) -> None:
    """*module*.*name* called as before, each call noting in *seen* whether the cyclic
    collector was enabled then."""
    original = getattr(module, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, recorded)


@pytest.fixture
def collector_enabled() -> Iterator[None]:
    """The collector enabled, as in pylint's process, whatever the test runner set."""
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was_enabled:
            gc.disable()


@pytest.mark.usefixtures("collector_enabled")
def test_reading_the_store_runs_no_cyclic_collection(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(load_config(warm / "pyproject.toml"))
    assert store.file is not None
    parsed: list[bool] = []
    _recording_the_collector(monkeypatch, store_file.json, "loads", parsed)
    stored = read_store(store.file, store.identity({}), locate)
    assert stored is not None
    assert parsed == [False]
    assert gc.isenabled()  # as it was


@pytest.mark.usefixtures("collector_enabled")
def test_taking_the_snapshot_runs_no_cyclic_collection(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[bool] = []
    _recording_the_collector(monkeypatch, store_module, "take_snapshot", taken)
    _recording_the_collector(monkeypatch, store_module, "_snapshot_from_json", taken)
    Store(load_config(warm / "pyproject.toml")).begin({})
    assert taken == [False, False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_the_memo_reads_and_writes_the_store_without_a_cyclic_collection(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[bool] = []
    written: list[bool] = []
    _recording_the_collector(monkeypatch, memo_module, "_module_digests", read)
    _recording_the_collector(monkeypatch, memo_module, "write_atomically", written)
    run = Store(load_config(warm / "pyproject.toml")).begin({})
    memo = run.memo()
    assert read  # each module version's digests, as stored
    assert not any(read)
    memo.get("a piece no run computed", lambda: ("computed", 1))
    memo.save()
    assert memo.write({"snapshot": None, "findings": None})
    assert written == [False]
    assert gc.isenabled()


@pytest.fixture
def parsed_for_local_digests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the engine parses for their "local" digests, in order."""
    texts: list[str] = []

    class Counted(LocalDigests):
        def __init__(self, text: str, tree: ast.Module | None = None) -> None:
            texts.append(text)
            super().__init__(text, tree)

    monkeypatch.setattr(pieces, "LocalDigests", Counted)
    return texts


def test_a_saved_modules_local_digests_are_read_from_the_store(
    warm: Path, parsed_for_local_digests: list[str]
) -> None:
    """A buffer of another module (a comment added to the registry) reuses every piece
    that read Core.__init__'s and Manager.__init__'s bindings: checking them against the
    saved modules parses neither."""
    config = load_config(warm / "pyproject.toml")
    buffer = (warm / "registry.py").read_text("utf-8") + "# a comment\n"
    analysis = analyse_with_cache(config, {str(warm / "registry.py"): buffer})
    assert [f.symbol for f in analysis.all_findings()] == ["rpc-unanswered"]
    assert parsed_for_local_digests == []


def test_a_buffer_is_parsed_for_its_own_local_digests(
    warm: Path, parsed_for_local_digests: list[str]
) -> None:
    """Never from the store: no saved file holds that text."""
    config = load_config(warm / "pyproject.toml")
    buffer = CORE + "# a comment\n"
    analyse_with_cache(config, {str(warm / "core.py"): buffer})
    assert parsed_for_local_digests == [buffer]


# Core.run's code piece reads what Core.__init__ binds to `send_prefill` (from the
# statement that assigns self.send), not Core.__init__'s code.
SENDING_CORE = """\
def send_prefill(mgr):
    mgr.call_func("prefill", wait_out=True)


def send_other(mgr):
    mgr.call_func("no_such_rpc", wait_out=True)


class Core:
    def __init__(self, mgr):
        self.mgr = mgr
        self.send = send_prefill

    def run(self):
        self.send(self.mgr)
"""


@pytest.mark.parametrize(
    "edited",
    [
        SENDING_CORE.replace(
            "        self.send = send_prefill\n",
            "        send_prefill = send_other\n        self.send = send_prefill\n",
        ),
        SENDING_CORE.replace(
            "    def __init__(self, mgr):\n",
            "    def __init__(self, mgr, send_prefill=send_other):\n",
        ),
    ],
)
def test_saving_what_a_stored_local_digest_covers_gives_the_answer_from_nothing(
    tmp_path: Path, edited: str
) -> None:
    root = project(tmp_path / "project", {**FILES, "core.py": SENDING_CORE})
    warm_check = run_check(root, "--format", "json")
    assert warm_check.returncode == 0, warm_check.stdout + warm_check.stderr
    (root / "core.py").write_text(edited, "utf-8")
    cached = run_check(root, "--format", "json")
    assert cached.messages == run_check(root, "--format", "json", "--no-cache").messages
    assert cached.messages != warm_check.messages  # the edit changes the answer
    linted = run_pylint(root, "core.py")
    assert linted.messages == run_pylint(root, "core.py", env={"RPCSURFACE_NO_CACHE": "1"}).messages


def test_a_buffer_is_parsed_once_for_its_digests_and_local_digests(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses: list[str] = []
    parse = digests.ast.parse

    def counted(source: Any, filename: Any = "<unknown>", *args: Any, **kwargs: Any) -> Any:
        if filename == digests.DIGEST_FILENAME:
            parses.append(source)
        return parse(source, filename, *args, **kwargs)

    monkeypatch.setattr(digests.ast, "parse", counted)
    buffer = CORE + "# a comment\n"
    analyse_with_cache(load_config(warm / "pyproject.toml"), {str(warm / "core.py"): buffer})
    assert parses == [buffer]


@pytest.mark.parametrize("text", [CORE, MANAGER, SENDING_CORE, "def broken(:\n"])
def test_digests_of_a_tree_parsed_already_are_the_texts_and_leave_it_as_it_was(
    text: str,
) -> None:
    tree = digests.parsed(text)
    before = None if tree is None else ast.dump(tree, include_attributes=True)
    assert digests.module_digests(text, tree) == digests.module_digests(text)
    assert (None if tree is None else ast.dump(tree, include_attributes=True)) == before
    shared, alone = LocalDigests(text, tree), LocalDigests(text)
    for function in ("Core.__init__", "Core.run", "Manager.__init__", "send_prefill", "broken"):
        for name in ("self", "mgr", "name", "send_prefill", "Manager", "absent"):
            assert shared.digest(function, name) == alone.digest(function, name)

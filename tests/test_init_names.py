"""init's question whether code names a module-level function or class (a worker loop
its caller starts) looks up only the names spelled as the target or as an alias the
module imports it under (issue 50, item 4): looking up every name of a caller class of
a thousand lines was 4% of init on vLLM 0.11.2. The answers are those of looking every
name up."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from astroid import nodes
from support import ROOT, project

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.discovery import core, evidence
from pylint_rpcsurface.discovery.core import Discovery
from pylint_rpcsurface.discovery.evidence import bound_to
from pylint_rpcsurface.sources import SourceTree

LOOPS = """\
def busy_loop(inbox):
    while True:
        inbox.get()


def other_loop(inbox):
    pass
"""

SERVER = """\
import threading

from svc.loops import busy_loop as started


class Server:
    def start(self, inbox):
        size = len(inbox)
        threading.Thread(target=started, args=(inbox, size)).start()
"""


def _discovery(root: Path) -> Discovery:
    store = ModuleStore(SourceTree((root,)))
    modules = [m for p in store.python_files() if (m := store.module(p)) is not None]
    return Discovery(root, modules, ClassIndex(store))


def _looked_up_every_name(code: nodes.NodeNG, target: nodes.NodeNG) -> bool:
    """The answer from every name of *code* looked up (what init did before)."""
    named = {pair for used in code.nodes_of_class(nodes.Name) for pair in bound_to(used)}
    name = str(getattr(target, "name", ""))
    module = target.root().name
    return (name, module) in named or (name, f"*{module.rsplit('.', 1)[-1]}") in named


def test_only_the_targets_spellings_are_looked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(
        tmp_path / "proj", {"svc/__init__.py": "", "svc/loops.py": LOOPS, "svc/server.py": SERVER}
    )
    looked_up: list[str] = []

    def recorded(used: nodes.Name) -> set[tuple[str, str]]:
        looked_up.append(used.name)
        return bound_to(used)

    found = _discovery(root)
    for module in (evidence, core):  # wherever the look-up is taken from
        if getattr(module, "bound_to", None) is bound_to:
            monkeypatch.setattr(module, "bound_to", recorded)
    (server,) = [c for c in found.classes if c.name == "Server"]
    loops = {f.name: f for f in found.functions if f.name.endswith("_loop")}
    assert found.names(server, loops["busy_loop"])  # imported under another name
    assert not found.names(server, loops["other_loop"])
    assert sorted(looked_up) == ["started"]  # not threading, len, inbox, size


@pytest.mark.parametrize("fixture", ["init_engine", "init_vllm", "init_seed", "init_runworkers"])
def test_the_answers_are_those_of_every_name_looked_up(tmp_path: Path, fixture: str) -> None:
    folder = Path(shutil.copytree(ROOT / "tests" / "fixtures" / fixture, tmp_path / "p"))
    found = _discovery(folder)
    tops: list[nodes.NodeNG] = [
        *found.classes,
        *(f for f in found.functions if isinstance(f.parent, nodes.Module)),
    ]
    answers = [(found.names(c, t), _looked_up_every_name(c, t)) for c in tops for t in tops]
    assert len(answers) > 20
    assert any(mine for mine, _ in answers)  # some code names another
    assert [mine for mine, _ in answers] == [every for _, every in answers]

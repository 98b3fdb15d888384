"""init walks each module once, as it builds it lean, and reads what it collects and each
function's body from that walk, however many of its readers ask (issue 50, item 4): the
search for senders, the worker side, the
table reads, the keys and the payload all read the calls, subscripts and assignments of
the same functions, and each of them walking astroid's tree again was about a quarter of init's
time on vLLM 0.11.2; the classes named by strings read the attribute assignments of
every module, which the walk that finds the calls and classes meets too."""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from astroid import nodes
from support import ROOT, project

from pylint_rpcsurface import discovery
from pylint_rpcsurface.analysis import lean_build, syntax
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.discovery import reading
from pylint_rpcsurface.sources import SourceTree


@pytest.mark.parametrize("fixture", ["init_engine", "init_vllm", "init_seed"])
def test_each_function_body_is_read_from_its_module_s_one_walk(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = Path(shutil.copytree(ROOT / "tests" / "fixtures" / fixture, tmp_path / "p"))
    (folder / "pyproject.toml").unlink()
    walks: Counter[tuple[int, str]] = Counter()
    module_walks: Counter[str] = Counter()
    asked: set[int] = set()
    walk, walk_module = reading.own_nodes, syntax.walked
    body_of = reading.FunctionBodies.__call__

    def counted(function: nodes.FunctionDef, kind: type[nodes.NodeNG]) -> Iterator[nodes.NodeNG]:
        walks[(id(function), f"{function.qname()}:{function.lineno}")] += 1
        return walk(function, kind)

    def counted_module(module: nodes.Module, *every: dict[int, nodes.NodeNG]) -> object:
        module_walks[module.name] += 1
        return walk_module(module, *every)

    def asked_for(bodies: reading.FunctionBodies, function: nodes.FunctionDef) -> object:
        asked.add(id(function))
        return body_of(bodies, function)

    # Every reader of the package that walks a body with it, under whatever name it took.
    for found in pkgutil.iter_modules(discovery.__path__):
        module = importlib.import_module(f"{discovery.__name__}.{found.name}")
        if getattr(module, "own_nodes", None) is walk:
            monkeypatch.setattr(module, "own_nodes", counted)
    # The lean build's walk of each module it builds, and the discovery's of one it can't
    # take from there.
    monkeypatch.setattr(lean_build, "walked", counted_module)
    monkeypatch.setattr(reading, "walked", counted_module)
    monkeypatch.setattr(reading.FunctionBodies, "__call__", asked_for)
    proposal = discovery.discover(folder, (folder,))
    assert proposal.dispatch  # the readers did read: a dispatch was found
    assert len(asked) >= 5  # the readers read the bodies of the project's functions
    project_modules = {
        ".".join(path.relative_to(folder).with_suffix("").parts).removesuffix(".__init__")
        for path in folder.rglob("*.py")
    }
    assert project_modules <= set(module_walks), project_modules - set(module_walks)
    assert set(module_walks.values()) == {1}, module_walks
    # No transform replaced a node of these projects after the walk: no body is walked
    # again (tests/test_init_walk.py holds the case where one does).
    assert not walks, walks


def test_each_module_is_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(shutil.copytree(ROOT / "tests" / "fixtures" / "init_qualname", tmp_path / "p"))
    (folder / "pyproject.toml").unlink()
    walks: Counter[str] = Counter()
    walk = nodes.NodeNG.nodes_of_class

    def counted(node: nodes.NodeNG, *args: object, **kwargs: object) -> object:
        # Only a whole module's walk by the package's own readers (the registries'
        # reading, shared with the checker, looks for changes of one constant).
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if isinstance(node, nodes.Module) and caller.startswith(discovery.__name__):
            walks[node.name] += 1
        return walk(node, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(nodes.NodeNG, "nodes_of_class", counted)
    # The package's readers walk with syntax.nodes_of, under whatever name they took.
    walk_of = syntax.nodes_of

    def counted_of(node: nodes.NodeNG, kinds: object) -> object:
        if isinstance(node, nodes.Module):
            walks[node.name] += 1
        return walk_of(node, kinds)  # type: ignore[call-overload]

    for found in pkgutil.iter_modules(discovery.__path__):
        module = importlib.import_module(f"{discovery.__name__}.{found.name}")
        if getattr(module, "nodes_of", None) is walk_of:
            monkeypatch.setattr(module, "nodes_of", counted_of)
    # The lean build's walk of every module, which the constructor collects from and the
    # functions' bodies are read from, and the constructor's of one it can't take there.
    walk_module = syntax.walked

    def counted_module(module: nodes.Module, *every: dict[int, nodes.NodeNG]) -> object:
        walks[module.name] += 1
        return walk_module(module, *every)

    monkeypatch.setattr(lean_build, "walked", counted_module)
    monkeypatch.setattr(reading, "walked", counted_module)
    proposal = discovery.discover(folder, (folder,))
    # The runner's class is named by strings: their assignments were read.
    assert any("resolved from the string" in e for s in proposal.surfaces for _, e in s.handlers)
    assert walks
    assert set(walks.values()) == {1}, walks


def test_a_module_s_walk_is_let_go_when_the_block_that_built_it_ends(tmp_path: Path) -> None:
    """The walk a lean build keeps on a module serves the discovery in the same block;
    a long-lived process keeps the modules it may build again, not their walks."""
    root = project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/one.py": "def f():\n    pass\n"})
    store = ModuleStore(SourceTree((root,)))
    with store.resolving_imports():
        module = store.module(str(root / "pkg" / "one.py"))
        assert module is not None
        held = lean_build.walk_at_build(module)
        assert held is not None
        assert any(isinstance(node, nodes.FunctionDef) for node in held[0])
    assert lean_build.walk_at_build(module) is None

"""init walks each function's body once, however many of its readers ask, and each module
once (issue 50, item 4): the search for senders, the worker side, the table reads, the
keys and the payload all read the calls, subscripts and assignments of the same
functions, and each of them walking astroid's tree again was about a quarter of init's
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
from support import ROOT

from pylint_rpcsurface import discovery
from pylint_rpcsurface.analysis import syntax
from pylint_rpcsurface.discovery import reading


@pytest.mark.parametrize("fixture", ["init_engine", "init_vllm", "init_seed"])
def test_each_function_body_is_walked_once(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = Path(shutil.copytree(ROOT / "tests" / "fixtures" / fixture, tmp_path / "p"))
    (folder / "pyproject.toml").unlink()
    walks: Counter[tuple[int, str]] = Counter()
    walk = reading.own_nodes

    def counted(function: nodes.FunctionDef, kind: type[nodes.NodeNG]) -> Iterator[nodes.NodeNG]:
        walks[(id(function), f"{function.qname()}:{function.lineno}")] += 1
        return walk(function, kind)

    # Every reader of the package that walks a body with it, under whatever name it took.
    for found in pkgutil.iter_modules(discovery.__path__):
        module = importlib.import_module(f"{discovery.__name__}.{found.name}")
        if getattr(module, "own_nodes", None) is walk:
            monkeypatch.setattr(module, "own_nodes", counted)
    proposal = discovery.discover(folder, (folder,))
    assert proposal.dispatch  # the readers did read: a dispatch was found
    assert len(walks) >= 5  # the functions of the project were walked
    repeated = {name: times for (_, name), times in walks.items() if times > 1}
    assert not repeated, repeated


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
    proposal = discovery.discover(folder, (folder,))
    # The runner's class is named by strings: their assignments were read.
    assert any("resolved from the string" in e for s in proposal.surfaces for _, e in s.handlers)
    assert walks
    assert set(walks.values()) == {1}, walks

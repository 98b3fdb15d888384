"""init walks each function's body once, however many of its readers ask (issue 50, item
4): the search for senders, the worker side, the table reads, the keys and the payload
all read the calls, subscripts and assignments of the same functions, and each of them
walking astroid's tree again was about a quarter of init's time on vLLM 0.11.2."""

from __future__ import annotations

import importlib
import pkgutil
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from astroid import nodes
from support import ROOT

from pylint_rpcsurface import discovery
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

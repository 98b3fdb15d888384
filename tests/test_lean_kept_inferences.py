"""A lean module's transforms run when its nodes are first inferred (analysis/lean_build.py).
One that gives its node back, as an inference tip's does, leaves astroid's cached
inferences in place: nothing was inferred of that node before it ran. One that puts
another node in its place empties them, as astroid does for every transform that
returns a node. Both in init's block and in the checker's."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import astroid
import astroid.context
import pytest
from astroid import nodes
from support import project

from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.sources import SourceTree

CODE = """\
import collections


def one():
    return 1


X = one()
Pair = collections.namedtuple("Pair", "a b")
Y = 39
"""

BLOCKS = {
    "init": {"installed_packages": False, "lean_standard_library": True, "positions": False},
    "check": {},
}


@pytest.fixture
def replacing_39() -> Iterator[nodes.Const]:
    """A transform of astroid's manager that puts a 40 in the place of any 39, taken out
    again after the test; what it puts there."""
    replacement = nodes.Const(40)

    def replace(node: nodes.Const) -> nodes.Const:
        return replacement

    def predicate(node: nodes.Const) -> bool:
        return node.value == 39  # type: ignore[no-any-return]

    astroid.MANAGER.register_transform(nodes.Const, replace, predicate)
    try:
        yield replacement
    finally:
        astroid.MANAGER.unregister_transform(nodes.Const, replace, predicate)


def _cached(node: nodes.NodeNG) -> bool:
    """Whether astroid's inference cache holds an answer for *node*."""
    return any(key[0] is node for key in astroid.context._INFERENCE_CACHE)  # pylint: disable=protected-access


@contextlib.contextmanager
def _module(tmp_path: Path, options: dict[str, Any]) -> Iterator[nodes.Module]:
    root = project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/probe.py": CODE})
    store = ModuleStore(SourceTree((root,)))
    with store.resolving_imports(**options):
        module = store.module(str(root / "pkg" / "probe.py"))
        assert module is not None
        yield module


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_an_inference_tip_s_transform_keeps_what_was_inferred(tmp_path: Path, block: str) -> None:
    with _module(tmp_path, BLOCKS[block]) as module:
        called = module.body[2].value
        assert [value.value for value in called.infer()] == [1]
        assert _cached(called)
        pair = module.body[3].value
        # namedtuple's inference tip, set by its transform as the call is first inferred
        inferred = next(pair.infer())
        assert isinstance(inferred, nodes.ClassDef)
        assert inferred.name == "Pair"
        assert _cached(called)


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_a_transform_replacing_a_node_empties_the_cache(
    tmp_path: Path, block: str, replacing_39: nodes.Const
) -> None:
    with _module(tmp_path, BLOCKS[block]) as module:
        called = module.body[2].value
        assert [value.value for value in called.infer()] == [1]
        assert _cached(called)
        value = module.body[4].value
        assert [found.value for found in value.infer()] == [40]
        assert module.body[4].value is replacing_39
        assert not _cached(called)

"""An answer astroid gives once an inference's budget ran out is not served to a later
inference of the same node while ``untruncated_inferences`` is active (init's discovery)."""

from __future__ import annotations

from pathlib import Path

import astroid
import astroid.context
from astroid import nodes
from astroid.util import Uninferable
from support import project

from pylint_rpcsurface.analysis.inference_cache import untruncated_inferences
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.sources import SourceTree

BRANCHES = 120  # each return a value of its own: past astroid's budget of 100 nodes

# pick(0) infers to every value its returns may give; inferring `+ tail` then starts
# with the budget spent, so `tail` gives Uninferable there, though it is 1000.
CODE = (
    "".join(f"v{i} = {i}\n" for i in range(BRANCHES))
    + "tail = 1000\n\n\ndef pick(c):\n"
    + "".join(f"    if c == {i}:\n        return v{i}\n" for i in range(BRANCHES))
    + "    return 0\n\n\nresult = pick(0) + tail\n"
)


def _tail_after_the_sum() -> list[object]:
    """What ``tail`` in ``pick(0) + tail`` infers to, asked after the sum was."""
    module = astroid.parse(CODE)
    total = module.body[-1].value
    assert isinstance(total, nodes.BinOp)
    list(total.infer())
    return list(total.right.infer())


def test_astroid_serves_the_answer_cut_short_to_a_later_inference() -> None:
    # What the context manager is for: without it, the cut-short answer is cached.
    astroid.context._invalidate_cache()  # pylint: disable=protected-access
    assert _tail_after_the_sum() == [Uninferable]


def test_a_later_inference_starts_afresh_within_the_block() -> None:
    astroid.context._invalidate_cache()  # pylint: disable=protected-access
    with untruncated_inferences():
        found = _tail_after_the_sum()
    assert len(found) == 1
    assert isinstance(found[0], nodes.Const)
    assert found[0].value == 1000


def test_astroid_s_own_cache_is_back_and_empty_after_the_block() -> None:
    held = astroid.context._INFERENCE_CACHE  # pylint: disable=protected-access
    astroid.parse("a = 1\nb = a\n").body[1].value.inferred()
    assert held  # what was inferred before the block may be stale after it
    with untruncated_inferences():
        assert astroid.context._INFERENCE_CACHE is not held  # pylint: disable=protected-access
        astroid.parse("x = 1\ny = x\n").body[1].value.inferred()
        assert astroid.context._INFERENCE_CACHE  # pylint: disable=protected-access
    assert astroid.context._INFERENCE_CACHE is held  # pylint: disable=protected-access
    assert not held


def test_the_store_building_the_standard_library_lean_keeps_no_cut_short_answer(
    tmp_path: Path,
) -> None:
    # init's block: the two go together, as deferring the standard library's transforms
    # moves inferences inside others.
    root = project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/probe.py": CODE})
    store = ModuleStore(SourceTree((root,)))
    with store.resolving_imports(installed_packages=False, lean_standard_library=True):
        module = store.module(str(root / "pkg" / "probe.py"))
        assert module is not None
        total = module.body[-1].value
        assert isinstance(total, nodes.BinOp)
        list(total.infer())
        found = list(total.right.infer())
    assert [getattr(value, "value", value) for value in found] == [1000]

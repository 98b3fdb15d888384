"""astroid's inference caches, which every inference in the process shares: emptying
them, and keeping out of them what an inference gave once its budget ran out.

astroid stops inferring once one inference, with everything it asked on the way, has
inferred more than ``InferenceContext.max_inferred`` nodes: whatever it was inferring
then gives ``Uninferable``, and so does each inference waiting on it. It caches those
answers by node like any other, so a later inference of the same node, however small,
gets ``Uninferable``. Which inference runs out first depends on the order the readers ask
in and on what is already cached; building a module lean moves its transforms' inferences
inside others (:mod:`.lean_build`). An answer cut short is therefore not kept while
:func:`untruncated_inferences` is active: the next inference of that node starts afresh.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import astroid.context
from astroid import nodes
from astroid.context import InferenceContext
from astroid.inference_tip import clear_inference_tip_cache
from astroid.util import Uninferable

__all__ = ["forget_inferences", "untruncated_inferences"]


def forget_inferences(*, look_ups: bool = False) -> None:
    """Empty astroid's inference caches, which outlive an analysis as its module cache does;
    with *look_ups*, its name look-up caches too (a class's members changed).

    They hold results by node: pylint's build of a module the analysis reuses inferred
    through it with pylint's search path (a base class pylint's path could not find is
    cached as uninferable there), and an earlier analysis in the process inferred through
    modules since rebuilt. Whatever is forgotten is inferred again when asked.
    """
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    astroid.context._invalidate_cache()  # pylint: disable=protected-access
    clear_inference_tip_cache()
    if look_ups:
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        nodes.Name.lookup.cache_clear()  # pylint: disable=no-member  # an lru_cache
        nodes.ClassDef._metaclass_lookup_attribute.cache_clear()  # pylint: disable=protected-access


class _UntruncatedCache(dict):  # type: ignore[type-arg]
    """astroid's inference cache, keeping no answer given after its inference's budget
    ran out: only ``NodeNG.infer`` writes it, as its last step, with its context in hand."""

    def __setitem__(self, key: object, value: tuple[object, ...]) -> None:
        if any(found is Uninferable for found in value):
            # Only an answer holding Uninferable can have been cut short (astroid appends
            # it when it stops), so only then is the writer's context read.
            context = sys._getframe(1).f_locals.get("context")  # pylint: disable=protected-access
            if (
                isinstance(context, InferenceContext)
                and context.nodes_inferred > context.max_inferred
            ):
                return
        super().__setitem__(key, value)


@contextlib.contextmanager
def untruncated_inferences() -> Iterator[None]:
    """Within this block, no answer astroid gives once an inference's budget ran out is
    kept in its cache (see the module's docstring); on exit its own cache is back, empty:
    what was inferred in the block is inferred again when asked."""
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    held = astroid.context._INFERENCE_CACHE  # pylint: disable=protected-access
    astroid.context._INFERENCE_CACHE = _UntruncatedCache(held)  # pylint: disable=protected-access
    try:
        yield
    finally:
        astroid.context._INFERENCE_CACHE = held  # pylint: disable=protected-access
        held.clear()

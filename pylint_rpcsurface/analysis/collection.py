"""Python's cyclic garbage collector paused while astroid builds and infers a project.

Both readers of a whole project use it: the checker's analysis (:mod:`..engine`) and
``init``'s discovery (:mod:`..discovery`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["no_cyclic_collection"]


@contextlib.contextmanager
def no_cyclic_collection(*, settle: bool = True) -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block, as it was after.

    Building modules with astroid allocates a few hundred thousand objects that stay
    alive (the trees, kept in astroid's cache), and each allocation burst sets off a
    collection that walks every object alive, again and again as the heap grows. The
    analysis makes little cyclic garbage, so pausing costs no memory that
    matters (peak RSS is measured in docs/performance.md); reference counting still
    frees the rest at once. The collector is enabled again, if it was, when the block
    ends, however it ends, so a long-lived process (an IDE's) keeps its own setting.

    With *settle*, what the block allocated is counted with the oldest objects when it
    ends (below): the analysis's block does, which saves about a quarter of a lint
    (docs/performance.md). The store's reads and writes don't. Each settle moves every
    object alive, the host's too, to the oldest generation, reordering the collector's
    lists; that order is the order in which Python finalizes a garbage cycle at exit.
    pylint closes a report file (``--output-format=json2:FILE``) only when its reporter
    is collected, and a text file finalized after its own buffer loses what it held:
    with the store's blocks settling too, the second of two pylint runs in one process
    wrote an empty report. tests/test_report_files_kept.py and tests/test_fuzz.py's
    long-lived case hold the analysis's own settle to that; no order is proven safe.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if settle and gc.get_freeze_count() == 0:
            # What the block allocated would be walked by the first collection after
            # it (most of it alive in astroid's cache): counted with the oldest objects
            # instead, without a walk. Only when nothing else is frozen, as unfreeze()
            # releases every frozen object; the next full collection still frees cycles.
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()

"""One process at a time computes what a store file will hold.

pylint's workers under ``-j`` each start on their first module at the same moment, each
miss the store and each would compute the whole analysis; an editor's run and a
``check`` started together do the same. The lock beside the store file makes the
second wait for the first and then read what it wrote.

The lock is ``flock`` on a file of its own (never the store, which is replaced by a
rename): the system releases it when its holder ends, killed or not. Waiting is bounded
(:data:`WAIT_SECONDS`): a holder that hangs costs the others their wait, then they
compute as if there were no lock, which only costs speed. Where there is no ``fcntl``
(Windows), or the lock file can't be made, nobody waits.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock, no waiting
    fcntl = None  # type: ignore[assignment]

__all__ = ["WAIT_SECONDS", "computing"]

WAIT_SECONDS = 300.0  # longer than a cold analysis of the largest engine measured
_POLL_SECONDS = 0.02


@contextlib.contextmanager
def computing(store_file: Path | None) -> Iterator[bool]:
    """Hold the lock of *store_file* while the body computes and writes it; yields
    whether another process held it first (what it wrote should then be read before
    computing anything)."""
    if store_file is None or fcntl is None:
        yield False
        return
    lock_file = store_file.with_name(store_file.name + ".lock")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(lock_file, flags, 0o600)
    except OSError:
        yield False
        return
    try:
        waited = _acquire(handle)
        yield waited
    finally:
        os.close(handle)  # releases the lock, if it was taken


def _acquire(handle: int) -> bool:
    """Take the lock on *handle*, waiting at most :data:`WAIT_SECONDS`; whether another
    process held it."""
    assert fcntl is not None
    deadline = time.monotonic() + WAIT_SECONDS
    waited = False
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return waited
        except BlockingIOError:
            waited = True
        except OSError:
            return waited  # a file system without locks: go on without
        if time.monotonic() >= deadline:
            return waited
        time.sleep(_POLL_SECONDS)

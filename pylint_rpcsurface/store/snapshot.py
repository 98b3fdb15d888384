"""One snapshot of the project's files a run: each module's stat and content hash.

A run takes it once, before the analysis reads anything. A file's hash is reused, not
read, when the store's last snapshot recorded it and it can be trusted: its full stat
(size, mtime, ctime, inode, device) is the same now, and it had settled :data:`RACY_NS`
before that snapshot was taken. No user-space call sets a ctime back, so an edit that
restores the size and mtime (``touch -r``) is still seen; timestamps can be as coarse as
:data:`RACY_NS`, so a newer file is hashed. Every other file is read and hashed, once;
the bytes read go to the analysis, which then does not read them again. A stdin buffer
is fingerprinted by its own hash and no stat.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pylint_rpcsurface.sources import (
    TIMESTAMP_TICK_NS,
    KnownFile,
    read_source,
    stat_identity,
)

__all__ = [
    "RACY_NS",
    "TICK_NS",
    "Fingerprint",
    "Snapshot",
    "buffer_fingerprint",
    "file_fingerprint",
    "file_stat",
    "take_snapshot",
    "trusted_fingerprint",
]

RACY_NS = 2_000_000_000  # timestamps can be this coarse (FAT); newer files are hashed
TICK_NS = TIMESTAMP_TICK_NS  # the coarsest clock tick of a write's ctime (sources.py)


@dataclass(frozen=True)
class Fingerprint:
    """One module's version: its text's hash, and the stat that lets us skip hashing."""

    stat: tuple[int, ...] | None  # None for a stdin buffer: only its hash identifies it
    sha256: str

    def settled_before(self, moment_ns: int) -> bool:
        """Whether the file was last written (mtime and ctime) before *moment_ns*."""
        return self.stat is not None and max(self.stat[1], self.stat[2]) < moment_ns

    def same_text(self, other: Fingerprint | None) -> bool:
        """Whether *other* is a version with the same text (a buffer and the saved file
        that holds what it holds are)."""
        return other is not None and other.sha256 == self.sha256


@dataclass(frozen=True)
class Snapshot:
    taken_ns: int
    modules: Mapping[str, Fingerprint | None]  # None: the file could not be read
    # The bytes of the files this snapshot read (not those a known fingerprint gave), for
    # the analysis of the same run: never stored, and no part of what is compared.
    read: Mapping[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    def known_files(self) -> dict[str, KnownFile]:
        """The saved files' hashes with the stat each was taken at, and the bytes when
        this snapshot read them, for the analysis (buffers have no stat; the analysis has
        their text)."""
        return {
            path: KnownFile(*fp.stat, fp.sha256, self.read.get(path))
            for path, fp in self.modules.items()
            if fp is not None and fp.stat is not None and len(fp.stat) == 5
        }

    def settled(self) -> bool:
        """Whether no saved file was written so close to this snapshot that a write during
        the run could share its timestamp (what such a run computed is not kept)."""
        since = self.taken_ns - TICK_NS
        return all(
            fp is None or fp.stat is None or fp.settled_before(since)
            for fp in self.modules.values()
        )


def file_stat(path: str) -> tuple[int, ...] | None:
    """The file's full stat (see ``sources.stat_identity``), or None if it has none."""
    try:
        return stat_identity(os.stat(path))
    except (OSError, ValueError):
        return None


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def buffer_fingerprint(text: str) -> Fingerprint:
    return Fingerprint(None, _hash(text.encode("utf-8", errors="surrogatepass")))


def file_fingerprint(path: str, read: dict[str, bytes] | None = None) -> Fingerprint | None:
    """The file's fingerprint, read now; the bytes hashed go to *read*."""
    try:
        data, info = read_source(path)
    except OSError:
        return None
    if read is not None:
        read[path] = data
    return Fingerprint(stat_identity(info), _hash(data))


def trusted_fingerprint(path: str, known: Snapshot | None) -> Fingerprint | None:
    """*known*'s fingerprint of the file at *path* if it still holds without reading the
    file: recorded from the file (not a buffer), settled :data:`RACY_NS` before *known*
    was taken, and the same full stat now. None otherwise: the file is to be read."""
    if known is None:
        return None
    recorded = known.modules.get(path)
    if recorded is None or not recorded.settled_before(known.taken_ns - RACY_NS):
        return None
    return recorded if file_stat(path) == recorded.stat else None


def take_snapshot(
    modules: Sequence[str], buffers: Mapping[str, str], known: Snapshot | None
) -> Snapshot:
    """Fingerprint every module of *modules* now: a buffer of *buffers* (real path: text)
    by its text, a saved file by *known*'s fingerprint where it can be trusted, else by
    reading it."""
    taken_ns = time.time_ns()
    fingerprints: dict[str, Fingerprint | None] = {}
    read: dict[str, bytes] = {}
    for path in modules:
        if path in buffers:
            fingerprints[path] = buffer_fingerprint(buffers[path])
        else:
            fingerprints[path] = trusted_fingerprint(path, known) or file_fingerprint(path, read)
    return Snapshot(taken_ns, fingerprints, read)

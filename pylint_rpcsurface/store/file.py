"""The store's file: its format, and reading it without trusting it.

A store file is one JSON object: the format, the identity it was written for, the
libraries its pieces read and where the names they looked up resolved, the engine's
pieces (``facts``, ``pieces``, ``digests``), the last run's ``snapshot`` of the files and
the ``findings``. Nothing here imports astroid or pylint: the warm path reads it.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.store import codec
from pylint_rpcsurface.store.snapshot import file_stat

__all__ = ["FORMAT", "NOT_LOCATED", "Stored", "folder_problem", "read_store"]

FORMAT = 4  # 4: one store (findings, snapshot and pieces in one file)
MAX_FILE_BYTES = 256 * 1024 * 1024  # a store file bigger than this is not read
NOT_LOCATED = "<error>"  # a finder raised: never equal to anything, so always a miss


def _users_own(info: os.stat_result) -> bool:
    """Whether a store file or folder is this user's alone: owned by them and not
    writable by group or others. Windows has no such bits; the folder is the user's own
    there."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    return info.st_uid == getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def folder_problem(folder: Path) -> tuple[str, str] | None:
    """Why *folder* can't hold the store, as (the path at fault, why); None when it can.

    It is made (``0700``, with its parents) if missing, and must then be a folder that
    this user alone owns and may write, in a folder no one else may write. Any failure
    to make or check it is a reason (a path too long, one under ``/proc``, a file where
    a folder should be, a home folder that isn't writable), never an exception."""
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        info = os.lstat(folder)
        parent = os.stat(folder.parent)
    except OSError as error:
        where = str(folder) if error.filename is None else os.fsdecode(error.filename)
        return where, error.strerror or str(error)
    if not stat.S_ISDIR(info.st_mode):
        return str(folder), "not a folder"
    if not (_users_own(info) and _users_own(parent)):
        return str(folder), "another user owns it or its folder, or others may write there"
    # A read-only mount stops root too, whatever the mode bits say.
    if not os.access(folder, os.W_OK | os.X_OK):
        return str(folder), "can't be written"
    return None


@dataclass(frozen=True)
class Stored:
    """What a store file of this identity holds, each section as read (the memo decodes
    its pieces when a run asks for them)."""

    # Modules outside the project the pieces read: name to (file, full stat).
    externals: Mapping[str, tuple[str, tuple[int, ...]]]
    resolution: Mapping[str, str | None]  # module name: where it resolved (see locate)
    sections: Mapping[str, Any]  # "facts", "pieces", "digests", "snapshot", "findings"


def read_store(
    file: Path,
    identity: str,
    locate_now: Callable[[str], str | None] | None = None,
    *,
    check_owner: bool = True,
) -> Stored | None:
    """The store in *file* if it is a regular file (of this user's, when *check_owner*)
    within the size cap, written for *identity*, and every library it read and every name
    it looked up is as it was (*locate_now*: where a name resolves now); None otherwise,
    whatever it holds."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(file, flags)
        with os.fdopen(handle, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode) or (check_owner and not _users_own(info)):
                return None
            if info.st_size > MAX_FILE_BYTES:
                return None
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    # A store holds a few hundred thousand JSON values, none in a cycle: without the
    # pause, allocating them sets off collections that walk every object alive, astroid's
    # trees of the modules pylint built before the analysis began (most of a run's read).
    with no_cyclic_collection(settle=False):
        return _stored(data, identity, locate_now)


def _stored(
    data: bytes, identity: str, locate_now: Callable[[str], str | None] | None
) -> Stored | None:
    """The store *data* holds (see :func:`read_store`), or None."""
    try:
        raw = json.loads(data)
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            return None
        if raw.get("identity") != identity:
            return None
        externals: dict[str, tuple[str, tuple[int, ...]]] = {}
        for entry in codec.listed(raw.get("externals")):
            name, path, *info_now = codec.listed(entry)
            if not (isinstance(name, str) and isinstance(path, str)) or len(info_now) != 5:
                return None
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in info_now):
                return None
            if file_stat(path) != tuple(info_now):
                return None  # a library changed: every piece may read it
            externals[name] = (path, tuple(info_now))
        resolution: dict[str, str | None] = {}
        for entry in codec.listed(raw.get("resolution")):
            name, where = codec.listed(entry)
            if not isinstance(name, str) or not (where is None or isinstance(where, str)):
                return None
            if where == NOT_LOCATED or (locate_now is not None and locate_now(name) != where):
                return None  # installed, removed or moved since: what did it give?
            resolution[name] = where
        sections = {key: raw.get(key) for key in ("facts", "pieces", "digests")}
        if not all(isinstance(value, dict) for value in sections.values()):
            return None
        sections["snapshot"] = raw.get("snapshot")
        sections["findings"] = raw.get("findings")
        return Stored(externals, resolution, sections)
    except (ValueError, TypeError, KeyError, RecursionError, MemoryError, OverflowError):
        return None  # malformed in any way: never a traceback

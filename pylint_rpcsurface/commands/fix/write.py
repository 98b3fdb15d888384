"""Reading a registry's file and writing it back, losing nothing.

:func:`update` reads the file, plans the new text from exactly the bytes it read, and
writes only if the file is still what it planned from; when it changed (another inode
at the path, or bytes that are not the ones read plus an append) it plans again from
the new text, up to :data:`ATTEMPTS` times, then refuses. A file that is read-only for
this user (for root: with no write bit) is refused unless forced. The file keeps its
encoding, BOM and newlines (the plan's business) and its owner, group and mode.

Two ways to write, one per file:

* **rename** (the usual one): a temporary file in the same folder (named so that no
  tool takes it for a module), given the file's owner, group and mode and fsynced,
  then ``os.replace``: a killed ``fix`` leaves the old file or the new one, never a
  mix. What another program appended to the old file since it was read (it holds that
  inode open) is appended to the new one; anything else written to it in that moment
  is saved beside it, and ``fix`` says where.
* **in place**, for a file a rename would change for good: one with more than one hard
  link (a rename would split them), or whose owner or group ``fix`` can't give a new
  file. The old bytes are saved (fsynced) in a temporary file beside it until the new
  ones are written and fsynced: a kill in the middle can leave the file torn, but the
  old text is in that temporary file.

On Linux a lease (``fcntl(F_SETLEASE)``) is held from the read to the write: another
program that opens the file for writing meanwhile waits (milliseconds) until ``fix``
is done, then writes the old inode (renamed: carried over as above) or, in place, the
new text. Without a lease (not Linux, a file ``fix`` may not lease, or, in place, a
reader that keeps the file open), a write that lands between the last compare and the
write (microseconds) can be lost, or, renamed, one begun before the rename and landing
more than 20 ms after it. docs/reliability.md, section 6, lists each case.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import io
import os
import stat
import sys
import tempfile
import time
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pylint_rpcsurface.commands.fix.edit import Refused
from pylint_rpcsurface.sources import MAX_SOURCE_BYTES

ATTEMPTS = 3  # plans of one file before fix gives up on a file that keeps changing
_LEASE_WAIT = 2.0  # seconds to wait for another program to close the file it writes
_SETTLE = 0.02  # seconds given, without a lease, to a write begun before the rename


@dataclass(frozen=True)
class SourceFile:
    path: str
    data: bytes
    encoding: str
    text: str

    @classmethod
    def read(cls, path: str) -> SourceFile:
        with open(path, "rb") as stream:
            return cls.decode(path, stream.read())

    @classmethod
    def decode(cls, path: str, data: bytes) -> SourceFile:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError) as error:
            raise Refused(1, f"the file can't be decoded: {error}") from None
        return cls(path, data, encoding, text)

    @classmethod
    def undecoded(cls, path: str, data: bytes) -> SourceFile:
        """The bytes alone, for a planner that reads them itself (a TOML file is
        UTF-8 whatever a comment on its first line says)."""
        return cls(path, data, "utf-8", "")

    def encode(self, text: str) -> bytes:
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as error:
            raise Refused(1, f"the new text can't be written in {self.encoding}: {error}") from None


Planner = Callable[[SourceFile], "bytes | None"]
Decoder = Callable[[str, bytes], SourceFile]


class _Changed(Exception):
    """The file no longer holds what was planned from: plan again."""


class _HeldOpen(Exception):
    """Another program keeps the file open for writing past the wait."""


@dataclass(frozen=True)
class _Writer:
    """How one call of :func:`update` plans and writes, and which command it is."""

    planner: Planner
    decode: Decoder
    force: bool
    command: str

    @property
    def rerun(self) -> str:
        return f"re-run `rpcsurface {self.command}`"


def update(
    path: str,
    planner: Planner,
    *,
    force: bool = False,
    command: str = "fix",
    decode: Decoder = SourceFile.decode,
) -> bool:
    """Write ``planner(file)`` over *path* if the file still holds what it was planned
    from; plan again when it changed, up to :data:`ATTEMPTS` times. False when there is
    nothing to change; :class:`Refused` when the file is not a regular file within the
    size cap, is read-only (unless *force*), keeps changing, or is held open for writing
    by another program; OSError when it can't be read or written. *command* is the one
    the messages tell to re-run; *decode* turns the bytes read into the planner's file.

    A link (a registry module linked into the source roots) is written through: the file
    it points to is replaced, and the link stays."""
    path = os.path.realpath(path)
    writer = _Writer(planner, decode, force, command)
    for _ in range(ATTEMPTS):
        status = os.stat(path)
        _check_regular(status)
        try:
            if status.st_nlink > 1 or not _owner_kept_by_rename(path, status):
                return _write_in_place(path, writer)
            return _replace(path, writer)
        except _Changed:
            continue
        except _HeldOpen:
            raise Refused(
                1,
                "another program keeps the file open for writing; nothing written: "
                f"close it and {writer.rerun}",
            ) from None
    raise Refused(
        1,
        f"the file changed while {command} was writing it, {ATTEMPTS} times; "
        f"nothing written: {writer.rerun}",
    )


def create(path: str, data: bytes) -> bool:
    """Create *path* holding *data*, atomically and only if nothing is there: False
    when something is (then :func:`update` it). The new file's mode is what the umask
    (and a default ACL) gives a file created for reading and writing, as an editor's."""
    folder, name = os.path.split(os.path.abspath(path))
    # The kernel applies the umask to the mode asked for: asking for 0o666 gives the
    # user's usual mode, where a temporary file from tempfile would be 0o600.
    for _ in range(100):
        temporary = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.rpcsurface.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), folder)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        # A link, unlike a rename, fails when the path exists: what another program
        # created meanwhile is never replaced unread.
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return True


def _check_regular(status: os.stat_result) -> None:
    """Refuse what is not a regular file within the cap: a FIFO would block the read,
    a device (a link to /dev/zero) would never end."""
    if not stat.S_ISREG(status.st_mode):
        raise Refused(1, "not a regular file; nothing written")
    if status.st_size > MAX_SOURCE_BYTES:
        raise Refused(1, f"over the {MAX_SOURCE_BYTES}-byte size cap; nothing written")


def _open(path: str, flags: int) -> int:
    """*path* opened without blocking (a FIFO put in its place can't hang the open) and
    checked on the descriptor: what is read is what was checked."""
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        _check_regular(os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_atomically(path: str, data: bytes) -> None:
    """Put *data* in *path*, whatever it holds now, as :func:`update` writes."""
    update(path, lambda _: data, force=True)


def _planned(path: str, writer: _Writer, data: bytes, status: os.stat_result) -> bytes | None:
    new = writer.planner(writer.decode(path, data))
    if new is None or new == data:
        return None
    if not writer.force and _read_only(status):
        raise Refused(1, "the file is read-only; pass --force to write it anyway")
    return new


def _replace(path: str, writer: _Writer) -> bool:
    """Plan from *path* and rename a temporary file holding the new text over it, if it
    is still the inode read and starts with the bytes read. What another program
    appends to the old inode meanwhile is appended to the new file."""
    with open(_open(path, os.O_RDONLY), "rb") as held:
        fd = held.fileno()
        with _lease(fd, writing=False) as lease:
            status = os.fstat(fd)
            data = _read_all(fd)
            new = _planned(path, writer, data, status)
            if new is None:
                return False
            temporary = _temporary(path, new, status)
            try:
                now = os.stat(path)
                if (now.st_dev, now.st_ino) != (status.st_dev, status.st_ino):
                    raise _Changed
                if not _read_all(fd).startswith(data):
                    raise _Changed
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        # The lease is released: the writes it held up reach the old inode now.
        _settle(fd, leased=lease.held)
        old = _read_all(fd)
    if old != data:
        _carry_over(path, data, old, writer)
    return True


def _carry_over(path: str, data: bytes, old: bytes, writer: _Writer) -> None:
    """Another program wrote the old file (which held *data* and now holds *old*) after
    it was read: append what it appended to the new file; save anything else."""
    if old.startswith(data):
        with open(path, "ab") as stream:
            stream.write(old[len(data) :])
        return
    saved = _saved(path, old)
    raise Refused(
        1,
        f"another program rewrote the file while {writer.command} replaced it; "
        f"{writer.command}'s text is in place and theirs is saved in {saved}: merge them "
        f"by hand and {writer.rerun}",
    )


def _saved(path: str, data: bytes) -> str:
    folder, name = os.path.split(os.path.abspath(path))
    handle, saved = tempfile.mkstemp(prefix=f"{name}.", suffix=".rpcsurface-saved", dir=folder)
    with os.fdopen(handle, "wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    return saved


def _read_all(fd: int) -> bytes:
    """The file's bytes; :class:`Refused` once they pass the cap (a file that grows
    without end)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    size = 0
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_SOURCE_BYTES:
            raise Refused(1, f"over the {MAX_SOURCE_BYTES}-byte size cap; nothing written")
    return b"".join(chunks)


def _read_only(status: os.stat_result) -> bool:
    """No write permission for this user; for root (whom none stops), no write bit."""
    mode = stat.S_IMODE(status.st_mode)
    if not hasattr(os, "geteuid"):
        return not mode & stat.S_IWUSR
    uid = os.geteuid()
    if uid == 0:
        return not mode & 0o222
    if uid == status.st_uid:
        return not mode & stat.S_IWUSR
    if status.st_gid in {os.getegid(), *os.getgroups()}:
        return not mode & stat.S_IWGRP
    return not mode & stat.S_IWOTH


def _owner_kept_by_rename(path: str, status: os.stat_result) -> bool:
    """Whether a new file could be given *path*'s owner and group."""
    if not hasattr(os, "geteuid"):
        return True
    if os.geteuid() == 0:
        return True
    if status.st_uid != os.geteuid():
        return False
    groups = {os.getegid(), *os.getgroups()}
    return status.st_gid in groups or _folder_gid(path) == status.st_gid


def _folder_gid(path: str) -> int | None:
    """The group a new file in *path*'s folder gets when the folder is setgid."""
    folder = os.stat(os.path.dirname(os.path.abspath(path)))
    return folder.st_gid if folder.st_mode & stat.S_ISGID else None


def _temporary(path: str, data: bytes, status: os.stat_result | None) -> str:
    """A fsynced file beside *path* holding *data* (with *status*'s owner, group and
    mode), named so that no tool takes a leftover for a module."""
    folder, name = os.path.split(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".rpcsurface.tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            if status is not None:
                mine = os.fstat(stream.fileno())
                if (mine.st_uid, mine.st_gid) != (status.st_uid, status.st_gid):
                    os.chown(temporary, status.st_uid, status.st_gid)
                os.chmod(temporary, stat.S_IMODE(status.st_mode))
            os.fsync(stream.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


def _write_in_place(path: str, writer: _Writer) -> bool:
    """Plan from *path* and write the new text into its own inode; the old bytes are
    kept beside it until the new ones are on disk."""
    try:
        fd = _open(path, os.O_RDWR)
        writable = True
    except PermissionError:  # read-only: refused below, or an error when forced
        fd = _open(path, os.O_RDONLY)
        writable = False
    try:
        with _lease(fd, writing=True) as lease:
            status = os.fstat(fd)
            data = _read_all(fd)
            new = _planned(path, writer, data, status)
            if new is None:
                return False
            if not writable:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
            backup = _temporary(path, data, None)
            try:
                if not lease.held and _read_all(fd) != data:
                    raise _Changed
                os.lseek(fd, 0, os.SEEK_SET)
                view = memoryview(new)
                while view:
                    view = view[os.write(fd, view) :]
                os.ftruncate(fd, len(new))
                os.fsync(fd)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(backup)
    finally:
        os.close(fd)
    return True


@dataclass(frozen=True)
class _Lease:
    """Whether a lease is held on the file: while it is, another program that opens it
    for writing (a write lease: at all) waits until it is released."""

    held: bool


if sys.platform == "linux":
    import fcntl
    import signal

    @contextlib.contextmanager
    def _lease(fd: int, *, writing: bool) -> Iterator[_Lease]:
        """Hold a lease on *fd* in the block: a read lease once no other program has the
        file open for writing, a write lease once none has it open at all. None when fix
        may not lease the file (another user's, a file system without leases), or, for
        a write lease, when a reader keeps it open."""
        kind = fcntl.F_WRLCK if writing else fcntl.F_RDLCK
        try:
            # A lease break is signalled with SIGURG, which does nothing by default,
            # rather than SIGIO, which would end fix.
            fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
            held = _take_lease(fd, kind, writing=writing)
        except OSError:
            held = False
        try:
            yield _Lease(held)
        finally:
            if held:
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)

    def _take_lease(fd: int, kind: int, *, writing: bool) -> bool:
        deadline = time.monotonic() + (_LEASE_WAIT / 10 if writing else _LEASE_WAIT)
        while True:
            try:
                fcntl.fcntl(fd, fcntl.F_SETLEASE, kind)
                return True
            except OSError as error:
                if error.errno != errno.EAGAIN:
                    return False
            if time.monotonic() > deadline:
                if writing:
                    return False
                raise _HeldOpen
            time.sleep(0.001)

    def _settle(fd: int, *, leased: bool) -> None:
        """Wait (up to a limit) until no other program has *fd*'s file open for
        writing, so that the writes it began have landed."""
        if not leased:
            time.sleep(_SETTLE)
            return
        deadline = time.monotonic() + _LEASE_WAIT
        with contextlib.suppress(OSError):
            while time.monotonic() < deadline:
                try:
                    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
                except OSError as error:
                    if error.errno != errno.EAGAIN:
                        return
                    time.sleep(0.001)
                    continue
                fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
                return

else:

    @contextlib.contextmanager
    def _lease(fd: int, *, writing: bool) -> Iterator[_Lease]:
        del fd, writing  # no leases here
        yield _Lease(False)

    def _settle(fd: int, *, leased: bool) -> None:
        del fd, leased  # nothing tells when a write has landed: give it a moment
        time.sleep(_SETTLE)


def unified_diff(shown: str, old: str, new: str) -> str:
    """The change from *old* to *new* as a unified diff of the file *shown*."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)

"""The project's source files: where they are and what module each one is.

Module identity comes from paths, never from the names pylint or astroid gave a module:
in a tree with implicit namespace packages pylint names ``atom/model_engine/engine_core.py``
``engine_core`` (or ``model_engine.engine_core``), and two files may share a basename.
Here a file's module name is its path relative to the deepest source root holding it.

Nothing here imports astroid or pylint, so the command line's cache check can list and
fingerprint the project without paying for either.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import tempfile
import tokenize
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Folders that never hold the project's own importable modules.
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})

# The largest source file read, in bytes. The largest hand-written modules of big Python
# projects are a few hundred kilobytes and generated ones a few megabytes; 10 MB leaves
# room for those and still bounds what a file that never ends (a link to /dev/zero) or a
# data dump named .py can cost: nothing bigger is read, hashed or parsed.
MAX_SOURCE_BYTES = 10 * 1024 * 1024
# The coarsest clock tick of a write's timestamps (a Linux jiffy, Windows): a file whose
# mtime and ctime are older than a moment by more than this was written before it.
TIMESTAMP_TICK_NS = 20_000_000

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class UnreadableSource(OSError):
    """A file under the roots that is not read: not a regular file, or over the cap."""


def _refusal(info: os.stat_result) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        kind = next((what for test, what in _KINDS if test(info.st_mode)), "not a file")
        return f"not read: {kind}, not a regular file"
    if info.st_size > MAX_SOURCE_BYTES:
        return f"not read: {info.st_size} bytes, over the {MAX_SOURCE_BYTES}-byte size cap"
    return None


def unreadable_reason(path: str) -> str | None:
    """Why the file at *path* (symlinks followed) is never read, or None if it may be.

    Only ``stat``: a FIFO is never opened, so nothing can block on it.
    """
    try:
        info = os.stat(path)
    except OSError:
        return None  # missing or unreachable: reading it fails as for any such file
    return _refusal(info)


def as_identifiers(text: str) -> str:
    """*text* with its names as Python reads them, NFKC-normalized (``Core`` written in
    fullwidth letters names ``Core``), for the searches of names in source text; ASCII
    text as it is."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def stat_identity(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What changes whenever a file's content does, as (size, mtime, ctime, inode,
    device): a write sets the ctime, which nothing sets back, and a rename over the file
    gives another inode."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


@dataclass(frozen=True)
class KnownFile:
    """A file's content hash, known from an earlier read, and the stat it had then.

    The hash holds while the file's stat is exactly that: any write changes its ctime,
    which nothing sets back, and a rename over it its inode (the cache trusts a stat only
    once the file settled, see ``store/snapshot.py``)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    device: int
    sha256: str
    # The bytes hashed, when the reader kept them (the store's snapshot of this run):
    # the analysis then reads that version instead of the file a second time.
    data: bytes | None = field(default=None, compare=False, repr=False)

    @property
    def identity(self) -> tuple[int, int, int, int, int]:
        """The stat the hash was taken at, as :func:`stat_identity` gives it."""
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode, self.device)

    def matches(self, info: os.stat_result) -> bool:
        return stat_identity(info) == self.identity


def read_source(path: str) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file at *path* and its stat, at most the cap.

    Opened without blocking (a FIFO put in place after a check can't hang the open) and
    checked on the open descriptor, so what is read is what was checked. Raises
    :class:`UnreadableSource`, an OSError, for anything but a regular file within the cap.
    """
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(handle)
        reason = _refusal(info)
        if reason is not None:
            raise UnreadableSource(f"{path}: {reason}")
        data = _read_all(handle, info.st_size)
    finally:
        os.close(handle)
    if len(data) > MAX_SOURCE_BYTES:  # it grew since the stat
        raise UnreadableSource(f"{path}: not read: over the {MAX_SOURCE_BYTES}-byte size cap")
    return data, info


def _read_all(handle: int, size: int) -> bytes:
    """What is left to read from *handle*, up to one byte over the cap, asking first for
    the *size* its stat gave (and a byte more, to see the end). A buffered stream's
    ``read(cap + 1)`` sizes its buffer by the cap, allocating the cap's bytes for every
    file, however small."""
    chunks: list[bytes] = []
    left = MAX_SOURCE_BYTES + 1
    ask = size + 1
    while left > 0:
        chunk = os.read(handle, min(max(ask, 1 << 16), left))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def decode_source(data: bytes) -> tuple[str, str | None]:
    """The text of a source file's *data*, and why it can't be decoded (or None).

    As Python reads a module: a BOM or a PEP 263 coding cookie names the encoding, UTF-8
    otherwise. When the bytes are not text in that encoding (latin-1 bytes with no cookie,
    UTF-16, a cookie naming an unknown codec), the text is the UTF-8 reading with the bad
    bytes replaced, and the reason says why: a word search over it may miss any word.
    """
    declared: str | None = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # a cookie naming no codec, or invalid UTF-8 up front
        encoding, declared = "utf-8", str(error.msg)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        reason = (
            f"can't be decoded as {encoding}: byte 0x{data[error.start]:02x} at offset "
            f"{error.start} ({error.reason})"
        )
    else:
        if declared is None:
            return text, None
        reason = f"can't be decoded: {declared}"
    return data.decode("utf-8", errors="replace"), reason


def real(path: str | os.PathLike[str]) -> str:
    """*path* with symlinks and ``..`` resolved (see :meth:`SourceTree.key` for the key a
    project file is known by).

    A relative path whose folder was removed (the current folder deleted under the
    process) has no real path: it is returned as it is.
    """
    try:
        return os.path.realpath(os.fspath(path))
    except FileNotFoundError:
        return os.fspath(path)


def path_keys(path: str | os.PathLike[str]) -> Iterator[str]:
    """The paths a file may be known by, most resolved first: its real path, then with
    ever longer tails of *path* left as written (the folders above them resolved).

    :meth:`SourceTree.key` picks the first under a source root; whoever holds a path
    without the tree (a finding's file, as pylint names it) finds the key among these.
    Lazy: the real path is all most look-ups need.
    """
    first = real(path)
    yield first
    try:
        head, tail = os.path.abspath(os.fspath(path)), ""
    except FileNotFoundError:  # relative, and the current folder was removed
        return
    while True:
        head, name = os.path.split(head)
        if not name:
            return
        tail = os.path.join(name, tail) if tail else name
        candidate = os.path.join(real(head), tail)
        if candidate != first:
            yield candidate


def _is_identifier_path(parts: tuple[str, ...]) -> bool:
    return bool(parts) and all(part.isidentifier() for part in parts)


class SourceTree:
    """Maps files under the source roots to fully qualified module names and back."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self.roots = tuple(real(root) for root in roots)
        # The deepest root wins when roots nest ("." and "src"), as Python would import
        # a module from the more specific path entry.
        self._by_depth = sorted(self.roots, key=lambda r: r.count(os.sep), reverse=True)
        self._files: tuple[str, ...] | None = None
        self._module_files: dict[str, str] | None = None
        # Each path's key, resolved once: a tree lives for one run, which sees one state
        # of the links (resolving them is most of what finding a helper's file costs).
        self._keys: dict[str, str] = {}
        # What each module name names, looked up once for the same reason: the helper
        # filter asks it of every standard-library import a call starts from.
        self._located: dict[str, tuple[str, ...]] = {}
        self._names: dict[str, str | None] = {}  # each key's module name (module_name)

    def key(self, path: str | os.PathLike[str]) -> str:
        """The path the file at *path* is known by: in the project when *path* is under a
        source root, whatever its links point to.

        Its real path when that is under a root (so a link to another file of the project
        is that file, never a second module). A link under a root that points outside
        every root is still a file of the project, known by its own path there: the
        shortest tail of *path* left unresolved that puts it under a root (the folders
        above resolved, so that the roots' own links don't matter). Anything else: its
        real path.
        """
        asked = os.fspath(path)
        known = self._keys.get(asked)
        if known is None:
            keys = path_keys(asked)
            known = next(keys)
            if not self._under_a_root(known):
                known = next((key for key in keys if self._under_a_root(key)), known)
            self._keys[asked] = known
        return known

    def _under_a_root(self, path: str) -> bool:
        return any(path.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)

    def module_name(self, path: str) -> str | None:
        """The module name of the file at *path*, or None outside every source root."""
        key = self.key(path)
        # Asked of every code a run's callers reach, thousands of times: once a key.
        if key not in self._names:
            self._names[key] = self._name_of_real(key)
        return self._names[key]

    def module_files(self) -> dict[str, str]:
        """Each module name of the tree's files, with the file Python would import for it.

        Only names given by more than one file (``pkg.py`` beside ``pkg/__init__.py``, or
        the same module under two roots) need :meth:`locate`'s answer.
        """
        if self._module_files is None:
            candidates: dict[str, list[str]] = {}
            for path in self.python_files():  # keys already
                name = self._name_of_real(path)
                if name is not None:
                    candidates.setdefault(name, []).append(path)
            chosen: dict[str, str] = {}
            for name, paths in candidates.items():
                located = self.locate(name) if len(paths) > 1 else (paths[0],)
                if located and os.path.isfile(located[0]):
                    chosen[name] = located[0]
            self._module_files = chosen
        return self._module_files

    def _name_of_real(self, path: str) -> str | None:
        for root in self._by_depth:
            if path == root or not path.startswith(root.rstrip(os.sep) + os.sep):
                continue
            # Plain string work: the paths are real (normalized), and this runs for
            # every file of the tree on every run.
            stem, dot, suffix = path[len(root.rstrip(os.sep)) + 1 :].rpartition(".")
            if not dot or suffix not in ("py", "pyi"):
                return None
            parts = tuple(stem.split(os.sep))
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join(parts) if _is_identifier_path(parts) else None
        return None

    def locate(self, modname: str) -> tuple[str, ...]:
        """What *modname* names under the roots: one file, or the folders of a namespace
        package (several roots may each hold a part of it), or nothing."""
        located = self._located.get(modname)
        if located is None:
            located = self._located[modname] = self._locate(modname)
        return located

    def _locate(self, modname: str) -> tuple[str, ...]:
        parts = modname.split(".")
        if not _is_identifier_path(tuple(parts)):
            return ()
        folders: list[str] = []
        for root in self.roots:
            base = os.path.join(root, *parts)
            for candidate in (os.path.join(base, "__init__.py"), base + ".py"):
                # Not only regular files: a FIFO named pkg.py is still what the name
                # names, a module that is never read (see read_source).
                if os.path.exists(candidate) and not os.path.isdir(candidate):
                    return (self.key(candidate),)
            if os.path.isdir(base):
                folders.append(self.key(base))
        return tuple(folders)

    def top_level_names(self) -> frozenset[str]:
        """The first component of every module name the roots provide."""
        names: set[str] = set()
        for root in self.roots:
            with contextlib.suppress(OSError):
                for entry in os.listdir(root):
                    stem = entry[:-3] if entry.endswith(".py") else entry
                    if stem.isidentifier():
                        names.add(stem)
        return frozenset(names)

    def python_files(self) -> tuple[str, ...]:
        """Every importable .py file under the roots, sorted; listed once per tree."""
        if self._files is None:
            found: set[str] = set()
            for root in self.roots:
                for folder, name, is_link in _walk_python_files(root):
                    found.add(self._walked_key(folder, name, is_link))
            self._files = tuple(sorted(found))
        return self._files

    def _walked_key(self, folder: str, name: str, is_link: bool) -> str:
        """:meth:`key` of a file the walk found. The walk starts at a root's real path
        and never enters a linked folder, so a file that is not a link is already known
        by its real path: no link to resolve, no system call."""
        path = os.path.join(folder, name)
        if is_link or not self._under_a_root(path):
            return self.key(path)
        self._keys[path] = path
        return path


# The folders whose modules are tests (and their helpers), never the project's surface:
# init reads no caller or handler there.
TEST_FOLDERS = frozenset({"tests", "test"})


def shown_path(path: str, project: Path) -> str:
    """*path* as init's evidence shows it: relative to *project*, with forward slashes
    (as it is when it lies on another drive)."""
    try:
        return Path(os.path.relpath(path, project)).as_posix()
    except ValueError:
        return path


def may_hold_project_code(folder: str) -> bool:
    """Whether the walk of a source root enters *folder* (a folder, not a link to one):
    hidden folders (.git, .venv, .tox), caches and virtualenvs hold no project code, and
    folders whose names are not identifiers can't be packages."""
    name = os.path.basename(folder)
    return (
        not name.startswith(".")
        and name not in _SKIPPED_DIRS
        and name.isidentifier()
        and not os.path.exists(os.path.join(folder, "pyvenv.cfg"))
    )


def _walk_python_files(root: str) -> Iterator[tuple[str, str, bool]]:
    """Each importable ``.py`` file under *root* as (its folder, its name, whether it is
    a symbolic link), as ``os.walk`` lists them (links to folders are not entered, any
    entry that is not a folder is a file); the directory entries tell links apart without
    a system call per file."""
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue  # as os.walk: a folder that can't be listed holds nothing
        folders: list[str] = []
        for entry in listed:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            name = entry.name
            if is_dir:
                if not entry.is_symlink() and may_hold_project_code(entry.path):
                    folders.append(entry.path)
            elif name.endswith(".py") and name[:-3].isidentifier():
                yield folder, name, entry.is_symlink()
        pending.extend(sorted(folders, reverse=True))


def write_atomically(target: Path, data: bytes) -> None:
    """Replace *target* with *data*: a temporary file in its folder, then a rename, so
    concurrent readers and writers (``-j``, pre-commit and the editor) never see a torn
    file. The engine's memo is written the same way."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# Python's lines: it breaks only at \r\n, \r and \n. str.splitlines also breaks at a
# form feed, \x0b, \x1c-\x1e, \x85, U+2028 and U+2029, which in a string or a comment are
# text: the syntax tree's line numbers do not count them.
_PYTHON_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def python_lines(text: str) -> list[str]:
    """*text*'s lines as Python numbers them, each with its line break (and an empty one
    last): ``python_lines(text)[n - 1]`` is line *n* of the syntax tree."""
    return _PYTHON_LINE.findall(text)

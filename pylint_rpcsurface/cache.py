"""The persistent fact cache: one analysis's findings and the fingerprint of all it read.

An analysis reads the whole project (a subclass anywhere can wait on a registry entry), so
its result is valid exactly as long as every module under the source roots is unchanged
and every import resolves as it did. The cache keeps, per configuration and module search
path, the fingerprint of each module (its stat and the SHA-256 of its text), where every
module outside the roots that the analysis read was found (or that it was not found), and
the findings. A later run that finds all of that unchanged answers from the cache without
importing astroid; any difference recomputes everything. So the cache is never stale; at
worst it is useless.

Rules that keep it safe:

* A module's stat (size, mtime, ctime, inode, device) is trusted only when its mtime and
  ctime are at least :data:`_RACY_NS` older than the moment its fingerprint was taken;
  otherwise, or when any of them differs, its text is hashed. No user-space call sets a
  ctime back, so an edit that restores the size and mtime (``touch -r``) is still seen.
* Fingerprints are taken before the analysis and again after it: an entry whose modules
  changed during the run, or were written within :data:`_TICK_NS` of its start (a write
  in the same timestamp tick could go unseen), is not stored.
* A fingerprint reads only the modules it does not already know, under the first rule:
  the one taken before the analysis keeps the hashes of the entry the lookup rejected,
  the one taken after it keeps those taken before; a module whose stat differs, or that
  was written within :data:`_RACY_NS` of when its hash was taken, is read again.
* The stdin buffer is fingerprinted by its own hash and no stat, so it is never taken
  for the saved file, nor the saved file for it.
* Module resolution is part of an entry: its name holds ``sys.path``, and it records, for
  every module name outside the roots that the analysis looked up (found or not), what a
  path search finds for it now (:func:`_locate`, which imports nothing). A library that
  appears, moves or is shadowed later misses. The files of the outside modules that
  inference read are recorded by their stat, so upgrading a library recomputes too.
* Entries live in the user's cache folder (:func:`cache_home`), one folder per project
  keyed by a hash of its real path, created ``0700``. An entry or folder that is not this
  user's, or that others may write, is never read or written; an entry is opened without
  following links or blocking, and one over :data:`_MAX_ENTRY_BYTES` is not read. The old
  in-project ``.rpcsurface_cache/`` is never read: a committed entry would be a forgery.
* Entries are written to a temporary file in the folder and renamed over the old one, so
  concurrent writers (``-j``, pre-commit and the IDE at once) never leave a torn entry.
  An unreadable, malformed or foreign entry (any shape, nesting or size) is a miss.
* Failing to write (no cache folder) only costs speed: nothing is reported.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pylint_rpcsurface import __version__
from pylint_rpcsurface.config import Config, ConfigError
from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.model import Analysis, Finding, Location, Record
from pylint_rpcsurface.sources import (
    TIMESTAMP_TICK_NS,
    KnownFile,
    SourceTree,
    read_source,
    real,
    stat_identity,
    write_atomically,
)

CACHE_DIR_ENV = "RPCSURFACE_CACHE_DIR"
NO_CACHE_ENV = "RPCSURFACE_NO_CACHE"
OLD_CACHE_DIR = ".rpcsurface_cache"  # where 0.x kept entries, in the project: never read
_APP_FOLDER = "pylint-rpcsurface"
_FORMAT = 3  # 3: full stat, module resolution, kept in the user's cache folder
_RACY_NS = 2_000_000_000  # timestamps can be this coarse (FAT); newer files are hashed
_TICK_NS = TIMESTAMP_TICK_NS  # the coarsest clock tick of a write's ctime (sources.py)
_MAX_ENTRY_BYTES = 256 * 1024 * 1024  # an entry bigger than this is not read
_MAX_ENTRIES = 16  # per project folder; the oldest beyond it are removed
_CONFIDENCES = frozenset({"HIGH", "CONTROL_FLOW", "INFERENCE", "INFERENCE_FAILURE", "UNDEFINED"})
_INT_BOUND = 2**63  # every integer of an entry is a stat field, a line or a column
_NOT_LOCATED = "<error>"  # a finder raised: never equal to anything, so always a miss


def disabled_by_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``RPCSURFACE_NO_CACHE`` set to anything but '', '0', 'false' or 'no' turns it off."""
    return environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def cache_home(
    environ: Mapping[str, str] = os.environ, platform: str = sys.platform
) -> Path | None:
    """The folder that holds every project's cache folder, or None when there is none.

    ``RPCSURFACE_CACHE_DIR`` if set; else the user's cache folder: ``%LOCALAPPDATA%`` on
    Windows, ``~/Library/Caches`` on macOS, ``$XDG_CACHE_HOME`` (when absolute) or
    ``~/.cache`` elsewhere, each with a ``pylint-rpcsurface`` folder in it.
    """
    override = environ.get(CACHE_DIR_ENV, "").strip()
    if override:
        return Path(os.path.abspath(override))
    try:
        if platform == "win32":
            local = environ.get("LOCALAPPDATA", "")
            base = Path(local) if os.path.isabs(local) else Path.home() / "AppData" / "Local"
        elif platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            xdg = environ.get("XDG_CACHE_HOME", "")
            base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    except (RuntimeError, KeyError, OSError):  # no home folder to be found
        return None
    return base / _APP_FOLDER


def _trusted(info: os.stat_result) -> bool:
    """Whether a cache file or folder is this user's alone: owned by them and not writable
    by group or others. Windows has no such bits; the folder is the user's own there."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    return info.st_uid == getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _secure_folder(folder: Path, *, create: bool) -> bool:
    """Whether *folder* is a folder this user alone can write (made ``0700`` if *create*)."""
    if create:
        with contextlib.suppress(FileExistsError):
            folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            folder.mkdir(mode=0o700)
    try:
        info = os.lstat(folder)
        parent = os.stat(folder.parent)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _trusted(info) and _trusted(parent)


@dataclass(frozen=True, eq=False, repr=False)
class Fingerprint(Record):
    """One module's version: its text's hash, and the stat that lets us skip hashing."""

    stat: tuple[int, ...] | None  # None for a stdin buffer: only its hash identifies it
    sha256: str

    def settled_before(self, moment_ns: int) -> bool:
        """Whether the file was last written (mtime and ctime) before *moment_ns*."""
        return self.stat is not None and max(self.stat[1], self.stat[2]) < moment_ns


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fingerprint_file(path: str, read: dict[str, bytes]) -> Fingerprint | None:
    """The file's fingerprint; the bytes hashed go to *read*."""
    try:
        data, info = read_source(path)
    except OSError:
        return None
    read[path] = data
    return Fingerprint(stat_identity(info), _hash(data))


def _fingerprint_buffer(text: str) -> Fingerprint:
    return Fingerprint(None, _hash(text.encode("utf-8", errors="surrogatepass")))


def _project_key(config: Config) -> str:
    return _hash(os.fsencode(real(config.root)))[:32]


class FactCache:
    """The cache entry of one configuration and search path, in the user's cache folder."""

    def __init__(self, config: Config, home: Path | None = None) -> None:
        self.config = config
        self.tree = SourceTree(config.source_roots)
        self.home = home if home is not None else cache_home()
        self.folder = None if self.home is None else self.home / _project_key(config)
        self._identity = {
            "format": _FORMAT,
            "plugin": __version__,
            "plugin_code": plugin_code_digest(),
            "astroid": _version_of("astroid"),
            "python": sys.version,
            # The module search path, but the script's folder or the working folder that
            # Python puts first, which differ between `rpcsurface`, `python -m` and
            # `python -c`: what resolves through it is in the entry's resolution record.
            "sys_path": sys.path[1:],
            "config": str(config.path),
            "config_digest": config.digest,
        }
        digest = _hash(json.dumps(self._identity, sort_keys=True).encode())
        self.name = f"analysis-{digest[:32]}.json"
        # The entry the last lookup read and rejected: its hashes spare a fingerprint
        # reading the modules that did not change since (see fingerprint()).
        self._previous: Snapshot | None = None
        # modules() by the buffers' paths: the tree is listed once, and asked four times.
        self._modules: dict[frozenset[str], list[str]] = {}

    @property
    def memo_file(self) -> Path | None:
        """Where the pieces of facts are kept between runs (``engine.memo``), beside the
        entries: one file per configuration and environment, so that the next edit reuses
        what this one computed. None when there is no cache folder we own."""
        if self.folder is None or not _secure_folder(self.folder, create=True):
            return None
        environment = {**self._identity, "pylint": _version_of("pylint")}
        digest = _hash(json.dumps(environment, sort_keys=True).encode())
        return self.folder / f"memo-{digest[:32]}.json"

    def memo_identity(self, overrides: Mapping[str, str]) -> str:
        """What the memo's pieces hold for: the environment and the list of the project's
        files (a module added or removed can change what any name resolves to)."""
        environment = {**self._identity, "pylint": _version_of("pylint")}
        return json.dumps([environment, self.modules(overrides)], sort_keys=True)

    def modules(self, overrides: Mapping[str, str]) -> list[str]:
        """Every module the analysis may read: the roots' files and the stdin buffer's."""
        buffers = frozenset(real(path) for path in overrides)
        if buffers not in self._modules:
            self._modules[buffers] = sorted({*self.tree.python_files(), *buffers})
        return list(self._modules[buffers])

    def fingerprint(self, overrides: Mapping[str, str], since: Snapshot | None = None) -> Snapshot:
        """Fingerprint every module now (before the analysis reads them, and after).

        A file's hash is reused, not read, when a known fingerprint of it is trusted as
        :meth:`lookup` trusts an entry's: its full stat is the same now, and it had
        settled :data:`_RACY_NS` before that fingerprint was taken (no call sets a ctime
        back, and any write after that moment gives a newer one, however coarse the
        clock). The known fingerprints are *since*'s, the snapshot taken before the
        analysis, when given; else those of the entry the last :meth:`lookup` read and
        rejected, if any. Any other file is read and hashed; a buffer always is.
        """
        taken_ns = time.time_ns()
        known = self._previous if since is None else since
        buffers = {real(path): text for path, text in overrides.items()}
        modules: dict[str, Fingerprint | None] = {}
        read: dict[str, bytes] = {}
        for path in self.modules(buffers):
            if path in buffers:
                modules[path] = _fingerprint_buffer(buffers[path])
            else:
                modules[path] = _known(path, known) or _fingerprint_file(path, read)
        return Snapshot(taken_ns, modules, read)

    def lookup(self, overrides: Mapping[str, str]) -> Analysis | None:
        """The cached analysis if every module and import is unchanged; None otherwise."""
        self._previous = None
        if self.folder is None or not _secure_folder(self.folder, create=False):
            return None
        entry = _read_entry(self.folder / self.name, self._identity)
        if entry is None:
            return None  # missing, malformed, foreign or not ours: recompute and overwrite
        self._previous = entry.snapshot
        buffers = {real(path): text for path, text in overrides.items()}
        if set(self.modules(buffers)) != set(entry.snapshot.modules):
            return None  # a module was added or removed
        for path, recorded in entry.snapshot.modules.items():
            if not _unchanged(path, recorded, buffers.get(path), entry.snapshot.taken_ns):
                return None
        for path, recorded_stat in entry.externals.items():
            if _stat(path) != recorded_stat:
                return None
        for name, located in entry.resolution.items():
            if located == _NOT_LOCATED or _locate(name) != located:
                return None  # a library appeared, moved or went away
        return entry.analysis

    def save(  # pylint: disable=too-many-arguments
        self,
        before: Snapshot,
        after: Snapshot,
        analysis: Analysis,
        read: Mapping[str, str],
        failed: Iterable[str],
    ) -> bool:
        """Write the entry atomically, unless an input changed during the analysis.

        *read* maps each module name astroid built to its file, *failed* the module names
        it could not find. Returns whether the entry was written; failing to write only
        means the next run recomputes.
        """
        if self.folder is None or not _unchanged_during(before, after):
            return False
        externals: dict[str, tuple[int, ...]] = {}
        for path in sorted(set(read.values()) - set(before.modules)):
            info = _stat(path)
            if info is not None:
                externals[path] = info
        names = {name for name, path in read.items() if path not in before.modules}
        resolution = {name: _locate(name) for name in sorted(names | set(failed))}
        since = before.taken_ns - _TICK_NS
        for info in externals.values():
            if max(info[1], info[2]) >= since:
                return False  # a library file written during the run: which did we read?
        for located in resolution.values():
            info = _stat(located) if located and os.path.isabs(located) else None
            if info is not None and max(info[1], info[2]) >= since:
                return False  # a module that appeared during the run
        entry = _Entry(self._identity, before, externals, resolution, analysis)
        data = json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":")).encode()
        try:
            if not _secure_folder(self.folder, create=True):
                return False
            write_atomically(self.folder / self.name, data)
        except OSError:
            return False
        _prune(self.folder)
        return True


@dataclass(frozen=True, eq=False, repr=False)
class Snapshot(Record):
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


def _unchanged_during(before: Snapshot, after: Snapshot) -> bool:
    """Whether no module changed between the two snapshots, and none was written so close
    to the first that a write during the analysis could share its timestamp."""
    if before.modules != after.modules:
        return False
    since = before.taken_ns - _TICK_NS
    return all(
        fp is None or fp.stat is None or fp.settled_before(since) for fp in after.modules.values()
    )


def _known(path: str, known: Snapshot | None) -> Fingerprint | None:
    """*known*'s fingerprint of the file at *path* if it still holds without reading the
    file: recorded from the file (not a buffer), settled :data:`_RACY_NS` before *known*
    was taken, and the same full stat now. None otherwise: the file is to be read."""
    if known is None:
        return None
    recorded = known.modules.get(path)
    if recorded is None or not recorded.settled_before(known.taken_ns - _RACY_NS):
        return None
    return recorded if _stat(path) == recorded.stat else None


def _unchanged(path: str, recorded: Fingerprint | None, buffer: str | None, taken_ns: int) -> bool:
    if buffer is not None:
        return (
            recorded is not None
            and recorded.stat is None
            and (_fingerprint_buffer(buffer).sha256 == recorded.sha256)
        )
    if recorded is None:
        return _stat(path) is None
    if recorded.stat is None:
        return False  # recorded from a buffer, now the saved file
    if recorded.settled_before(taken_ns - _RACY_NS) and _stat(path) == recorded.stat:
        return True
    current = _fingerprint_file(path, {})
    return current is not None and current.sha256 == recorded.sha256


def _stat(path: str) -> tuple[int, ...] | None:
    try:
        return stat_identity(os.stat(path))
    except (OSError, ValueError):
        return None


def _locate(modname: str) -> str | None:
    """Where the import system would find *modname* now, without importing anything.

    Each finder of ``sys.meta_path`` is asked, as the import system asks it; a dotted
    name's parent is never imported: its spec's search locations are passed on instead.
    The answer is the file (real path), ``namespace:`` and the folders of a namespace
    package, another origin (``built-in``, ``frozen``), or None when nothing is found.
    """
    parts = modname.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    path: list[str] | None = None
    spec: _Spec | None = None
    try:
        for depth in range(len(parts)):
            if spec is not None:
                if spec.submodule_search_locations is None:
                    return None  # not a package: it has no submodules
                path = [str(location) for location in spec.submodule_search_locations]
            spec = _find_spec(".".join(parts[: depth + 1]), path)
            if spec is None:
                return None
    except Exception:  # pylint: disable=broad-exception-caught  # a third-party finder
        return _NOT_LOCATED
    if spec is None:
        return None
    origin, locations = spec.origin, spec.submodule_search_locations
    if locations is not None and origin in (None, "namespace"):
        return "namespace:" + os.pathsep.join(real(str(p)) for p in locations)
    if isinstance(origin, str) and os.path.isabs(origin):
        return real(origin)
    return str(origin)


class _Spec(Protocol):  # what the cache reads of an importlib ModuleSpec
    origin: str | None
    submodule_search_locations: list[str] | None


def _find_spec(name: str, path: list[str] | None) -> _Spec | None:
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is not None:
            spec = find(name, path)
            if spec is not None:
                return spec  # type: ignore[no-any-return]  # a finder is duck-typed
    return None


def _read_entry(path: Path, identity: Mapping[str, object]) -> _Entry | None:
    """The entry at *path* if it is a regular file of this user's, within the size cap,
    and well formed for *identity*; None otherwise, whatever it holds."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)
        with os.fdopen(handle, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode) or not _trusted(info):
                return None
            if info.st_size > _MAX_ENTRY_BYTES:
                return None
            data = stream.read(_MAX_ENTRY_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_ENTRY_BYTES:
        return None
    try:
        return _Entry.from_json(json.loads(data), identity)
    except (ValueError, TypeError, KeyError, RecursionError, MemoryError, OverflowError):
        return None  # malformed in any way: never a traceback


def _prune(folder: Path) -> None:
    """Keep the newest :data:`_MAX_ENTRIES` entries of a project (one per configuration
    and search path): switching environments must not grow the folder without end."""
    with contextlib.suppress(OSError):
        for kind in ("analysis", "memo"):
            entries = sorted(folder.glob(f"{kind}-*.json"), key=lambda p: p.stat().st_mtime_ns)
            for old in entries[:-_MAX_ENTRIES]:
                with contextlib.suppress(OSError):
                    old.unlink()


# The package whose code is running: this module's folder, the one its imports came from.
_PACKAGE = Path(__file__).resolve().parent


@functools.cache
def plugin_code_digest() -> str:
    """The SHA-256 of the plugin's own code: every ``.py`` file under the package folder,
    sorted by relative path, each by its path and the hash of its bytes.

    ``__version__`` alone keeps serving old findings to an edited plugin (an editable
    install, a wheel rebuilt with the same version), so the entry's identity has this too.

    Computed once per process and kept by ``functools.cache``, not in a module variable: a
    process runs the code it imported (at start-up, or the engine on a miss moments later),
    so reading the files again later in a long-lived process would describe edits it is not
    running. The result is an immutable str: the cache holds nothing anyone can change.
    It reads files only, as the warm path must import neither astroid nor pylint; an
    unreadable file counts by its name alone. It takes about a millisecond.
    """
    digest = hashlib.sha256()
    files = sorted((path.relative_to(_PACKAGE).as_posix(), path) for path in _PACKAGE.rglob("*.py"))
    for relative, path in files:
        try:
            content = _hash(path.read_bytes())
        except OSError:
            content = "unreadable"
        digest.update(f"{relative}\0{content}\n".encode("utf-8", errors="surrogateescape"))
    return digest.hexdigest()


def _version_of(distribution: str) -> str:
    """The version of *distribution* (astroid, pylint): the running module's own when it
    is imported (pylint always is, in pylint mode), else its installed metadata's, which
    costs an import and a search of the path (the warm ``rpcsurface check`` imports
    neither)."""
    version = getattr(sys.modules.get(distribution), "__version__", None)
    if isinstance(version, str):
        return version
    from importlib import metadata  # pylint: disable=import-outside-toplevel  # noqa: PLC0415

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


def analyse_with_cache(
    config: Config,
    overrides: Mapping[str, str],
    *,
    use_cache: bool = True,
    prebuilt: Mapping[str, Any] | None = None,
    failed_imports: Iterable[str] = (),
) -> Analysis:
    """The analysis of *config*'s project, from the cache when nothing changed.

    The engine (and with it astroid) is imported only on a miss. *prebuilt* maps a path
    to the astroid module pylint built from its text (see ``engine.analyse``); it is
    typed loosely here, as this module never imports astroid. *failed_imports* are the
    module names astroid failed to find while pylint built those modules, before the
    analysis: what they did not find is part of what the entry depends on.
    """
    # Imported only on a miss: a cache hit must not pay for importing astroid.
    # pylint: disable=import-outside-toplevel
    if not use_cache:
        from pylint_rpcsurface import engine  # noqa: PLC0415

        return engine.analyse(config, overrides, prebuilt=prebuilt)
    cache = FactCache(config)
    cached = cache.lookup(overrides)
    if cached is not None:
        return cached
    before = cache.fingerprint(overrides)
    from pylint_rpcsurface import engine  # noqa: PLC0415

    memo = engine.Memo(cache.memo_file, cache.memo_identity(overrides), _locate)
    memo.failed_imports.update(failed_imports)
    memo.known_files.update(before.known_files())
    analysis, failed = engine.analyse_recording_failed_imports(
        config, overrides, memo, prebuilt, cache.tree
    )
    after = cache.fingerprint(overrides, since=before)
    read = {**memo.external_modules(), **engine.modules_astroid_has_read()}
    cache.save(before, after, analysis, read, failed | memo.failed_imports)
    return analysis


def facts_with_cache(config: Config, *, use_cache: bool = True) -> Any:
    """The facts of *config*'s surfaces (``engine.Facts``, for ``report`` and ``fix``),
    their pieces taken from the memo that pylint and ``check`` keep, and the pieces
    computed here kept in it. The memo's pieces are the ones an analysis from nothing
    computes (its oracle tests say so), so the facts are the same either way."""
    # pylint: disable=import-outside-toplevel
    from pylint_rpcsurface import engine  # noqa: PLC0415

    if not use_cache:
        return engine.surface_facts(config)
    cache = FactCache(config)
    memo = engine.Memo(cache.memo_file, cache.memo_identity({}), _locate)
    memo.known_files.update(cache.fingerprint({}).known_files())
    with engine.failed_imports_recorded(memo.failed_imports):
        return engine.surface_facts(config, memo=memo, tree=cache.tree)


# ---------------------------------------------------------------- the entry as JSON


@dataclass(frozen=True, eq=False, repr=False)
class _Entry(Record):
    identity: Mapping[str, object]
    snapshot: Snapshot
    externals: Mapping[str, tuple[int, ...]]
    resolution: Mapping[str, str | None]
    analysis: Analysis

    def to_json(self) -> dict[str, object]:
        return {
            "identity": dict(self.identity),
            "taken_ns": self.snapshot.taken_ns,
            "modules": {
                path: None
                if fp is None
                else [None if fp.stat is None else list(fp.stat), fp.sha256]
                for path, fp in self.snapshot.modules.items()
            },
            "externals": {path: list(info) for path, info in self.externals.items()},
            "resolution": dict(self.resolution),
            "config_errors": [
                [str(error.file), error.key, error.problem] for error in self.analysis.config_errors
            ],
            "findings": [_finding_to_json(f) for f in self.analysis.all_findings()],
        }

    @classmethod
    def from_json(cls, raw: object, identity: Mapping[str, object]) -> _Entry:
        """Rebuild an entry, checking every type and bound: a malformed one raises."""
        entry = _mapping(raw)
        if entry["identity"] != dict(identity):
            raise ValueError("written for another configuration or version")
        modules: dict[str, Fingerprint | None] = {}
        for path, value in _mapping(entry["modules"]).items():
            if value is None:
                modules[path] = None
                continue
            info, sha256 = _list(value, 2)
            modules[path] = Fingerprint(None if info is None else _stat_list(info), _str(sha256))
        externals = {
            path: _stat_list(value) for path, value in _mapping(entry["externals"]).items()
        }
        resolution = {
            name: None if value is None else _str(value)
            for name, value in _mapping(entry["resolution"]).items()
        }
        errors = [
            ConfigError(*(_str(part) for part in _list(error, 3)))
            for error in _list(entry["config_errors"])
        ]
        findings = [_finding_from_json(item) for item in _list(entry["findings"])]
        snapshot = Snapshot(_int(entry["taken_ns"]), modules)
        return cls(identity, snapshot, externals, resolution, Analysis.of(errors, findings))


def _finding_to_json(finding: Finding) -> list[object]:
    where = finding.location
    return [
        where.path,
        where.line,
        where.col,
        where.end_line,
        where.end_col,
        finding.symbol,
        list(finding.args),
        finding.confidence,
        list(finding.surfaces),
        finding.pragma,
    ]


def _finding_from_json(raw: object) -> Finding:
    path, line, col, end_line, end_col, symbol, args, confidence, surfaces, pragma = _list(raw, 10)
    if pragma is not None and not isinstance(pragma, bool):
        raise TypeError("expected a boolean or null")
    if symbol not in BY_SYMBOL or confidence not in _CONFIDENCES:
        raise ValueError("not a message of this plugin")
    location = Location(
        _str(path),
        _int(line),
        _int(col),
        None if end_line is None else _int(end_line),
        None if end_col is None else _int(end_col),
    )
    return Finding(
        location,
        _str(symbol),
        tuple(_str(a) for a in _list(args)),
        _str(confidence),
        tuple(_str(name) for name in _list(surfaces)),
        pragma,
    )


def _mapping(value: object) -> dict[str, object]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise TypeError("expected an object")
    return value


def _list(value: object, length: int | None = None) -> list[object]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise TypeError("expected an array")
    return value


def _stat_list(value: object) -> tuple[int, ...]:
    return tuple(_int(n) for n in _list(value, 5))


def _int(value: object) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not -_INT_BOUND < value < _INT_BOUND
    ):
        raise TypeError("expected an integer of at most 64 bits")
    return value


def _str(value: object) -> str:
    """A string that can be printed: lone surrogates only as a file name's undecodable
    bytes (surrogateescape), never the others a forged ``\\ud800`` escape gives."""
    if not isinstance(value, str):
        raise TypeError("expected a string")
    value.encode("utf-8", errors="surrogateescape")  # raises UnicodeEncodeError, a ValueError
    return value

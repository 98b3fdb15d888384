"""The persistent fact cache: one analysis's findings and the fingerprint of every module it read.

An analysis reads the whole project (a subclass anywhere can wait on a registry entry), so
its result is valid exactly as long as every module under the source roots is unchanged.
The cache keeps, per configuration, the fingerprint of each module (size, mtime, SHA-256
of its text) taken *before* the analysis read it, and the findings. A later run that finds
every module unchanged answers from the cache without importing astroid; any difference
(an edited, added or removed module, another stdin buffer, another plugin or astroid
version, an edit of the plugin's own code, another configuration) recomputes everything.
So the cache is never stale; at worst it is useless.

Rules that keep it safe:

* A module's mtime and size are trusted only when the mtime is at least
  :data:`_RACY_NS` older than the moment its fingerprint was taken; a file written in the
  same instant (or on a filesystem with coarse timestamps) is hashed every time.
* The stdin buffer is fingerprinted by its own hash and no mtime, so it is never taken
  for the saved file, nor the saved file for it.
* Modules outside the source roots that inference read (a base class from an installed
  library) are recorded by size and mtime, so upgrading the library recomputes too.
* Entries are written to a temporary file in the cache folder and renamed over the old
  one, so concurrent writers (``-j``, pre-commit and the IDE at once) never leave a torn
  entry. An unreadable, corrupt or foreign entry is a miss, rebuilt by the next write.
* Failing to write (a read-only checkout) only costs speed: nothing is reported.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from pylint_rpcsurface import __version__
from pylint_rpcsurface.config import Config, ConfigError
from pylint_rpcsurface.model import Analysis, Finding, Location
from pylint_rpcsurface.sources import SourceTree, read_source, real

CACHE_DIR = ".rpcsurface_cache"
NO_CACHE_ENV = "RPCSURFACE_NO_CACHE"
_FORMAT = 2  # 2: findings carry their surfaces and pragma state
_RACY_NS = 2_000_000_000  # timestamps can be this coarse (FAT); newer files are hashed
_GITIGNORE = "# Created by pylint-rpcsurface: its fact cache, never committed.\n*\n"


def disabled_by_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``RPCSURFACE_NO_CACHE`` set to anything but '', '0', 'false' or 'no' turns it off."""
    return environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no")


@dataclass(frozen=True)
class Fingerprint:
    """One module's version: its text's hash, and the stat that lets us skip hashing."""

    size: int
    mtime_ns: int | None  # None for a stdin buffer: only its hash identifies it
    sha256: str


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fingerprint_file(path: str) -> Fingerprint | None:
    try:
        data, info = read_source(path)
    except OSError:
        return None
    return Fingerprint(info.st_size, info.st_mtime_ns, _hash(data))


def _fingerprint_buffer(text: str) -> Fingerprint:
    data = text.encode("utf-8", errors="surrogatepass")
    return Fingerprint(len(data), None, _hash(data))


class FactCache:
    """The cache entry of one configuration, in ``<config folder>/.rpcsurface_cache/``."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.tree = SourceTree(config.source_roots)
        self.folder = config.root / CACHE_DIR
        self._identity = {
            "format": _FORMAT,
            "plugin": __version__,
            "plugin_code": plugin_code_digest(),
            "astroid": _version_of("astroid"),
            "python": sys.version,
            "config": str(config.path),
            "config_digest": config.digest,
        }
        digest = _hash(json.dumps(self._identity, sort_keys=True).encode())
        self.entry = self.folder / f"analysis-{digest[:32]}.json"

    @property
    def memo_file(self) -> Path:
        """Where the pieces of facts are kept between runs (``engine.memo``): one file per
        configuration and environment, so that the next edit reuses what this one computed."""
        environment = {**self._identity, "sys.path": sys.path, "pylint": _version_of("pylint")}
        digest = _hash(json.dumps(environment, sort_keys=True).encode())
        return self.folder / f"memo-{digest[:32]}.json"

    def memo_identity(self, overrides: Mapping[str, str]) -> str:
        """What the memo's pieces hold for: the environment and the list of the project's
        files (a module added or removed can change what any name resolves to)."""
        environment = {**self._identity, "sys.path": sys.path, "pylint": _version_of("pylint")}
        return json.dumps([environment, self.modules(overrides)], sort_keys=True)

    def modules(self, overrides: Mapping[str, str]) -> list[str]:
        """Every module the analysis may read: the roots' files and the stdin buffer's."""
        files = set(self.tree.python_files())
        files.update(real(path) for path in overrides)
        return sorted(files)

    def fingerprint(self, overrides: Mapping[str, str]) -> Snapshot:
        """Fingerprint every module now, before the analysis reads them."""
        taken_ns = time.time_ns()
        buffers = {real(path): text for path, text in overrides.items()}
        modules: dict[str, Fingerprint | None] = {}
        for path in self.modules(buffers):
            if path in buffers:
                modules[path] = _fingerprint_buffer(buffers[path])
            else:
                modules[path] = _fingerprint_file(path)
        return Snapshot(taken_ns, modules)

    def lookup(self, overrides: Mapping[str, str]) -> Analysis | None:
        """The cached analysis if every module is unchanged; None otherwise."""
        try:
            raw = json.loads(self.entry.read_bytes())
            entry = _Entry.from_json(raw, self._identity)
        except (OSError, ValueError, TypeError, KeyError):
            return None  # missing, corrupt or foreign: recompute and overwrite
        buffers = {real(path): text for path, text in overrides.items()}
        if set(self.modules(buffers)) != set(entry.snapshot.modules):
            return None  # a module was added or removed
        for path, recorded in entry.snapshot.modules.items():
            if not _unchanged(path, recorded, buffers.get(path), entry.snapshot.taken_ns):
                return None
        for path, (size, mtime_ns) in entry.externals.items():
            if _stat(path) != (size, mtime_ns):
                return None
        return entry.analysis

    def save(self, snapshot: Snapshot, analysis: Analysis, externals: Iterable[str]) -> None:
        """Write the entry atomically; any failure only means the next run recomputes."""
        recorded: dict[str, list[int]] = {}
        for path in sorted(set(externals) - set(snapshot.modules)):
            stat = _stat(path)
            if stat is not None:
                recorded[path] = list(stat)
        entry = _Entry(self._identity, snapshot, recorded, analysis)
        data = json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":")).encode()
        with contextlib.suppress(OSError):
            self._ensure_folder()
            _write_atomically(self.entry, data)

    def _ensure_folder(self) -> None:
        self.folder.mkdir(exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            _write_atomically(ignore, _GITIGNORE.encode())


@dataclass(frozen=True)
class Snapshot:
    taken_ns: int
    modules: Mapping[str, Fingerprint | None]  # None: the file could not be read


def _unchanged(path: str, recorded: Fingerprint | None, buffer: str | None, taken_ns: int) -> bool:
    if buffer is not None:
        return recorded is not None and _fingerprint_buffer(buffer).sha256 == recorded.sha256
    if recorded is None:
        return _stat(path) is None
    settled = recorded.mtime_ns is not None and recorded.mtime_ns < taken_ns - _RACY_NS
    if settled and _stat(path) == (recorded.size, recorded.mtime_ns):
        return True
    current = _fingerprint_file(path)
    return current is not None and current.sha256 == recorded.sha256


def _stat(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns)


def _write_atomically(target: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


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
) -> Analysis:
    """The analysis of *config*'s project, from the cache when nothing changed.

    The engine (and with it astroid) is imported only on a miss. *prebuilt* maps an
    override's path to the astroid module pylint built from that text (see
    ``engine.analyse``); it is typed loosely here, as this module never imports astroid.
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
    snapshot = cache.fingerprint(overrides)
    from pylint_rpcsurface import engine  # noqa: PLC0415

    memo = engine.Memo(cache.memo_file, cache.memo_identity(overrides))
    analysis = engine.analyse(config, overrides, memo, prebuilt)
    cache.save(snapshot, analysis, [*engine.files_astroid_has_read(), *memo.external_files()])
    return analysis


# ---------------------------------------------------------------- the entry as JSON


@dataclass(frozen=True)
class _Entry:
    identity: Mapping[str, object]
    snapshot: Snapshot
    externals: Mapping[str, list[int]]
    analysis: Analysis

    def to_json(self) -> dict[str, object]:
        return {
            "identity": dict(self.identity),
            "taken_ns": self.snapshot.taken_ns,
            "modules": {
                path: None if fp is None else [fp.size, fp.mtime_ns, fp.sha256]
                for path, fp in self.snapshot.modules.items()
            },
            "externals": dict(self.externals),
            "config_errors": [
                [str(error.file), error.key, error.problem] for error in self.analysis.config_errors
            ],
            "findings": [_finding_to_json(f) for f in self.analysis.all_findings()],
        }

    @classmethod
    def from_json(cls, raw: object, identity: Mapping[str, object]) -> _Entry:
        """Rebuild an entry, checking every type: a foreign file raises, never misleads."""
        entry = _mapping(raw)
        if entry["identity"] != dict(identity):
            raise ValueError("written for another configuration or version")
        modules: dict[str, Fingerprint | None] = {}
        for path, value in _mapping(entry["modules"]).items():
            if value is None:
                modules[path] = None
                continue
            size, mtime_ns, sha256 = _list(value, 3)
            modules[path] = Fingerprint(
                _int(size), None if mtime_ns is None else _int(mtime_ns), _str(sha256)
            )
        externals = {
            path: [_int(n) for n in _list(value, 2)]
            for path, value in _mapping(entry["externals"]).items()
        }
        errors = [
            ConfigError(*(_str(part) for part in _list(error, 3)))
            for error in _list(entry["config_errors"])
        ]
        findings = [_finding_from_json(item) for item in _list(entry["findings"])]
        snapshot = Snapshot(_int(entry["taken_ns"]), modules)
        return cls(identity, snapshot, externals, Analysis.of(errors, findings))


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


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("expected an integer")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value

"""The store: everything kept between runs, in one file per configuration and environment.

One file holds, for one configuration, search path and set of versions (Python, astroid,
pylint, the plugin and its code):

* the pieces of facts the engine computed, each under what computing it read, and the
  modules' digests (:mod:`pylint_rpcsurface.engine.memo` reads and writes them);
* the findings, one more piece: they hold while every module under the source roots has
  the text it had (a subclass anywhere can wait on a registry entry), so they are kept
  under the content hash of every module, and a run that finds all of them unchanged
  answers without importing astroid;
* the last run's snapshot of the files (:mod:`.snapshot`): its hashes spare the next run
  reading the files that did not change;
* the modules outside the roots that the pieces read, by their stat, and where every
  module name outside the roots that was looked up resolves (or that it did not): a
  library that is upgraded, appears, moves or is shadowed starts an empty store.

Rules that keep it safe:

* A run takes one snapshot of the files, before the analysis reads them; the analysis
  reads the bytes the snapshot read, and says whether a file it read changed meanwhile
  (``ModuleStore.changed_since_read``). What such a run computed is not kept, nor is
  anything of a run during which a library or a saved file was written within
  :data:`.snapshot.TICK_NS` of its start (a write in the same timestamp tick could go
  unseen).
* An unsaved buffer (an editor's, on stdin) is fingerprinted by its own hash. The findings
  of a run with a buffer whose text no saved file has are not kept: the next keystroke
  sends another buffer, and writing per keystroke would cost more than it saves.
* Files live in the user's cache folder (:func:`cache_home`), one folder per project
  keyed by a hash of its real path, created ``0700``. A file or folder that is not this
  user's, or that others may write, is never read or written; a file is opened without
  following links or blocking, and one over :data:`_MAX_FILE_BYTES` is not read. The old
  in-project ``.rpcsurface_cache/`` is never read: a committed file would be a forgery.
* Files are written to a temporary file in the folder and renamed over the old one, so
  concurrent writers (``-j``, pre-commit and the IDE at once) never leave a torn file.
  An unreadable, malformed or foreign file (any shape, nesting or size) is an empty store;
  a malformed piece is a miss for that piece alone.
* A cache folder that can't be made or used (a path too long or under ``/proc``, a file
  where a folder should be, a read-only mount, a home folder that isn't writable) only
  costs speed: the run goes on without the store, and standard error says the folder
  and why, once a process. Failing to write the file itself (a full disk) is silent.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pylint_rpcsurface import __version__
from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.config import Config, ConfigError
from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.model import Analysis, Finding, RunCounts
from pylint_rpcsurface.rules.text import safe_name
from pylint_rpcsurface.sources import SourceTree, real
from pylint_rpcsurface.store import codec
from pylint_rpcsurface.store.file import FORMAT, Stored, folder_problem, read_store
from pylint_rpcsurface.store.lock import computing
from pylint_rpcsurface.store.resolution import locate
from pylint_rpcsurface.store.snapshot import (
    Fingerprint,
    Snapshot,
    take_snapshot,
    trusted_fingerprint,
)

__all__ = [
    "CACHE_DIR_ENV",
    "NO_CACHE_ENV",
    "OLD_CACHE_DIR",
    "Store",
    "Stored",
    "analyse_with_cache",
    "cache_home",
    "disabled_by_environment",
    "facts_with_cache",
    "findings_or_facts",
    "locate",
    "plugin_code_digest",
    "read_store",
]

CACHE_DIR_ENV = "RPCSURFACE_CACHE_DIR"
NO_CACHE_ENV = "RPCSURFACE_NO_CACHE"
STATS_ENV = "RPCSURFACE_STATS"  # a file each analysis appends what it did to
OLD_CACHE_DIR = ".rpcsurface_cache"  # where 0.x kept entries, in the project: never read
_APP_FOLDER = "pylint-rpcsurface"
_MAX_FILES = 16  # per project folder; the oldest beyond it are removed
_ABANDONED_NS = 3600 * 10**9  # a write's temporary file older than this: its writer died
_CONFIDENCES = frozenset({"HIGH", "CONTROL_FLOW", "INFERENCE", "INFERENCE_FAILURE", "UNDEFINED"})
# The findings piece's shapes (codec.checker's).
FindingsShape = tuple[Finding, ...]
ErrorsShape = tuple[tuple[str, str, str], ...]


def disabled_by_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``RPCSURFACE_NO_CACHE`` set to anything but '', '0', 'false' or 'no' turns it off."""
    return environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def cache_home(
    environ: Mapping[str, str] = os.environ, platform: str = sys.platform
) -> Path | None:
    """The folder that holds every project's store folder, or None when there is none.

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


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- the findings piece


def _snapshot_from_json(raw: Any) -> Snapshot | None:
    """The last run's snapshot as stored, or None if it is not of that shape."""
    if not isinstance(raw, dict) or not isinstance(raw.get("modules"), dict):
        return None
    taken_ns = raw.get("taken_ns")
    if not isinstance(taken_ns, int) or not _is_int(taken_ns):
        return None
    modules: dict[str, Fingerprint | None] = {}
    for path, value in raw["modules"].items():
        if value is None:
            modules[path] = None
            continue
        if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)):
            return None
        info, sha256 = value
        if info is not None and not (
            isinstance(info, list) and len(info) == 5 and all(map(_is_int, info))
        ):
            return None
        modules[path] = Fingerprint(None if info is None else tuple(info), sha256)
    return Snapshot(taken_ns, modules)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _snapshot_to_json(snapshot: Snapshot) -> dict[str, Any]:
    return {
        "taken_ns": snapshot.taken_ns,
        "modules": {
            path: None if fp is None else [None if fp.stat is None else list(fp.stat), fp.sha256]
            for path, fp in snapshot.modules.items()
        },
    }


def _texts(snapshot: Snapshot) -> dict[str, str | None]:
    """What the findings depend on: every module's content hash (None: unreadable)."""
    return {path: None if fp is None else fp.sha256 for path, fp in snapshot.modules.items()}


def _findings_to_json(snapshot: Snapshot, analysis: Analysis) -> dict[str, Any]:
    return {
        "modules": _texts(snapshot),
        "config_errors": [
            [str(error.file), error.key, error.problem] for error in analysis.config_errors
        ],
        "findings": codec.encode(analysis.all_findings()),
    }


def _findings_from_json(raw: Any, snapshot: Snapshot) -> Analysis | None:
    """The stored analysis if it was computed from the texts *snapshot* has; None if not,
    or if it is not exactly what the store writes (a message of another plugin, a
    confidence pylint does not have)."""
    if not isinstance(raw, dict) or raw.get("modules") != _texts(snapshot):
        return None
    try:
        errors = codec.decode(raw["config_errors"])
        findings = codec.decode(raw["findings"])
    except codec.UNREADABLE:
        return None
    if not codec.checker(ErrorsShape)(errors) or not codec.checker(FindingsShape)(findings):
        return None
    if not all(f.symbol in BY_SYMBOL and f.confidence in _CONFIDENCES for f in findings):
        return None
    return Analysis.of([ConfigError(*error) for error in errors], findings)


# ---------------------------------------------------------------- the store


def library_path(config: Config) -> list[str]:
    """The module search path as far as it finds libraries, the same in every mode.

    Left out: the folders each way of starting puts on the path for itself (the
    script's folder, which Python puts first for ``rpcsurface`` and ``pylint`` alike;
    the working folder of ``python -m`` and ``python -c``) and the project's own folders
    (pylint puts the linted package's root first while it lints). The project's modules
    are found through the source roots, never through the path; were the path left as
    each mode has it, pylint and ``rpcsurface check`` would each keep a store of their
    own and compute what the other had stored."""
    started_in = {real(os.path.dirname(sys.argv[0]) or os.curdir), real(os.curdir)}
    project = real(config.root)
    kept: list[str] = []
    for entry in sys.path:
        # Only a folder's own name can be compared: a relative entry (an import hook's
        # marker, say) would be taken relative to whatever folder the run started in.
        if entry == "" or (isinstance(entry, str) and os.path.isabs(entry)):
            where = real(entry or os.curdir)
            if where in started_in or where == project or where.startswith(project + os.sep):
                continue
        kept.append(str(entry))
    return kept


def _project_key(config: Config) -> str:
    return _hash(os.fsencode(real(config.root)))[:32]


class Store:
    """The store file of one configuration and environment, in the user's cache folder."""

    def __init__(self, config: Config, home: Path | None = None) -> None:
        self.config = config
        self.tree = SourceTree(config.source_roots)
        self.home = home if home is not None else cache_home()
        self.folder = None if self.home is None else self.home / _project_key(config)
        self._environment = {
            "format": FORMAT,
            "plugin": __version__,
            "plugin_code": plugin_code_digest(),
            "astroid": _version_of("astroid"),
            "pylint": _version_of("pylint"),
            "python": sys.version,
            # The libraries' search path: what resolves through it is in the store's
            # resolution record.
            "sys_path": library_path(config),
            "config": str(config.path),
            "config_digest": config.digest,
        }
        digest = _hash(json.dumps(self._environment, sort_keys=True).encode())
        self.name = f"store-{digest[:32]}.json"
        # modules() by the buffers' paths: the tree is listed once a run.
        self._modules: dict[frozenset[str], list[str]] = {}
        self._identities: dict[tuple[str, ...], str] = {}  # identity() by the modules

    @property
    def file(self) -> Path | None:
        """The store file, or None when there is no cache folder of this user's to keep it
        in: then standard error says why, once a process, and the run goes on without
        the store (it costs speed only)."""
        if self.home is None or self.folder is None:
            say_once(
                "rpcsurface: no cache folder (no home folder to be found): running without "
                f"the cache, which only costs speed; {CACHE_DIR_ENV} names one"
            )
            return None
        problem = folder_problem(self.folder)
        if problem is not None:
            where, why = problem
            at = "" if where == str(self.home) else f"{where}: "
            say_once(
                f"rpcsurface: can't use the cache folder {safe_name(str(self.home))} "
                f"({safe_name(at + why)}): running without it, which only costs speed; "
                f"{CACHE_DIR_ENV} names another"
            )
            return None
        return self.folder / self.name

    def modules(self, overrides: Mapping[str, str]) -> list[str]:
        """Every module the analysis may read: the roots' files and the stdin buffer's."""
        buffers = frozenset(real(path) for path in overrides)
        if buffers not in self._modules:
            self._modules[buffers] = sorted({*self.tree.python_files(), *buffers})
        return list(self._modules[buffers])

    def identity(self, overrides: Mapping[str, str]) -> str:
        """What the store holds for: the environment and the list of the project's files
        (a module added or removed can change what any name resolves to)."""
        modules = self.modules(overrides)
        # Asked when the store is read and again when it is written: made once.
        known = self._identities.get(tuple(modules))
        if known is None:
            known = json.dumps([self._environment, modules], sort_keys=True)
            self._identities[tuple(modules)] = known
        return known

    def begin(self, overrides: Mapping[str, str]) -> StoreRun:
        """Read the store file and take this run's snapshot of the files."""
        file = self.file
        stored = None if file is None else read_store(file, self.identity(overrides), locate)
        # A fingerprint for each file, none in a cycle (see read_store).
        with no_cyclic_collection(settle=False):
            known = None if stored is None else _snapshot_from_json(stored.sections["snapshot"])
            buffers = {real(path): text for path, text in overrides.items()}
            snapshot = take_snapshot(self.modules(buffers), buffers, known)
        return StoreRun(self, overrides, stored, snapshot, known)


class StoreRun:
    """One run's use of the store: what was read, the snapshot taken, and the writing of
    what the run computed."""

    def __init__(
        self,
        store: Store,
        overrides: Mapping[str, str],
        stored: Stored | None,
        snapshot: Snapshot,
        known: Snapshot | None,
    ) -> None:
        self.store = store
        self.overrides = overrides
        self.stored = stored
        self.snapshot = snapshot
        self._known = known

    def findings(self) -> Analysis | None:
        """The stored analysis if every module has the text it was computed from."""
        if self.stored is None:
            return None
        return _findings_from_json(self.stored.sections["findings"], self.snapshot)

    def memo(self) -> Any:
        """The engine's memo of the stored pieces (``engine.Memo``, typed loosely here as
        this module never imports the engine at import time), which writes this run's
        pieces only when told to (:meth:`finish`)."""
        # pylint: disable-next=import-outside-toplevel
        from pylint_rpcsurface import engine  # noqa: PLC0415

        memo = engine.Memo(
            self.store.file,
            self.store.identity(self.overrides),
            locate,
            stored=self.stored,
            deferred=True,
        )
        memo.known_files.update(self.snapshot.known_files())
        return memo

    def _buffers_saved(self) -> bool:
        """Whether every buffer holds what its saved file holds, by the last snapshot's
        hash where it can be trusted: the findings then hold for the saved files too."""
        for path in self.overrides:
            now = self.snapshot.modules.get(real(path))
            saved = trusted_fingerprint(real(path), self._known)
            if now is None or not now.same_text(saved):
                return False
        return True

    def finish(self, memo: Any, analysis: Analysis | None) -> bool:
        """Write what this run computed (the memo's pieces, and *analysis* as the findings
        piece when it holds for saved texts) in one write; whether it was written."""
        # This run's snapshot, whatever it found: its hashes hold for the stats it took.
        sections: dict[str, Any] = {"snapshot": _snapshot_to_json(self.snapshot)}
        new = analysis is not None and self.snapshot.settled() and self._buffers_saved()
        if analysis is not None and new:
            sections["findings"] = _findings_to_json(self.snapshot, analysis)
        elif self.stored is not None:
            sections["findings"] = self.stored.sections["findings"]
        written: bool = memo.write(sections, since_ns=self.snapshot.taken_ns, new=new)
        if written and self.store.folder is not None:
            _prune(self.store.folder)
        return written


@functools.cache
def say_once(line: str) -> None:
    """Print *line* on standard error the first time a process asks.

    ``functools.cache`` holds which lines were said, as it holds the digest of
    :func:`plugin_code_digest`: a process that runs many analyses (pylint on each module,
    ``check`` on many projects, an editor's server) says a cache folder it can't use
    once, not once an analysis."""
    # One write of the whole line: the processes of ``pylint -j`` share standard error.
    with contextlib.suppress(OSError):  # a closed standard error: nothing to say it on
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _prune(folder: Path) -> None:
    """Keep the newest :data:`_MAX_FILES` store files of a project (one per configuration
    and environment): switching environments must not grow the folder without end. A
    temporary file of a write (:func:`..sources.write_atomically`) left from long ago
    belongs to a process killed while it wrote: it goes too (a write under way takes
    seconds, never :data:`_ABANDONED_NS`)."""
    with contextlib.suppress(OSError):
        abandoned = time.time_ns() - _ABANDONED_NS
        for part in folder.glob(".tmp-*.part"):
            with contextlib.suppress(OSError):
                if part.stat().st_mtime_ns < abandoned:
                    part.unlink()
        for kind in ("store", "analysis", "memo"):
            found = sorted(folder.glob(f"{kind}-*.json"), key=lambda p: p.stat().st_mtime_ns)
            for old in found[:-_MAX_FILES]:
                with contextlib.suppress(OSError):
                    old.unlink()
        for lock in folder.glob("store-*.json.lock"):  # its store pruned: nobody needs it
            if not lock.with_suffix("").exists():
                with contextlib.suppress(OSError):
                    lock.unlink()


# ---------------------------------------------------------------- the code that runs


# The package whose code is running: the folder above this one's.
_PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def plugin_code_digest() -> str:
    """The SHA-256 of the plugin's own code: every ``.py`` file under the package folder,
    sorted by relative path, each by its path and the hash of its bytes.

    ``__version__`` alone keeps serving old findings to an edited plugin (an editable
    install, a wheel rebuilt with the same version), so the store's identity has this too.

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


# ---------------------------------------------------------------- the entry points


def analyse_with_cache(
    config: Config,
    overrides: Mapping[str, str],
    *,
    use_cache: bool = True,
    prebuilt: Mapping[str, Any] | None = None,
    failed_imports: Iterable[str] = (),
) -> Analysis:
    """The analysis of *config*'s project, from the store when nothing changed.

    The engine (and with it astroid) is imported only on a miss. *prebuilt* maps a path
    to the astroid module pylint built from its text (see ``engine.surface_facts``); it is
    typed loosely here, as this module never imports astroid. *failed_imports* are the
    module names astroid failed to find while pylint built those modules, before the
    analysis: what they did not find is part of what the store depends on.
    """
    # Imported only on a miss: a hit must not pay for importing astroid.
    # pylint: disable=import-outside-toplevel
    if not use_cache:
        from pylint_rpcsurface import engine  # noqa: PLC0415

        facts = engine.surface_facts(config, overrides, prebuilt=prebuilt)
        write_stats(config, facts.counts)
        return facts.analysis()
    store = Store(config)
    run = store.begin(overrides)
    cached = run.findings()
    if cached is not None:
        write_stats(config, None)
        return cached
    with computing(store.file) as waited:
        if waited:  # another process computed meanwhile: read what it wrote
            run = store.begin(overrides)
            cached = run.findings()
            if cached is not None:
                write_stats(config, None)
                return cached
        from pylint_rpcsurface import engine  # noqa: PLC0415

        memo = run.memo()
        memo.failed_imports.update(failed_imports)
        # What astroid fails to find is kept with the pieces: a library installed later
        # must change what the store says.
        with engine.failed_imports_recorded(memo.failed_imports):
            facts = engine.surface_facts(config, overrides, memo, prebuilt, store.tree)
        analysis: Analysis = facts.analysis()
        run.finish(memo, analysis)
    write_stats(config, facts.counts)
    return analysis


def facts_with_cache(
    config: Config,
    overrides: Mapping[str, str] | None = None,
    *,
    use_cache: bool = True,
    kept: Any = None,
    writes: list[Callable[[], object]] | None = None,
) -> Any:
    """The facts of *config*'s surfaces (``engine.Facts``, for ``report``, ``fix`` and the
    language server), *overrides* (unsaved buffers by path) read in place of the files,
    their pieces taken from the store that pylint and ``check`` keep, and the pieces
    computed here kept in it, with the findings when every buffer holds its file's text.
    The store's pieces are the ones an analysis from nothing computes (its oracle tests
    say so), so the facts are the same either way. *kept* (``engine.pieces.KeptBetweenAnalyses``)
    holds what a long-lived process's earlier analyses left: digests, and the modules
    built from their files. With *writes*, the store's write is appended there instead of
    done, for the caller to do once it has shown the facts (the language server publishes
    its diagnostics first) and before its next analysis reads the store."""
    # pylint: disable=import-outside-toplevel
    from pylint_rpcsurface import engine  # noqa: PLC0415

    overrides = overrides or {}
    if not use_cache:
        facts = engine.surface_facts(config, overrides, kept=kept)
        write_stats(config, facts.counts)
        return facts
    store = Store(config)
    return _facts_of_run(store, store.begin(overrides), kept, writes)


def findings_or_facts(
    config: Config,
    overrides: Mapping[str, str],
    *,
    kept: Any = None,
    writes: list[Callable[[], object]] | None = None,
) -> tuple[Analysis, Any]:
    """The analysis of *config*'s project with *overrides* read in place of their files,
    and its facts (None when the findings came from the store, which keeps no facts):
    what ``check`` answers from when the store holds these texts' findings, else what
    :func:`facts_with_cache` computes.

    A process computing this store (a ``check``, pylint, the language server's analysis
    of the project it started in) is waited for, as :func:`analyse_with_cache` waits,
    and what it wrote is read: the language server's first diagnostics come this way,
    without computing what they need a second time."""
    store = Store(config)
    with computing(store.file):
        pass  # only waited for, before reading: this run computes with the lock free
    run = store.begin(overrides)
    cached = run.findings()
    if cached is not None:
        write_stats(config, None)
        return cached, None
    facts = _facts_of_run(store, run, kept, writes)
    analysis: Analysis = facts.analysis()
    return analysis, facts


def _facts_of_run(
    store: Store, run: StoreRun, kept: Any, writes: list[Callable[[], object]] | None
) -> Any:
    """The facts *run* computes from the store's pieces, and its write of what it
    computed: done here, or appended to *writes* (see :func:`facts_with_cache`)."""
    # pylint: disable=import-outside-toplevel
    from pylint_rpcsurface import engine  # noqa: PLC0415

    config, overrides = store.config, run.overrides
    memo = run.memo()
    with engine.failed_imports_recorded(memo.failed_imports):
        facts = engine.surface_facts(config, overrides, memo=memo, tree=store.tree, kept=kept)
    write = functools.partial(run.finish, memo, facts.analysis())
    if writes is None:
        write()
    else:
        writes.append(write)
    write_stats(config, facts.counts)
    return facts


def write_stats(
    config: Config, counts: RunCounts | None, environ: Mapping[str, str] = os.environ
) -> None:
    """Append one JSON line saying what this analysis did to the file ``RPCSURFACE_STATS``
    names, if it names one: the project's modules it built with astroid (relative to the
    configuration's folder), how many others inference built, the pieces of the memo it
    computed and reused, and the files whose text the subclass search read. *counts* is
    None when the findings came from the store (nothing was analysed).

    One write of one line, in append mode, so that the processes of ``pylint -j`` can
    share the file. A file that can't be written is said on standard error, and changes
    nothing else."""
    target = environ.get(STATS_ENV, "").strip()
    if not target:
        return
    root = str(config.root)

    def shown(path: str) -> str:
        try:
            relative = os.path.relpath(path, root)
        except ValueError:  # on another drive (Windows)
            return path
        outside = relative == os.pardir or relative.startswith(os.pardir + os.sep)
        return path if outside else Path(relative).as_posix()

    did = RunCounts() if counts is None else counts
    record = {
        "project": root,
        "findings_from_store": counts is None,
        "modules_built": [shown(p) for p in did.built],
        "other_modules_built": did.built_elsewhere,
        "pieces_computed": did.computed,
        "pieces_reused": did.reused,
        "texts_searched": [shown(p) for p in did.searched],
    }
    line = (json.dumps(record, sort_keys=True) + "\n").encode("ascii")  # ensure_ascii
    # Never blocks: a FIFO nobody reads is an error, not a hang.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(target, flags, 0o644)
        try:
            os.write(descriptor, line)
        finally:
            os.close(descriptor)
    except OSError as error:
        reason = error.strerror or str(error)
        print(f"rpcsurface: {STATS_ENV}: can't write {target}: {reason}", file=sys.stderr)

"""Facts kept between runs, each under what computing it read.

The engine computes a surface's facts in pieces: a configured name resolved, the callers
a module defines, one caller's broadcasts, the names a handler answers, the method that
answers one name, the registry's elements, a file's pragmas. Most pieces are kept under
what they are (their kind and arguments) with the record of what computing them read:
each project module, at the level read (its interface or its body, see
:mod:`pylint_rpcsurface.analysis.reads`), with that level's digest of the module
(:mod:`.digests`). A stored piece holds while every module it read has the same digest
at that level, so an edit recomputes only the pieces that read what it changed, and an
edit that leaves a module's interface as it was recomputes only the pieces that read its
body. A few pieces of one file's version (its pragmas, the words it holds) are kept under
its content hash instead.

The pieces live in the store's file (:mod:`pylint_rpcsurface.store`), which belongs to one
identity: the configuration, the plugin's code, the versions of Python, astroid and
pylint, the search path, and the list of the project's files. Any difference starts from
an empty memo, as does a library that changed or a name that resolves elsewhere now.

Values are encoded with the store's codec (:mod:`pylint_rpcsurface.store.codec`). A file
that is not exactly a store (truncated, hand-edited, not JSON at all) is an empty memo; a
stored piece is decoded only when a run asks for it, and one that is not exactly what the
memo writes is a miss for its key alone. Either costs speed, never an answer. A piece
reused unchanged is written back as it was read, without decoding and encoding it again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.engine.digests import ModuleDigests
from pylint_rpcsurface.sources import KnownFile, write_atomically
from pylint_rpcsurface.store.codec import UNREADABLE, Check, checker, decode, encode, listed
from pylint_rpcsurface.store.file import FORMAT, Stored, read_store
from pylint_rpcsurface.store.snapshot import TICK_NS, file_stat

__all__ = ["USES", "Dependency", "Memo"]

# How many versions of one piece are kept, newest first: an editor moving between two
# versions of a module (the saved file, a buffer) finds each.
_VARIANTS = 3

# What a piece read: each project module (its key) with the level read and that level's
# digest of the module then.
Dependency = tuple[str, str, str]
# The level of a dependency that is another piece's key, with no digest: a piece that
# computing this one asked for. Reusing this piece keeps that one (Memo.retain), for the
# run that computes this one again to find it.
USES = "uses"


class Memo:
    """The facts of earlier runs of one identity, and those this run computed.

    :meth:`get` answers from both; :meth:`save` writes what is still valid, which drops
    pieces whose dependencies changed (they were recomputed under a new key) as long as
    they were not used in this run.
    """

    def __init__(  # pylint: disable=too-many-arguments
        self,
        file: Path | None,
        identity: str,
        locate: Callable[[str], str | None] | None = None,
        *,
        stored: Stored | None = None,
        deferred: bool = False,
    ) -> None:
        self._file = file
        # Whether save() leaves the writing to write(), which the store calls with its
        # own sections (the findings, the snapshot): one write a run.
        self._deferred = deferred
        self._saved: tuple[Mapping[str, str] | None, Collection[str] | None] | None = None
        self._identity = identity
        # Where the import system finds a module name now, without importing it (the
        # cache's): the stored pieces hold only while the names they read, or failed to
        # find, resolve as they did.
        self._locate = locate
        # The stored pieces as read from the file, each decoded on first use (_stored);
        # one that does not decode is dropped, and the key is a miss.
        self._raw: dict[str, Any] = {}
        self._decoded: dict[str, Any] = {}
        # Modules outside the project that computing the pieces read (installed libraries,
        # the standard library), by name, with their files' size and mtime: a change of
        # any, or a name that resolves elsewhere now, starts afresh.
        self._externals: dict[str, tuple[str, tuple[int, ...]]] = {}
        self._resolution: dict[str, str | None] = {}
        # The pieces kept under what they read: by key, each version as stored (the
        # modules it read, and its value), newest first; and what this run found or
        # computed of them.
        self._variants: dict[str, list[Any]] = {}
        self._found: dict[str, tuple[tuple[Dependency, ...], Any]] = {}
        self._fresh: dict[str, tuple[tuple[Dependency, ...], Any]] = {}
        # Pieces this run did not ask for, kept as stored (Memo.retain).
        self._retained: set[str] = set()
        # The two digests of each module version, by content hash (see .digests).
        self._digests: dict[str, ModuleDigests] = {}
        self._new_digests: dict[str, ModuleDigests] = {}
        # Digests at levels worked out on demand ("local Q N"), by content hash: kept with
        # that version's other levels, so that a later run parses no saved module for them.
        self._new_levels: dict[str, dict[str, str]] = {}
        if stored is None and file is not None:
            stored = read_store(file, identity, locate)
        if stored is not None:
            with no_cyclic_collection(settle=False):  # many small values, no cycle (see read_store)
                read = _sections(stored)
            self._raw, self._variants, self._digests = read
            self._externals = dict(stored.externals)
            self._resolution = dict(stored.resolution)
        # The module names astroid could not find while this run computed pieces (the
        # engine records them): a library installed later must start afresh.
        self.failed_imports: set[str] = set(self._resolution) - set(self._externals)
        # The content hashes of the project's files the caller already knows, by path
        # (the cache's fingerprints of this run): the analysis reads no file for its hash
        # alone while its stat is unchanged (ModuleStore.known).
        self.known_files: dict[str, KnownFile] = {}
        self._checks: dict[Any, Check] = {}  # each expected shape's test, built once
        self._used: dict[str, Any] = {}
        # The keys of _used whose value is the stored piece: written back as it was read.
        self._reused: set[str] = set()
        self.hits = 0
        self.misses = 0
        # Pieces that depend on an unsaved buffer (an editor's, on stdin): used in this run
        # but never written, as no later run sees that text again (the next keystroke
        # sends another); a run whose only new pieces are these leaves the file as it was,
        # with the saved files' pieces in it.
        self.ephemeral: set[str] = set()

    @property
    def keeps(self) -> bool:
        """Whether pieces outlive this run (a memo with a file)."""
        return self._file is not None

    def _stored(self, key: str) -> tuple[bool, Any]:
        """Whether a piece is stored under *key* that decodes, and its value."""
        if key in self._decoded:
            return True, self._decoded[key]
        if key not in self._raw:
            return False, None
        try:
            value = decode(self._raw[key])
        except UNREADABLE:
            del self._raw[key]  # never returned, never written back
            return False, None
        self._decoded[key] = value
        return True, value

    def _checker(self, expected: Any) -> Check:
        if expected not in self._checks:
            self._checks[expected] = checker(expected)
        return self._checks[expected]

    def get(self, key: str, compute: Callable[[], Any], expect: Any = Any) -> Any:
        """The value stored under *key*, or *compute*'s (stored for the next run).

        *expect* is the type the piece's value has (``tuple[Broadcast, ...]``): a stored
        value of another shape is a miss, never handed to the engine."""
        if key in self._used:
            return self._used[key]
        found, value = self._stored(key)
        if found and not self._checker(expect)(value):
            del self._raw[key]
            del self._decoded[key]
            found = False
        if found:
            self.hits += 1
            self._reused.add(key)
        else:
            self.misses += 1
            value = compute()
        self._used[key] = value
        return value

    def _lasting_misses(self) -> bool:
        """Whether this run computed a piece worth writing: one not kept as it was read,
        that depends on no unsaved buffer."""
        return bool(self._fresh) or any(
            key not in self._reused and key not in self.ephemeral for key in self._used
        )

    def put(self, key: str, value: Any) -> None:
        """Keep *value* under *key* for the next run (what :meth:`get` would compute)."""
        found, stored = self._stored(key)
        if found and _same(stored, value):
            self._reused.add(key)
        else:
            if key in self._reused or key not in self._used:
                self.misses += 1  # once a piece: a get that missed counted it already
            self._reused.discard(key)
        self._used[key] = value

    def find(
        self, key: str, expect: Any, holds: Callable[[tuple[Dependency, ...]], bool]
    ) -> tuple[bool, Any, tuple[Dependency, ...]]:
        """The newest stored version of the piece *key* that still *holds* (every module
        it read has the digest it read), with what it read; ``(False, None, ())`` if none.

        A version that does not decode, or decodes to another shape than *expect*, is
        dropped (a miss, never handed to the engine)."""
        if key in self._found:
            return (True, self._found[key][1], self._found[key][0])
        if key in self._fresh:
            return (True, self._fresh[key][1], self._fresh[key][0])
        versions = self._variants.get(key, [])
        for position, raw in enumerate(list(versions)):
            try:
                reads = _dependencies(raw[0])
            except UNREADABLE:
                versions.remove(raw)
                continue
            if not holds(reads):
                continue
            try:
                value = decode(raw[1])
            except UNREADABLE:
                versions.remove(raw)
                continue
            if not self._checker(expect)(value):
                versions.remove(raw)
                continue
            self.hits += 1
            self._found[key] = (reads, value)
            if position:  # the version used first: the next run tries it first
                versions.insert(0, versions.pop(versions.index(raw)))
            return (True, value, reads)
        self.misses += 1
        return (False, None, ())

    def retain(self, key: str) -> None:
        """Keep the stored versions of the piece *key* in the memo although this run does
        not ask for it (a piece it reused was computed from it), and those of the pieces
        its newest version was computed from in turn."""
        pending = [key]
        while pending:
            current = pending.pop()
            if current in self._retained or current in self._found or current in self._fresh:
                continue
            versions = self._variants.get(current)
            if not versions:
                continue
            self._retained.add(current)
            try:
                reads = _dependencies(versions[0][0])
            except UNREADABLE:
                continue
            pending.extend(inner for inner, level, _ in reads if level == USES)

    def keep(self, key: str, value: Any, reads: tuple[Dependency, ...], *, lasting: bool) -> None:
        """Keep *value* for the piece *key*, computed from *reads*: for the rest of this run,
        and, if *lasting* (it read no unsaved buffer), for the next runs."""
        if lasting:
            self._fresh[key] = (reads, value)
        else:
            self._found[key] = (reads, value)

    def digests_of(self, content: str) -> ModuleDigests | None:
        """The body and interface digests of the module version whose content hash is
        *content*, if known."""
        return self._new_digests.get(content) or self._digests.get(content)

    def keep_digests(self, content: str, digests: ModuleDigests) -> None:
        """Keep the two digests of a saved module version for the next runs."""
        if content not in self._digests:
            self._new_digests[content] = digests

    def stored_level(self, content: str, level: str) -> str | None:
        """The digest at *level* kept for the module version *content*, if any."""
        known = self.digests_of(content)
        return None if known is None else known[0].get(level)

    def keep_level(self, content: str, level: str, digest: str) -> None:
        """Keep a saved module version's digest at a level worked out on demand (see
        :class:`.digests.LocalDigests`) with its other levels, for the next runs."""
        self._new_levels.setdefault(content, {})[level] = digest

    def external_modules(self) -> dict[str, str]:
        """The modules outside the project the stored pieces were computed from, by name."""
        return {name: path for name, (path, _) in self._externals.items()}

    def save(
        self,
        externals: Mapping[str, str] | None = None,
        contents: Collection[str] | None = None,
    ) -> None:
        """Keep this run's pieces, with the modules outside the project they read
        (*externals*, name to file, with those of the pieces reused) and the names they
        failed to find, and the digests of the module versions whose content hashes are
        *contents* (the project's files as they are now; all known ones if None).

        The engine calls this once the pieces are computed, unless a file changed while
        they were; they are written then, or, for a deferred memo, by :meth:`write`."""
        self._saved = (externals, contents)
        if not self._deferred:
            self.write()

    def write(
        self, sections: Mapping[str, Any] | None = None, *, since_ns: int = 0, new: bool = False
    ) -> bool:
        """Write the pieces :meth:`save` kept, and *sections* beside them (the store's), in
        one write; whether it was. Nothing is written unless save() was called (the
        pieces are what the files held), nor when this run computed nothing worth
        keeping and *new* says *sections* hold nothing new, nor when a library this run
        read was written less than a timestamp tick before *since_ns* (the run's start:
        which version did it read?). Failing to write only costs speed."""
        if self._file is None or self._saved is None:
            return False
        if not (new or self._lasting_misses()):
            return False
        externals, contents = self._saved
        recorded = dict(self._externals)
        for name, path in (externals or {}).items():
            if name not in recorded:
                info = file_stat(path)
                if info is not None:
                    recorded[name] = (path, info)
        resolution = dict(self._resolution)
        if self._locate is not None:
            for name in sorted({*recorded, *self.failed_imports} - set(resolution)):
                resolution[name] = self._locate(name)
        if since_ns and not _settled(recorded, resolution, since_ns - TICK_NS):
            return False
        with no_cyclic_collection(settle=False):  # the encoded store: many values, no cycle
            return self._write(self._file, recorded, resolution, contents, sections)

    def _write(  # pylint: disable=too-many-arguments
        self,
        file: Path,
        recorded: Mapping[str, tuple[str, tuple[int, ...]]],
        resolution: Mapping[str, str | None],
        contents: Collection[str] | None,
        sections: Mapping[str, Any] | None,
    ) -> bool:
        """Encode and write the store (see :meth:`write`); whether it was written."""
        try:
            # A piece reused is written as it was read (it decoded to the value used).
            facts = {
                key: self._raw[key] if key in self._reused else encode(value)
                for key, value in self._used.items()
                if key not in self.ephemeral
            }
            pieces = {key: self._variants.get(key, []) for key in (*self._retained, *self._found)}
            for key, (reads, value) in self._fresh.items():
                fresh = [[list(map(list, reads)), encode(value)]]
                stored = [v for v in self._variants.get(key, []) if v[0] != fresh[0][0]]
                pieces[key] = (fresh + stored)[:_VARIANTS]
            digests = {**self._digests, **self._new_digests}
            for content, levels in self._new_levels.items():
                if content in digests:
                    known, spans = digests[content]
                    digests[content] = ({**known, **levels}, spans)
            if contents is not None:
                digests = {c: found for c, found in digests.items() if c in contents}
            data = json.dumps(
                {
                    **(sections or {}),
                    "format": FORMAT,
                    "identity": self._identity,
                    "externals": sorted(
                        [name, path, *info] for name, (path, info) in recorded.items()
                    ),
                    "resolution": sorted([name, where] for name, where in resolution.items()),
                    "facts": facts,
                    "pieces": {key: versions for key, versions in pieces.items() if versions},
                    "digests": {
                        content: [
                            levels,
                            {name: list(map(list, lines)) for name, lines in spans.items()},
                        ]
                        for content, (levels, spans) in digests.items()
                    },
                },
                separators=(",", ":"),
            ).encode()
            write_atomically(file, data)
        except (OSError, ValueError, TypeError, RecursionError):
            return False
        return True


def _settled(
    externals: Mapping[str, tuple[str, tuple[int, ...]]],
    resolution: Mapping[str, str | None],
    since_ns: int,
) -> bool:
    """Whether no library file the pieces read, and no module a looked-up name resolves
    to, was written at or after *since_ns*."""
    for _, info in externals.values():
        if max(info[1], info[2]) >= since_ns:
            return False
    for located in resolution.values():
        info_now = file_stat(located) if located and Path(located).is_absolute() else None
        if info_now is not None and max(info_now[1], info_now[2]) >= since_ns:
            return False
    return True


def _same(stored: Any, value: Any) -> bool:
    """Whether a value put is the one stored (a fact: plain data, frozen dataclasses)."""
    return type(stored) is type(value) and bool(stored == value)


_Sections = tuple[dict[str, Any], dict[str, list[Any]], dict[str, ModuleDigests]]


def _sections(stored: Stored) -> _Sections:
    """The pieces of a store file as read (each is decoded when used), and the modules'
    digests; nothing when they are not of the shape the memo writes."""
    facts = stored.sections["facts"]
    variants = {
        key: [v for v in versions if isinstance(v, list) and len(v) == 2]
        for key, versions in stored.sections["pieces"].items()
        if isinstance(key, str) and isinstance(versions, list)
    }
    digests = {}
    for content, entry in stored.sections["digests"].items():
        found = _module_digests(entry)
        if found is not None:
            digests[str(content)] = found
    return dict(facts), variants, digests


def _module_digests(raw: Any) -> ModuleDigests | None:
    """A module version's digests as stored, or None if they are not of that shape."""
    if not (isinstance(raw, list) and len(raw) == 2):
        return None
    levels, spans = raw
    if not isinstance(levels, dict) or not isinstance(spans, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in levels.items()):
        return None
    lines: dict[str, tuple[tuple[int, int], ...]] = {}
    for name, found in spans.items():
        if not isinstance(found, list):
            return None
        pairs = []
        for pair in found:
            if not (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in pair)
            ):
                return None
            pairs.append((pair[0], pair[1]))
        lines[str(name)] = tuple(pairs)
    return (levels, lines)


def _dependencies(raw: Any) -> tuple[Dependency, ...]:
    """What a stored piece read, as stored: [[path, level, digest], ...]."""
    found = []
    for entry in listed(raw):
        path, level, digest = listed(entry)
        if not (isinstance(path, str) and isinstance(level, str) and isinstance(digest, str)):
            raise ValueError("a dependency of strings")
        found.append((path, level, digest))
    return tuple(found)

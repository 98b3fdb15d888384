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

The memo as a whole belongs to one identity: the configuration, the plugin's code, the
versions of Python, astroid and pylint, the search path, and the list of the project's
files. Any difference starts from an empty memo.

Values are the model's frozen dataclasses and plain data, written as JSON. A file whose
top level is not exactly a memo (truncated, hand-edited, not JSON at all) is an empty
memo; a stored piece is decoded only when a run asks for it, and one that is not exactly
what the memo writes (a type it never writes, nested too deeply, an int out of range) is
a miss for its key alone. Either costs speed, never an answer. A piece reused unchanged
is written back as it was read, without decoding and encoding it again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pylint_rpcsurface import model
from pylint_rpcsurface.engine.digests import ModuleDigests
from pylint_rpcsurface.sources import KnownFile, read_source, write_atomically

__all__ = ["USES", "Dependency", "Memo"]

_FORMAT = 3  # 3: pieces under what they read, and the modules' digests
# The facts' types: nothing else is ever built from a memo file. Each with its fields'
# names, taken once (dataclasses.fields per value was most of what encoding cost).
_FACT_TYPES: tuple[type[Any], ...] = (
    model.Location,
    model.Broadcast,
    model.Sent,
    model.HelperStep,
    model.Answers,
    model.Returns,
    model.Signature,
    model.HandlerMethod,
    model.RegistryElement,
    model.Registry,
)
# By name (reading), each with its fields' names.
_TYPES: Mapping[str, tuple[type[Any], tuple[str, ...]]] = MappingProxyType(
    {cls.__name__: (cls, tuple(f.name for f in dataclasses.fields(cls))) for cls in _FACT_TYPES}
)
# By type (writing): its name and its fields' names.
_WRITTEN: Mapping[type[Any], tuple[str, tuple[str, ...]]] = MappingProxyType(
    {cls: (name, names) for name, (cls, names) in _TYPES.items()}
)
# What decoding a stored piece may raise: the piece is then a miss (_decode's errors,
# and those of building a dataclass from stored fields or hashing what a frozenset holds).
_UNREADABLE = (ValueError, TypeError, KeyError, RecursionError, MemoryError)
_MAX_DEPTH = 64  # the deepest a fact nests is about 8
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

    def __init__(
        self,
        file: Path | None,
        identity: str,
        locate: Callable[[str], str | None] | None = None,
    ) -> None:
        self._file = file
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
        self._externals: dict[str, tuple[str, int, int]] = {}
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
        if file is not None:
            read = _read(file, identity, locate)
            self._raw, self._externals, self._resolution, self._variants, self._digests = read
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
            value = _decode(self._raw[key], 0)
        except _UNREADABLE:
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
            except _UNREADABLE:
                versions.remove(raw)
                continue
            if not holds(reads):
                continue
            try:
                value = _decode(raw[1], 0)
            except _UNREADABLE:
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
            except _UNREADABLE:
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

    def external_modules(self) -> dict[str, str]:
        """The modules outside the project the stored pieces were computed from, by name."""
        return {name: path for name, (path, _, _) in self._externals.items()}

    def save(
        self,
        externals: Mapping[str, str] | None = None,
        contents: Collection[str] | None = None,
    ) -> None:
        """Write this run's pieces, with the modules outside the project they read
        (*externals*, name to file, with those of the pieces reused) and the names they
        failed to find, and the digests of the module versions whose content hashes are
        *contents* (the project's files as they are now; all known ones if None). Failing
        to write only costs speed."""
        if self._file is None or not self._lasting_misses():
            return
        recorded = dict(self._externals)
        for name, path in (externals or {}).items():
            if name not in recorded:
                stat = _stat(path)
                if stat is not None:
                    recorded[name] = (path, *stat)
        resolution = dict(self._resolution)
        if self._locate is not None:
            for name in sorted({*recorded, *self.failed_imports} - set(resolution)):
                resolution[name] = self._locate(name)
        try:
            # A piece reused is written as it was read (it decoded to the value used).
            facts = {
                key: self._raw[key] if key in self._reused else _encode(value)
                for key, value in self._used.items()
                if key not in self.ephemeral
            }
            pieces = {key: self._variants.get(key, []) for key in (*self._retained, *self._found)}
            for key, (reads, value) in self._fresh.items():
                fresh = [[list(map(list, reads)), _encode(value)]]
                stored = [v for v in self._variants.get(key, []) if v[0] != fresh[0][0]]
                pieces[key] = (fresh + stored)[:_VARIANTS]
            digests = {**self._digests, **self._new_digests}
            if contents is not None:
                digests = {c: found for c, found in digests.items() if c in contents}
            data = json.dumps(
                {
                    "format": _FORMAT,
                    "identity": self._identity,
                    "externals": sorted([name, *info] for name, info in recorded.items()),
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
            write_atomically(self._file, data)
        except (OSError, ValueError, TypeError, RecursionError):
            return


def _same(stored: Any, value: Any) -> bool:
    """Whether a value put is the one stored (a fact: plain data, frozen dataclasses)."""
    return type(stored) is type(value) and bool(stored == value)


_Externals = dict[str, tuple[str, int, int]]
_Read = tuple[
    dict[str, Any],
    _Externals,
    dict[str, str | None],
    dict[str, list[Any]],
    dict[str, ModuleDigests],
]


def _read(file: Path, identity: str, locate: Callable[[str], str | None] | None) -> _Read:
    """The pieces stored in *file* for *identity* (as read: each is decoded when used),
    the external modules they read and the names they looked up; nothing when the file
    is not a memo of this identity, an external file changed, or a name resolves
    elsewhere now."""
    nothing: _Read = ({}, {}, {}, {}, {})
    try:
        data, _ = read_source(str(file))
        raw = json.loads(data)
        if not isinstance(raw, dict) or raw.get("format") != _FORMAT:
            return nothing
        if raw.get("identity") != identity:
            return nothing
        externals: _Externals = {}
        for entry in _listed(raw.get("externals")):
            name, path, size, mtime_ns = _listed(entry)
            if not all(isinstance(v, str) for v in (name, path)):
                return nothing
            if not all(isinstance(v, int) for v in (size, mtime_ns)):
                return nothing
            if _stat(path) != (size, mtime_ns):
                return nothing  # a library changed: every piece may read it
            externals[name] = (path, size, mtime_ns)
        resolution: dict[str, str | None] = {}
        for entry in _listed(raw.get("resolution")):
            name, where = _listed(entry)
            if not isinstance(name, str) or not (where is None or isinstance(where, str)):
                return nothing
            if locate is not None and locate(name) != where:
                return nothing  # installed, removed or moved since: what did it give?
            resolution[name] = where
        facts = raw.get("facts")
        pieces = raw.get("pieces")
        if not isinstance(facts, dict) or not isinstance(pieces, dict):
            return nothing
        variants = {
            key: [v for v in versions if isinstance(v, list) and len(v) == 2]
            for key, versions in pieces.items()
            if isinstance(key, str) and isinstance(versions, list)
        }
        stored = raw.get("digests")
        if not isinstance(stored, dict):
            return nothing
        digests = {}
        for content, entry in stored.items():
            found = _module_digests(entry)
            if found is not None:
                digests[str(content)] = found
        return facts, externals, resolution, variants, digests
    except (OSError, ValueError, TypeError, KeyError, RecursionError, MemoryError):
        return nothing


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
    for entry in _listed(raw):
        path, level, digest = _listed(entry)
        if not all(isinstance(v, str) for v in (path, level, digest)):
            raise ValueError("a dependency of strings")
        found.append((path, level, digest))
    return tuple(found)


def _stat(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns)


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return value
    written = _WRITTEN.get(type(value))
    if written is not None:
        name, names = written
        return {"type": name, "fields": [_encode(getattr(value, field)) for field in names]}
    if isinstance(value, (tuple, list)):
        return [_encode(item) for item in value]
    if isinstance(value, frozenset):
        return {"frozenset": sorted(_encode(item) for item in value)}
    if isinstance(value, dict):
        return {"dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise TypeError(f"not a fact: {type(value).__name__}")


def _decode(raw: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ValueError("nested too deeply")
    if raw is None or isinstance(raw, (str, bool)):
        return raw
    if isinstance(raw, int):
        if -(2**63) <= raw < 2**63:
            return raw
        raise ValueError("an int the memo never writes")
    if isinstance(raw, list):
        return tuple(_decode(item, depth + 1) for item in raw)
    if isinstance(raw, dict) and len(raw) <= 2:
        if "fields" in raw and "type" in raw:
            cls, names = _TYPES[raw["type"]]
            values = _listed(raw["fields"])
            if len(values) != len(names):
                raise ValueError(f"the fields of {cls.__name__} differ")
            # By position (faster than by name): the fields' order is __init__'s for these
            # types; one that is not an __init__ positional makes it raise (a miss).
            fact = cls(*[_decode(v, depth + 1) for v in values])
            if not all(check(getattr(fact, name)) for name, check in _FIELD_CHECKS[cls]):
                raise ValueError(f"a field of {cls.__name__} of another type")
            return fact
        if "frozenset" in raw and len(raw) == 1:
            return frozenset([_decode(item, depth + 1) for item in _listed(raw["frozenset"])])
        if "dict" in raw and len(raw) == 1:
            pairs = [_decode(pair, depth + 1) for pair in _listed(raw["dict"])]
            if not all(isinstance(pair, tuple) and len(pair) == 2 for pair in pairs):
                raise ValueError("a dict of pairs")
            return dict(pairs)
    raise ValueError("a value the memo never writes")


Check = Callable[[Any], bool]


def checker(expected: Any) -> Check:
    """A test of whether a value is of the type *expected*, as the facts' annotations
    write types: ``str``, ``int``, ``bool``, ``None``, a fact type, ``X | Y``,
    ``tuple[X, ...]``, ``tuple[X, Y]``, ``frozenset[X]``; ``Any`` takes anything. (An int
    is not a bool, nor a bool an int: JSON tells them apart.) Built once per type, as
    it runs for every field of every fact a run reads from the memo."""
    if expected is Any:
        return _anything
    if expected is None or expected is types.NoneType:
        return _is_none
    origin = typing.get_origin(expected)
    arguments = typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        options = tuple(checker(option) for option in arguments)
        return lambda value: any(check(value) for check in options)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        item = checker(arguments[0])
        return lambda value: isinstance(value, tuple) and all(map(item, value))
    if origin is tuple:
        items = tuple(checker(argument) for argument in arguments)
        return lambda value: (
            isinstance(value, tuple)
            and len(value) == len(items)
            and all(check(item) for check, item in zip(items, value, strict=False))
        )
    if origin is frozenset:
        member = checker(arguments[0])
        return lambda value: isinstance(value, frozenset) and all(map(member, value))
    if expected is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    return lambda value: isinstance(value, expected)


def _anything(_: Any) -> bool:
    return True


def _is_none(value: Any) -> bool:
    return value is None


def _listed(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise ValueError("expected a list")
    return raw


# Each fact type's fields with a test of their declared types, built once: a stored
# field must hold a value of its type (a str line would fail far from here, in a rule).
_FIELD_CHECKS: Mapping[type[Any], tuple[tuple[str, Check], ...]] = MappingProxyType(
    {
        cls: tuple((name, checker(hint)) for name, hint in typing.get_type_hints(cls).items())
        for cls in _FACT_TYPES
    }
)

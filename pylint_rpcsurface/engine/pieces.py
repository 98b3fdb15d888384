"""The pieces of one run: each taken from the memo while what it read is unchanged, else
computed with astroid, recording what it reads, and kept for the next run.

:meth:`Pieces.piece` is the one way a query (:mod:`.queries`) gets a value: it names the
piece (its kind and arguments), the modules the piece is about (read at least at the
level given), and how to compute it. Everything else the computation touches is recorded
as it happens (:mod:`..analysis.reads`), so a piece says what it read without listing it.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, cast

from pylint_rpcsurface.analysis.modules import BuiltFromFile, ModuleStore
from pylint_rpcsurface.analysis.reads import (
    BODY,
    CLASS,
    INTERFACE,
    LOCAL,
    MEMBER,
    ReadRecorder,
    Reads,
)
from pylint_rpcsurface.engine.anchors import ANCHOR, anchor_of, positions, read_spans, reanchored
from pylint_rpcsurface.engine.collector import CodeFacts, CodeRef
from pylint_rpcsurface.engine.digests import LocalDigests, ModuleDigests, module_digests, parsed
from pylint_rpcsurface.engine.memo import USES, Dependency, Memo

__all__ = ["KeptBetweenAnalyses", "Pieces", "piece_key"]

_T = TypeVar("_T")


def piece_key(kind: str, parts: Sequence[object]) -> str:
    """The memo's key of the piece *kind* of *parts*."""
    return json.dumps([kind, *parts], default=str)


class KeptBetweenAnalyses:
    """What a long-lived process (the language server) keeps from one analysis to the
    next, beside the store every process shares. Each analysis leaves what it read, and
    lets go of the rest.

    - The digests of module versions, by content hash: a version's digests never change,
      so each is computed once while an editor's edits go on, instead of once an analysis.
    - The project's modules built from their files, as astroid built them (in full: a
      lean build's deferred work is done only while an analysis runs): the next
      analysis takes each as pylint's own build of the file (``prebuilt``), once the
      file is shown unwritten since, and builds only the others. The first analysis
      builds lean all the same, as ``check`` does (its diagnostics are the ones waited
      for): the modules a keystroke reads are built in full by the first analysis
      after it, and kept from then on."""

    def __init__(self) -> None:
        self.summaries: dict[str, ModuleDigests] = {}
        self.locals: dict[str, LocalDigests] = {}
        self.modules: dict[str, BuiltFromFile] = {}
        self.analysed = False  # whether an analysis has left what it read


class Pieces:
    """The memo's pieces as one run sees them: found, computed, and what each read."""

    def __init__(
        self, store: ModuleStore, memo: Memo, kept: KeptBetweenAnalyses | None = None
    ) -> None:
        self.store = store
        self.memo = memo
        # What earlier analyses of this process computed (nothing, in a fresh process).
        self._kept = KeptBetweenAnalyses() if kept is None else kept
        # What each piece reads, recorded only when the pieces outlive the run.
        self.reads = ReadRecorder(store.project_key, active=memo.keeps)
        store.reads = self.reads
        # The buffers whose text no saved file holds, by the store's keys: what depends on
        # them is never written to the memo (see Memo.ephemeral).
        self.buffers = frozenset(path for path in store.overrides if store.unsaved(path))
        self._digests: dict[str, ModuleDigests] = {}  # by content hash
        # The "local Q N" digests of each module version read, by content hash.
        self._locals: dict[str, LocalDigests] = {}
        # The syntax tree of each buffer version whose digests were computed, by content
        # hash, until its local digests take it.
        self._buffer_trees: dict[str, ast.Module] = {}
        # Each digest asked for, by the module version's content hash and the level.
        self._by_level: dict[tuple[str, str], str] = {}
        # The keys of the pieces each piece being computed asks for, innermost last.
        self._nested: list[dict[str, None]] = []
        # Each code's piece as this run first had it, with what it read, and its key.
        self._codes: dict[CodeRef, tuple[CodeFacts, Reads, str]] = {}

    def piece(
        self,
        kind: str,
        parts: Sequence[object],
        on: Iterable[str],
        compute: Callable[[], _T],
        expect: Any,
        *,
        own: str = INTERFACE,
    ) -> _T:
        """The piece *kind* of *parts*: from the memo if every module it read then has the
        digest it read, else computed, recording what it reads. The modules *on* are its
        own (the class's, the name's), read at the level *own* at least: their interface
        when *parts* hold the names the piece looks its definitions up by, else their
        whole body. A position in the value outside every function the piece read counts
        as a read of its module's whole body: the value holds it."""
        key = piece_key(kind, parts)
        if not self.memo.keeps:
            # A memo that keeps nothing (--no-cache): its pieces live for this run only,
            # over one version of every module, and nothing is recorded.
            return cast(_T, self.memo.get(key, compute, expect))
        if self._nested:
            self._nested[-1][key] = None
        found, value, reads = self.memo.find(key, expect, self._still_holds)
        if found:
            anchors = [entry for entry in reads if entry[1].startswith(ANCHOR)]
            for path, level, _ in reads:
                if level == USES:
                    self.memo.retain(path)
                elif not level.startswith(ANCHOR):
                    self.reads.path(path, level)
            if anchors:
                value = reanchored(value, anchors, lambda path: self.summary(path)[1])
            return cast(_T, value)
        self._nested.append({})
        try:
            with self.reads.span() as read:
                for path in on:
                    read.add(path, own)
                computed = compute()
        finally:
            nested = self._nested.pop()
        dependencies = self._dependencies(computed, read, nested)
        lasting = not any(path in self.buffers for path, _, _ in dependencies)
        self.memo.keep(key, computed, dependencies, lasting=lasting)
        return computed

    def _dependencies(
        self, computed: object, read: Any, nested: Iterable[str]
    ) -> tuple[Dependency, ...]:
        """What a piece just computed read, each with its digest now; the positions in
        its value anchored to the functions they lie in (or its module's whole body)."""
        anchored: dict[Dependency, None] = {}
        spans: dict[str, list[tuple[int, int, str, int]] | None] = {}
        for path, line in positions(computed):
            if path not in spans:
                spans[path] = read_spans(read.levels.get(path, set()), self.summary(path)[1])
            anchor = anchor_of(spans[path], path, line)
            if anchor is None:
                read.add(path, BODY)
                spans[path] = None  # the whole body holds every position in it now
            elif anchor:
                anchored[anchor] = None
        dependencies = tuple(
            (path, level, self.digest(path, level)) for path, level in read.dependencies()
        )
        if anchored:
            body_read = {path for path, level, _ in dependencies if level == BODY}
            dependencies += tuple(a for a in anchored if a[0] not in body_read)
        # The pieces computing it asked for: kept in the memo while this one is used.
        return dependencies + tuple((inner, USES, "") for inner in nested)

    def _still_holds(self, dependencies: tuple[Dependency, ...]) -> bool:
        """Whether every module a stored piece read has the digest it read (an anchor is
        no digest: the function's own "def Q" dependency says whether it holds; nor is
        a piece it used)."""
        return all(
            level == USES or level.startswith(ANCHOR) or self.digest(path, level) == digest
            for path, level, digest in dependencies
        )

    def digest(self, path: str, level: str) -> str:
        """*path*'s digest at *level* (:mod:`.digests`); "absent" for a function the
        module no longer defines, or a name no top-level class binds.

        A dunder name a class does not bind in its text may still be one of its members:
        astroid's brains make some (a dataclass's ``__init__``) from the rest of the
        class, so such a name's digest is the whole class's. So is the member of a class
        the module no longer defines at its top level: the module's body's."""
        # Asked for every dependency of every stored piece a run looks at, most of them
        # shared: each module version's digest at a level is worked out once a run.
        asked = (self.store.digest(path), level)
        found = self._by_level.get(asked)
        if found is None:
            found = self._by_level[asked] = self._digest(path, level)
        return found

    def _digest(self, path: str, level: str) -> str:
        """*path*'s digest at *level*, worked out (see :meth:`digest`)."""
        if level.startswith(LOCAL):
            return self._local(path, level)
        levels = self.summary(path)[0]
        found = levels.get(level)
        if found is not None:
            return found
        if level.startswith(MEMBER):
            owner, _, name = level[len(MEMBER) :].partition(".")
            if not (name.startswith("__") and name.endswith("__")) and CLASS + owner in levels:
                return "absent"
            level = CLASS + owner
            found = levels.get(level)
            if found is not None:
                return "the class " + found
        if level.startswith(CLASS):
            return "no class " + levels["body"]
        return "absent"

    def _local(self, path: str, level: str) -> str:
        """*path*'s "local Q N" digest (:class:`..engine.digests.LocalDigests`)."""
        content = self.store.digest(path)
        stored = self.memo.stored_level(content, level)
        if stored is not None:
            return stored
        digests = self._locals.get(content) or self._kept.locals.get(content)
        if digests is None:
            digests = LocalDigests(self.store.text(path), self._buffer_trees.pop(content, None))
        self._locals[content] = digests
        function, _, name = level[len(LOCAL) :].rpartition(" ")
        found = digests.digest(function, name)
        if path not in self.buffers and not content.startswith("not read"):
            self.summary(path)  # the version's other levels, which it is kept with
            self.memo.keep_level(content, level, found)
        return found

    def summary(self, path: str) -> ModuleDigests:
        """*path*'s digests and function spans, computed once per version of the module."""
        content = self.store.digest(path)
        found = self._digests.get(content) or self.memo.digests_of(content)
        if found is None:
            found = self._kept.summaries.get(content)
            if found is None:
                text = self.store.text(path)
                # A buffer's local digests are never stored: one parse serves both.
                tree = parsed(text) if path in self.buffers else None
                if tree is not None:
                    self._buffer_trees[content] = tree
                found = module_digests(text, tree)
            if path not in self.buffers and not content.startswith("not read"):
                self.memo.keep_digests(content, found)
        self._digests[content] = found
        return found

    def keep_for_next(self, *, modules_too: bool) -> None:
        """Leave the digests this run read, and (*modules_too*: no module changed while
        the run read it) the modules it built from their files, for the next analysis of
        the process."""
        self._kept.modules = self.store.built_from_files() if modules_too else {}
        self._kept.analysed = True
        self._kept.summaries = {
            content: digests
            for content, digests in self._digests.items()
            if not content.startswith("not read")
        }
        self._kept.locals = {
            content: digests
            for content, digests in self._locals.items()
            if not content.startswith("not read")
        }

    def contents(self) -> set[str]:
        """The content hashes of the saved module versions this run knows the digests of."""
        return {content for content in self._digests if not content.startswith("buffer ")}

    def file_key(self, kind: str, path: str, *parts: object) -> str:
        """The key of a piece of one file's version (its words, its pragmas)."""
        key = json.dumps([kind, path, *parts, self.store.digest(path)])
        if path in self.buffers:
            self.memo.ephemeral.add(key)
        return key

    def code(self, ref: CodeRef, compute: Callable[[], CodeFacts]) -> CodeFacts:
        """One code's dispatch calls and helper calls, found by its name in its module
        (its own "def Q"), or by its position (its module's body).

        Asked for many times a run (by every caller that runs the code, and by each step
        of the walk over helpers): the first answer is kept for the run with what it
        read, which every later ask reads again, as a piece reused from the memo does."""
        known = self._codes.get(ref)
        if known is not None:
            value, reads, key = known
            self.reads.replay(reads)
            if self._nested:
                self._nested[-1][key] = None
            return value
        path, name, index = ref
        own = BODY if name.startswith("@") else "def " + name
        parts = (path, name, index)
        with self.reads.span() as reads:
            value = self.piece("code", parts, [path], compute, CodeFacts, own=own)
        self._codes[ref] = (value, reads, piece_key("code", parts))
        return value

"""The engine: from a configuration and the project's source to the findings of every file.

One analysis covers the whole project, because a file's findings depend on others (a
subclass elsewhere waits on a registry entry; a handler elsewhere answers a name). It is
computed once and then asked for one file at a time, so linting one file, the whole tree,
or the tree under ``-j`` gives every file the same findings.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar, cast

import astroid
from astroid import nodes

from pylint_rpcsurface import rules
from pylint_rpcsurface.analysis.classes import ClassIndex, answered_names
from pylint_rpcsurface.analysis.decorators import all_transparent
from pylint_rpcsurface.analysis.handlers import handler_methods
from pylint_rpcsurface.analysis.modules import (
    BuiltFromFile,
    ModuleStore,
    definition_name,
    failed_imports_recorded,
    find_definition,
    recording_reads,
)
from pylint_rpcsurface.analysis.pragmas import pragma_states
from pylint_rpcsurface.analysis.reads import BODY, INTERFACE, ReadRecorder, Reads
from pylint_rpcsurface.analysis.registry import read_registry, read_registry_alone
from pylint_rpcsurface.analysis.subclasses import (
    CallerClassFacts,
    ModuleCallers,
    OpenClass,
    WordGroups,
    callers_in_module,
    configured_ancestors,
    word_groups,
    words_held,
)
from pylint_rpcsurface.config import Config, ConfigError, SurfaceSpec, key_of_class
from pylint_rpcsurface.engine.anchors import ANCHOR, anchor_of, positions, read_spans, reanchored
from pylint_rpcsurface.engine.collector import (
    BroadcastCollector,
    CodeFacts,
    CodeRef,
    Members,
    chain_order,
)
from pylint_rpcsurface.engine.digests import ModuleDigests, module_digests
from pylint_rpcsurface.engine.memo import USES, Dependency, Memo
from pylint_rpcsurface.engine.words_index import (
    WORDS_KEY,
    Searched,
    WordsIndex,
    WordsIndexShape,
    words_index_value,
)
from pylint_rpcsurface.model import (
    Analysis,
    Answers,
    Broadcast,
    CallerBroadcast,
    Finding,
    HandlerMethod,
    HelperStep,
    Location,
    Record,
    Registry,
    SurfaceFacts,
    UnknownCallers,
)
from pylint_rpcsurface.sources import SourceTree, real

__all__ = [
    "Facts",
    "Memo",
    "analyse",
    "analyse_recording_failed_imports",
    "failed_imports_recorded",
    "modules_astroid_has_read",
    "surface_facts",
]


_T = TypeVar("_T")


@dataclass(frozen=True, eq=False, repr=False)
class Facts(Record):
    """Each usable surface's facts, before the rules judge them (``report`` and ``fix``
    show and edit them; :func:`analyse` hands them to :func:`rules.findings`)."""

    config_errors: tuple[ConfigError, ...]
    surfaces: tuple[SurfaceFacts, ...]
    findings: tuple[Finding, ...] = ()  # the rules' findings, with their pragma states


def analyse(
    config: Config,
    overrides: Mapping[str, str] | None = None,
    memo: Memo | None = None,
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] | None = None,
    tree: SourceTree | None = None,
) -> Analysis:
    """Analyse the project *config* describes; *overrides* maps real paths to unsaved text.

    Each finding carries what its file's pylint pragmas say of it (``Finding.pragma``).
    With a *memo*, the pieces of facts whose modules are unchanged since an earlier run
    are taken from it (:mod:`.memo`); the findings are the same either way. *prebuilt*
    maps an override's path to the module pylint built from that text, or a saved file's
    to the module pylint built from it (``BuiltFromFile``), to reuse. *tree* is the
    configuration's source tree as the caller already listed it (the cache's, which
    fingerprinted the same files), so that one run walks the roots once.
    """
    facts = surface_facts(config, overrides, memo, prebuilt, tree)
    return Analysis.of(facts.config_errors, facts.findings)


def surface_facts(
    config: Config,
    overrides: Mapping[str, str] | None = None,
    memo: Memo | None = None,
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] | None = None,
    tree: SourceTree | None = None,
) -> Facts:
    """The facts :func:`analyse` derives its findings from, one per usable surface, and
    those findings (:func:`rules.findings`, with their pragma states).

    ``report`` and ``fix`` read the facts directly (and uncached). A piece from the memo
    whose definition is no longer where it was (a module written while this run read
    it) makes the run start again from nothing, once: it never ends in a traceback.
    """
    if tree is None or tree.roots != tuple(real(root) for root in config.source_roots):
        tree = SourceTree(config.source_roots)  # none given, or another configuration's
    with _no_cyclic_collection():
        try:
            return _surface_facts(config, overrides, memo, prebuilt, tree)
        except LookupError:
            return _surface_facts(config, overrides, Memo(None, ""), prebuilt, tree)


@contextlib.contextmanager
def _no_cyclic_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the analysis, as it was after.

    Building modules with astroid allocates a few hundred thousand objects that stay
    alive (the trees, kept in astroid's cache), and each allocation burst sets off a
    collection that walks every object alive: on a 5k-line module that is a third of the
    build. The analysis makes little cyclic garbage, so pausing costs no memory that
    matters (peak RSS is measured in docs/performance.md); reference counting still
    frees the rest at once. The collector is enabled again, if it was, when the block
    ends, however it ends, so a long-lived process (an IDE's) keeps its own setting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            # What the analysis allocated would be walked by the first collection after
            # this (most of it alive in astroid's cache): counted with the oldest objects
            # instead, without a walk. Only when nothing else is frozen, as unfreeze()
            # releases every frozen object; the next full collection still frees cycles.
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def _surface_facts(
    config: Config,
    overrides: Mapping[str, str] | None,
    memo: Memo | None,
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] | None,
    tree: SourceTree,
) -> Facts:
    store = ModuleStore(
        tree,
        dict(overrides or {}),
        dict(prebuilt or {}),
        known=memo.known_files if memo is not None else {},
    )
    run = _Run(config, store, memo if memo is not None else Memo(None, ""))
    with store.resolving_imports(), recording_reads(run.reads):
        facts = run.facts()
        findings = run.with_pragmas(rules.findings(facts.surfaces))
    run.finish()
    return replace(facts, findings=tuple(findings))


@dataclass(frozen=True, eq=False, repr=False)
class _Ref(Record):
    """Where a class or function is defined, by name (:func:`definition_name`): enough
    to find its node again and to tell two definitions of one name apart, and the same
    when lines above it move."""

    path: str
    name: str
    index: int

    @classmethod
    def of(cls, node: nodes.ClassDef | nodes.FunctionDef, tree: SourceTree) -> _Ref:
        """Where *node* is, by the path its file is known by (``SourceTree.key``)."""
        return cls(tree.key(node.root().file or ""), *definition_name(node))


@dataclass(frozen=True, eq=False, repr=False)
class _Resolved(Record):
    """A configured name, resolved: its definition, or why it does not resolve."""

    ref: _Ref | None
    qualname: str
    is_class: bool
    problem: str | None


@dataclass
class _SurfaceRefs:
    spec: SurfaceSpec
    callers: dict[str, _Resolved]
    handlers: list[_Resolved]
    base_handlers: list[_Resolved]
    registry: str | None  # the dotted name, when it resolved


class _Run:
    """One analysis: each piece of facts from the memo when the modules it may depend on
    are unchanged, else computed with astroid (and kept for the next run).

    Nodes are reached only to compute a piece: a run whose pieces are all in the memo
    builds no module at all.
    """

    def __init__(self, config: Config, store: ModuleStore, memo: Memo) -> None:
        self.config = config
        self.store = store
        self.memo = memo
        # What each piece reads, recorded only when the pieces outlive the run.
        self.reads = ReadRecorder(store.project_key, active=memo.keeps)
        store.reads = self.reads
        self.index = ClassIndex(store, self.reads)
        forms = {form.method: form for form in config.dispatch}
        self.collector = BroadcastCollector(
            forms,
            self.index,
            config.helper_depth,
            self.reads,
            piece=self._code_piece,
            spans=lambda path: self._summary(path)[1],
        )
        self._nodes: dict[_Ref, nodes.ClassDef | nodes.FunctionDef | None] = {}
        self._search_records: dict[str, Searched] = {}
        self._words: WordsIndex | None = None  # the memo's, read on first use
        self._words_changed = False
        self._word_groups: dict[frozenset[str], WordGroups] = {}  # each round's
        # The buffers whose text no saved file holds, by the store's keys: what depends on
        # them is never written to the memo (see Memo.ephemeral).
        self.buffers = frozenset(path for path in store.overrides if store.unsaved(path))
        self._digests: dict[str, ModuleDigests] = {}  # by content hash
        # The keys of the pieces each piece being computed asks for, innermost last.
        self._nested: list[dict[str, None]] = []
        # Each code's piece as this run first had it, with what it read, and its key.
        self._codes: dict[CodeRef, tuple[CodeFacts, Reads, str]] = {}

    # -------------------------------------------------------------- the memo's keys

    def _piece(
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
        when *parts* hold the positions the piece looks its definitions up by, else their
        whole body. A position in the value outside every function the piece read counts
        as a read of its module's whole body: the value holds it."""
        key = _piece_key(kind, parts)
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
                value = reanchored(value, anchors, lambda path: self._summary(path)[1])
            return cast(_T, value)
        self._nested.append({})
        try:
            with self.reads.span() as read:
                for path in on:
                    read.add(path, own)
                computed = compute()
        finally:
            nested = self._nested.pop()
        anchored: dict[Dependency, None] = {}
        spans: dict[str, list[tuple[int, int, str, int]] | None] = {}
        for path, line in positions(computed):
            if path not in spans:
                spans[path] = read_spans(read.levels.get(path, set()), self._summary(path)[1])
            anchor = anchor_of(spans[path], path, line)
            if anchor is None:
                read.add(path, BODY)
                spans[path] = None  # the whole body holds every position in it now
            elif anchor:
                anchored[anchor] = None
        dependencies = tuple(
            (path, level, self._digest(path, level)) for path, level in read.dependencies()
        )
        if anchored:
            body_read = {path for path, level, _ in dependencies if level == BODY}
            dependencies += tuple(a for a in anchored if a[0] not in body_read)
        # The pieces computing it asked for: kept in the memo while this one is used.
        dependencies += tuple((inner, USES, "") for inner in nested)
        lasting = not any(path in self.buffers for path, _, _ in dependencies)
        self.memo.keep(key, computed, dependencies, lasting=lasting)
        return computed

    def _still_holds(self, dependencies: tuple[Dependency, ...]) -> bool:
        """Whether every module a stored piece read has the digest it read (an anchor is
        no digest: the function's own "def Q" dependency says whether it holds; nor is
        a piece it used)."""
        return all(
            level == USES or level.startswith(ANCHOR) or self._digest(path, level) == digest
            for path, level, digest in dependencies
        )

    def _digest(self, path: str, level: str) -> str:
        """*path*'s digest at *level* (:mod:`.digests`); "absent" for a function the
        module no longer defines."""
        return self._summary(path)[0].get(level, "absent")

    def _summary(self, path: str) -> ModuleDigests:
        """*path*'s digests and function spans, computed once per version of the module."""
        content = self.store.digest(path)
        found = self._digests.get(content) or self.memo.digests_of(content)
        if found is None:
            found = module_digests(self.store.text(path))
            if path not in self.buffers and not content.startswith("not read"):
                self.memo.keep_digests(content, found)
        self._digests[content] = found
        return found

    def _file_key(self, kind: str, path: str, *parts: object) -> str:
        """The key of a piece of one file's version (its words, its pragmas)."""
        key = json.dumps([kind, path, *parts, self.store.digest(path)])
        if path in self.buffers:
            self.memo.ephemeral.add(key)
        return key

    def _modules_of(self, dotted: str) -> list[str]:
        """The module files a dotted name's prefixes name: what resolving it reads."""
        parts = dotted.split(".")
        found: list[str] = []
        for cut in range(1, len(parts) + 1):
            for path in self.store.tree.locate(".".join(parts[:cut])):
                if not os.path.isdir(path):
                    found.append(path)
        return found

    def node(self, ref: _Ref) -> nodes.ClassDef | nodes.FunctionDef | None:
        # Found by its name, which the pieces that look it up hold in their keys: the
        # module's interface says which definitions of it there are.
        self.reads.path(ref.path, INTERFACE)
        if ref not in self._nodes:
            module = self.store.module(ref.path)
            found = None if module is None else find_definition(module, ref.name, ref.index)
            self._nodes[ref] = found
        return self._nodes[ref]

    def _class(self, ref: _Ref) -> nodes.ClassDef:
        found = self.node(ref)
        if not isinstance(found, nodes.ClassDef):
            raise LookupError(f"no class at {ref}: the module changed during the analysis")
        return found

    # -------------------------------------------------------------- the pieces

    def resolve(self, field_name: str, dotted: str) -> _Resolved:
        is_callers = field_name == "callers"

        def compute() -> _Resolved:
            value = (self.index.resolve_caller if is_callers else self.index.resolve)(dotted)
            if not isinstance(value, (nodes.ClassDef, nodes.FunctionDef)):
                # Why it does not resolve may name the lines of its definitions.
                for path in self._modules_of(dotted):
                    self.reads.path(path, BODY)
                problem = value if isinstance(value, str) else "not a class"
                return _Resolved(None, dotted, False, problem)
            ref = _Ref.of(value, self.store.tree)
            self._nodes.setdefault(ref, value)
            return _Resolved(
                ref,
                self.index.qualname(value),
                isinstance(value, nodes.ClassDef),
                None,
            )

        plain = self._piece(
            "resolve",
            (is_callers, dotted),
            self._modules_of(dotted),
            lambda: _resolved_to_plain(compute()),
            _ResolvedShape,
        )
        return _as_resolved(plain)

    def registry(self, dotted: str) -> Registry | str:
        modname = dotted.rpartition(".")[0]

        def compute() -> Registry | tuple[str, str]:
            alone = self._registry_alone(dotted)
            if alone is not None:
                return alone
            located = self.index.resolve_module_attribute(dotted)
            if isinstance(located, str):
                return ("unresolved", located)  # tagged: no other piece is this shape
            module, attribute = located
            registry = read_registry(module, attribute, dotted)
            return registry if isinstance(registry, Registry) else ("unresolved", registry)

        value = self._piece(
            "registry",
            (dotted,),
            self._modules_of(modname),
            compute,
            Registry | tuple[str, str],
            own=BODY,
        )
        return value if isinstance(value, Registry) else str(value[1])

    def _registry_alone(self, dotted: str) -> Registry | None:
        """The registry read from its own statement (:func:`read_registry_alone`), when
        its module is one readable file, not at hand already (pylint's module, or one
        built), and nothing else in it bears on the registry."""
        modname, _, attribute = dotted.rpartition(".")
        located = self.store.tree.locate(modname)
        if len(located) != 1 or not located[0].endswith(".py") or os.path.isdir(located[0]):
            return None
        path = located[0]
        if self.store.has_module(path):
            return None  # reading it whole costs no build
        name = self.store.tree.module_name(path)  # the name a whole build would give it
        if name is None or self.store.unreadable(path) or self.store.undecodable(path):
            return None
        return read_registry_alone(self.store.text(path), path, name, attribute, dotted)

    def ancestors(self, ref: _Ref, configured: frozenset[str]) -> frozenset[str]:
        def compute() -> frozenset[str]:
            return configured_ancestors(self._class(ref), self.index, configured)

        parts = (ref.path, ref.name, ref.index, sorted(configured))
        return frozenset(self._piece("ancestors", parts, [ref.path], compute, frozenset[str]))

    def module_callers(self, path: str, configured: frozenset[str]) -> ModuleCallers:
        def compute() -> ModuleCallers:
            module = self.store.module(path)
            if module is None:
                failure = self.store.failure(path)
                why = (failure.line, failure.reason) if failure is not None else None
                return ModuleCallers(parsed=False, classes=(), aliases=(), failure=why)
            return callers_in_module(module, self.index, configured)

        value = self._piece(
            "module-callers",
            (path, sorted(configured)),
            [path],
            lambda: _callers_to_plain(compute()),
            _ModuleCallersShape,
            own=BODY,
        )
        return _as_module_callers(value)

    def _code_piece(self, ref: CodeRef, compute: Callable[[], CodeFacts]) -> CodeFacts:
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
            value = self._piece("code", parts, [path], compute, CodeFacts, own=own)
        self._codes[ref] = (value, reads, _piece_key("code", parts))
        return value

    def broadcasts(self, name: str, ref: _Ref) -> tuple[tuple[Broadcast, ...], bool]:
        def compute() -> tuple[tuple[Broadcast, ...], bool]:
            members = self._piece(
                "members",
                (ref.path, ref.name, ref.index),
                [ref.path],
                lambda: self._members_of(ref),
                Members | None,
            )
            if members is not None:
                # Put together from the pieces alone: no module is built for it.
                return tuple(self.collector.of_members(members)), bool(members[0])
            caller = self._caller(ref)
            found, complete = self.collector.of_caller(caller)
            return tuple(found), complete

        found, complete = self._piece(
            "broadcasts",
            (name, ref.path, ref.name, ref.index),
            [ref.path],
            compute,
            tuple[tuple[Broadcast, ...], bool],
        )
        return tuple(found), bool(complete)

    def _caller(self, ref: _Ref) -> nodes.ClassDef | nodes.FunctionDef:
        caller = self.node(ref)
        if caller is None:
            raise LookupError(f"no caller at {ref}: the module changed during the analysis")
        return caller

    def _members_of(self, ref: _Ref) -> Members | None:
        """The caller's method resolution order and members (the collector's), a function
        caller being the one member of a class of its own; None when some of its code
        lies outside the project."""
        caller = self._caller(ref)
        if isinstance(caller, nodes.ClassDef):
            return self.collector.members_of(caller)
        code = self.collector.ref(caller)
        if not self.store.project_key(code[0]):
            return None
        return (True, (("", (("", code),)),))

    def answers(self, classes: Sequence[_Resolved]) -> Answers:
        refs = [c.ref for c in classes if c.ref is not None]

        def compute() -> Answers:
            return answered_names([self._class(ref) for ref in refs], self.index)

        value = self._piece(
            "answers",
            ([(r.path, r.name, r.index) for r in refs],),
            [r.path for r in refs],
            compute,
            Answers,
        )
        if not isinstance(value, Answers):
            raise TypeError("not an Answers")
        return value

    def handler_methods(
        self, rpcs: Iterable[str], classes: Sequence[_Resolved]
    ) -> list[HandlerMethod]:
        """The method each class runs for each name, one entry per distinct method.

        One piece per name and class, so that an edit of a handler module recomputes only
        the classes whose modules may read it (a subclass's edit leaves its base alone).
        """
        transparent = partial(all_transparent, listed=self.config.transparent_decorators)
        merged: dict[tuple[str, Location], HandlerMethod] = {}
        for rpc in sorted(set(rpcs)):
            for ref in dict.fromkeys(c.ref for c in classes if c.ref is not None):

                def compute(rpc: str = rpc, ref: _Ref = ref) -> tuple[HandlerMethod, ...]:
                    return handler_methods([rpc], [self._class(ref)], self.index, transparent)

                parts = (rpc, ref.path, ref.name, ref.index)
                found = self._piece(
                    "handler", parts, [ref.path], compute, tuple[HandlerMethod, ...]
                )
                for method in found:
                    known = merged.get((method.rpc, method.at))
                    users = {*method.classes, *(known.classes if known is not None else ())}
                    # One method that several classes run is one entry, naming them all.
                    merged[(method.rpc, method.at)] = replace(method, classes=tuple(sorted(users)))
        return list(merged.values())

    # -------------------------------------------------------------- the surfaces

    def facts(self) -> Facts:
        errors: list[ConfigError] = []
        resolved = [self._resolve_surface(spec, errors) for spec in self.config.surfaces]
        usable = [surface for surface in resolved if surface is not None]
        configured = {
            name: caller
            for s in usable
            for name, caller in s.callers.items()
            if caller.is_class  # a function caller has no subclasses
        }
        family = self._caller_family(configured)
        facts = [self._surface_facts(surface, family) for surface in usable]
        return Facts(tuple(errors), tuple(facts))

    def _resolve_surface(self, spec: SurfaceSpec, errors: list[ConfigError]) -> _SurfaceRefs | None:
        """The classes (and the callers' functions) and registry module *spec* names; None
        (and errors) if any is missing."""
        count = len(errors)
        config = self.config

        def resolved(field_name: str, names: tuple[str, ...]) -> list[_Resolved]:
            is_callers = field_name == "callers"
            wanted = "a class or a module-level function" if is_callers else "a class"
            found: list[_Resolved] = []
            for position, name in enumerate(names):
                value = self.resolve(field_name, name)
                if value.problem is not None:
                    errors.append(
                        ConfigError(
                            config.path,
                            key_of_class(spec, field_name, position),
                            f"expected {wanted} under the source roots, but {value.problem}",
                        )
                    )
                else:
                    found.append(value)
            return found

        callers = resolved("callers", spec.callers)
        handlers = [c for c in resolved("handlers", spec.handlers) if c.is_class]
        base_handlers = [c for c in resolved("base-handlers", spec.base_handlers) if c.is_class]
        registry = None
        if spec.registry is not None:
            located = self.registry(spec.registry)
            if isinstance(located, str):
                errors.append(
                    ConfigError(
                        config.path,
                        f"{spec.key}.registry",
                        f"expected a module-level constant under the source roots, but {located}",
                    )
                )
            else:
                registry = spec.registry
        if len(errors) > count:
            return None  # never judge a surface from half of its definition
        return _SurfaceRefs(
            spec, {c.qualname: c for c in callers}, handlers, base_handlers, registry
        )

    def _caller_family(self, configured: Mapping[str, _Resolved]) -> _Family:
        """The configured callers and all their subclasses, by fully qualified name.

        A class can only name its base, directly or through an alias, if the base's name
        (or the alias) appears in the file's text, so a word search over the raw text picks
        the few files worth reading (see :mod:`..analysis.subclasses`). Each subclass or
        alias found adds its name to the search, until nothing new turns up.
        """
        names = frozenset(configured)
        # A configured caller is also a member of every surface that configures one of its
        # bases: naming it in one surface must not take it out of another.
        found: dict[str, tuple[_Ref, frozenset[str]]] = {}
        for name, caller in configured.items():
            assert caller.ref is not None
            found[name] = (caller.ref, frozenset({name}) | self.ancestors(caller.ref, names))
        words = {name.rsplit(".", 1)[-1] for name in configured}
        parsed: set[str] = set()
        unknown: list[UnknownCallers] = []
        files = self.store.python_files()
        # A file that is not read (a FIFO, one over the size cap), or whose text can't be
        # decoded (so the search can't see its words), may name a caller too.
        unread = {p: r for p in files if (r := self.store.unreadable(p)) is not None}
        undecodable = {p for p in files if p not in unread and self._searched(p, words)[2]}
        searched: set[str] = set()
        while words - searched:
            # A file that didn't mention the words of earlier rounds can only match a new one.
            new = words - searched
            searched.update(new)
            batch = [
                p
                for p in files
                if p not in parsed
                and (p in unread or p in undecodable or self._searched(p, new)[1] & new)
            ]
            for path in batch:
                parsed.add(path)
                if path in unread:
                    where = Location(path, 1, 0, None, None)
                    unknown.append(UnknownCallers("unread", where, unread[path]))
                    continue
                module = self.module_callers(path, names)
                if not module.parsed:
                    # It names a caller but can't be parsed (pylint reports the syntax
                    # error when it lints it) or decoded: a subclass in it is unknown,
                    # not absent.
                    line, reason = module.failure or (None, "can't be built")
                    where = Location(path, line or 1, 0, None, None)
                    unknown.append(UnknownCallers("unparsed", where, reason))
                    continue
                for open_class in module.open_classes:
                    unknown.append(
                        UnknownCallers("open-class", open_class.location, open_class.reason)
                    )
                for cls in module.classes:
                    ref = _Ref(path, cls.within, cls.index)
                    name = cls.qualname
                    if name in found and found[name][0] != ref:
                        # Another definition that can run (if/else, try/except): judged
                        # too, under a name that says which one it is.
                        name = f"{name} (line {cls.line})"
                    if name in found:
                        continue
                    if cls.descends_from:
                        found[name] = (ref, cls.descends_from)
                        words.add(cls.name)
                # One pass, against the words so far: an alias of an alias in the same
                # module is not followed (as before the memo).
                words.update([alias for alias, aliased in module.aliases if aliased in words])
        return _Family(found, tuple(sorted(unknown, key=lambda u: u.location)))

    def _searched(self, path: str, words: set[str]) -> Searched:
        """What the word search knows of *path*'s text: the words asked of it, those of
        them it holds as whole words, and why it can't be decoded (or None).

        Kept for each file version in the memo's word index, grown as rounds ask new
        words: a file unchanged since an earlier run that asked the same words is not
        read at all."""
        searched = self._search_records.get(path)
        if searched is None:
            searched = self._words_index().known(path, self.store.digest(path))
            if searched is None:
                searched = self._search(path, frozenset(words))
                self._words_changed = True
        if not searched[0].issuperset(words):
            # Only the new words are looked for: the record already says which earlier
            # ones the text holds.
            asked, held, undecodable = searched
            grown = self._search(path, frozenset(words) - asked)
            searched = (asked | grown[0], held | grown[1], undecodable)
            self._words_changed = True
        # Asked again in each round of the search: kept for the run, decoded once.
        self._search_records[path] = searched
        return searched

    def _words_index(self) -> WordsIndex:
        if self._words is None:
            stored = self.memo.get(WORDS_KEY, lambda: ((), ()), WordsIndexShape)
            self._words = WordsIndex(stored)
        return self._words

    def _keep_words(self) -> None:
        """Put this run's word index in the memo, if a record changed: each file's
        record as searched, but an unsaved buffer's, whose saved file's record stays."""
        if self._words is None:
            return
        if not self._words_changed and self._words.paths() <= self._search_records.keys():
            return  # the stored index, as read (memo.get keeps it)
        records = {
            path: (self.store.digest(path), searched)
            for path, searched in self._search_records.items()
            if path not in self.buffers
        }
        for path in self.buffers:
            saved = self._words.stored(path)
            if saved is not None:
                records[path] = saved
        self.memo.put(WORDS_KEY, words_index_value(records))

    def _search(self, path: str, words: frozenset[str]) -> Searched:
        # A subclass may name its base in another spelling of the same name (fullwidth).
        text = self.store.names_text(path)
        if words not in self._word_groups:
            self._word_groups[words] = word_groups(words)
        held = words_held(text, self._word_groups[words])
        return (words, held, self.store.undecodable(path))

    def _surface_facts(self, surface: _SurfaceRefs, family: _Family) -> SurfaceFacts:
        configured = surface.callers.keys()
        members: dict[str, _Ref] = {
            name: ref
            for name, (ref, descends) in family.classes.items()
            if descends.intersection(configured)
        }
        members.update(
            (name, caller.ref)
            for name, caller in surface.callers.items()
            if not caller.is_class and caller.ref is not None
        )
        # A site is one call, however many chains of helper calls reach it: the shortest
        # (a direct one first) is the one its messages name.
        callers_by_site: dict[Broadcast, set[str]] = defaultdict(set)
        chains: dict[Broadcast, tuple[HelperStep, ...]] = {}
        callers_complete = not family.unknown
        for name, ref in members.items():
            broadcasts, complete = self.broadcasts(name, ref)
            callers_complete = callers_complete and complete
            for broadcast in broadcasts:
                site = replace(broadcast, via=())
                callers_by_site[site].add(name)
                known = chains.get(site)
                if known is None or chain_order(broadcast.via) < chain_order(known):
                    chains[site] = broadcast.via
        loop_answers = frozenset(surface.spec.answered_before_lookup)
        # A name the loop answers never reaches a handler's method: none is judged for it.
        rpcs = {
            broadcast.rpc
            for broadcast in callers_by_site
            if broadcast.rpc is not None and broadcast.rpc not in loop_answers
        }
        methods = self.handler_methods(rpcs, [*surface.handlers, *surface.base_handlers])
        registry: Registry | None = None
        if surface.registry is not None:
            located = self.registry(surface.registry)
            registry = located if isinstance(located, Registry) else None
        return SurfaceFacts(
            name=surface.spec.name,
            callers=tuple(sorted(members)),
            callers_complete=callers_complete,
            broadcasts=tuple(
                CallerBroadcast(replace(site, via=chains[site]), tuple(sorted(names)))
                for site, names in sorted(callers_by_site.items(), key=lambda item: item[0].call)
            ),
            handlers=self.answers(surface.handlers),
            base_handlers=self.answers(surface.base_handlers),
            registry=registry,
            root=str(self.config.root),
            handler_methods=tuple(sorted(methods, key=lambda m: (m.rpc, m.at, m.classes))),
            unknown_callers=family.unknown,
            loop_answers=loop_answers,
        )

    # -------------------------------------------------------------- pragmas, the end

    def with_pragmas(self, findings: Sequence[Finding]) -> list[Finding]:
        """*findings*, each with the state its file's pragmas give it at its line."""
        wanted: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        for found in findings:
            wanted[found.location.path][found.symbol].add(found.location.line)
        states: dict[tuple[str, str, int], bool | None] = {}
        for path, lines in wanted.items():
            asked = {s: frozenset(n) for s, n in lines.items()}

            def compute(
                path: str = path, asked: dict[str, frozenset[int]] = asked
            ) -> tuple[tuple[str, int, bool | None], ...]:
                module = self.store.module(path)
                if module is None:
                    return ()
                by_line = pragma_states(module, self.store.text(path), asked)
                return tuple((s, n, state) for (s, n), state in sorted(by_line.items()))

            asked_plain = sorted((s, sorted(n)) for s, n in asked.items())
            key = self._file_key("pragmas", path, asked_plain)
            for symbol, line, state in self.memo.get(key, compute, _PragmaStates):
                states[(path, symbol, line)] = state
        return [
            replace(f, pragma=states.get((f.location.path, f.symbol, f.location.line)))
            for f in findings
        ]

    def finish(self) -> None:
        """Keep this run's pieces, unless a module changed while they were computed: a
        piece is stored only under the content it was computed from."""
        self._keep_words()
        if not self.store.changed_since_read():
            project = set(self.store.python_files())
            read = modules_astroid_has_read()
            contents = {content for content in self._digests if not content.startswith("buffer ")}
            self.memo.save(
                {name: path for name, path in read.items() if path not in project}, contents
            )


def _piece_key(kind: str, parts: Sequence[object]) -> str:
    """The memo's key of the piece *kind* of *parts*."""
    return json.dumps([kind, *parts], default=str)


def modules_astroid_has_read() -> dict[str, str]:
    """Each module in astroid's cache that has a file, by name: all an analysis can have read.

    Inference reaches modules outside the source roots too (a base class from an installed
    library); the cache records these so that changing or moving them invalidates its entry.
    """
    files = {
        name: getattr(module, "file", None)
        for name, module in astroid.MANAGER.astroid_cache.items()
    }
    return {name: real(file) for name, file in files.items() if isinstance(file, str)}


def analyse_recording_failed_imports(
    config: Config,
    overrides: Mapping[str, str] | None = None,
    memo: Memo | None = None,
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] | None = None,
    tree: SourceTree | None = None,
) -> tuple[Analysis, frozenset[str]]:
    """:func:`analyse`, and the names of the modules that astroid could not find on the
    search path meanwhile: a library installed later must change what the cache says
    (and what the memo keeps, which records them too)."""
    with failed_imports_recorded(memo.failed_imports if memo is not None else None) as failed:
        analysis = analyse(config, overrides, memo, prebuilt, tree)
    return analysis, frozenset(failed)


# The shapes of the pieces stored as plain data (Memo.get's expect): a stored piece of
# any other shape is computed again.
_ResolvedShape = tuple[tuple[str, str, int] | None, str, bool, str | None]
_ModuleCallersShape = tuple[
    bool,
    tuple[tuple[str, str, int, int, str, int, frozenset[str]], ...],
    tuple[tuple[str, str], ...],
    tuple[tuple[str, Location, str], ...],
    tuple[int | None, str] | None,
]
_PragmaStates = tuple[tuple[str, int, bool | None], ...]


def _resolved_to_plain(value: _Resolved) -> tuple[object, ...]:
    ref = value.ref
    place = (ref.path, ref.name, ref.index) if ref is not None else None
    return (place, value.qualname, value.is_class, value.problem)


def _as_resolved(raw: Any) -> _Resolved:
    place, qualname, is_class, problem = raw
    ref = _Ref(str(place[0]), str(place[1]), int(place[2])) if place is not None else None
    return _Resolved(ref, str(qualname), bool(is_class), None if problem is None else str(problem))


def _callers_to_plain(value: ModuleCallers) -> tuple[object, ...]:
    classes = tuple(
        (c.qualname, c.name, c.line, c.col, c.within, c.index, c.descends_from)
        for c in value.classes
    )
    opened = tuple((c.name, c.location, c.reason) for c in value.open_classes)
    return (value.parsed, classes, value.aliases, opened, value.failure)


def _as_module_callers(raw: Any) -> ModuleCallers:
    parsed, classes, aliases, opened, failure = raw
    if failure is not None:
        line, reason = failure
        failure = (None if line is None else int(line), str(reason))
    return ModuleCallers(
        bool(parsed),
        tuple(
            CallerClassFacts(
                str(q), str(n), int(line), int(col), str(within), int(index), frozenset(d)
            )
            for q, n, line, col, within, index, d in classes
        ),
        tuple((str(alias), str(aliased)) for alias, aliased in aliases),
        tuple(
            OpenClass(str(name), at, str(reason))
            for name, at, reason in opened
            if isinstance(at, Location)
        ),
        failure,
    )


@dataclass(frozen=True, eq=False, repr=False)
class _Family(Record):
    """The callers found, and what may hold more (each with where and why)."""

    classes: dict[str, tuple[_Ref, frozenset[str]]]
    unknown: tuple[UnknownCallers, ...]

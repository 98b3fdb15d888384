"""The engine: from a configuration and the project's source to the findings of every file.

One analysis covers the whole project, because a file's findings depend on others (a
subclass elsewhere waits on a registry entry; a handler elsewhere answers a name). It is
computed once and then asked for one file at a time, so linting one file, the whole tree,
or the tree under ``-j`` gives every file the same findings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import astroid
from astroid import nodes

from pylint_rpcsurface import rules
from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.analysis.modules import (
    BuiltFromFile,
    ModuleStore,
    failed_imports_recorded,
    recording_reads,
)
from pylint_rpcsurface.analysis.subclass_search import CallerFamily, caller_family
from pylint_rpcsurface.config import Config, ConfigError, SurfaceSpec, key_of_class
from pylint_rpcsurface.engine.collector import chain_order
from pylint_rpcsurface.engine.judging import Judge, Judging, TableScope
from pylint_rpcsurface.engine.memo import Memo
from pylint_rpcsurface.engine.pieces import KeptBetweenAnalyses, Pieces
from pylint_rpcsurface.engine.proxy_facts import ProxyTables
from pylint_rpcsurface.engine.queries import Queries, Ref, Resolved, family_members
from pylint_rpcsurface.engine.settled import SettledBranches
from pylint_rpcsurface.engine.words_index import WordSearch
from pylint_rpcsurface.model import (
    Analysis,
    Broadcast,
    CallerBroadcast,
    Finding,
    HandlerMethod,
    HelperStep,
    ProxyFacts,
    Registry,
    RunCounts,
    SurfaceFacts,
    Table,
)
from pylint_rpcsurface.sources import SourceTree, real

__all__ = [
    "Facts",
    "Memo",
    "failed_imports_recorded",
    "modules_astroid_has_read",
    "surface_facts",
]


@dataclass(frozen=True)
class Facts:
    """Each usable surface's facts (``report`` and ``fix`` show and edit them), and the
    findings :func:`rules.findings` judged from them (:meth:`analysis` groups them)."""

    config_errors: tuple[ConfigError, ...]
    surfaces: tuple[SurfaceFacts, ...]
    findings: tuple[Finding, ...] = ()  # the rules' findings, with their pragma states
    proxies: tuple[ProxyFacts, ...] = ()  # each usable [[tool.rpcsurface.proxy]] table's
    # What computing them cost: no part of the answer, so two answers compare equal.
    counts: RunCounts = field(default_factory=RunCounts, compare=False)

    def analysis(self) -> Analysis:
        """The findings by file, with the configuration errors: what pylint and ``check``
        report."""
        return Analysis.of(self.config_errors, self.findings)


def surface_facts(
    config: Config,
    overrides: Mapping[str, str] | None = None,
    memo: Memo | None = None,
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] | None = None,
    tree: SourceTree | None = None,
    *,
    kept: KeptBetweenAnalyses | None = None,
) -> Facts:
    """The facts of the project *config* describes, one per usable surface, and the
    findings :func:`rules.findings` judges from them, each with what its file's pylint
    pragmas say of it (``Finding.pragma``); *overrides* maps real paths to unsaved text.

    The one entry point of the engine: pylint and ``check`` take ``Facts.analysis()``,
    ``report`` and ``fix`` the facts. With a *memo*, the pieces whose modules are
    unchanged since an earlier run are taken from it (:mod:`.memo`); the facts are the
    same either way. *prebuilt* maps an override's path to the module pylint built from
    that text, or a saved file's to the module pylint built from it (``BuiltFromFile``),
    to reuse. *tree* is the configuration's source tree as the caller already listed it
    (the store's, which fingerprinted the same files), so that one run walks the roots
    once. A piece from the memo whose definition is no longer where it was (a module
    written while this run read it) makes the run start again from nothing, once: it
    never ends in a traceback. *kept* holds what a long-lived process's earlier analyses
    left (:class:`.pieces.KeptBetweenAnalyses`: digests, and the modules built from their
    files), and is left what this one read.
    """
    if tree is None or tree.roots != tuple(real(root) for root in config.source_roots):
        tree = SourceTree(config.source_roots)  # none given, or another configuration's
    with no_cyclic_collection():
        try:
            return _surface_facts(config, overrides, memo, prebuilt, tree, kept=kept)
        except LookupError:
            return _surface_facts(config, overrides, Memo(None, ""), prebuilt, tree, kept=kept)


def _surface_facts(
    config: Config,
    overrides: Mapping[str, str] | None,
    memo: Memo | None,
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] | None,
    tree: SourceTree,
    *,
    kept: KeptBetweenAnalyses | None,
) -> Facts:
    store = ModuleStore(
        tree,
        dict(overrides or {}),
        # The modules a long-lived process's last analysis built, unless pylint's are given.
        {**(kept.modules if kept is not None else {}), **(prebuilt or {})},
        known=memo.known_files if memo is not None else {},
        lean=kept is None or not kept.analysed,
    )
    run = _Run(config, store, memo if memo is not None else Memo(None, ""), kept)
    # Held, not just named: a module released and another built at its address is new.
    before = dict(astroid.MANAGER.astroid_cache)
    with store.resolving_imports(), recording_reads(run.reads, store):
        facts = run.facts()
        findings = run.queries.with_pragmas(rules.findings(facts.surfaces, facts.proxies))
    run.finish()
    return replace(facts, findings=tuple(findings), counts=run.counts(before))


@dataclass
class _SurfaceRefs:
    spec: SurfaceSpec
    callers: dict[str, Resolved]
    handlers: list[Resolved]
    base_handlers: list[Resolved]
    registry: str | None  # the dotted name, when it resolved
    tables: list[Table] = field(default_factory=list)


class _Run:
    """One analysis: the surfaces' facts (and, by :class:`.proxy_facts.ProxyTables`, the
    proxy tables') put together from the queries' pieces, each from the memo when the
    modules it read are unchanged, else computed with astroid (and kept for the next
    run). A run whose pieces are all in the memo builds no module."""

    def __init__(
        self, config: Config, store: ModuleStore, memo: Memo, kept: KeptBetweenAnalyses | None
    ) -> None:
        self.config = config
        self.store = store
        self.memo = memo
        self.pieces = Pieces(store, memo, kept)
        self.reads = self.pieces.reads
        self.queries = Queries(config, self.pieces)
        self.words = WordSearch(store, memo, self.pieces.buffers)
        self.proxies = ProxyTables(config, store, self.queries, self.words)

    # -------------------------------------------------------------- the surfaces

    def facts(self) -> Facts:
        errors: list[ConfigError] = []
        resolved = [self._resolve_surface(spec, errors) for spec in self.config.surfaces]
        usable = [surface for surface in resolved if surface is not None]
        resolved_proxies = [self.proxies.resolve(spec, errors) for spec in self.config.proxies]
        proxies = [proxy for proxy in resolved_proxies if proxy is not None]
        configured = {
            name: caller
            for callers in [*(s.callers for s in usable), *(p.callers for p in proxies)]
            for name, caller in callers.items()
            if caller.is_class  # a function caller has no subclasses
        }
        family = self._caller_family(configured)
        judging = Judging(
            [
                TableScope(
                    frozenset(s.callers),
                    frozenset(family_members(s.callers, family)),
                    frozenset(s.spec.dispatch) or None,
                    s.spec.when,
                )
                for s in usable
            ],
            family.classes,
        )
        settled = SettledBranches(self.queries, self.store, self.words, family.classes)
        facts = [
            self._surface_facts(surface, family, _judge(judging, position, settled))
            for position, surface in enumerate(usable)
        ]
        proxy_judging = Judging(
            [
                TableScope(
                    frozenset(p.callers),
                    frozenset(family_members(p.callers, family)),
                    frozenset(p.spec.receivers),
                    p.spec.when,
                )
                for p in proxies
            ],
            family.classes,
        )
        proxy_facts = [
            self.proxies.facts(proxy, family, errors, _judge(proxy_judging, position, settled))
            for position, proxy in enumerate(proxies)
        ]
        return Facts(
            tuple(errors),
            tuple(facts),
            proxies=tuple(found for found in proxy_facts if found is not None),
        )

    def _resolve_surface(self, spec: SurfaceSpec, errors: list[ConfigError]) -> _SurfaceRefs | None:
        """The classes (and the callers' functions) and registry module *spec* names; None
        (and errors) if any is missing."""
        count = len(errors)
        config = self.config

        def resolved(field_name: str, names: tuple[str, ...]) -> list[Resolved]:
            is_callers = field_name == "callers"
            wanted = "a class or a module-level function" if is_callers else "a class"
            found: list[Resolved] = []
            for position, name in enumerate(names):
                value = self.queries.resolve(field_name, name)
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
            located = self.queries.registry(spec.registry)
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
        tables = []
        for position, dotted in enumerate(spec.tables):
            table = self.queries.table(dotted)
            if isinstance(table, str):
                errors.append(
                    ConfigError(
                        config.path,
                        key_of_class(spec, "tables", position),
                        "expected a dict literal (a module constant, or a class's "
                        f"attribute) under the source roots, but {table}",
                    )
                )
            else:
                tables.append(self._answered(table))
        if len(errors) > count:
            return None  # never judge a surface from half of its definition
        return _SurfaceRefs(
            spec, {c.qualname: c for c in callers}, handlers, base_handlers, registry, tables
        )

    def _answered(self, table: Table) -> Table:
        """*table*, each entry saying whether its class binds the method it names (the
        names each class binds read once, whatever the number of its entries)."""
        owners = {e.owner for e in table.entries if e.owner is not None}
        answers = {
            owner: self.queries.answers([self.queries.resolve("tables", owner)]) for owner in owners
        }
        entries = tuple(
            replace(e, answered=e.method in answers[e.owner].names)
            if e.owner is not None and answers[e.owner].complete
            else e
            for e in table.entries
        )
        return replace(table, entries=entries)

    def _caller_family(self, configured: Mapping[str, Resolved]) -> CallerFamily[Ref]:
        """The configured callers and all their subclasses, by fully qualified name
        (:func:`..analysis.subclass_search.caller_family`)."""
        names = frozenset(configured)
        found: dict[str, tuple[Ref, frozenset[str]]] = {}
        for name, caller in configured.items():
            assert caller.ref is not None
            ancestors = self.queries.ancestors(caller.ref, names)
            found[name] = (caller.ref, frozenset({name}) | ancestors)
        return caller_family(
            found,
            self.store.python_files(),
            unreadable=self.store.unreadable,
            searched=self.words.searched,
            module_callers=lambda path: self.queries.module_callers(path, names),
            ref_of=lambda path, cls: Ref(path, cls.within, cls.index),
        )

    def _surface_facts(
        self, surface: _SurfaceRefs, family: CallerFamily[Ref], judges: Judge
    ) -> SurfaceFacts:
        """*surface*'s facts, over the calls it *judges* (:mod:`.judging`) of its callers."""
        members = family_members(surface.callers, family)
        # A site is one call, however many chains of helper calls reach it: the shortest
        # (a direct one first) is the one its messages name.
        callers_by_site: dict[Broadcast, set[str]] = defaultdict(set)
        chains: dict[Broadcast, tuple[HelperStep, ...]] = {}
        callers_complete = not family.unknown
        sent_by = frozenset(surface.spec.dispatch)
        table_keys = (
            None if not surface.tables else {e.key for t in surface.tables for e in t.entries}
        )
        for name, ref in members.items():
            broadcasts, complete = self.queries.broadcasts(name, ref)
            callers_complete = callers_complete and complete
            for broadcast in broadcasts:
                if sent_by and broadcast.method not in sent_by:
                    continue  # another dispatch's call: another surface judges it
                if not judges(name, broadcast.method, broadcast.conditions):
                    continue  # a more specific surface judges it for this caller
                site = _keyed(replace(broadcast, via=()), table_keys)
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
        replies = {
            broadcast.rpc
            for broadcast in callers_by_site
            if broadcast.rpc is not None and _reads_replies(broadcast)
        }
        methods = self.queries.handler_methods(
            rpcs, [*surface.handlers, *surface.base_handlers], replies
        )
        methods.extend(self._table_methods(surface.tables, rpcs, replies))
        handlers = self.queries.answers(surface.handlers)
        if surface.tables:
            # A table answers its keys, as a handler class answers the names it binds;
            # one with a fallback answers every name sent.
            keys = [
                (t.qualname, frozenset(e.key for e in t.entries) | (rpcs if t.fallback else set()))
                for t in surface.tables
            ]
            handlers = replace(
                handlers,
                classes=(*handlers.classes, *(name for name, _ in keys)),
                names=handlers.names.union(*(names for _, names in keys)),
                by_class=(*handlers.by_class, *keys),
            )
        registry: Registry | None = None
        if surface.registry is not None:
            located = self.queries.registry(surface.registry)
            registry = located if isinstance(located, Registry) else None
        return SurfaceFacts(
            name=surface.spec.name,
            callers=tuple(sorted(members)),
            callers_complete=callers_complete,
            broadcasts=tuple(
                CallerBroadcast(replace(site, via=chains[site]), tuple(sorted(names)))
                for site, names in sorted(callers_by_site.items(), key=lambda item: item[0].call)
            ),
            handlers=handlers,
            base_handlers=self.queries.answers(surface.base_handlers),
            registry=registry,
            root=str(self.config.root),
            handler_methods=tuple(sorted(methods, key=lambda m: (m.rpc, m.at, m.classes))),
            unknown_callers=family.unknown,
            loop_answers=loop_answers,
            tables=tuple(surface.tables),
            when=surface.spec.when,
            one_of=surface.spec.one_of,
        )

    def _table_methods(
        self, tables: Sequence[Table], rpcs: set[str], replies: set[str]
    ) -> list[HandlerMethod]:
        """The method each table entry names for the names sent, as a handler method of
        its key (judged as a handler class's would be, its replies for the names in
        *replies*), its table the one class it is for. A function, or a method its class
        does not bind, is not judged here."""
        found: list[HandlerMethod] = []
        for table in tables:
            for entry in table.entries:
                if entry.key not in rpcs or entry.owner is None or not entry.answered:
                    continue
                owner = self.queries.resolve("tables", entry.owner)  # a piece: read once
                judged = [entry.method] if entry.key in replies else []
                for method in self.queries.handler_methods([entry.method], [owner], judged):
                    found.append(replace(method, rpc=entry.key, classes=(table.qualname,)))
        return found

    # -------------------------------------------------------------- the end

    def counts(self, before: Mapping[str, nodes.Module]) -> RunCounts:
        """What this run did, *before* being astroid's cache as it began: a module is
        built by the run when the cache holds it now and did not then, and pylint did
        not build it (a buffer's module, or a saved file's, reused)."""
        given = {
            id(built.module if isinstance(built, BuiltFromFile) else built)
            for built in self.store.prebuilt.values()
        }
        project: set[str] = set()
        elsewhere = 0
        # The lean modules are built by the run and out of astroid's cache again.
        cached = [*astroid.MANAGER.astroid_cache.items()]
        for name, module in [*cached, *((m.name, m) for m in self.store.lean_built)]:
            if before.get(name) is module or id(module) in given:
                continue
            file = getattr(module, "file", None)
            path = self.store.project_key(file) if isinstance(file, str) else None
            if path is not None:
                project.add(path)
            else:
                elsewhere += 1
        return RunCounts(
            tuple(sorted(project)),
            elsewhere,
            self.memo.misses,
            self.memo.hits,
            tuple(sorted(self.words.texts_searched)),
        )

    def finish(self) -> None:
        """Keep this run's pieces, unless a module changed while they were computed: a
        piece is stored only under the content it was computed from."""
        self.words.keep()
        changed = self.store.changed_since_read()
        self.pieces.keep_for_next(modules_too=not changed)
        if not changed:
            project = set(self.store.python_files())
            # With the libraries whose text told that a call into them sends nothing.
            libraries = self.queries.libraries
            read = {**libraries.read, **modules_astroid_has_read()}
            self.memo.failed_imports.update(libraries.missing)
            self.memo.save(
                {name: path for name, path in read.items() if path not in project},
                self.pieces.contents(),
            )


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


def _judge(judging: Judging, position: int, settled: SettledBranches) -> Judge:
    """Whether the table at *position* of *judging* judges a caller's call: one of the
    tables that judge it (:mod:`.judging`), in a branch that caller may run
    (:mod:`.settled`)."""

    def judges(caller: str, key: str, conditions: Sequence[str]) -> bool:
        return judging.judges(position, caller, key, conditions) and not settled.never_runs(
            caller, conditions
        )

    return judges


def _reads_replies(site: Broadcast) -> bool:
    """Whether a reply rule (:mod:`..rules.reply_rules`) reads the replies of *site*'s
    handlers: a waited call whose dispatch drops None, an unwaited one whose replies share
    one queue, or one whose reply is unpacked."""
    return (
        (site.drops_none and site.waited is True)
        or (site.shared_reply_queue and site.waited is False)
        or site.unpacked is not None
    )


def _keyed(site: Broadcast, table_keys: set[str] | None) -> Broadcast:
    """*site* with the key a surface judges it by. Only a table (*table_keys*; None when
    the surface has none) is keyed by enum members or types: elsewhere such a key is not
    known, since a handler's getattr takes a str (which str a StrEnum member is, is not
    read). A type is answered by the first of its classes (itself, then its ancestors) a
    table has, as isinstance answers."""
    if site.key_kind == "name" or site.rpc is None:
        return site
    if table_keys is None:
        return replace(site, rpc=None, key_kind="name", key_classes=())
    if site.key_kind == "type":
        answering = next((c for c in site.key_classes if c in table_keys), None)
        if answering is not None:
            return replace(site, rpc=answering)
    return site

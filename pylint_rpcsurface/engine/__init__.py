"""The engine: from a configuration and the project's source to the findings of every file.

One analysis covers the whole project, because a file's findings depend on others (a
subclass elsewhere waits on a registry entry; a handler elsewhere answers a name). It is
computed once and then asked for one file at a time, so linting one file, the whole tree,
or the tree under ``-j`` gives every file the same findings.
"""

from __future__ import annotations

import contextlib
import gc
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import astroid
from astroid import nodes

from pylint_rpcsurface import rules
from pylint_rpcsurface.analysis.modules import (
    BuiltFromFile,
    ModuleStore,
    failed_imports_recorded,
    recording_reads,
)
from pylint_rpcsurface.analysis.subclass_search import CallerFamily, caller_family
from pylint_rpcsurface.config import Config, ConfigError, ProxySpec, SurfaceSpec, key_of_class
from pylint_rpcsurface.engine.collector import chain_order
from pylint_rpcsurface.engine.memo import Memo
from pylint_rpcsurface.engine.pieces import Pieces
from pylint_rpcsurface.engine.queries import Queries, Ref, Resolved
from pylint_rpcsurface.engine.words_index import WordSearch
from pylint_rpcsurface.model import (
    Analysis,
    Broadcast,
    CallerBroadcast,
    Finding,
    HandlerMethod,
    HelperStep,
    Location,
    ProxyCall,
    ProxyFacts,
    ProxyHandler,
    ProxyUntied,
    ProxyUse,
    Registry,
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
    never ends in a traceback.
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
    collection that walks every object alive, again and again as the heap grows. The
    analysis makes little cyclic garbage, so pausing costs no memory that
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
    with store.resolving_imports(), recording_reads(run.reads, store):
        facts = run.facts()
        findings = run.queries.with_pragmas(rules.findings(facts.surfaces, facts.proxies))
    run.finish()
    return replace(facts, findings=tuple(findings))


@dataclass
class _SurfaceRefs:
    spec: SurfaceSpec
    callers: dict[str, Resolved]
    handlers: list[Resolved]
    base_handlers: list[Resolved]
    registry: str | None  # the dotted name, when it resolved
    tables: list[Table] = field(default_factory=list)


@dataclass
class _GroupSites:
    """Where a ``handler-param`` table's group methods are called (``_Run._group_sites``)."""

    uses: list[ProxyUse] = field(default_factory=list)
    untied: list[ProxyUntied] = field(default_factory=list)
    handlers: dict[str, Ref] = field(default_factory=dict)  # the classes bound, by qualname
    judged: dict[Location, set[str]] = field(default_factory=lambda: defaultdict(set))


@dataclass
class _ProxyRefs:
    spec: ProxySpec
    callers: dict[str, Resolved]
    handlers: list[Resolved]
    own_members: list[Resolved]


class _Run:
    """One analysis: the surfaces' facts put together from the queries' pieces, each from
    the memo when the modules it read are unchanged, else computed with astroid (and
    kept for the next run). A run whose pieces are all in the memo builds no module."""

    def __init__(self, config: Config, store: ModuleStore, memo: Memo) -> None:
        self.config = config
        self.store = store
        self.memo = memo
        self.pieces = Pieces(store, memo)
        self.reads = self.pieces.reads
        self.queries = Queries(config, self.pieces)
        self.words = WordSearch(store, memo, self.pieces.buffers)

    # -------------------------------------------------------------- the surfaces

    def facts(self) -> Facts:
        errors: list[ConfigError] = []
        resolved = [self._resolve_surface(spec, errors) for spec in self.config.surfaces]
        usable = [surface for surface in resolved if surface is not None]
        resolved_proxies = [self._resolve_proxy(spec, errors) for spec in self.config.proxies]
        proxies = [proxy for proxy in resolved_proxies if proxy is not None]
        configured = {
            name: caller
            for callers in [*(s.callers for s in usable), *(p.callers for p in proxies)]
            for name, caller in callers.items()
            if caller.is_class  # a function caller has no subclasses
        }
        family = self._caller_family(configured)
        facts = [self._surface_facts(surface, family) for surface in usable]
        proxy_facts = [self._proxy_facts(proxy, family, errors) for proxy in proxies]
        return Facts(
            tuple(errors),
            tuple(facts),
            proxies=tuple(found for found in proxy_facts if found is not None),
        )

    # -------------------------------------------------------------- the proxies

    def _resolve_proxy(self, spec: ProxySpec, errors: list[ConfigError]) -> _ProxyRefs | None:
        """The callers, handlers and own-members classes *spec* names; None (and errors)
        if any does not resolve."""
        count = len(errors)
        found: dict[str, list[Resolved]] = {}
        for field_name, names in (
            ("callers", spec.callers),
            ("handlers", spec.handlers),
            ("own-members", spec.own_members),
        ):
            wanted = "a class or a module-level function" if field_name == "callers" else "a class"
            found[field_name] = []
            for position, name in enumerate(names):
                value = self.queries.resolve(field_name, name)
                if value.problem is not None or value.ref is None:
                    errors.append(
                        ConfigError(
                            self.config.path,
                            key_of_class(spec, field_name, position),
                            f"expected {wanted} under the source roots, but {value.problem}",
                        )
                    )
                else:
                    found[field_name].append(value)
        if len(errors) > count:
            return None  # never judge a proxy from half of its definition
        return _ProxyRefs(
            spec,
            {c.qualname: c for c in found["callers"]},
            found["handlers"],
            found["own-members"],
        )

    def _proxy_facts(
        self, proxy: _ProxyRefs, family: CallerFamily[Ref], errors: list[ConfigError]
    ) -> ProxyFacts | None:
        """The proxy's calls, by every caller and subclass of one, and what each handler
        answers; None (and an error) when a receiver occurs in none of the callers' code."""
        spec = proxy.spec
        members = _members(proxy.callers, family)
        calls: set[ProxyCall] = set()
        seen: set[str] = set()
        for ref in members.values():
            found, named = self.queries.proxy_calls(ref, spec.receivers, spec.remote)
            calls.update(found)
            seen |= named
        count = len(errors)
        for position, receiver in enumerate(spec.receivers):
            if receiver not in seen:
                errors.append(
                    ConfigError(
                        self.config.path,
                        f"{spec.key}.receivers[{position}]",
                        f"expected an expression that occurs in the callers' code, but "
                        f"{receiver!r} occurs in none of {', '.join(sorted(members))}",
                    )
                )
        if len(errors) > count:
            return None
        if spec.handler_param is not None:
            return self._group_facts(proxy, members, calls, errors)
        handlers = []
        for handler in proxy.handlers:
            assert handler.ref is not None
            names, complete = self.queries.proxy_answers(handler.ref, spec.exposed_by)
            handlers.append(ProxyHandler(handler.qualname, names, complete))
        called = {c.rpc for c in calls if c.rpc is not None}
        return self._facts_of_proxy(
            proxy, members, calls, handlers=handlers, resolved=proxy.handlers, called=called
        )

    def _facts_of_proxy(
        self,
        proxy: _ProxyRefs,
        members: dict[str, Ref],
        calls: set[ProxyCall],
        *,
        handlers: list[ProxyHandler],
        resolved: list[Resolved],
        called: set[str],
        **group: Any,
    ) -> ProxyFacts:
        """*proxy*'s facts from its *handlers* (*resolved*, the same classes as found)
        and the names *called* that they are judged on; *group*, a ``handler-param``
        table's own fields."""
        spec = proxy.spec
        exposed = {h.qualname: h.names for h in handlers}
        methods = self._methods(called, resolved, exposed)
        own, own_complete = self._own_members(proxy)
        return ProxyFacts(
            name=spec.name,
            key=spec.key,
            callers=tuple(sorted(members)),
            calls=tuple(sorted(calls, key=lambda c: (c.at, c.source))),
            handlers=tuple(handlers),
            own_members=own,
            own_complete=own_complete,
            exposed_by=spec.exposed_by,
            root=str(self.config.root),
            methods=tuple(sorted(methods, key=lambda m: (m.rpc, m.at, m.classes))),
            remote=spec.remote,
            **group,
        )

    def _own_members(self, proxy: _ProxyRefs) -> tuple[frozenset[str], bool]:
        """The names the proxy's own-members classes define, and whether all are known."""
        own: set[str] = set()
        own_complete = True
        for member in proxy.own_members:
            assert member.ref is not None
            names, complete = self.queries.proxy_answers(member.ref, None)
            own |= names
            own_complete = own_complete and complete
        return frozenset(own), own_complete

    def _methods(
        self, called: set[str], handlers: list[Resolved], exposed: Mapping[str, frozenset[str]]
    ) -> list[HandlerMethod]:
        """The handlers' methods of the names *called*: a method the handler does not
        expose (exposed-by) is never called through the proxy, so it is not judged."""
        methods: list[HandlerMethod] = []
        for found_method in self.queries.handler_methods(called, handlers):
            rpc = found_method.rpc
            answering = tuple(c for c in found_method.classes if rpc in exposed.get(c, ()))
            if answering:
                methods.append(replace(found_method, classes=answering))
        return methods

    def _group_facts(
        self,
        proxy: _ProxyRefs,
        members: dict[str, Ref],
        calls: set[ProxyCall],
        errors: list[ConfigError],
    ) -> ProxyFacts | None:
        """A ``handler-param`` table's facts: the group methods called on each instance
        whose construction is known, what each requires (its proxy calls, and those of
        the methods it calls on self, transitively), and the class bound to the
        parameter there; None (and an error) when a configured caller's ``__init__``
        has no such parameter."""
        spec = proxy.spec
        param = spec.handler_param
        assert param is not None
        if not self._callers_take(proxy, param, errors):
            return None
        groups = sorted(set(members.values()), key=lambda r: (r.path, r.name, r.index))
        needs: dict[Ref, dict[str, tuple[tuple[ProxyCall, ...], tuple[str, ...]]]] = {}
        for ref in groups:
            table, _ = self.queries.group_needs(ref, spec.receivers, spec.remote)
            needs[ref] = {name: (found, selfs) for name, found, selfs in table}
        sites = self._group_sites(
            groups, needs, {ref: name for name, ref in members.items()}, param
        )
        handlers: list[ProxyHandler] = []
        resolved: list[Resolved] = []
        for qualname, ref in sorted(sites.handlers.items()):
            names_answered, complete = self.queries.proxy_answers(ref, spec.exposed_by)
            handlers.append(ProxyHandler(qualname, names_answered, complete))
            resolved.append(Resolved(ref, qualname, True, None))
        judged = sites.judged
        return self._facts_of_proxy(
            proxy,
            members,
            calls,
            handlers=handlers,
            resolved=resolved,
            called={c.rpc for c in calls if c.rpc is not None and c.at in judged},
            handler_param=param,
            uses=tuple(sorted(set(sites.uses), key=_use_order)),
            untied=tuple(sorted(set(sites.untied), key=lambda u: (u.at, u.method, u.group))),
            judged=tuple((at, tuple(sorted(judged[at]))) for at in sorted(judged)),
        )

    def _callers_take(self, proxy: _ProxyRefs, param: str, errors: list[ConfigError]) -> bool:
        """Whether every caller of *proxy* is a class whose ``__init__`` takes *param*;
        an error on the key for each that is not."""
        key = f"{proxy.spec.key}.handler-param"
        count = len(errors)
        for name, caller in sorted(proxy.callers.items()):
            problem = None
            if not caller.is_class:
                problem = f"{name} is a function"
            else:
                assert caller.ref is not None
                spec = proxy.spec
                _, params = self.queries.group_needs(caller.ref, spec.receivers, spec.remote)
                if params is None:
                    problem = f"{name}'s __init__ is object's"
                elif param not in params:
                    problem = f"{name}'s __init__ has no such parameter"
            if problem is not None:
                errors.append(
                    ConfigError(
                        self.config.path,
                        key,
                        f"expected every caller to be a class whose __init__ takes {param!r}, "
                        f"but {problem}",
                    )
                )
        return len(errors) == count

    def _group_sites(
        self,
        groups: list[Ref],
        needs: Mapping[Ref, Mapping[str, tuple[tuple[ProxyCall, ...], tuple[str, ...]]]],
        qualname_of: Mapping[Ref, str],
        param: str,
    ) -> _GroupSites:
        """Where the project calls the group methods: each call on an instance whose
        construction is known, with the class bound to *param* there, and each call of a
        method that reaches a proxy call tied to no construction (named, never passed)."""
        sites = _GroupSites()
        names = {ref.name.rpartition(".")[2] for ref in groups}
        reaching = sorted(
            {
                m
                for table in needs.values()
                for m in table
                if m != "__init__" and _required(table, m)
            }
        )
        for path in self.store.python_files():
            if self.store.unreadable(path) is not None:
                continue
            held = self.words.searched(path, names | set(reaching))[1]
            if held & set(reaching):
                sites.untied.extend(self._untied(path, groups, reaching, needs, qualname_of))
            if not held & names:
                continue  # it never names a group class: no construction in it
            for at, method, written, built in self.queries.group_uses(path, groups, param):
                unknown = False
                for group_place, built_at, handler in built:
                    group_ref = Ref(*group_place)
                    required = _required(needs.get(group_ref, {}), method)
                    if not required:
                        continue  # nothing to answer
                    calls = tuple(sorted(required, key=lambda c: (c.at, c.source)))
                    group = qualname_of.get(group_ref, group_ref.name)
                    if handler is None:
                        # A construction whose handler is not one class of the project
                        # (Group(*args)): named once per call, never judged.
                        if not unknown:
                            unknown = True
                            sites.untied.append(
                                ProxyUntied(at, method, group, written, calls, built_at)
                            )
                        continue
                    sites.handlers[handler[3]] = Ref(handler[0], handler[1], handler[2])
                    for call in required:
                        sites.judged[call.at].add(handler[3])
                    sites.uses.append(ProxyUse(at, method, group, built_at, handler[3], calls))
        return sites

    def _untied(
        self,
        path: str,
        groups: list[Ref],
        reaching: list[str],
        needs: Mapping[Ref, Mapping[str, tuple[tuple[ProxyCall, ...], tuple[str, ...]]]],
        qualname_of: Mapping[Ref, str],
    ) -> list[ProxyUntied]:
        """The calls in *path* of the group methods *reaching* a proxy call, tied to no
        construction, on a receiver shown to be a group: one each, with the first group
        class (by place) it may be whose method reaches one."""
        found = []
        for at, method, places, written in self.queries.group_untied(path, groups, reaching):
            for place in places:
                group_ref = Ref(*place)
                required = _required(needs.get(group_ref, {}), method)
                if required:
                    calls = tuple(sorted(required, key=lambda c: (c.at, c.source)))
                    group = qualname_of.get(group_ref, group_ref.name)
                    found.append(ProxyUntied(at, method, group, written, calls))
                    break
        return found

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

    def _surface_facts(self, surface: _SurfaceRefs, family: CallerFamily[Ref]) -> SurfaceFacts:
        members = _members(surface.callers, family)
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
        methods = self.queries.handler_methods(rpcs, [*surface.handlers, *surface.base_handlers])
        methods.extend(self._table_methods(surface.tables, rpcs))
        handlers = self.queries.answers(surface.handlers)
        if surface.tables:
            # A table answers its keys, as a handler class answers the names it binds.
            keys = [(t.qualname, frozenset(e.key for e in t.entries)) for t in surface.tables]
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
        )

    def _table_methods(self, tables: Sequence[Table], rpcs: set[str]) -> list[HandlerMethod]:
        """The method each table entry names for the names sent, as a handler method of
        its key (judged as a handler class's would be), its table the one class it is
        for. A function, or a method its class does not bind, is not judged here."""
        found: list[HandlerMethod] = []
        for table in tables:
            for entry in table.entries:
                if entry.key not in rpcs or entry.owner is None or not entry.answered:
                    continue
                owner = self.queries.resolve("tables", entry.owner)  # a piece: read once
                for method in self.queries.handler_methods([entry.method], [owner]):
                    found.append(replace(method, rpc=entry.key, classes=(table.qualname,)))
        return found

    # -------------------------------------------------------------- the end

    def finish(self) -> None:
        """Keep this run's pieces, unless a module changed while they were computed: a
        piece is stored only under the content it was computed from."""
        self.words.keep()
        if not self.store.changed_since_read():
            project = set(self.store.python_files())
            read = modules_astroid_has_read()
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


def _required(
    needs: Mapping[str, tuple[tuple[ProxyCall, ...], tuple[str, ...]]], method: str
) -> set[ProxyCall]:
    """The proxy calls a group method makes: its own, and those of the methods it calls
    on self, however deep (each method once: recursion ends)."""
    found: set[ProxyCall] = set()
    seen: set[str] = set()
    pending = [method]
    while pending:
        name = pending.pop()
        if name in seen or name not in needs:
            continue
        seen.add(name)
        calls, selfs = needs[name]
        found.update(calls)
        pending.extend(selfs)
    return found


def _use_order(use: ProxyUse) -> tuple[Location, str, Location, str]:
    return (use.at, use.method, use.built_at, use.handler)


def _members(callers: dict[str, Resolved], family: CallerFamily[Ref]) -> dict[str, Ref]:
    """The classes of *family* that descend from one of the configured *callers*, and the
    configured module-level functions, by qualified name."""
    members = {
        name: ref
        for name, (ref, descends) in family.classes.items()
        if descends.intersection(callers.keys())
    }
    members.update(
        (name, caller.ref)
        for name, caller in callers.items()
        if not caller.is_class and caller.ref is not None
    )
    return members

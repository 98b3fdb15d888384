"""The engine: from a configuration and the project's source to the findings of every file.

One analysis covers the whole project, because a file's findings depend on others (a
subclass elsewhere waits on a registry entry; a handler elsewhere answers a name). It is
computed once and then asked for one file at a time, so linting one file, the whole tree,
or the tree under ``-j`` gives every file the same findings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

import astroid
from astroid import nodes

from pylint_rpcsurface import rules
from pylint_rpcsurface.analysis.broadcasts import (
    Code,
    dispatch_calls,
    not_a_named_rpc,
    own_code,
    read_broadcast,
)
from pylint_rpcsurface.analysis.classes import ClassIndex, answered_names
from pylint_rpcsurface.analysis.decorators import all_transparent
from pylint_rpcsurface.analysis.handlers import handler_methods
from pylint_rpcsurface.analysis.helper_calls import helper_calls, reached_helpers
from pylint_rpcsurface.analysis.inference import location_of
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.analysis.pragmas import pragma_states
from pylint_rpcsurface.analysis.registry import read_registry
from pylint_rpcsurface.analysis.subclasses import CallerFamily, find_caller_classes
from pylint_rpcsurface.config import Config, ConfigError, DispatchForm, SurfaceSpec, key_of_class
from pylint_rpcsurface.model import (
    Analysis,
    Broadcast,
    CallerBroadcast,
    Finding,
    HelperStep,
    Location,
    Registry,
    SurfaceFacts,
)
from pylint_rpcsurface.sources import SourceTree, real

__all__ = [
    "Facts",
    "analyse",
    "analyse_recording_failed_imports",
    "modules_astroid_has_read",
    "surface_facts",
]


@dataclass
class _ResolvedSurface:
    spec: SurfaceSpec
    callers: dict[str, nodes.ClassDef | nodes.FunctionDef]  # a caller may be a function
    handlers: list[nodes.ClassDef]
    base_handlers: list[nodes.ClassDef]
    registry: tuple[nodes.Module, str] | None


@dataclass(frozen=True)
class Facts:
    """Each usable surface's facts, before the rules judge them (``report`` and ``fix``
    show and edit them; :func:`analyse` hands them to :func:`rules.findings`)."""

    config_errors: tuple[ConfigError, ...]
    surfaces: tuple[SurfaceFacts, ...]
    findings: tuple[Finding, ...] = ()  # the rules' findings, with their pragma states


def analyse(config: Config, overrides: Mapping[str, str] | None = None) -> Analysis:
    """Analyse the project *config* describes; *overrides* maps real paths to unsaved text.

    Each finding carries what its file's pylint pragmas say of it (``Finding.pragma``).
    """
    facts = surface_facts(config, overrides)
    return Analysis.of(facts.config_errors, facts.findings)


def surface_facts(config: Config, overrides: Mapping[str, str] | None = None) -> Facts:
    """The facts :func:`analyse` derives its findings from, one per usable surface, and
    those findings (:func:`rules.findings`, with their pragma states).

    ``report`` and ``fix`` read the facts directly (and uncached).
    """
    store = ModuleStore(SourceTree(config.source_roots), dict(overrides or {}))
    with store.resolving_imports():
        facts = _surface_facts_of(config, store)
        findings = _with_pragmas(rules.findings(facts.surfaces), store)
    return replace(facts, findings=tuple(findings))


def _with_pragmas(findings: Sequence[Finding], store: ModuleStore) -> list[Finding]:
    """*findings*, each with the state its file's pragmas give it at its line."""
    wanted: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for found in findings:
        wanted[found.location.path][found.symbol].add(found.location.line)
    states: dict[tuple[str, str, int], bool | None] = {}
    for path, lines in wanted.items():
        module = store.module(path)
        if module is None:
            continue
        by_line = pragma_states(
            module, store.text(path), {s: frozenset(n) for s, n in lines.items()}
        )
        states.update({(path, *key): state for key, state in by_line.items()})
    return [
        replace(f, pragma=states.get((f.location.path, f.symbol, f.location.line)))
        for f in findings
    ]


def _surface_facts_of(config: Config, store: ModuleStore) -> Facts:
    index = ClassIndex(store)
    errors: list[ConfigError] = []
    resolved = [_resolve_surface(config, spec, index, errors) for spec in config.surfaces]
    usable = [surface for surface in resolved if surface is not None]
    configured = {
        name: cls
        for s in usable
        for name, cls in s.callers.items()
        if isinstance(cls, nodes.ClassDef)  # a function caller has no subclasses
    }
    family = find_caller_classes(index, configured)
    forms = {form.method: form for form in config.dispatch}
    collector = _BroadcastCollector(forms, index, config.helper_depth)
    facts = [_surface_facts(config, surface, family, collector, index) for surface in usable]
    return Facts(tuple(errors), tuple(facts))


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
    config: Config, overrides: Mapping[str, str] | None = None
) -> tuple[Analysis, frozenset[str]]:
    """:func:`analyse`, and the names of the modules that astroid could not find on the
    search path meanwhile: a library installed later must change what the cache says."""
    failed: set[str] = set()

    def record(modname: str) -> nodes.Module:
        # Names the roots' namespace packages answer too (by ModuleStore's hook, after
        # this one): a regular package of that name installed later would win over them.
        failed.add(modname)
        raise astroid.AstroidImportError(f"{modname} was not found")

    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    hooks = astroid.MANAGER._failed_import_hooks  # pylint: disable=protected-access
    hooks.append(record)
    try:
        analysis = analyse(config, overrides)
    finally:
        hooks.remove(record)
    return analysis, frozenset(failed)


def _resolve_surface(
    config: Config, spec: SurfaceSpec, index: ClassIndex, errors: list[ConfigError]
) -> _ResolvedSurface | None:
    """The classes (and the callers' functions) and registry module *spec* names; None
    (and errors) if any is missing."""
    count = len(errors)

    def resolved(field_name: str, names: tuple[str, ...]) -> list[nodes.NodeNG]:
        is_callers = field_name == "callers"
        resolve = index.resolve_caller if is_callers else index.resolve
        wanted = "a class or a module-level function" if is_callers else "a class"
        found: list[nodes.NodeNG] = []
        for position, name in enumerate(names):
            value = resolve(name)
            if isinstance(value, str):
                errors.append(
                    ConfigError(
                        config.path,
                        key_of_class(spec, field_name, position),
                        f"expected {wanted} under the source roots, but {value}",
                    )
                )
            else:
                found.append(value)
        return found

    def classes(field_name: str, names: tuple[str, ...]) -> list[nodes.ClassDef]:
        return [c for c in resolved(field_name, names) if isinstance(c, nodes.ClassDef)]

    callers = [
        c
        for c in resolved("callers", spec.callers)
        if isinstance(c, (nodes.ClassDef, nodes.FunctionDef))
    ]
    handlers = classes("handlers", spec.handlers)
    base_handlers = classes("base-handlers", spec.base_handlers)
    registry = None
    if spec.registry is not None:
        located = index.resolve_module_attribute(spec.registry)
        if isinstance(located, str):
            errors.append(
                ConfigError(
                    config.path,
                    f"{spec.key}.registry",
                    f"expected a module-level constant under the source roots, but {located}",
                )
            )
        else:
            registry = located
    if len(errors) > count:
        return None  # never judge a surface from half of its definition
    return _ResolvedSurface(
        spec, {index.qualname(c): c for c in callers}, handlers, base_handlers, registry
    )


class _BroadcastCollector:
    """Reads each method's dispatch calls once, however many callers inherit it.

    A class caller runs its own methods (:func:`own_code`); a function caller runs its
    own body, and has no subclasses.

    A method's broadcasts include those of the helpers it calls (within ``depth``
    calls), each marked with the chain of helper calls that leads to it. Calls that pass
    the name through from a parameter, or send a callable, are not named RPCs: left out.
    """

    def __init__(self, forms: Mapping[str, DispatchForm], index: ClassIndex, depth: int) -> None:
        self.forms = dict(forms)
        self.index = index
        self.depth = depth
        self._direct: dict[int, list[Broadcast]] = {}
        self._calls: dict[int, list[tuple[nodes.FunctionDef, HelperStep]]] = {}

    def of_caller(self, caller: nodes.ClassDef | nodes.FunctionDef) -> tuple[list[Broadcast], bool]:
        if isinstance(caller, nodes.FunctionDef):
            codes: list[Code] = [caller]
            complete = True
        else:
            order, complete = self.index.linearize(caller)
            codes = own_code(order)
        own = frozenset(id(code) for code in codes)
        found: list[Broadcast] = []
        for code in codes:
            found.extend(self._read(code))
            for helper, chain in reached_helpers(code, self.depth, self._helper_calls, own):
                found.extend(self._via(self._read(helper), chain))
        return found, complete

    def _read(self, code: Code) -> list[Broadcast]:
        if id(code) not in self._direct:
            fallback = location_of(code) or Location(code.root().file or "", 1, 0, None, None)
            self._direct[id(code)] = [
                read_broadcast(call, form, fallback)
                for call, form in dispatch_calls(code, self.forms)
                if not not_a_named_rpc(call, form)
            ]
        return self._direct[id(code)]

    def _helper_calls(self, code: Code) -> list[tuple[nodes.FunctionDef, HelperStep]]:
        """The helper calls of *code*, inferred once however many callers run it."""
        if id(code) not in self._calls:
            self._calls[id(code)] = list(helper_calls(code, self.index.store.tree))
        return self._calls[id(code)]

    @staticmethod
    def _via(broadcasts: list[Broadcast], chain: tuple[HelperStep, ...]) -> list[Broadcast]:
        return [replace(broadcast, via=chain) for broadcast in broadcasts]


def _surface_facts(
    config: Config,
    surface: _ResolvedSurface,
    family: CallerFamily,
    collector: _BroadcastCollector,
    index: ClassIndex,
) -> SurfaceFacts:
    configured = surface.callers.keys()
    members: dict[str, nodes.ClassDef | nodes.FunctionDef] = {
        name: caller.cls
        for name, caller in family.classes.items()
        if caller.configured.intersection(configured)
    }
    members.update(
        (name, caller)
        for name, caller in surface.callers.items()
        if isinstance(caller, nodes.FunctionDef)
    )
    # A site is one call, however many chains of helper calls reach it: the shortest
    # (a direct one first) is the one its messages name.
    callers_by_site: dict[Broadcast, set[str]] = defaultdict(set)
    chains: dict[Broadcast, tuple[HelperStep, ...]] = {}
    callers_complete = not family.unparsed
    for name, caller in members.items():
        broadcasts, complete = collector.of_caller(caller)
        callers_complete = callers_complete and complete
        for broadcast in broadcasts:
            site = replace(broadcast, via=())
            callers_by_site[site].add(name)
            known = chains.get(site)
            if known is None or _chain_order(broadcast.via) < _chain_order(known):
                chains[site] = broadcast.via
    rpcs = {broadcast.rpc for broadcast in callers_by_site if broadcast.rpc is not None}
    methods = handler_methods(
        rpcs,
        [*surface.handlers, *surface.base_handlers],
        index,
        partial(all_transparent, listed=config.transparent_decorators),
    )
    registry: Registry | None = None
    if surface.registry is not None:
        module, attribute = surface.registry
        registry = read_registry(module, attribute, str(surface.spec.registry))
    return SurfaceFacts(
        name=surface.spec.name,
        callers=tuple(sorted(members)),
        callers_complete=callers_complete,
        broadcasts=tuple(
            CallerBroadcast(replace(site, via=chains[site]), tuple(sorted(names)))
            for site, names in sorted(callers_by_site.items(), key=lambda item: item[0].call)
        ),
        handlers=answered_names(surface.handlers, index),
        base_handlers=answered_names(surface.base_handlers, index),
        registry=registry,
        root=str(config.root),
        handler_methods=methods,
    )


def _chain_order(chain: tuple[HelperStep, ...]) -> tuple[int, list[tuple[Location, str]]]:
    return len(chain), [(step.call, step.name) for step in chain]

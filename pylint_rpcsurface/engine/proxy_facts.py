"""The facts of each ``[[tool.rpcsurface.proxy]]`` table, put together from the queries'
pieces: which callers call which names on a proxy, which classes may be behind it, and
(with ``handler-param``) which class is bound where each group method is called."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.analysis.subclass_search import CallerFamily
from pylint_rpcsurface.config import Config, ConfigError, ProxySpec, key_of_class
from pylint_rpcsurface.engine.judging import Judge
from pylint_rpcsurface.engine.queries import Queries, Ref, Resolved, family_members
from pylint_rpcsurface.engine.reply_reads import ReplyReads
from pylint_rpcsurface.engine.words_index import WordSearch
from pylint_rpcsurface.model import (
    HandlerMethod,
    Location,
    ProxyCall,
    ProxyFacts,
    ProxyHandler,
    ProxyUntied,
    ProxyUse,
)


@dataclass
class _GroupSites:
    """Where a ``handler-param`` table's group methods are called (``ProxyTables._group_sites``)."""

    uses: list[ProxyUse] = field(default_factory=list)
    untied: list[ProxyUntied] = field(default_factory=list)
    handlers: dict[str, Ref] = field(default_factory=dict)  # the classes bound, by qualname
    judged: dict[Location, set[str]] = field(default_factory=lambda: defaultdict(set))


@dataclass
class ProxyRefs:
    """A proxy table with the classes and functions it names, resolved."""

    spec: ProxySpec
    callers: dict[str, Resolved]
    handlers: list[Resolved]
    own_members: list[Resolved]


class ProxyTables:
    """The proxy tables of one analysis (``_Run``'s), each resolved, then put together."""

    def __init__(
        self, config: Config, store: ModuleStore, queries: Queries, words: WordSearch
    ) -> None:
        self.config = config
        self.store = store
        self.queries = queries
        self.words = words
        self.replies = ReplyReads(store, queries, words)

    def resolve(self, spec: ProxySpec, errors: list[ConfigError]) -> ProxyRefs | None:
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
        return ProxyRefs(
            spec,
            {c.qualname: c for c in found["callers"]},
            found["handlers"],
            found["own-members"],
        )

    def facts(
        self,
        proxy: ProxyRefs,
        family: CallerFamily[Ref],
        errors: list[ConfigError],
        judges: Judge,
    ) -> ProxyFacts | None:
        """The proxy's calls that it *judges* (:mod:`.judging`), by every caller and
        subclass of one, and what each handler answers; None (and an error) when a
        receiver occurs in none of the callers' code."""
        spec = proxy.spec
        members = family_members(proxy.callers, family)
        calls: set[ProxyCall] = set()
        callers_at: dict[Location, set[str]] = defaultdict(set)
        seen: set[str] = set()
        for name, ref in members.items():
            found, named = self.queries.proxy_calls(ref, spec.receivers, spec.remote)
            for call in found:
                if judges(name, call.receiver, call.conditions):
                    calls.add(call)
                    callers_at[call.at].add(name)
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
        judged_for = tuple((at, tuple(sorted(callers_at[at]))) for at in sorted(callers_at))
        if spec.handler_param is not None:
            return self._group_facts(proxy, members, calls, errors, judged_for)
        handlers = []
        for handler in proxy.handlers:
            assert handler.ref is not None
            names, complete = self.queries.proxy_answers(handler.ref, spec.exposed_by)
            handlers.append(ProxyHandler(handler.qualname, names, complete))
        called = {c.rpc for c in calls if c.rpc is not None}
        return self._facts_of_proxy(
            proxy,
            members,
            calls,
            handlers=handlers,
            resolved=proxy.handlers,
            called=called,
            callers_at=judged_for,
        )

    def _facts_of_proxy(
        self,
        proxy: ProxyRefs,
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
        # A reply is followed through the callers only where a None reply is all some
        # handler method gives: nothing else asks whether it is read.
        unanswered = {m.rpc for m in methods if m.returns is not None and m.returns.never_value}
        calls = {self.replies.settled(c) if c.rpc in unanswered else c for c in calls}
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
            when=spec.when,
            **group,
        )

    def _own_members(self, proxy: ProxyRefs) -> tuple[frozenset[str], bool]:
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
        proxy: ProxyRefs,
        members: dict[str, Ref],
        calls: set[ProxyCall],
        errors: list[ConfigError],
        callers_at: tuple[tuple[Location, tuple[str, ...]], ...],
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
            callers_at=callers_at,
        )

    def _callers_take(self, proxy: ProxyRefs, param: str, errors: list[ConfigError]) -> bool:
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

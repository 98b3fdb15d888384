"""The queries of one run, one per kind of piece, each saying what it reads.

Each query asks :meth:`.pieces.Pieces.piece` for its piece, naming the modules it is
about (read at least at the level it gives) and how to compute it from astroid's nodes;
what the computation reads beyond those is recorded as it happens. A query whose piece
the memo holds builds no module.

What each query's piece is about (its own modules, and the level they are read at least
at), and what else computing it reads:

- :meth:`Queries.resolve`: the modules a dotted name's prefixes name, their interface;
  their bodies too when the name does not resolve (the problem may name lines).
- :meth:`Queries.registry`: the registry's module, its whole body, and what inferring its
  elements reads.
- :meth:`Queries.lineage` (and :meth:`Queries.ancestors`, a part of it): the class's
  module, its interface, and its bases' modules as inference reads them.
- :meth:`Queries.module_callers`: the module, its whole body (classes and aliases
  anywhere in it count), each of its classes' lineage (its piece), and the modules of
  the bases a class with two bindings of one base's name infers.
- :meth:`Queries.broadcasts`: the caller's module, its interface; its members (one
  piece) and each code's piece (``Pieces.code``: its function, "def Q").
- :meth:`Queries.answers`: the handlers' modules, their interface, and their bases'.
- :meth:`Queries.handler_methods`: one handler class's module, its interface; the
  method's body, its replies and what they infer.
- :meth:`Queries.proxy_calls`: the caller's module, its whole body, and the body of
  every module whose code it runs (inherited methods); what inferring ``getattr``'s
  name reads.
- :meth:`Queries.call_fates`: one module that names a function whose return hands a
  proxy's reply back, its whole body; what inferring its calls' callees reads.
- :meth:`Queries.proxy_answers`: one class's module, its interface, and its ancestors'
  modules' interface, with what inferring their decorators reads.
- :meth:`Queries.group_needs`: a ``handler-param`` caller class's module, its whole body,
  and the bodies of its ancestors' modules (every method's proxy and self calls).
- :meth:`Queries.group_uses`: one module that names a group class, its whole body; what
  inferring its calls and the handler arguments reads, and the group classes' modules.
- :meth:`Queries.with_pragmas`: one file's version, by its content hash, and nothing else.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

from astroid import nodes

from pylint_rpcsurface.analysis.broadcasts import own_code
from pylint_rpcsurface.analysis.classes import ClassIndex, answered_names
from pylint_rpcsurface.analysis.conditions import attribute_truths
from pylint_rpcsurface.analysis.decorators import all_transparent
from pylint_rpcsurface.analysis.definitions import definition_name, find_definition
from pylint_rpcsurface.analysis.handlers import effective_method, handler_methods
from pylint_rpcsurface.analysis.inference import infer_unique, location_of
from pylint_rpcsurface.analysis.library_text import LibraryText
from pylint_rpcsurface.analysis.pragmas import may_hold_pragmas, pragma_states
from pylint_rpcsurface.analysis.proxies import exposed_names, proxy_calls, receivers_in
from pylint_rpcsurface.analysis.proxy_groups import (
    MethodNeeds,
    bound_argument,
    init_of,
    init_params,
    instance_calls,
    method_needs,
    untied_calls,
)
from pylint_rpcsurface.analysis.reads import BODY, INTERFACE
from pylint_rpcsurface.analysis.registry import read_registry, read_registry_alone
from pylint_rpcsurface.analysis.reply_reads import Fate, call_fates
from pylint_rpcsurface.analysis.subclass_search import CallerFamily
from pylint_rpcsurface.analysis.subclasses import (
    CallerClassFacts,
    Lineage,
    ModuleCallers,
    OpenClass,
    callers_in_module,
    lineage,
)
from pylint_rpcsurface.analysis.tables import read_table
from pylint_rpcsurface.config import Config
from pylint_rpcsurface.engine.collector import BroadcastCollector, Members
from pylint_rpcsurface.engine.pieces import Pieces
from pylint_rpcsurface.model import (
    Answers,
    Broadcast,
    Finding,
    HandlerMethod,
    Location,
    ProxyCall,
    Registry,
    Table,
)
from pylint_rpcsurface.sources import SourceTree
from pylint_rpcsurface.store.resolution import locate

__all__ = ["GroupUntied", "GroupUse", "Queries", "Ref", "Resolved"]

_Read = TypeVar("_Read", Registry, Table)


@dataclass(frozen=True)
class Ref:
    """Where a class or function is defined, by name (:func:`definition_name`): enough
    to find its node again and to tell two definitions of one name apart, and the same
    when lines above it move."""

    path: str
    name: str
    index: int

    @classmethod
    def of(cls, node: nodes.ClassDef | nodes.FunctionDef, tree: SourceTree) -> Ref:
        """Where *node* is, by the path its file is known by (``SourceTree.key``)."""
        return cls(tree.key(node.root().file or ""), *definition_name(node))


@dataclass(frozen=True)
class Resolved:
    """A configured name, resolved: its definition, or why it does not resolve."""

    ref: Ref | None
    qualname: str
    is_class: bool
    problem: str | None


class Queries:
    """The queries of one run over *pieces*: their nodes are reached only to compute a
    piece."""

    def __init__(self, config: Config, pieces: Pieces) -> None:
        self.config = config
        self.pieces = pieces
        self.store = pieces.store
        self.index = ClassIndex(self.store, pieces.reads)
        forms = {form.name: form for form in config.dispatch}
        # A dispatch call is spelled with a form's method name, or an instance-of
        # class's own name (see analysis.broadcasts.dispatch_calls).
        words = [
            form.method or str(form.instance_of).rpartition(".")[2] for form in config.dispatch
        ]
        tree = self.store.tree
        self.libraries = LibraryText(words, locate, lambda name: bool(tree.locate(name)))
        self.collector = BroadcastCollector(
            forms,
            self.index,
            config.helper_depth,
            pieces.reads,
            piece=pieces.code,
            spans=lambda path: pieces.summary(path)[1],
            libraries=self.libraries,
        )
        self._nodes: dict[Ref, nodes.ClassDef | nodes.FunctionDef | None] = {}

    def _modules_of(self, dotted: str) -> list[str]:
        """The module files a dotted name's prefixes name: what resolving it reads."""
        parts = dotted.split(".")
        found: list[str] = []
        for cut in range(1, len(parts) + 1):
            for path in self.store.tree.locate(".".join(parts[:cut])):
                if not os.path.isdir(path):
                    found.append(path)
        return found

    def node(self, ref: Ref) -> nodes.ClassDef | nodes.FunctionDef | None:
        # Found by its name, which the pieces that look it up hold in their keys: the
        # module's interface says which definitions of it there are.
        self.pieces.reads.path(ref.path, INTERFACE)
        if ref not in self._nodes:
            module = self.store.module(ref.path)
            found = None if module is None else find_definition(module, ref.name, ref.index)
            self._nodes[ref] = found
        return self._nodes[ref]

    def _class(self, ref: Ref) -> nodes.ClassDef:
        found = self.node(ref)
        if not isinstance(found, nodes.ClassDef):
            raise LookupError(f"no class at {ref}: the module changed during the analysis")
        return found

    # -------------------------------------------------------------- the pieces

    def resolve(self, field_name: str, dotted: str) -> Resolved:
        is_callers = field_name == "callers"

        def compute() -> Resolved:
            value = (self.index.resolve_caller if is_callers else self.index.resolve)(dotted)
            if not isinstance(value, (nodes.ClassDef, nodes.FunctionDef)):
                # Why it does not resolve may name the lines of its definitions.
                for path in self._modules_of(dotted):
                    self.pieces.reads.path(path, BODY)
                problem = value if isinstance(value, str) else "not a class"
                return Resolved(None, dotted, False, problem)
            ref = Ref.of(value, self.store.tree)
            self._nodes.setdefault(ref, value)
            return Resolved(
                ref,
                self.index.qualname(value),
                isinstance(value, nodes.ClassDef),
                None,
            )

        plain = self.pieces.piece(
            "resolve",
            (is_callers, dotted),
            self._modules_of(dotted),
            lambda: _resolved_to_plain(compute()),
            _ResolvedShape,
        )
        return _as_resolved(plain)

    def registry(self, dotted: str) -> Registry | str:
        def read() -> Registry | str:
            alone = self._registry_alone(dotted)
            if alone is not None:
                return alone
            located = self.index.resolve_module_attribute(dotted)
            if isinstance(located, str):
                return located
            module, attribute = located
            return read_registry(module, attribute, dotted)

        return self._read_or_why("registry", dotted, dotted.rpartition(".")[0], read, Registry)

    def table(self, dotted: str) -> Table | str:
        """The handler table *dotted* names (:func:`read_table`), or why it can't be read:
        a class's attribute when what precedes its last part is a class, else a module
        constant."""
        owner_name, _, attribute = dotted.rpartition(".")

        def read() -> Table | str:
            owner: nodes.Module | nodes.ClassDef | str
            if self.store.tree.locate(owner_name):
                located = self.index.resolve_module_attribute(dotted)
                owner = located if isinstance(located, str) else located[0]
            else:
                owner = self.index.resolve(owner_name)
            if isinstance(owner, str):
                return owner
            table = read_table(owner, attribute, dotted, self.index.qualname)
            return table if isinstance(table, Table) else f"'{dotted}' {table}"

        return self._read_or_why("table", dotted, owner_name, read, Table)

    def _read_or_why(
        self, kind: str, dotted: str, module: str, read: Callable[[], _Read | str], cls: type[_Read]
    ) -> _Read | str:
        """The piece *kind* of the definition *dotted* in (or under) *module*, read whole:
        what *read* gives, or the reason it can't (a str), stored tagged
        ``("unresolved", reason)`` so that no other piece has its shape."""

        def compute() -> _Read | tuple[str, str]:
            value = read()
            return ("unresolved", value) if isinstance(value, str) else value

        value = self.pieces.piece(
            kind, (dotted,), self._modules_of(module), compute, cls | tuple[str, str], own=BODY
        )
        return str(value[1]) if isinstance(value, tuple) else value

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

    def ancestors(self, ref: Ref, configured: frozenset[str]) -> frozenset[str]:
        """The configured callers among the class's ancestors: its :meth:`lineage`'s."""
        return self.lineage(ref, configured)[0]

    def lineage(self, ref: Ref, configured: frozenset[str]) -> Lineage:
        def compute() -> Lineage:
            return lineage(self._class(ref), self.index, configured)

        parts = (ref.path, ref.name, ref.index, sorted(configured))
        return self.pieces.piece("lineage", parts, [ref.path], compute, Lineage)

    def module_callers(self, path: str, configured: frozenset[str]) -> ModuleCallers:
        def compute() -> ModuleCallers:
            module = self.store.module(path)
            if module is None:
                failure = self.store.failure(path)
                why = (failure.line, failure.reason) if failure is not None else None
                return ModuleCallers(parsed=False, classes=(), aliases=(), failure=why)
            return callers_in_module(
                module,
                self.index,
                configured,
                lambda cls: self.lineage(Ref.of(cls, self.store.tree), configured),
            )

        value = self.pieces.piece(
            "module-callers",
            (path, sorted(configured)),
            [path],
            lambda: _callers_to_plain(compute()),
            _ModuleCallersShape,
            own=BODY,
        )
        return _as_module_callers(value)

    def broadcasts(self, name: str, ref: Ref) -> tuple[tuple[Broadcast, ...], bool]:
        def compute() -> tuple[tuple[Broadcast, ...], bool]:
            members = self.pieces.piece(
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

        found, complete = self.pieces.piece(
            "broadcasts",
            (name, ref.path, ref.name, ref.index),
            [ref.path],
            compute,
            tuple[tuple[Broadcast, ...], bool],
        )
        return tuple(found), bool(complete)

    def _caller(self, ref: Ref) -> nodes.ClassDef | nodes.FunctionDef:
        caller = self.node(ref)
        if caller is None:
            raise LookupError(f"no caller at {ref}: the module changed during the analysis")
        return caller

    def _members_of(self, ref: Ref) -> Members | None:
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

    def answers(self, classes: Sequence[Resolved]) -> Answers:
        refs = [c.ref for c in classes if c.ref is not None]

        def compute() -> Answers:
            return answered_names([self._class(ref) for ref in refs], self.index)

        value = self.pieces.piece(
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
        self,
        rpcs: Iterable[str],
        classes: Sequence[Resolved],
        replies: Collection[str] | None = None,
    ) -> list[HandlerMethod]:
        """The method each class runs for each name, one entry per distinct method.

        One piece per name and class, so that an edit of a handler module recomputes only
        the classes whose modules may read it (a subclass's edit leaves its base alone).
        A name the class doesn't bind (its :meth:`answers`, a piece of its own that no
        name sent reads) has no method to look for: typing a new RPC name, most of whose
        spellings nobody answers, builds no handler module.

        The replies are judged for the names in *replies* (all names when None) and left
        unknown for the others: inferring a method's returns builds what they return
        (on LMDeploy 0.7.3, a fifth of a cold ``check``), and no rule reads the replies
        of a name no call waits on, drops None for or unpacks.
        """
        transparent = partial(all_transparent, listed=self.config.transparent_decorators)
        merged: dict[tuple[str, Location], HandlerMethod] = {}
        unique = {c.ref: c for c in classes if c.ref is not None}
        bound = {ref: self.answers([resolved]).names for ref, resolved in unique.items()}
        for rpc in sorted(set(rpcs)):
            judged = replies is None or rpc in replies
            for ref in unique:
                if rpc not in bound[ref]:
                    continue

                def compute(
                    rpc: str = rpc, ref: Ref = ref, judged: bool = judged
                ) -> tuple[HandlerMethod, ...]:
                    klass = self._class(ref)
                    found = handler_methods([rpc], [klass], self.index, transparent, replies=judged)
                    located = effective_method(klass, rpc, self.index) if found else None
                    if located is not None and located[0].body:
                        # The value holds the method's position: read its code, as judging
                        # its replies does, so that an edit elsewhere in the module moves
                        # the position instead of counting as a read of the whole body.
                        self.pieces.reads.node(located[0].body[0])
                    return found

                parts = (rpc, ref.path, ref.name, ref.index, judged)
                found = self.pieces.piece(
                    "handler", parts, [ref.path], compute, tuple[HandlerMethod, ...]
                )
                for method in found:
                    known = merged.get((method.rpc, method.at))
                    users = {*method.classes, *(known.classes if known is not None else ())}
                    # One method that several classes run is one entry, naming them all.
                    merged[(method.rpc, method.at)] = replace(method, classes=tuple(sorted(users)))
        return list(merged.values())

    # -------------------------------------------------------------- proxies

    def proxy_calls(
        self, ref: Ref, receivers: Sequence[str], remote: bool
    ) -> tuple[tuple[ProxyCall, ...], frozenset[str]]:
        """The proxy calls the caller at *ref* makes in the code it runs as its own
        (:func:`..analysis.broadcasts.own_code`), and which of *receivers* that code
        names at all."""
        wanted = frozenset(receivers)

        def compute() -> tuple[tuple[ProxyCall, ...], frozenset[str]]:
            caller = self._caller(ref)
            codes: list[Any]
            if isinstance(caller, nodes.FunctionDef):
                codes = [caller]
            else:
                order, _ = self.index.linearize(caller)
                for klass in order:
                    self.pieces.reads.file(klass.root().file, INTERFACE)
                codes = list(own_code(order))
            found: set[ProxyCall] = set()
            seen: set[str] = set()
            for code in codes:
                self.pieces.reads.file(code.root().file, BODY)
                found.update(proxy_calls(code, wanted, remote, self._keeps_replies))
                seen |= receivers_in(code, wanted)
            return tuple(sorted(found, key=lambda c: (c.at, c.source))), frozenset(seen)

        calls, seen = self.pieces.piece(
            "proxy-calls",
            (ref.path, ref.name, ref.index, sorted(wanted), remote),
            [ref.path],
            compute,
            tuple[tuple[ProxyCall, ...], frozenset[str]],
            own=BODY,
        )
        return tuple(calls), frozenset(seen)

    def call_fates(
        self, path: str, target: tuple[str, Location]
    ) -> tuple[tuple[Fate, Location | None], ...]:
        """What becomes of the value of each call in the module *path* that may be of the
        function *target* (its name and place; :func:`..analysis.reply_reads.call_fates`),
        and where the call is; none in a module that can't be built (as no group use is
        read there)."""
        name, at = target

        def compute() -> tuple[tuple[Fate, Location | None], ...]:
            module = self.store.module(path)
            if module is None:
                return ()
            fates = call_fates(module, target, self._keeps_replies)
            return tuple(sorted(fates, key=str))

        return tuple(
            self.pieces.piece(
                "call-fates",
                (path, name, at.path, at.line, at.col),
                [path],
                compute,
                tuple[tuple[Fate, Location | None], ...],
                own=BODY,
            )
        )

    def _keeps_replies(self, function: nodes.FunctionDef) -> bool:
        """Whether *function*'s decorators keep what it returns, as configured."""
        return all_transparent(function, self.config.transparent_decorators)

    def proxy_answers(self, ref: Ref, exposed_by: str | None) -> tuple[frozenset[str], bool]:
        """The names the class at *ref* answers behind a proxy (:func:`exposed_names`),
        and whether every ancestor resolved."""

        def compute() -> tuple[frozenset[str], bool]:
            order, complete = self.index.linearize(self._class(ref))
            for klass in order:
                self.pieces.reads.file(klass.root().file, INTERFACE)
            return exposed_names(order, exposed_by, self.index.qualname), complete

        names, complete = self.pieces.piece(
            "proxy-answers",
            (ref.path, ref.name, ref.index, exposed_by),
            [ref.path],
            compute,
            tuple[frozenset[str], bool],
        )
        return frozenset(names), bool(complete)

    def attribute_truths(
        self, ref: Ref, attributes: Sequence[str]
    ) -> tuple[tuple[str, bool | None], ...]:
        """The truth each of *attributes* certainly has on an instance of the class at
        *ref*, by its bindings in the code that class runs as its own
        (:func:`..analysis.conditions.attribute_truths`); None for each when an ancestor
        does not resolve (it may bind them)."""

        def compute() -> tuple[tuple[str, bool | None], ...]:
            order, complete = self.index.linearize(self._class(ref))
            if not complete:
                return tuple((name, None) for name in sorted(attributes))
            for klass in order:
                self.pieces.reads.file(klass.root().file, BODY)
            return attribute_truths(order, own_code(order), attributes)

        return self.pieces.piece(
            "attribute-truths",
            (ref.path, ref.name, ref.index, sorted(attributes)),
            [ref.path],
            compute,
            tuple[tuple[str, bool | None], ...],
            own=BODY,
        )

    def group_needs(
        self, ref: Ref, receivers: Sequence[str], remote: bool
    ) -> tuple[tuple[MethodNeeds, ...], tuple[str, ...] | None]:
        """The methods of the group class at *ref* (:func:`method_needs`), and the
        parameters its ``__init__`` takes (None when it runs ``object``'s)."""
        wanted = frozenset(receivers)

        def compute() -> tuple[tuple[MethodNeeds, ...], tuple[str, ...] | None]:
            order, _ = self.index.linearize(self._class(ref))
            for klass in order:
                # Every method's body is read: which proxy calls and self calls it makes.
                self.pieces.reads.file(klass.root().file, BODY)
            init = init_of(order)
            params = None if init is None else init_params(init)
            return tuple(method_needs(order, wanted, remote)), params

        needs, params = self.pieces.piece(
            "group-needs",
            (ref.path, ref.name, ref.index, sorted(wanted), remote),
            [ref.path],
            compute,
            tuple[tuple[MethodNeeds, ...], tuple[str, ...] | None],
            own=BODY,
        )
        return tuple(needs), None if params is None else tuple(params)

    def _group_test(
        self, wanted: frozenset[Ref]
    ) -> tuple[frozenset[str], Callable[[nodes.ClassDef], bool]]:
        """The group classes' names, as a call of one is written, and whether a class is
        one of *wanted*."""

        def group_of(klass: nodes.ClassDef) -> bool:
            return Ref.of(klass, self.store.tree) in wanted

        return frozenset(ref.name.rpartition(".")[2] for ref in wanted), group_of

    def group_uses(self, path: str, groups: Sequence[Ref], param: str) -> tuple[GroupUse, ...]:
        """The instance calls of the group classes at *groups* in the module *path*
        (:func:`instance_calls`), each with the constructions it may be: the group built,
        where, and the class bound to *param* there (None when that is not one class of
        the project)."""
        wanted = frozenset(groups)
        names, group_of = self._group_test(wanted)

        def compute() -> tuple[GroupUse, ...]:
            module = self.store.module(path)
            if module is None:
                return ()
            found: list[GroupUse] = []
            for call, method, held in instance_calls(module, names, group_of):
                at = location_of(call)
                if at is None:
                    continue
                built = []
                for construction, group in held:
                    where = location_of(construction)
                    if where is None:
                        continue
                    handler = self._bound_handler(construction, group, param)
                    group_ref = Ref.of(group, self.store.tree)
                    built.append(
                        ((group_ref.path, group_ref.name, group_ref.index), where, handler)
                    )
                found.append((at, method, _written(call, method), tuple(built)))
            return tuple(found)

        return tuple(
            self.pieces.piece(
                "group-uses",
                (path, sorted((r.path, r.name, r.index) for r in wanted), param),
                [path],
                compute,
                tuple[GroupUse, ...],
                own=BODY,
            )
        )

    def group_untied(
        self, path: str, groups: Sequence[Ref], methods: Sequence[str]
    ) -> tuple[GroupUntied, ...]:
        """The calls of the group *methods* in the module *path* tied to no construction
        whose receiver is shown to be one of the group classes at *groups*
        (:func:`untied_calls`): where, the method, the group classes' places, and the call
        as written (``group.async_save_model()``)."""
        wanted = frozenset(groups)
        names, group_of = self._group_test(wanted)
        asked = frozenset(methods)

        def compute() -> tuple[GroupUntied, ...]:
            module = self.store.module(path)
            if module is None:
                return ()
            found: list[GroupUntied] = []
            for call, method, classes in untied_calls(module, names, group_of, asked):
                at = location_of(call)
                if at is None:
                    continue
                places = sorted(
                    (ref.path, ref.name, ref.index)
                    for ref in (Ref.of(klass, self.store.tree) for klass in classes)
                )
                found.append((at, method, tuple(places), _written(call, method)))
            return tuple(found)

        return tuple(
            self.pieces.piece(
                "group-untied",
                (path, sorted((r.path, r.name, r.index) for r in wanted), sorted(asked)),
                [path],
                compute,
                tuple[GroupUntied, ...],
                own=BODY,
            )
        )

    def _bound_handler(
        self, construction: nodes.Call, group: nodes.ClassDef, param: str
    ) -> tuple[str, str, int, str] | None:
        """Where the class *construction* binds to *param* is defined, and its qualified
        name; None when the argument does not infer to one class of the project."""
        order, _ = self.index.linearize(group)
        for klass in order:
            self.pieces.reads.file(klass.root().file, INTERFACE)
        init = init_of(order)
        if init is None or param not in init_params(init):
            return None
        self.pieces.reads.file(init.root().file, BODY)
        argument = bound_argument(construction, init, param)
        value = None if argument is None else infer_unique(argument)
        if not isinstance(value, nodes.ClassDef):
            return None
        if self.store.project_key(value.root().file or "") is None:
            return None  # a class outside the project: not one whose names are read
        ref = Ref.of(value, self.store.tree)
        self._nodes.setdefault(ref, value)
        return (ref.path, ref.name, ref.index, self.index.qualname(value))

    # -------------------------------------------------------------- pragmas

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
                text = self.store.text(path)
                if not may_hold_pragmas(text):
                    return ()  # no module built: an edit of such a file costs no build
                module = self.store.module(path)
                if module is None:
                    return ()
                by_line = pragma_states(module, text, asked)
                return tuple((s, n, state) for (s, n), state in sorted(by_line.items()))

            asked_plain = sorted((s, sorted(n)) for s, n in asked.items())
            key = self.pieces.file_key("pragmas", path, asked_plain)
            for symbol, line, state in self.pieces.memo.get(key, compute, _PragmaStates):
                states[(path, symbol, line)] = state
        return [
            replace(f, pragma=states.get((f.location.path, f.symbol, f.location.line)))
            for f in findings
        ]


# An instance call of a group method: where, the method, the call as written, and each
# construction the instance may be (the group class's place, where it is built, and the
# handler bound: its place and qualified name, or None when not one class of the project).
GroupUse = tuple[
    Location,
    str,
    str,
    tuple[tuple[tuple[str, str, int], Location, tuple[str, str, int, str] | None], ...],
]


def _written(call: nodes.Call, method: str) -> str:
    """A call of the group *method* as written, arguments left out:
    ``group.async_save_model()``, or the construction's ``PPORayActorGroup(...)``."""
    func = call.func
    if method == "__init__" or not isinstance(func, nodes.Attribute):
        return f"{func.as_string()}(...)"
    return f"{func.expr.as_string()}.{method}()"


# A call of a group method tied to no construction whose receiver is shown to be a group:
# where, the method, the group classes' places, and the call as written.
GroupUntied = tuple[Location, str, tuple[tuple[str, str, int], ...], str]

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


def _resolved_to_plain(value: Resolved) -> tuple[object, ...]:
    ref = value.ref
    place = (ref.path, ref.name, ref.index) if ref is not None else None
    return (place, value.qualname, value.is_class, value.problem)


def _as_resolved(raw: Any) -> Resolved:
    place, qualname, is_class, problem = raw
    ref = Ref(str(place[0]), str(place[1]), int(place[2])) if place is not None else None
    return Resolved(ref, str(qualname), bool(is_class), None if problem is None else str(problem))


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


def family_members(callers: dict[str, Resolved], family: CallerFamily[Ref]) -> dict[str, Ref]:
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

"""The discovery itself: senders confirmed by their call sites, handlers, callers,
registries and base handlers, grouped into surfaces."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from astroid import nodes

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.inference import enum_member_key, inferred_values
from pylint_rpcsurface.analysis.lean_build import infers_to_no_class
from pylint_rpcsurface.discovery import unproven
from pylint_rpcsurface.discovery.callers import CallerSplit, ExactReceivers
from pylint_rpcsurface.discovery.evidence import (
    Found,
    ImportAliases,
    Namings,
    Receivers,
    function_of,
    looked_up_on,
)
from pylint_rpcsurface.discovery.flags import FlagSplits
from pylint_rpcsurface.discovery.forwards import Forwards, by_name
from pylint_rpcsurface.discovery.keys import DispatchKeys
from pylint_rpcsurface.discovery.payload import PayloadKeys
from pylint_rpcsurface.discovery.plans import Plans
from pylint_rpcsurface.discovery.qualnames import QualnameStrings
from pylint_rpcsurface.discovery.ray_proxies import RayProxies
from pylint_rpcsurface.discovery.readers import CallerHierarchies
from pylint_rpcsurface.discovery.reading import (
    MIN_NAMES,
    MOSTLY,
    SEND_CALLS,
    AnsweringIndex,
    Choice,
    DispatchProposal,
    FunctionBodies,
    Group,
    Proposal,
    Sender,
    Site,
    SurfaceProposal,
    Worker,
    at_module_level,
    call_name,
    count,
    is_dunder,
    is_getattr,
    is_interface,
    is_method,
    is_stub,
    most_general,
    name_passed,
    names_in,
    owner_of,
    positional_params,
    where,
)
from pylint_rpcsurface.discovery.registries import Registries, registry_of_known_waits
from pylint_rpcsurface.discovery.table_surfaces import TablesRead, TableSurfaces
from pylint_rpcsurface.discovery.workers import WorkerSide, top_of

# A helper that passes the name on to a sender found in one round is found in the next;
# the rounds stop as soon as one finds nothing new. The cap bounds the rounds (each walks
# every function of the project) for helpers that wrap helpers deeper than that: a sender
# beyond it is not proposed, never guessed.
_MAX_HELPER_LAYERS = 6
# The nodes that may give an attribute a value: x.attr = v, a class body, attr=v passed.
_GIVING = (nodes.AssignAttr, nodes.ClassDef, nodes.Call)
_COLLECTED = (*_GIVING, nodes.FunctionDef, nodes.Compare, nodes.For, nodes.ImportFrom)


class Discovery:  # pylint: disable=too-many-instance-attributes
    """Reads a project's modules for what ``init`` can prove; :meth:`run` proposes."""

    def __init__(self, project: Path, modules: list[nodes.Module], index: ClassIndex) -> None:
        self.project = project
        self.modules = modules
        self.index = index
        self.functions: list[nodes.FunctionDef] = []
        self.classes: list[nodes.ClassDef] = []
        self.calls: dict[str, list[nodes.Call]] = defaultdict(list)
        # What QualnameStrings reads, met by this walk rather than another of every module.
        giving: list[nodes.AssignAttr | nodes.ClassDef | nodes.Call] = []
        aliases = ImportAliases()
        self.notes: list[str] = []
        self.registries = Registries(
            modules,
            lambda module: index.store.tree.module_name(module.file or "") or module.name,
            self.where,
            index.store.tree,
        )
        self.body = FunctionBodies()
        for module in modules:
            for node in self.body.walked(module):
                if not isinstance(node, _COLLECTED):
                    continue
                if isinstance(node, _GIVING):
                    giving.append(node)
                elif isinstance(node, nodes.ImportFrom):
                    aliases.note(node)
                if isinstance(node, (nodes.Compare, nodes.For)):
                    self.registries.note_use(node)
                elif isinstance(node, nodes.Call):
                    name = call_name(node)
                    if name is not None:
                        self.calls[name].append(node)
                elif isinstance(node, nodes.ClassDef):
                    if at_module_level(node):
                        self.classes.append(node)
                elif isinstance(node, nodes.FunctionDef) and (
                    is_method(node) or at_module_level(node)
                ):
                    self.functions.append(node)
        self._answers: dict[int, frozenset[str]] = {}
        self._answering: AnsweringIndex | None = None
        in_project = {id(m) for m in modules}
        self.forwards = Forwards(
            lambda c: index.linearize(c)[0], lambda n: id(n.root()) in in_project
        )
        self.receivers = Receivers(
            self.classes,
            self.calls,
            lambda c: index.linearize(c)[0][1:],
            self.where,
            in_project,
            qualnames=QualnameStrings(giving, self.classes, self.qualname, self.where),
        )
        self.namings = Namings(aliases)
        self._sides: dict[
            tuple[int, tuple[str, ...]], tuple[Found, list[tuple[nodes.NodeNG, Found]]]
        ] = {}
        self.worker_side = WorkerSide(project, self.functions, self.body, index.store.tree)
        self.keys = DispatchKeys(project, self.worker_side)
        self.caller_split = CallerSplit(self)
        self.flag_splits = FlagSplits(self)
        self.tables = TableSurfaces(self)

    @contextmanager
    def reading_as(self, exact: nodes.ClassDef, family: set[int]) -> Iterator[None]:
        """Every receiver read as in class *exact* alone (of the hierarchy *family*),
        with receive sides read afresh, until the block ends."""
        with self.reading_with(ExactReceivers(self.receivers, exact, family)):
            yield

    @contextmanager
    def reading_with(self, receivers: Receivers) -> Iterator[None]:
        """Every receiver read by *receivers*, receive sides read afresh, until the
        block ends."""
        saved = self.receivers, self._sides
        self.receivers, self._sides = receivers, {}
        try:
            yield
        finally:
            self.receivers, self._sides = saved

    def where(self, node: nodes.NodeNG) -> str:
        return where(node, self.project)

    # -- helpers shaped like run_method(obj, name, ...) ----------------------

    def run_method_helpers(self) -> dict[str, tuple[nodes.FunctionDef, str, nodes.Call]]:
        """name -> (function, its name parameter, the getattr) for each helper whose
        parameter is looked up with getattr and the result called."""
        found: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]] = {}
        for function in self.functions:
            body = self.body(function)
            for param in positional_params(function):
                lookup = body.called_lookup({param})
                if lookup is not None and not body.patches(body.tainted({param})):
                    found.setdefault(function.name, (function, param, lookup))
                    break
        return found

    # -- senders ------------------------------------------------------------

    def _on_self(self, sender: Sender) -> bool:
        body = self.body(sender.function)
        lookup = body.called_lookup(body.tainted({sender.param}))
        return (
            lookup is not None
            and isinstance(lookup.args[0], nodes.Name)
            and lookup.args[0].name == "self"
        )

    def senders(self, helpers: dict[str, object]) -> list[Sender]:
        found: dict[tuple[int, str], Sender] = {}
        names: dict[str, list[Sender]] = {}
        # :meth:`_reach` sends only by a call of one of these names or a getattr, then only
        # by a call of a sender found, its answer changed only where that name got more.
        sending, grown = SEND_CALLS | helpers.keys(), set[str]()
        for layer in range(_MAX_HELPER_LAYERS):
            before = len(found)
            for function in self.functions:
                body = self.body(function)
                if layer and not body.called_names & grown:
                    continue
                if not (layer or body.calls_getattr or body.called_names & sending):
                    continue
                for position, param in enumerate(positional_params(function)):
                    if (id(function), param) in found:
                        continue
                    reach = self._reach(function, param, helpers, names)
                    if reach is not None:
                        found[(id(function), param)] = Sender(function, param, position, *reach)
            names, grown = by_name(found.values(), names)
            if len(found) == before:
                break
        return list(found.values())

    def _reach(
        self,
        function: nodes.FunctionDef,
        param: str,
        helpers: dict[str, object],
        senders: dict[str, list[Sender]],
    ) -> tuple[str, bool] | None:
        body = self.body(function)
        tainted = body.tainted({param})
        if body.patches(tainted):
            return None  # it wraps the named method in place: it sends nothing
        forward: str | None = None
        for call, carried in body.calls:
            if not carried & tainted:
                if (
                    isinstance(call.func, nodes.Attribute)
                    and call.func.attrname == "remote"
                    and is_getattr(call.func.expr)
                    and names_in(call.func.expr.args[1]) & tainted
                ):
                    return f"{self.where(call)}: getattr(..., {param}).remote(...)", False
                continue
            name = call_name(call)
            if name == "remote" and isinstance(call.func, nodes.Attribute):  # noqa: SIM102
                if isinstance(call.func.expr, (nodes.Call, nodes.Name)):
                    continue  # Cls.remote(...), Cls.options(...).remote(...): a new actor
            if name in SEND_CALLS and isinstance(call.func, nodes.Attribute):
                return f"{self.where(call)}: {param} reaches {call.func.as_string()}()", False
            if name in helpers and name != function.name:
                return f"{self.where(call)}: {param} reaches {name}(), a run_method helper", False
            if forward is None and self.forwards.to(call, tainted, senders.get(name or "", [])):
                forward = f"{self.where(call)}: {param} is forwarded to {name}()"
        if forward is not None:
            return forward, True
        lookup = body.called_lookup(tainted)
        if lookup is not None:
            return f"{self.where(lookup)}: {param} is looked up with getattr and called", False
        return None

    def groups(self, senders: list[Sender]) -> list[Group]:
        by_key: dict[tuple[str, str, int, str], list[Sender]] = defaultdict(list)
        for sender in senders:
            if is_dunder(sender.function.name):
                continue  # no dispatch: Python calls it (Foo(...)), at sites not naming it
            called_as = "method" if is_method(sender.function) else "function"
            by_key[(sender.function.name, called_as, sender.index, sender.param)].append(sender)
        groups = []
        for (method, called_as, index, param), members in by_key.items():
            group = Group(method, called_as, index, param, members)
            group.sites = self.literal_sites(group)
            groups.append(group)
        return groups

    def literal_sites(self, group: Group) -> list[Site]:
        """The group's call sites that pass a str literal where the name goes; where none
        does, those that pass an enum member (``send(RequestType.ADD, ...)``), named by
        its key (``<enum>.<member>``): a dispatch keyed by an enum, as handler tables are.
        None is a call proven to call no function of the project (``"x".encode("ascii")``)."""
        passed = [p for call in self.calls.get(group.method, []) if (p := name_passed(call, group))]
        sites = [
            Site(call, node.value, keyword, owner_of(call))
            for call, node, keyword in passed
            if isinstance(node, nodes.Const)
            and isinstance(node.value, str)
            and self.forwards.may_call_the_project(call)
        ]
        if sites:
            # The literals name the group's RPCs: no attribute passed is inferred for an
            # enum member (it would build the enum's module for a key never used).
            return sites
        members = []
        for call, node, keyword in passed:
            # ``self.x`` or ``request.kind``: what ``self`` or a parameter is, astroid
            # infers to no enum class, so to no member (:func:`infers_to_no_class`).
            if isinstance(node, nodes.Attribute) and not infers_to_no_class(node.expr):
                member = enum_member_key(node, self.qualname)
                if member is not None and self.forwards.may_call_the_project(call):
                    members.append(Site(call, member, keyword, owner_of(call)))
        return members

    # -- classes ------------------------------------------------------------

    def answers(self, cls: nodes.ClassDef) -> frozenset[str]:
        if id(cls) not in self._answers:
            order, _ = self.index.linearize(cls)
            self._answers[id(cls)] = frozenset(
                name
                for klass in order
                for name, bindings in klass.locals.items()
                # "mostly the method names": a field or constant is no evidence
                if any(isinstance(b, nodes.FunctionDef) for b in bindings)
            )
        return self._answers[id(cls)]

    def is_ancestor(self, base: nodes.ClassDef, cls: nodes.ClassDef) -> bool:
        order, _ = self.index.linearize(cls)
        return any(klass is base for klass in order[1:])

    def only_stubs(self, cls: nodes.ClassDef, names: set[str]) -> bool:
        order, _ = self.index.linearize(cls)
        for name in names:
            for klass in order:
                bindings = klass.locals.get(name)
                if bindings:
                    binding = bindings[-1]
                    if not (isinstance(binding, nodes.FunctionDef) and is_stub(binding)):
                        return False
                    break
        return True

    def qualname(self, node: nodes.ClassDef | nodes.FunctionDef) -> str:
        return self.index.qualname(node)

    # -- the run --------------------------------------------------------------

    def run(self) -> Proposal:
        helpers = self.run_method_helpers()
        senders = self.senders(dict(helpers))
        groups = [g for g in self.groups(senders) if g.sites]
        # The class defining a dispatch method answers nothing sent through it, unless
        # it looks the name up on itself.
        on_self = {id(s.function.parent) for s in senders if self._on_self(s)}

        def excluded_by(chosen: list[Group]) -> set[int]:
            return {
                id(s.function.parent)
                for g in chosen
                for s in g.senders
                if isinstance(s.function.parent, nodes.ClassDef)
                and id(s.function.parent) not in on_self
            }

        workers = self.worker_side.workers(helpers)
        reads = self.worker_side.table_reads(lambda c: self.index.linearize(c)[0])
        dispatch: list[DispatchProposal] = []
        confirmed: list[Group] = []
        handlers: list[nodes.ClassDef] = []
        pending = []
        answered_by_tables: list[tuple[Group, TablesRead]] = []
        for group in sorted(groups, key=lambda g: (g.method, g.index)):
            names = {site.name for site in group.sites}
            # A receive side that answers from a table is proof of what answers: the
            # classes that happen to define the names are not asked.
            tables = self.tables.read(group, reads)
            if tables:
                answered_by_tables.append((group, tables))
                confirmed.append(group)
                continue
            best = self.best_handlers(names, excluded_by([group]))
            if len(names) < MIN_NAMES or best is None:
                pending.append(group)
                continue
            confirmed.append(group)
            handlers.extend(best[0])
        confirmed.extend(self._confirmed_later(pending, handlers, workers, helpers))
        methods = [g.method for g in confirmed]
        for group in sorted(confirmed, key=lambda g: g.method):
            if methods.count(group.method) > 1:
                self.notes.append(
                    f"{self.where(group.senders[0].function)}: {group.method}() takes the "
                    "name at different positions in different definitions: not written"
                )
                continue
            # What a worker loop's getattr says (an unknown name, the reply) is not said
            # of a table: a loop answering from one looks up the handler it found there.
            by_table = any(group is g for g, _ in answered_by_tables)
            dispatch.append(self.keys.dispatch_proposal(group, [] if by_table else workers))
        confirmed = [g for g in confirmed if methods.count(g.method) == 1]
        surfaces = self._all_surfaces(
            confirmed, answered_by_tables, excluded_by(confirmed), workers, helpers
        )
        by_method = {g.method: g for g in confirmed}
        payload = PayloadKeys(self)
        dispatch = [payload.proposal(d, by_method[d.method], workers, surfaces) for d in dispatch]
        surfaces = [registry_of_known_waits(s, dispatch) for s in surfaces]
        proxies = tuple(RayProxies(self, confirmed).proposals())
        return Proposal(tuple(dispatch), tuple(surfaces), tuple(self.notes), proxies)

    def _confirmed_later(
        self,
        pending: list[Group],
        handlers: list[nodes.ClassDef],
        workers: list[Worker],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
    ) -> list[Group]:
        """The *pending* groups (too few names, or no class answers most) that are a
        dispatch all the same; each other one is a note."""
        confirmed = []
        for group in pending:
            # One literal name is no evidence alone, but a name the confirmed handlers
            # answer is: call_func_with_aggregation("receive_kv_cache") beside call_func.
            names = {site.name for site in group.sites}
            if handlers and names <= self._answered_by(handlers, names):
                confirmed.append(group)
                continue
            # A receive side proven to reach a class that answers some of its names makes a
            # group of MIN_NAMES names or more a dispatch too, however few: the rest is check's.
            if len(names) >= MIN_NAMES:
                own, linked = self.receive_side(group, workers, helpers)
                reached = [c for f in (own, *(f for _, f in linked)) for c, _ in f.values()]
                if any(self.answers(c) & names for c in reached):
                    confirmed.append(group)
                    continue
            at = self.where(group.senders[0].function)
            self.notes.append(
                f"{at}: {group.method}() sends its parameter {group.param!r}, but the "
                f"literal names at its {count(len(group.sites), 'call site')} are not mostly the "
                "methods of one class, nor answered by a class its receive side reaches: not a "
                "dispatch"
            )
        return confirmed

    def _all_surfaces(
        self,
        confirmed: list[Group],
        answered_by_tables: list[tuple[Group, TablesRead]],
        excluded: set[int],
        workers: list[Worker],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
    ) -> list[SurfaceProposal]:
        """The surfaces of the *confirmed* groups: those their handlers answer, then those
        tables answer (the groups in *answered_by_tables*)."""
        table_groups = {id(g) for g, _ in answered_by_tables}
        surfaces = self.surfaces(
            [g for g in confirmed if id(g) not in table_groups], excluded, workers, helpers
        )
        tabled = self.tables.surfaces(
            [(g, tables) for g, tables in answered_by_tables if any(g is c for c in confirmed)]
        )
        if tabled:
            # Without its own list, a surface judges every dispatch's calls: the handler
            # surfaces would judge the tables' sends (`send(RequestType.X)`), and the
            # tables' surfaces theirs. Each names the dispatches it answers.
            by_handlers = tuple(sorted({g.method for g in confirmed if id(g) not in table_groups}))
            surfaces = [
                replace(s, dispatch=by_handlers) if s.refused is None else s for s in surfaces
            ]
        return surfaces + tabled

    # -- handlers -------------------------------------------------------------

    def best_handlers(
        self, names: set[str], excluded: set[int]
    ) -> tuple[list[nodes.ClassDef], float] | None:
        """The classes answering most of *names*, reduced to the most general ones."""
        if self._answering is None:
            self._answering = AnsweringIndex(self.classes, self.answers)
        # More than half, as docs/init.md says: 1 of 2 is not.
        shares = [(n / len(names), c) for n, c in self._answering.answered(names)]
        scored = [(share, c) for share, c in shares if share > MOSTLY and id(c) not in excluded]
        if not scored:
            return None
        top = max(share for share, _ in scored)
        tied = [cls for share, cls in scored if share == top]
        # A subclass answering no more of the names than its base adds nothing here.
        general = most_general(tied, self.index.linearize)
        real = [c for c in general if not self.only_stubs(c, names & self.answers(c))]
        return (real or general), top

    # -- the receive side -----------------------------------------------------

    def receive_side(
        self,
        group: Group,
        workers: list[Worker],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
        senders: list[Sender] | None = None,
    ) -> tuple[Found, list[tuple[nodes.NodeNG, Found]]]:
        """The classes the group's dispatch (or its definitions *senders*) reaches, from
        the code alone: those its own lookups reach (``getattr(self, name)``,
        ``getattr(actor, name).remote()``, a run_method helper's object), and, per worker
        loop linked to it (the sender's class or function names the loop's), those the
        loop's object is bound to; through a method it passes the name to, that method's."""
        own: Found = {}
        linked: list[tuple[nodes.NodeNG, Found]] = []
        for sender in group.senders if senders is None else senders:
            mine, loops = self.sender_side(
                sender.function,
                self.body(sender.function).tainted({sender.param}),
                workers,
                helpers,
            )
            own.update(mine)
            linked.extend(loop for loop in loops if all(loop[0] is not t for t, _ in linked))
        return own, linked

    def sender_side(
        self,
        function: nodes.FunctionDef,
        tainted: set[str],
        workers: list[Worker],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
        depth: int = 3,
    ) -> tuple[Found, list[tuple[nodes.NodeNG, Found]]]:
        key = (id(function), tuple(sorted(tainted)))
        if key in self._sides:
            return self._sides[key]
        self._sides[key] = ({}, [])  # a forwarding cycle adds nothing
        own: Found = {}
        linked: list[tuple[nodes.NodeNG, Found]] = []
        lookup = self.body(function).called_lookup(tainted)
        on_self = (
            lookup is not None
            and isinstance(lookup.args[0], nodes.Name)
            and lookup.args[0].name == "self"
            and isinstance(function.parent, nodes.ClassDef)
        )
        if on_self and isinstance(function.parent, nodes.ClassDef):
            cls = function.parent
            own[id(cls)] = (
                cls,
                f"{self.where(function)}: {function.name}() looks the name up on self",
            )
        else:
            for obj, at in self._sender_objects(function, tainted, helpers):
                own.update(looked_up_on(at, obj, self.receivers.instances(obj)))
        top = top_of(function)
        for worker in workers:
            if worker.obj is None or worker.top is None or top is None:
                continue
            if worker.top is top or self.names(top, worker.top):
                found = self.receivers.instances(worker.obj)
                linked.append((worker.top, looked_up_on(worker.where, worker.obj, found)))
        if depth > 0:
            for callee, inner in self._forwarded(function, tainted):
                more, loops = self.sender_side(callee, inner, workers, helpers, depth - 1)
                own.update(more)
                linked.extend(loops)
        self._sides[key] = (own, linked)
        return own, linked

    def _sender_objects(
        self,
        function: nodes.FunctionDef,
        tainted: set[str],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
    ) -> list[tuple[nodes.NodeNG, str]]:
        """The objects a sender looks the name up on itself, each with where."""
        found: list[tuple[nodes.NodeNG, str]] = []
        lookup = self.body(function).called_lookup(tainted)
        if lookup is not None:
            found.append((lookup.args[0], self.where(lookup)))
        for call in self.body(function).own_nodes(nodes.Call):
            func = call.func
            if (
                isinstance(func, nodes.Attribute)
                and func.attrname == "remote"
                and is_getattr(func.expr)
                and names_in(func.expr.args[1]) & tainted
            ):
                found.append((func.expr.args[0], self.where(call)))
            name = call_name(call)
            if (
                name in helpers
                and name != function.name
                and any(names_in(arg) & tainted for arg in call.args)
            ):
                obj = self.worker_side.helper_object(call, helpers[name])
                if obj is not None:
                    found.append((obj, self.where(call)))
        return found

    def _forwarded(
        self, function: nodes.FunctionDef, tainted: set[str]
    ) -> list[tuple[nodes.FunctionDef, set[str]]]:
        """The methods *function* passes the name to, each with its tainted names: on the
        classes the object it calls them on is bound to (``self.model_executor
        .collective_rpc(method)``, ``worker.execute_method.remote(method, ...)``)."""
        found: list[tuple[nodes.FunctionDef, set[str]]] = []
        for call in self.body(function).own_nodes(nodes.Call):
            method = call.func
            if (
                isinstance(method, nodes.Attribute)
                and method.attrname == "remote"
                and isinstance(method.expr, nodes.Attribute)
            ):
                method = method.expr  # actor.execute_method.remote(name, ...)
            if not isinstance(method, nodes.Attribute) or method.attrname in SEND_CALLS:
                continue
            index = next((i for i, arg in enumerate(call.args) if names_in(arg) & tainted), None)
            if index is None or not self.receivers.may_define(method.attrname):
                continue  # no class the object may be an instance of has that method
            for cls, _ in self.receivers.instances(method.expr).values():
                order, _ = self.index.linearize(cls)
                callee = next(
                    (
                        b
                        for klass in order
                        for b in klass.locals.get(method.attrname, [])[-1:]
                        if isinstance(b, nodes.FunctionDef)
                    ),
                    None,
                )
                if callee is None or callee is function:
                    continue
                params = positional_params(callee)
                if index < len(params):
                    found.append((callee, self.body(callee).tainted({params[index]})))
        return found

    def names(self, code: nodes.NodeNG, target: nodes.NodeNG) -> bool:
        """Whether *code* names *target* (a module-level function or class): a name bound
        to it, or imported from its module under its name."""
        return self.namings(code, target)

    # -- surfaces ------------------------------------------------------------

    def surfaces(
        self,
        groups: list[Group],
        excluded: set[int],
        workers: list[Worker],
        helpers: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]],
    ) -> list[SurfaceProposal]:
        """A proposal per set of handlers the callers' sites reach, and those of the
        callers whose handlers are not chosen: refused, each with its reason, or one-of."""
        callers = self.caller_hierarchies(groups)
        plans = Plans()
        direct: list[SurfaceProposal] = []
        overall = self.best_handlers(
            set().union(*callers.names_of.values()) if callers.names_of else set(), excluded
        )
        for key, names in list(callers.names_of.items()):
            root = callers.roots[key]
            sides = [
                self.receive_side(
                    groups[i], workers, helpers, self.senders_for(root, groups[i], mine)
                )
                for i, mine in sorted(callers.groups_of[key].items())
            ]
            proven = self.proven(root, sides)
            chosen = self.among(proven, names)
            unchosen = self._unchosen(
                root, names, proven=proven, chosen=chosen, overall=overall, excluded=excluded
            )
            if unchosen is not None:
                sites = [s for g in callers.groups_of[key].values() for s in g]
                unchosen = replace(unchosen, callers=unproven.sending(self, root, sites))
                if unchosen.one_of:  # written, with what the loop answers itself
                    answered = self._loop_answers(root, sides, chosen, workers)
                    unchosen = replace(
                        unchosen, answered_before_lookup=tuple(sorted(answered.items()))
                    )
                direct.append(unchosen)
                continue
            if not chosen:
                continue  # left out, with a note
            parts = (
                self.caller_split.split_callers(
                    root, groups, callers.groups_of[key], workers, helpers
                )
                if isinstance(root, nodes.ClassDef)
                else None
            )
            for part in parts or ():
                # The subtrees whose classes agree, each a caller of its own handlers.
                top = id(part.top)
                callers.roots[top], callers.names_of[top] = part.top, part.names
                callers.first_site[top] = part.site
                plans.add(
                    top, part.handlers, {**proven, **part.proven},
                    self._loop_answers(part.top, sides, part.handlers, workers),
                )  # fmt: skip
            if not parts:
                split = self.flag_splits.split(
                    root, sites=callers.groups_of[key], groups=groups, chosen=chosen,
                    workers=workers, helpers=helpers,
                )  # fmt: skip
                if split is not None and split.unguarded:
                    direct += self.flag_splits.commented(root, split, callers.groups_of[key])
                    continue
                for branch in split.branches if split is not None else [None]:
                    handlers = chosen if branch is None else branch.handlers
                    plans.add(
                        key, handlers, {**proven, **(branch.proven if branch else {})},
                        self._loop_answers(root, sides, list(handlers), workers),
                        (branch.when, branch.evidence) if branch else ("", ""),
                    )  # fmt: skip
        return direct + self._proposals(callers, plans)

    def caller_hierarchies(self, groups: list[Group]) -> CallerHierarchies:
        """The sites' owners by the root of their hierarchy among them: a class none of
        whose ancestors owns a site, or a module-level function."""
        sites = [
            (index, site)
            for index, group in enumerate(groups)
            for site in group.sites
            if site.owner is not None
        ]
        owners: dict[int, nodes.ClassDef | nodes.FunctionDef] = {}
        for _, site in sites:
            assert site.owner is not None
            owners[id(site.owner)] = site.owner
        classes = [o for o in owners.values() if isinstance(o, nodes.ClassDef)]
        callers = CallerHierarchies()
        root_of: dict[int, int] = {}
        for owner in owners.values():
            if isinstance(owner, nodes.ClassDef):
                above = {id(klass) for klass in self.index.linearize(owner)[0][1:]}
                ancestors = [c for c in classes if c is not owner and id(c) in above]
                if ancestors:
                    root_of[id(owner)] = id(
                        next(iter(most_general(ancestors, self.index.linearize)))
                    )
                    continue
            callers.roots[id(owner)] = owner
            root_of[id(owner)] = id(owner)
        for index, site in sites:
            assert site.owner is not None
            root = root_of[id(site.owner)]
            callers.names_of[root].add(site.name)
            callers.first_site.setdefault(root, site)
            callers.groups_of[root][index].append(site)
        return callers

    def _unchosen(
        self,
        root: nodes.ClassDef | nodes.FunctionDef,
        names: set[str],
        *,
        proven: Found,
        chosen: list[nodes.ClassDef],
        overall: tuple[list[nodes.ClassDef], float] | None,
        excluded: set[int],
    ) -> SurfaceProposal | None:
        """The proposal for *root*'s names when no handler is chosen: refused, with its
        reason, or one-of (some of several classes, not which); None when its handlers
        are *chosen*, or when nothing answers them (noted, and left out)."""
        if (forwarding := unproven.forwarded(self, root, chosen, names)) is not None:
            return forwarding
        admitted = self.admitted(chosen, proven)
        if admitted:
            return unproven.admitted_by_annotation(self, root, admitted)
        if chosen:
            return None
        candidates, tie = self._handlers_for(names, overall, excluded)
        listed = candidates or tie
        if not listed:
            self.notes.append(
                f"{self.where(root)}: no class answers most of the names "
                f"{self.qualname(root)} sends: left out"
            )
            return None
        return unproven.by_overlap(self, root, names, listed, self.answers)

    def _proposals(self, callers: CallerHierarchies, plans: Plans) -> list[SurfaceProposal]:
        """One proposal per set of handlers, with every caller that reaches it."""
        proposals: list[SurfaceProposal] = []
        used: set[str] = set()
        by_id = {id(c): c for c in self.classes}
        for (handler_ids, when), keys in plans.callers.items():
            # The plan's key orders them by id, a memory address: the table by name.
            handlers = sorted((by_id[i] for i in handler_ids), key=self.qualname)
            names = set().union(*(callers.names_of[k] for k in keys))
            proven = plans.proven[(handler_ids, when)]
            listed = tuple(
                sorted(
                    (
                        self.qualname(callers.roots[k]),
                        f"{self.where(callers.first_site[k].call)}: sends "
                        f"{callers.first_site[k].name!r}",
                    )
                    for k in keys
                )
            )
            handler_entries = tuple(
                (
                    self.qualname(h),
                    f"{proven[id(h)][1]}; answers {len(self.answers(h) & names)} of the "
                    f"{len(names)} names sent",
                )
                for h in handlers
            )
            registry = self.registry(names, handlers)
            base: tuple[tuple[str, str], ...] = ()
            base_overlap: tuple[str, ...] = ()
            if registry is not None and registry.value is not None:
                base, base_overlap = self.base_handlers(handlers, names, proven)
            name = handlers[0].name
            while name in used:
                name += "-2"
            used.add(name)
            # A name the loop answers for one caller's receive side and not another's is
            # not answered for the surface: only those every one of them answers.
            answered = plans.loop_answers[(handler_ids, when)]
            common = set(answered[0]).intersection(*answered[1:]) & names
            proposals.append(
                SurfaceProposal(
                    name,
                    listed,
                    handler_entries,
                    base,
                    registry,
                    base_overlap=base_overlap,
                    answered_before_lookup=tuple((n, answered[0][n]) for n in sorted(common)),
                    when=when,
                    when_evidence=plans.when_evidence[(handler_ids, when)],
                )
            )
        return proposals

    def _loop_answers(
        self,
        caller: nodes.ClassDef | nodes.FunctionDef,
        sides: list[tuple[Found, list[tuple[nodes.NodeNG, Found]]]],
        chosen: list[nodes.ClassDef],
        workers: list[Worker],
    ) -> dict[str, str]:
        """The names every receive side of *caller* that reaches the *chosen* handlers
        answers itself before its lookup (see :mod:`.answered`), each with its evidence;
        none when a dispatch's own lookup reaches them (it answers nothing itself)."""
        chosen_ids = {id(c) for c in chosen}
        if any(chosen_ids & own.keys() for own, _ in sides):
            return {}
        loops = [loop for _, linked in sides for loop in linked]
        mine = [loop for loop in loops if self.names(caller, loop[0])] or loops
        tops = [top for top, found in mine if chosen_ids & found.keys()]
        reaching = [
            w
            for w in workers
            if w.obj is not None
            and any(w.top is top for top in tops)
            and chosen_ids & self.receivers.instances(w.obj).keys()
        ]
        if not reaching:
            return {}
        common = set(reaching[0].answered).intersection(*(w.answered for w in reaching[1:]))
        first = reaching[0].answered_at
        if not common or first is None:
            return {}
        return {
            name: f"{self.where(first)}: the loop answers {name!r} itself, before the "
            f"lookup at {reaching[0].where}"
            for name in common
        }

    def senders_for(
        self,
        caller: nodes.ClassDef | nodes.FunctionDef,
        group: Group,
        sites: list[Site],
    ) -> list[Sender]:
        """The definitions of the dispatch that *caller*'s call sites reach: those of its
        own class hierarchy (``self.collective_rpc(...)``), else those astroid infers the
        calls to, else all of them. The MP executor's worker loop says nothing of what the
        Ray executor's actors hold."""
        if isinstance(caller, nodes.ClassDef):
            related = [
                s
                for s in group.senders
                if isinstance(s.function.parent, nodes.ClassDef)
                and (
                    s.function.parent is caller
                    or self.is_ancestor(s.function.parent, caller)
                    or self.is_ancestor(caller, s.function.parent)
                )
            ]
            if related:
                return related
        by_function = {id(s.function): s for s in group.senders}
        reached: dict[int, Sender] = {}
        for site in sites:
            for value in inferred_values(site.call.func)[:4]:
                function = function_of(value)
                if id(function) in by_function:
                    reached[id(function)] = by_function[id(function)]
        return list(reached.values()) or group.senders

    def proven(
        self,
        caller: nodes.ClassDef | nodes.FunctionDef,
        sides: list[tuple[Found, list[tuple[nodes.NodeNG, Found]]]],
    ) -> Found:
        """The classes the dispatches *caller* uses reach: their own lookups', and their
        worker loops' (only those *caller* starts, when it names some: its own server)."""
        proven: Found = {}
        loops = [loop for _, linked in sides for loop in linked]
        mine = [found for top, found in loops if self.names(caller, top)]
        for own, _ in sides:
            proven.update(own)
        for found in mine or [found for _, found in loops]:
            proven.update(found)
        return unproven.with_forwarded(self, proven)

    def admitted(self, chosen: list[nodes.ClassDef], proven: Found) -> list[nodes.ClassDef]:
        """The classes one annotation admits beside a chosen handler (``self.worker:
        Optional[WorkerBase]``, with a CPU and a GPU worker among its subclasses): the
        annotation proves some subclass is held, not which, and picking the one that
        answers the names would be choosing by overlap. Empty when it admits one class
        with real code (abstract bases aside)."""
        by_binding: dict[str, list[nodes.ClassDef]] = defaultdict(list)
        for cls, evidence in proven.values():
            if ": annotated " in evidence and not is_interface(cls):
                by_binding[evidence].append(cls)
        for cls in chosen:
            group = by_binding.get(proven[id(cls)][1], [])
            if len(group) > 1:
                return sorted(group, key=lambda c: (self.qualname(c), id(c)))
        return []

    def among(self, proven: Found, names: set[str]) -> list[nodes.ClassDef]:
        """The handlers among the classes the receive side is proven to reach: each that
        answers some of *names*, but a subclass answering no more than its base, a base
        whose subclass answers more, and stubs beside real code."""
        answering = [cls for cls, _ in proven.values() if self.answers(cls) & names]
        if not answering:
            # Proven to receive them, answering none: each name is the checker's to report
            # (a misspelt name, say). The most general of the classes reached.
            reached = [cls for cls, _ in proven.values()]
            general = most_general(reached, self.index.linearize)
            return sorted(general, key=lambda c: (self.qualname(c), id(c)))
        real = [c for c in answering if not self.only_stubs(c, names & self.answers(c))]
        kept = real or answering

        def gives_way(cls: nodes.ClassDef) -> bool:
            mine = self.answers(cls) & names
            for other in kept:
                if other is cls:
                    continue
                theirs = self.answers(other) & names
                if self.is_ancestor(cls, other) and theirs > mine:
                    return True  # a subclass the receiver may be answers more
                if self.is_ancestor(other, cls) and theirs >= mine:
                    return True  # a base answers as many
            return False

        return sorted(
            (c for c in kept if not gives_way(c)), key=lambda c: (self.qualname(c), id(c))
        )

    def _handlers_for(
        self,
        names: set[str],
        overall: tuple[list[nodes.ClassDef], float] | None,
        excluded: set[int],
    ) -> tuple[list[nodes.ClassDef] | None, list[nodes.ClassDef]]:
        """The one handler class for a caller sending *names*, or the tied candidates."""
        own = self.best_handlers(names, excluded)
        if overall is not None and len(overall[0]) == 1:
            share = len(self._answered_by(overall[0], names)) / len(names)
            if own is None or share >= own[1]:
                return overall[0], []
        if own is not None:
            return (own[0], []) if len(own[0]) == 1 else (None, own[0])
        if overall is not None and len(overall[0]) > 1:
            return None, overall[0]
        return None, []

    def _answered_by(self, classes: list[nodes.ClassDef], names: set[str]) -> set[str]:
        return {n for n in names if any(n in self.answers(c) for c in classes)}

    # -- registry and base handlers -------------------------------------------

    def registry(self, names: set[str], handlers: list[nodes.ClassDef]) -> Choice | None:
        """The module-level constant the code uses as the surface's registry (see
        :meth:`.Registries.choice`), among the names sent that the handlers answer."""
        return self.registries.choice(self._answered_by(handlers, names))

    def base_handlers(
        self, handlers: list[nodes.ClassDef], names: set[str], proven: Found
    ) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        """The nearest common project base of the handlers that answers some sent names
        with real code, when the receive side reaches it too (the object may be one);
        otherwise it is only listed."""
        orders = [self.index.linearize(h)[0][1:] for h in handlers]
        common = [c for c in orders[0] if all(any(c is o for o in order) for order in orders[1:])]
        for base in common:
            if not any(base is c for c in self.classes):
                continue
            own = self.answers(base) & names
            if not own or self.only_stubs(base, set(own)):
                continue
            if id(base) not in proven:
                return (), (
                    f"{self.qualname(base)} answers {len(own)} of the names sent "
                    f"({self.where(base)}), but no code binds the receiving object to it",
                )
            return (
                (
                    self.qualname(base),
                    f"{proven[id(base)][1]}; the handlers' base, answering {len(own)} of "
                    "the names sent",
                ),
            ), ()
        return (), ()

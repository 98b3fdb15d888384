"""The discovery itself: senders confirmed by their call sites, handlers, callers,
registries and base handlers, grouped into surfaces."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from astroid import bases, nodes

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.discovery.keys import DispatchKeys
from pylint_rpcsurface.analysis.discovery.reading import (
    MIN_NAMES,
    MOSTLY,
    SEND_CALLS,
    Choice,
    DispatchProposal,
    Group,
    Proposal,
    Sender,
    Site,
    SurfaceProposal,
    Worker,
    at_module_level,
    call_name,
    called_lookup,
    count,
    is_getattr,
    is_method,
    is_stub,
    names_in,
    own_nodes,
    positional_params,
    tainted_names,
    where,
)
from pylint_rpcsurface.analysis.discovery.workers import WorkerSide
from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS
from pylint_rpcsurface.analysis.registry import read_registry


class Discovery(WorkerSide, DispatchKeys):  # pylint: disable=too-many-instance-attributes
    def __init__(self, project: Path, modules: list[nodes.Module], index: ClassIndex) -> None:
        self.project = project
        self.modules = modules
        self.index = index
        self.functions: list[nodes.FunctionDef] = []
        self.classes: list[nodes.ClassDef] = []
        self.calls: dict[str, list[nodes.Call]] = defaultdict(list)
        self.notes: list[str] = []
        for module in modules:
            for node in module.nodes_of_class((nodes.FunctionDef, nodes.ClassDef, nodes.Call)):
                if isinstance(node, nodes.Call):
                    name = call_name(node)
                    if name is not None:
                        self.calls[name].append(node)
                elif isinstance(node, nodes.ClassDef):
                    if at_module_level(node):
                        self.classes.append(node)
                elif is_method(node) or at_module_level(node):
                    self.functions.append(node)
        self._answers: dict[int, frozenset[str]] = {}

    def where(self, node: nodes.NodeNG) -> str:
        return where(node, self.project)

    # -- helpers shaped like run_method(obj, name, ...) ----------------------

    def run_method_helpers(self) -> dict[str, tuple[nodes.FunctionDef, str, nodes.Call]]:
        """name -> (function, its name parameter, the getattr) for each helper whose
        parameter is looked up with getattr and the result called."""
        found: dict[str, tuple[nodes.FunctionDef, str, nodes.Call]] = {}
        for function in self.functions:
            for param in positional_params(function):
                lookup = called_lookup(function, {param})
                if lookup is not None:
                    found.setdefault(function.name, (function, param, lookup))
                    break
        return found

    # -- senders ------------------------------------------------------------

    def _on_self(self, sender: Sender) -> bool:
        lookup = called_lookup(sender.function, tainted_names(sender.function, {sender.param}))
        return (
            lookup is not None
            and isinstance(lookup.args[0], nodes.Name)
            and lookup.args[0].name == "self"
        )

    def senders(self, helpers: dict[str, object]) -> list[Sender]:
        found: dict[tuple[int, str], Sender] = {}
        names: set[str] = set()
        for _ in range(6):
            before = len(found)
            for function in self.functions:
                for position, param in enumerate(positional_params(function)):
                    if (id(function), param) in found:
                        continue
                    reach = self._reach(function, param, helpers, names)
                    if reach is not None:
                        found[(id(function), param)] = Sender(
                            function, param, position, reach[0], reach[1]
                        )
            names = {sender.function.name for sender in found.values()}
            if len(found) == before:
                break
        return list(found.values())

    def _reach(
        self,
        function: nodes.FunctionDef,
        param: str,
        helpers: dict[str, object],
        senders: set[str],
    ) -> tuple[str, bool] | None:
        tainted = tainted_names(function, {param})
        forward: str | None = None
        for call in own_nodes(function, nodes.Call):
            assert isinstance(call, nodes.Call)
            carried = [*call.args, *(k.value for k in call.keywords or ())]
            if not any(names_in(arg) & tainted for arg in carried):
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
            if name in senders and forward is None:
                forward = f"{self.where(call)}: {param} is forwarded to {name}()"
        if forward is not None:
            return forward, True
        lookup = called_lookup(function, tainted)
        if lookup is not None:
            return f"{self.where(lookup)}: {param} is looked up with getattr and called", False
        return None

    def groups(self, senders: list[Sender]) -> list[Group]:
        by_key: dict[tuple[str, str, int, str], list[Sender]] = defaultdict(list)
        for sender in senders:
            called_as = "method" if is_method(sender.function) else "function"
            by_key[(sender.function.name, called_as, sender.index, sender.param)].append(sender)
        groups = []
        for (method, called_as, index, param), members in by_key.items():
            group = Group(method, called_as, index, param, members)
            group.sites = self.literal_sites(group)
            groups.append(group)
        return groups

    def literal_sites(self, group: Group) -> list[Site]:
        sites = []
        for call in self.calls.get(group.method, []):
            if group.called_as == "method" and not isinstance(call.func, nodes.Attribute):
                continue
            if group.called_as == "function" and not isinstance(call.func, nodes.Name):
                continue
            node: nodes.NodeNG | None = None
            keyword = False
            if len(call.args) > group.index and not any(
                isinstance(a, nodes.Starred) for a in call.args[: group.index + 1]
            ):
                node = call.args[group.index]
            else:
                for passed in call.keywords or ():
                    if passed.arg == group.param:
                        node, keyword = passed.value, True
            if isinstance(node, nodes.Const) and isinstance(node.value, str):
                sites.append(Site(call, node.value, keyword, self.owner(call)))
        return sites

    def owner(self, node: nodes.NodeNG) -> nodes.ClassDef | nodes.FunctionDef | None:
        """The top-level class whose method holds *node*, or the module-level function."""
        found: nodes.ClassDef | nodes.FunctionDef | None = None
        scope = node.scope()
        while not isinstance(scope, nodes.Module) and scope.parent is not None:
            if isinstance(scope, (nodes.ClassDef, nodes.FunctionDef)) and at_module_level(scope):
                found = scope
            scope = scope.parent.scope()
        return found

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

        workers = self.workers(helpers)
        dispatch: list[DispatchProposal] = []
        confirmed: list[Group] = []
        handlers: list[nodes.ClassDef] = []
        pending = []
        for group in sorted(groups, key=lambda g: (g.method, g.index)):
            names = {site.name for site in group.sites}
            best = self.best_handlers(names, excluded_by([group]))
            if len(names) < MIN_NAMES or best is None:
                pending.append(group)
                continue
            confirmed.append(group)
            handlers.extend(best[0])
        for group in pending:
            # One literal name is no evidence alone, but a name the confirmed handlers
            # answer is: call_func_with_aggregation("receive_kv_cache") beside call_func.
            names = {site.name for site in group.sites}
            if handlers and names <= self._answered_by(handlers, names):
                confirmed.append(group)
                continue
            where = self.where(group.senders[0].function)
            self.notes.append(
                f"{where}: {group.method}() sends its parameter {group.param!r}, but the "
                f"literal names at its {count(len(group.sites), 'call site')} are not mostly the "
                "methods of one class: not a dispatch"
            )
        methods = [g.method for g in confirmed]
        for group in sorted(confirmed, key=lambda g: g.method):
            if methods.count(group.method) > 1:
                self.notes.append(
                    f"{self.where(group.senders[0].function)}: {group.method}() takes the "
                    "name at different positions in different definitions: not written"
                )
                continue
            dispatch.append(self.dispatch_proposal(group, workers))
        confirmed = [g for g in confirmed if methods.count(g.method) == 1]
        surfaces = self.surfaces(confirmed, excluded_by(confirmed), workers)
        return Proposal(tuple(dispatch), tuple(surfaces), tuple(self.notes))

    # -- handlers -------------------------------------------------------------

    def best_handlers(
        self, names: set[str], excluded: set[int]
    ) -> tuple[list[nodes.ClassDef], float] | None:
        """The classes answering most of *names*, reduced to the most general ones."""
        scored: list[tuple[float, nodes.ClassDef]] = []
        for cls in self.classes:
            if id(cls) in excluded:
                continue
            share = len(self.answers(cls) & names) / len(names) if names else 0.0
            if share > MOSTLY or (share == MOSTLY and len(names) > 1):
                scored.append((share, cls))
        if not scored:
            return None
        top = max(share for share, _ in scored)
        tied = [cls for share, cls in scored if share == top]
        # A subclass answering no more of the names than its base adds nothing here.
        general = [c for c in tied if not any(self.is_ancestor(o, c) for o in tied if o is not c)]
        real = [c for c in general if not self.only_stubs(c, names & self.answers(c))]
        return (real or general), top

    # -- surfaces ------------------------------------------------------------

    def surfaces(  # noqa: PLR0915
        self, groups: list[Group], excluded: set[int], workers: list[Worker]
    ) -> list[SurfaceProposal]:
        held = self._held(workers)
        sites = [site for group in groups for site in group.sites if site.owner is not None]
        owners: dict[int, nodes.ClassDef | nodes.FunctionDef] = {}
        for site in sites:
            assert site.owner is not None
            owners[id(site.owner)] = site.owner
        classes = [o for o in owners.values() if isinstance(o, nodes.ClassDef)]
        roots: dict[int, nodes.ClassDef | nodes.FunctionDef] = {}
        root_of: dict[int, int] = {}
        for owner in owners.values():
            if isinstance(owner, nodes.ClassDef):
                ancestors = [c for c in classes if c is not owner and self.is_ancestor(c, owner)]
                if ancestors:
                    top = next(
                        c for c in ancestors if not any(self.is_ancestor(a, c) for a in ancestors)
                    )
                    root_of[id(owner)] = id(top)
                    continue
            roots[id(owner)] = owner
            root_of[id(owner)] = id(owner)
        names_of: dict[int, set[str]] = defaultdict(set)
        first_site: dict[int, Site] = {}
        for site in sites:
            assert site.owner is not None
            root = root_of[id(site.owner)]
            names_of[root].add(site.name)
            first_site.setdefault(root, site)
        all_names = {site.name for site in sites}
        overall = self.best_handlers(all_names, excluded)
        plans: dict[tuple[int, ...], list[int]] = defaultdict(list)
        refused: list[SurfaceProposal] = []
        for key, names in names_of.items():
            chosen, tie = self._handlers_for(names, overall, excluded)
            if chosen is None and tie:
                chosen, tie = self._held_by_linked(roots[key], tie, workers, held)
            if chosen is None:
                caller = self.qualname(roots[key])
                if not tie:
                    self.notes.append(
                        f"{self.where(roots[key])}: no class answers most of the names "
                        f"{caller} sends: left out"
                    )
                    continue
                refused.append(
                    SurfaceProposal(
                        name=roots[key].name,
                        callers=((caller, self.where(roots[key])),),
                        handlers=(),
                        refused=f"the names {caller} sends are answered as much by each of "
                        "these classes, and nothing says which the workers hold",
                        candidates=tuple(f"{self.qualname(c)} ({self.where(c)})" for c in tie),
                    )
                )
                continue
            plans[tuple(sorted(id(c) for c in chosen))].append(key)
        proposals: list[SurfaceProposal] = list(refused)
        used: set[str] = set()
        by_id = {id(c): c for c in self.classes}
        for handler_ids, keys in plans.items():
            handlers = [by_id[i] for i in handler_ids]
            names = set().union(*(names_of[k] for k in keys))
            callers = tuple(
                sorted(
                    (
                        self.qualname(roots[k]),
                        f"{self.where(first_site[k].call)}: sends {first_site[k].name!r}",
                    )
                    for k in keys
                )
            )
            handler_entries = tuple(
                (
                    self.qualname(h),
                    f"{self.where(h)}: answers {len(self.answers(h) & names)} of the "
                    f"{len(names)} names sent",
                )
                for h in handlers
            )
            registry = self.registry(names, handlers)
            base: tuple[tuple[str, str], ...] = ()
            if registry is not None and registry.value is not None:
                base = self.base_handlers(handlers, names, registry)
            name = handlers[0].name
            while name in used:
                name += "-2"
            used.add(name)
            proposals.append(SurfaceProposal(name, callers, handler_entries, base, registry))
        return proposals

    def _held_by_linked(
        self,
        caller: nodes.ClassDef | nodes.FunctionDef,
        tie: list[nodes.ClassDef],
        workers: list[Worker],
        held: set[int],
    ) -> tuple[list[nodes.ClassDef] | None, list[nodes.ClassDef]]:
        """Tied handlers, settled by the worker loops: those of the loops *caller* starts
        (its code names the loop's function), else all of them if the loops hold each."""
        tops = {id(w.top): w for w in workers if w.top is not None}
        started: list[Worker] = []
        for name in caller.nodes_of_class(nodes.Name):
            try:
                _, bindings = name.lookup(name.name)
            except (*INFERENCE_ERRORS, AttributeError, KeyError):
                continue
            started.extend(tops[id(b)] for b in bindings if id(b) in tops)
        linked = self._held(started)
        mine = [c for c in tie if id(c) in linked]
        if mine:
            return mine, []
        if all(id(c) in held for c in tie):
            return tie, []
        return None, tie

    @staticmethod
    def _held(workers: list[Worker]) -> set[int]:
        """The classes the worker loops' objects infer to (``srv = Impl(...)``)."""
        held: set[int] = set()
        for worker in workers:
            if worker.obj is None:
                continue
            try:
                values = list(worker.obj.infer())
            except INFERENCE_ERRORS:
                continue
            for value in values:
                if isinstance(value, bases.Instance):
                    held.add(id(value._proxied))  # pylint: disable=protected-access
        return held

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
        answered = self._answered_by(handlers, names)
        found: list[tuple[str, str, int]] = []
        for module in self.modules:
            for attribute, bindings in module.locals.items():
                if attribute.startswith("__") or len(bindings) != 1:
                    continue
                binding = bindings[0]
                if not (
                    isinstance(binding, nodes.AssignName)
                    and isinstance(binding.parent, (nodes.Assign, nodes.AnnAssign))
                ):
                    continue
                value = binding.parent.value
                if not isinstance(
                    value, (nodes.Tuple, nodes.List, nodes.Set, nodes.Dict, nodes.Call)
                ):
                    continue
                modname = self.index.store.tree.module_name(module.file or "") or module.name
                dotted = f"{modname}.{attribute}"
                read = read_registry(module, attribute, dotted)
                if read.problem is not None:
                    continue
                elements = [e.value for e in read.elements]
                if len(elements) < MIN_NAMES or any(e is None for e in elements):
                    continue
                hits = sum(1 for e in elements if e in answered)
                if hits / len(elements) > MOSTLY:
                    found.append((dotted, self.where(binding), hits))
        if not found:
            return None
        if len(found) > 1:
            return Choice(
                "registry",
                None,
                "",
                tuple(f"{dotted} ({where}: {hits} RPC names)" for dotted, where, hits in found),
            )
        dotted, where, hits = found[0]
        return Choice("registry", dotted, f"{where}: {hits} of its elements are sent RPC names")

    def base_handlers(
        self, handlers: list[nodes.ClassDef], names: set[str], registry: Choice
    ) -> tuple[tuple[str, str], ...]:
        """The nearest common project base of the handlers that answers some sent names
        with real code and none of the registry's."""
        del registry
        listed = set()
        for module in self.modules:
            del module
        orders = [self.index.linearize(h)[0][1:] for h in handlers]
        common = [c for c in orders[0] if all(any(c is o for o in order) for order in orders[1:])]
        for base in common:
            if not any(base is c for c in self.classes):
                continue
            own = self.answers(base) & names
            if not own or self.only_stubs(base, set(own)):
                continue
            listed.add(id(base))
            return (
                (
                    self.qualname(base),
                    f"{self.where(base)}: the handlers' base, answering {len(own)} of the "
                    "names sent",
                ),
            )
        return ()

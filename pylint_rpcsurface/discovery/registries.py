"""The registry ``init`` proposes for a surface: the module-level constant whose elements
are mostly names sent that the handlers answer, and that the code uses as a registry (it
tests a name for membership in it, or iterates it). A constant that only shares the names
is listed, not written."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

from astroid import nodes

from pylint_rpcsurface.analysis.helper_calls import made_by_python_itself
from pylint_rpcsurface.analysis.lean_build import replacements
from pylint_rpcsurface.analysis.registry import read_registry
from pylint_rpcsurface.analysis.syntax import first_changes_in_place
from pylint_rpcsurface.discovery.reading import (
    MIN_NAMES,
    MOSTLY,
    Choice,
    DispatchProposal,
    SurfaceProposal,
)
from pylint_rpcsurface.model import Registry
from pylint_rpcsurface.sources import SourceTree


class Registries:
    """The module-level constants of *modules* that may be a registry, and the uses that
    make one a registry: names *module_name* gives the module, places *where* shows."""

    def __init__(
        self,
        modules: list[nodes.Module],
        module_name: Callable[[nodes.Module], str],
        where: Callable[[nodes.NodeNG], str],
        tree: SourceTree,
    ) -> None:
        self.modules = modules
        self.module_name = module_name
        self.where = where
        self.tree = tree
        # Where a module-level name is tested for membership or iterated: the uses that
        # make a constant a registry (sharing names with the surface does not).
        self.uses: dict[str, list[tuple[nodes.NodeNG, str]]] = defaultdict(list)
        # Each constant read once (by its module's id and name; None: made by Python
        # itself, not read): every surface asks of every constant, and reading one infers
        # what the syntax does not show.
        self._read: dict[tuple[int, str], Registry | None] = {}
        # Each module's in-place changes by name, walked once for all its constants, while
        # no transform has put a node in place of one of its tree.
        self._changes: dict[int, tuple[int, dict[str, nodes.NodeNG]]] = {}

    def note_use(self, node: nodes.Compare | nodes.For) -> None:
        """Keeps *node* if it tests a name for membership in a constant or iterates one."""
        if isinstance(node, nodes.For):
            used, kind = node.iter, "iterated"
        else:
            op, used = node.ops[0]
            if op not in ("in", "not in"):
                return
            kind = "tested for membership"
        name = used.name if isinstance(used, nodes.Name) else None
        if isinstance(used, nodes.Attribute):
            name = used.attrname
        if name is not None:
            self.uses[name].append((node, kind))

    def choice(self, answered: set[str]) -> Choice | None:
        """The registry key for a surface whose handlers answer the names sent *answered*:
        the one constant used as a registry, else the candidates, else None."""
        found: list[tuple[str, str, int, str]] = []
        for module in self.modules:
            # A copy: reading a registry infers, and the lean build may add to the
            # module's locals as it transforms a node it meets for the first time.
            for attribute, bindings in list(module.locals.items()):
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
                dotted = f"{self.module_name(module)}.{attribute}"
                key = (id(module), attribute)
                if key not in self._read:
                    self._read[key] = (
                        None
                        if self._made_without_the_project(value)
                        else read_registry(module, attribute, dotted, self._changes_of(module))
                    )
                read = self._read[key]
                if read is None or read.problem is not None:
                    continue
                elements = [e.value for e in read.elements]
                if len(elements) < MIN_NAMES or any(e is None for e in elements):
                    continue
                hits = sum(1 for e in elements if e in answered)
                if hits / len(elements) > MOSTLY:
                    found.append(
                        (
                            dotted,
                            self.where(binding),
                            hits,
                            self._used_as_registry(attribute, binding),
                        )
                    )
        if not found:
            return None
        used = [entry for entry in found if entry[3]]
        if not used:
            return Choice(
                "registry",
                None,
                "",
                tuple(
                    f"{dotted} ({at}: {hits} of its elements are sent RPC names)"
                    for dotted, at, hits, _ in found
                ),
                why="candidates by overlap only (not written): no code tests a name for "
                "membership in it or iterates it",
            )
        if len(used) > 1:
            return Choice(
                "registry",
                None,
                "",
                tuple(f"{dotted} ({at}: {hits} RPC names)" for dotted, at, hits, _ in used),
            )
        dotted, at, hits, use = used[0]
        return Choice("registry", dotted, f"{use}; {at}: {hits} of its elements are sent RPC names")

    def _changes_of(self, module: nodes.Module) -> dict[str, nodes.NodeNG]:
        """*module*'s in-place changes by name (:func:`first_changes_in_place`), walked
        again only where a transform has since replaced a node of its tree."""
        mark = replacements(module)
        held = self._changes.get(id(module))
        if held is None or held[0] != mark:
            held = self._changes[id(module)] = (mark, first_changes_in_place(module))
        return held[1]

    def _made_without_the_project(self, value: nodes.NodeNG) -> bool:
        """Whether *value* is a call that gives only what the standard library or a
        builtin makes of nothing of the project's (``logger = init_logger(__name__)``,
        whose function returns ``logging.getLogger(name)``; ``lock = threading.Lock()``):
        it lists no name the project sends, whatever astroid infers it to, so it is no
        registry and is not read. Reading one infers what the syntax does not show, the
        standard library's modules built for it: vLLM 0.11.2 has 824 such loggers."""
        return isinstance(value, nodes.Call) and made_by_python_itself(value, self.tree)

    def _used_as_registry(self, attribute: str, binding: nodes.AssignName) -> str:
        """Where the code tests a name for membership in the constant or iterates it
        (``name in RPCS``, ``for name in RPCS``), or ``""``."""
        for node, kind in self.uses.get(attribute, []):
            if node.parent is binding.parent:
                continue
            return f"{self.where(node)}: {kind}"
        return ""


def registry_of_known_waits(
    surface: SurfaceProposal, dispatch: list[DispatchProposal]
) -> SurfaceProposal:
    """*surface*, its registry left a candidate where a dispatch method it judges has no
    ``waits`` written: the checker reads such calls as never waited, so every name the
    registry lists would be ``rpc-listed-unwaited`` (no caller waits on it), a finding
    of a default, not of the code."""
    registry = surface.registry
    if registry is None or registry.value is None:
        return surface
    judged = set(surface.dispatch) or {d.method for d in dispatch}
    unknown = sorted(
        d.method
        for d in dispatch
        if d.method in judged
        and all(c.value is None for c in d.keys if c.key in ("waits", "waits-unless"))
    )
    if not unknown:
        return surface
    calls = ", ".join(f"{method}()" for method in unknown)
    return replace(
        surface,
        registry=Choice(
            "registry",
            None,
            "",
            (f"{registry.value} ({registry.evidence})",),
            why=f"whether the calls of {calls} wait is not known (waits not written): read "
            "as never waited, every name it lists would be rpc-listed-unwaited",
        ),
    )

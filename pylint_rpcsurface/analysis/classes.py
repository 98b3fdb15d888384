"""Classes by fully qualified name: resolving configured names (a caller may also be a
module-level function), MRO, answered names."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeGuard

from astroid import nodes
from astroid.typing import InferenceResult

from pylint_rpcsurface.analysis.branches import live_bindings
from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, infer_unique, name_bindings
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.analysis.reads import ReadRecorder, Reads
from pylint_rpcsurface.model import Answers

_OBJECT = "builtins.object"
_NO_READS = Reads()


class ClassIndex:
    """Fully qualified names of classes, derived from file paths under the source roots."""

    def __init__(self, store: ModuleStore, reads: ReadRecorder | None = None) -> None:
        self.store = store
        self.reads = reads if reads is not None else ReadRecorder(store.project_key, active=False)
        # Keyed by id(): the store keeps every module, so the classes outlive the index.
        self._names: dict[int, str] = {}
        self._orders: dict[int, tuple[list[nodes.ClassDef], bool]] = {}
        # What inferring each class's direct bases read: an order reused reads them all.
        self._base_reads: dict[int, Reads] = {}
        self._open: set[int] = set()  # classes with a starred base that does not infer

    def linearize(self, cls: nodes.ClassDef) -> tuple[list[nodes.ClassDef], bool]:
        """*cls* and its ancestors in method resolution order, ``object`` left out, and
        whether every base on the way resolved to one class.

        Computed once per class from its bases' orders: astroid's ``mro()`` recomputes the
        whole chain for every class, quadratic in its depth. When no C3 order exists
        (inconsistent or cyclic bases) the depth-first order is used instead: such a
        class fails at import and pylint reports it, but the plugin must not crash.
        """
        # Iterative, bases before the classes that derive from them: a chain of a
        # thousand classes must not exhaust Python's recursion limit.
        stack = [cls]
        on_stack: set[int] = set()
        while stack:
            klass = stack[-1]
            key = id(klass)
            if key in self._orders:
                stack.pop()
                continue
            on_stack.add(key)
            with self.reads.span() as reads:
                bases, resolved = self._direct_bases(klass)
            self._base_reads[key] = reads
            waiting = [b for b in bases if id(b) not in self._orders and id(b) not in on_stack]
            if waiting:
                stack.extend(waiting)
                continue
            self._orders[key] = self._merge(klass, bases, resolved)
            on_stack.discard(key)
            stack.pop()
        order = self._orders[id(cls)]
        if self.reads.recording:
            for klass in order[0]:
                self.reads.replay(self._base_reads.get(id(klass), _NO_READS))
        return order

    def _direct_bases(self, cls: nodes.ClassDef) -> tuple[list[nodes.ClassDef], bool]:
        bases: list[nodes.ClassDef] = []
        resolved = True
        for expression in _base_expressions(cls):
            if isinstance(expression, nodes.Starred):
                self._open.add(id(cls))  # *BASES that does not infer: any classes at all
                resolved = False
                continue
            base = infer_unique(expression)
            if base is None and isinstance(expression, nodes.Name):
                base = _live_class_named(expression)
            if not isinstance(base, nodes.ClassDef):
                resolved = False  # a base we know nothing about
            elif base.qname() != _OBJECT and all(base is not b for b in bases):
                bases.append(base)
        return bases, resolved

    def may_derive_from_anything(self, cls: nodes.ClassDef) -> bool:
        """Whether *cls*, or a class in its order, has a starred base (``*BASES``) whose
        classes do not infer: such a class may derive from any class, a caller too."""
        order, _ = self.linearize(cls)
        return any(id(klass) in self._open for klass in order)

    def _merge(
        self, cls: nodes.ClassDef, bases: list[nodes.ClassDef], resolved: bool
    ) -> tuple[list[nodes.ClassDef], bool]:
        # A base with no order yet is still being computed: the bases form a cycle.
        orders = [self._orders.get(id(base), ([base], False)) for base in bases]
        complete = resolved and all(done for _, done in orders)
        merged = _c3_merge([order for order, _ in orders] + [bases])
        if merged is None:
            merged = []
            for order, _ in orders:
                merged.extend(c for c in order if all(c is not m for m in merged))
        return [cls, *(c for c in merged if c is not cls)], complete

    def qualname(self, cls: nodes.ClassDef | nodes.FunctionDef) -> str:
        key = id(cls)
        if key not in self._names:
            self._names[key] = self._qualname(cls)
        return self._names[key]

    def _qualname(self, cls: nodes.ClassDef | nodes.FunctionDef) -> str:
        module = cls.root()
        local = cls.qname()
        modname = getattr(module, "name", "")
        if modname and local.startswith(modname + "."):
            local = local[len(modname) + 1 :]
        path = getattr(module, "file", None)
        derived = self.store.tree.module_name(path) if path else None
        # Outside the roots (the standard library, installed packages) astroid's own
        # module name is right; inside, only the path-derived one is.
        return f"{derived or modname}.{local}" if (derived or modname) else local

    def resolve(self, dotted: str) -> nodes.ClassDef | str:
        """The class *dotted* names, or the reason it does not resolve."""
        value = self._resolve(dotted, functions=False)
        if isinstance(value, (nodes.ClassDef, str)):
            return value
        return f"'{dotted}' is a module, not a class"

    def resolve_caller(self, dotted: str) -> nodes.ClassDef | nodes.FunctionDef | str:
        """The class or module-level function *dotted* names, or the reason it does not
        resolve (a caller may be either)."""
        value = self._resolve(dotted, functions=True)
        if isinstance(value, (nodes.ClassDef, nodes.FunctionDef, str)):
            return value
        return f"'{dotted}' is a module, not a class or a module-level function"

    def _resolve(self, dotted: str, functions: bool) -> nodes.NodeNG | str:
        found = self._module_prefix(dotted)
        if isinstance(found, str):
            return found
        value: nodes.NodeNG = found[0]
        rest = found[1]
        parts = dotted.split(".")
        wanted = "one class or module-level function" if functions else "one class"
        for depth, name in enumerate(rest):
            attribute = self._attribute(value, name, functions and depth == len(rest) - 1)
            if isinstance(attribute, str):
                owner = ".".join(parts[: len(parts) - len(rest) + depth])
                if attribute == "no attribute":
                    return f"'{owner}' has no attribute '{name}' that infers to {wanted}"
                return f"'{owner}.{name}' has {attribute}"
            value = attribute
        return value

    def resolve_module_attribute(self, dotted: str) -> tuple[nodes.Module, str] | str:
        """The module and attribute name of a module-level constant, or the reason not."""
        modname, _, attribute = dotted.rpartition(".")
        module = self.store.module_by_name(modname)
        if module is None:
            failure = self._failure_of(modname)
            return failure or f"module '{modname}' is not found under the source roots"
        if module.file is None or not module.file.endswith((".py", ".pyi")):
            return f"'{modname}' is a namespace package, not a module"
        return module, attribute

    def _module_prefix(self, dotted: str) -> tuple[nodes.Module, list[str]] | str:
        """The longest importable prefix of *dotted* and the attribute names after it."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            modname = ".".join(parts[:cut])
            if not self.store.tree.locate(modname):
                continue
            module = self.store.module_by_name(modname)
            if module is None:
                return self._failure_of(modname) or f"module '{modname}' can't be read"
            return module, parts[cut:]
        return f"no module of '{dotted}' is found under the source roots"

    def _failure_of(self, modname: str) -> str | None:
        located = self.store.tree.locate(modname)
        if len(located) != 1:
            return None
        failure = self.store.failure(located[0])
        if failure is None:
            return None
        line = f":{failure.line}" if failure.line else ""
        return f"{failure.path}{line}: {failure.reason}"

    @staticmethod
    def _attribute(scope: nodes.NodeNG, name: str, functions: bool) -> nodes.NodeNG | str:
        """The one class or module *scope* binds *name* to where that binding can run (or,
        with *functions*, the one module-level function), or the reason there is none."""
        if not isinstance(scope, (nodes.Module, nodes.ClassDef)):
            return "no attribute"
        try:
            bindings = scope.getattr(name)
        except INFERENCE_ERRORS:
            return "no attribute"
        if not all(isinstance(binding, nodes.NodeNG) for binding in bindings):
            return "no attribute"
        return one_live_class(live_bindings(bindings), functions)


def _base_expressions(cls: nodes.ClassDef) -> list[nodes.NodeNG]:
    """*cls*'s base expressions, a starred one (``class C(*BASES)``) replaced by the
    elements of the one tuple or list it infers to; left starred when it does not."""
    found: list[nodes.NodeNG] = []
    for expression in cls.bases:
        if not isinstance(expression, nodes.NodeNG):
            continue
        if not isinstance(expression, nodes.Starred):
            found.append(expression)
            continue
        value = infer_unique(expression.value)
        elements = value.elts if isinstance(value, (nodes.Tuple, nodes.List)) else None
        if elements is not None and all(
            isinstance(e, nodes.NodeNG) and not isinstance(e, nodes.Starred) for e in elements
        ):
            found.extend(e for e in elements if isinstance(e, nodes.NodeNG))
        else:
            found.append(expression)  # unknown: it may hold any class
    return found


def _live_class_named(name: nodes.Name) -> nodes.NodeNG | None:
    """The one class *name* is bound to by the bindings that can run, or None."""
    looked_up = name_bindings(name)
    if looked_up is None:
        return None
    found = one_live_class(live_bindings(looked_up[1]))
    return found if isinstance(found, nodes.ClassDef) else None


def one_live_class(bindings: list[nodes.NodeNG], functions: bool = False) -> nodes.NodeNG | str:
    """The one class or module the live *bindings* of a name give it, or why not; with
    *functions*, a module-level function counts too (a caller may be one).

    A binding to None (``except ImportError: Worker = None``) is left out: a worker class
    that is None answers nothing and a class deriving from it can't be created. Bindings
    in other branches that give different classes are refused, not picked from.
    """
    found: list[nodes.NodeNG] = []
    for binding in bindings:
        value = (
            binding
            if isinstance(binding, (nodes.ClassDef, nodes.Module, nodes.FunctionDef))
            else infer_unique(binding)
        )
        if isinstance(value, nodes.Const) and value.value is None:
            continue
        if not (
            isinstance(value, (nodes.ClassDef, nodes.Module))
            or (functions and _is_module_function(value))
        ):
            return "no attribute"
        if all(value is not other for other in found):
            found.append(value)
    if not found:
        return "no attribute"
    if len(found) > 1:
        lines = " and ".join(str(value.lineno or "?") for value in found)
        return f"several definitions (lines {lines}) that can run: which one does is not known"
    return found[0]


def _is_module_function(value: object) -> TypeGuard[nodes.FunctionDef]:
    """A function whose scope is a module: at its top level, or in an if/try block there."""
    return (
        isinstance(value, nodes.FunctionDef)
        and value.parent is not None
        and isinstance(value.parent.scope(), nodes.Module)
    )


def _c3_merge(sequences: list[list[nodes.ClassDef]]) -> list[nodes.ClassDef] | None:
    """Python's C3 merge, or None when no consistent order exists."""
    pending = [list(seq) for seq in sequences if seq]
    merged: list[nodes.ClassDef] = []
    while pending:
        for seq in pending:
            head = seq[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            return None
        merged.append(head)
        pending = [rest for rest in ([c for c in seq if c is not head] for seq in pending) if rest]
    return merged


def effective_bindings(
    order: Sequence[nodes.ClassDef],
) -> Iterator[tuple[str, list[InferenceResult]]]:
    """Each name a class of *order* (an MRO) binds, with its bindings in the first class
    that binds it: the definition an instance of the first class gets."""
    seen: set[str] = set()
    for klass in order:
        for name, bindings in klass.locals.items():
            if name not in seen:
                seen.add(name)
                yield name, bindings


def binds_at_class_level(binding: object) -> bool:
    """Whether a class-body binding gives the class an attribute at runtime.

    ``x: int`` without a value annotates but binds nothing, so getattr finds nothing.
    """
    if not isinstance(binding, nodes.NodeNG):
        return False
    parent = binding.parent
    return not (
        isinstance(binding, nodes.AssignName)
        and isinstance(parent, nodes.AnnAssign)
        and parent.value is None
    )


def answered_names(classes: list[nodes.ClassDef], index: ClassIndex) -> Answers:
    """The names any of *classes*, or their ancestors other than object, bind."""
    names: set[str] = set()
    by_class: list[tuple[str, frozenset[str]]] = []
    complete = True
    for cls in classes:
        order, resolved = index.linearize(cls)
        if not resolved:
            complete = False
        own = {
            name
            for klass in order
            for name, bindings in klass.locals.items()
            if any(binds_at_class_level(b) for b in bindings)
        }
        by_class.append((index.qualname(cls), frozenset(own)))
        names |= own
    return Answers(
        classes=tuple(index.qualname(c) for c in classes),
        names=frozenset(names),
        complete=complete,
        by_class=tuple(by_class),
    )

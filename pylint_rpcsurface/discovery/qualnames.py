"""Classes named by strings: ``resolve_obj_by_qualname(config.runner_qualname)``, or
``getattr(importlib.import_module(module), name)``.

Such a call returns one of the project's classes only when every value the project
assigns or passes to its argument is a string literal naming one: a closed set, listed
with where each is assigned. One value that is not a literal (read from a file, built
at run time, an f-string), or a literal naming no class of the project, and nothing is
proven. A class supplied from outside the project (a plugin, a user's setting) is not
covered: the evidence says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from astroid import nodes

from pylint_rpcsurface.analysis.inference import INFERENCE_ERRORS, inferred_values
from pylint_rpcsurface.discovery.reading import call_name, is_getattr

# The functions that return the object a dotted string names.
RESOLVERS = frozenset({"resolve_obj_by_qualname"})
# How many steps a string's value may take (a name to its binding, an attribute to its
# assignments): the same bound as the receivers' reading.
_DEPTH = 6
# Strings: (value, file:line where it is assigned); None when the set is not closed.
Strings = list[tuple[str, str]] | None
NOT_COVERED = "a class supplied from outside the project is not covered"


class QualnameStrings:
    """The string values an expression can hold, read from the whole project: *giving*
    is every attribute assignment, class and call of its modules (as a walk of each
    module meets them), where an attribute may be given a value."""

    def __init__(
        self,
        giving: Iterable[nodes.AssignAttr | nodes.ClassDef | nodes.Call],
        classes: Iterable[nodes.ClassDef],
        qualname: Callable[[nodes.ClassDef], str],
        where: Callable[[nodes.NodeNG], str],
    ) -> None:
        self.giving = list(giving)
        self.by_qualname = {qualname(c): c for c in classes}
        self.where = where
        self._assigned: dict[str, list[nodes.NodeNG | None]] | None = None
        self._written_unread: frozenset[str] = frozenset()

    # -- entry point ------------------------------------------------------------

    def resolved(self, call: nodes.Call) -> list[tuple[nodes.ClassDef, str]]:
        """The project classes *call* returns with the evidence of each; [] when it is
        no resolver, or when what it resolves is not a closed set of their names."""
        needs_a_dot = None
        if call_name(call) in RESOLVERS and call.args:
            named = self.strings(call.args[0], _DEPTH)
            needs_a_dot = _needs_a_dot(call, self.where)
        elif is_getattr(call) and len(call.args) == 2:
            named = self._module_attribute(call.args[0], call.args[1])
        else:
            return []
        if not named:
            return []
        classes, rebound, unresolved = [], [], []
        for value, at in named:
            cls = self.by_qualname.get(value)
            if cls is not None and _rebinding(cls) is None:
                classes.append((cls, value, at))
            elif cls is not None:
                rebound.append((cls, value, at))
            elif needs_a_dot is not None and "." not in value:
                # "auto" until a platform chooses: the resolver raises on it, so no
                # object is ever made from it.
                unresolved.append(f"{value!r} ({at})")
            else:
                return []  # a literal naming no class of the project: nothing proven
        # A class whose module rebinds its name (to one from outside the project, when a
        # package is installed) can't be named as a handler: it is left out only when
        # the classes kept answer every public name it does.
        kept = {name for cls, _, _ in classes for name in _public_methods(cls)}
        if not classes or any(_public_methods(cls) - kept for cls, _, _ in rebound):
            return []
        notes = [
            f"{value!r} ({at}): {self.where(_rebinding(cls) or cls)} rebinds {cls.name}, "
            "so the string may name a class from outside the project; the classes kept "
            "answer every public name it does"
            for cls, value, at in rebound
        ]
        if unresolved:
            notes.append(f"{', '.join(unresolved)} names no class: {needs_a_dot}")
        noted = "".join(f"; {note}" for note in notes)
        return [
            (
                cls,
                f"{self.where(call)}: resolved from the string {value!r} ({at}), one of "
                f"the {len(named)} strings the project assigns it{noted} ({NOT_COVERED})",
            )
            for cls, value, at in classes
        ]

    def _module_attribute(self, module: nodes.NodeNG, name: nodes.NodeNG) -> Strings:
        """``getattr(importlib.import_module(m), n)``: the dotted names ``m.n``."""
        imported = self._imported_module(module)
        if imported is None:
            return None
        modules, names = self.strings(imported, _DEPTH), self.strings(name, _DEPTH)
        if not modules or not names:
            return None
        return [(f"{m}.{n}", f"{at_m}, {at_n}") for m, at_m in modules for n, at_n in names]

    def _imported_module(self, node: nodes.NodeNG, depth: int = _DEPTH) -> nodes.NodeNG | None:
        """The argument of the ``importlib.import_module(...)`` *node* is, or is bound to."""
        if isinstance(node, nodes.Call):
            func = node.func
            named = func.attrname if isinstance(func, nodes.Attribute) else None
            if named == "import_module" and node.args:
                return node.args[0]
            return None
        if isinstance(node, nodes.Name) and depth > 0:
            values = _assigned_values(node)
            if values is not None and len(values) == 1 and values[0] is not None:
                return self._imported_module(values[0], depth - 1)
        return None

    # -- the closed set of strings -------------------------------------------------

    def strings(
        self, node: nodes.NodeNG | None, depth: int, listing: frozenset[str] = frozenset()
    ) -> Strings:
        """Every string *node* can hold, each where it is written; None when one of its
        values is not a string literal or can't be listed. *listing*: the attributes
        whose values are being listed, which a value naming one again adds nothing to
        (``worker_cls: str = ParallelConfig.worker_cls``)."""
        if node is None or depth <= 0:
            return None
        if isinstance(node, nodes.Const):
            return [(node.value, self.where(node))] if isinstance(node.value, str) else None
        if isinstance(node, nodes.IfExp):
            return _joined([self.strings(v, depth - 1, listing) for v in (node.body, node.orelse)])
        if isinstance(node, nodes.Name):
            values = _assigned_values(node)
            if not values:
                return None
            return _joined([self.strings(v, depth - 1, listing) for v in values])
        if isinstance(node, nodes.Attribute):
            if node.attrname in listing:
                return []
            assigned = self.assigned().get(node.attrname)
            if not assigned:
                return None
            inner = listing | {node.attrname}
            return _joined([self.strings(v, depth - 1, inner) for v in assigned])
        return None

    def assigned(self) -> dict[str, list[nodes.NodeNG | None]]:
        """By attribute name, every value the project gives it: ``x.attr = v``, a class
        body's ``attr = v`` (a dataclass field's default), ``attr=v`` passed by keyword;
        None for one that can't be read (``x.attr += v``, ``setattr(x, "attr", v)``, a
        field without a default)."""
        if self._assigned is None:
            assigned: dict[str, list[nodes.NodeNG | None]] = defaultdict(list)
            unread: set[str] = set()
            for node in self.giving:
                for name, value in _gives(node):
                    assigned[name].append(value)
                    if _unread(node, value):
                        unread.add(name)
            self._assigned, self._written_unread = assigned, frozenset(unread)
        return self._assigned

    def written_unread(self, attrname: str) -> bool:
        """Whether the project gives the attribute *attrname* a value a class's own
        bindings don't show: ``x.attr = v`` on another object than ``self``, ``x.attr +=
        v``, ``setattr(x, "attr", v)``."""
        self.assigned()
        return attrname in self._written_unread


def _gives(node: nodes.NodeNG) -> list[tuple[str, nodes.NodeNG | None]]:
    """(attribute name, value) of each value *node* gives an attribute; the value None
    when it can't be read."""
    if isinstance(node, nodes.AssignAttr):
        parent = node.parent
        plain = parent if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) else None
        return [(node.attrname, plain.value if plain is not None else None)]
    if isinstance(node, nodes.ClassDef):
        return _class_body(node)
    if not isinstance(node, nodes.Call):
        return []
    given: list[tuple[str, nodes.NodeNG | None]] = [
        (k.arg, k.value) for k in node.keywords or () if k.arg is not None
    ]
    if call_name(node) == "setattr" and len(node.args) == 3:
        attr = node.args[1]
        if isinstance(attr, nodes.Const) and isinstance(attr.value, str):
            given.append((attr.value, None))
    return given


def _needs_a_dot(call: nodes.Call, where: Callable[[nodes.NodeNG], str]) -> str | None:
    """Why the resolver *call* calls raises on a string without a dot, or None: every
    definition it may call first unpacks ``qualname.rsplit(".", 1)`` (or ``split``) of its
    parameter into two names, which a string without a dot can't fill (ValueError)."""
    found: list[tuple[nodes.FunctionDef, nodes.Assign]] = []
    for value in inferred_values(call.func):
        if not isinstance(value, nodes.FunctionDef):
            return None
        split = _split_first(value)
        if split is None:
            return None
        found.append((value, split))
    if not found:
        return None
    function, first = found[0]
    return (
        f"{function.name}() ({where(first)}) unpacks "
        f"{first.value.as_string()} into two names and raises ValueError"
    )


def _split_first(function: nodes.FunctionDef) -> nodes.Assign | None:
    """*function*'s first statement when it is ``a, b = <first param>.rsplit(".", ...)``
    (or ``split``), else None."""
    params = function.argnames()
    first = function.body[0] if function.body else None
    if not (
        params
        and isinstance(first, nodes.Assign)
        and len(first.targets) == 1
        and isinstance(first.targets[0], nodes.Tuple)
        and len(first.targets[0].elts) == 2
        and isinstance(first.value, nodes.Call)
    ):
        return None
    split, args = first.value.func, first.value.args
    if (
        isinstance(split, nodes.Attribute)
        and split.attrname in ("split", "rsplit")
        and isinstance(split.expr, nodes.Name)
        and split.expr.name == params[0]
        and args
        and isinstance(args[0], nodes.Const)
        and args[0].value == "."
    ):
        return first
    return None


def _rebinding(cls: nodes.ClassDef) -> nodes.NodeNG | None:
    """Another binding of *cls*'s name in its module (``TPUWorker =
    TpuInferenceWorker`` under a test), or None when the class is all it names."""
    others = [
        b
        for b in cls.root().locals.get(cls.name, [])
        if b is not cls and isinstance(b, nodes.NodeNG)
    ]
    return others[0] if others else None


def _public_methods(cls: nodes.ClassDef) -> set[str]:
    """The public methods *cls* answers, by its MRO."""
    try:
        classes = [cls, *cls.ancestors()]
    except INFERENCE_ERRORS:
        classes = [cls]
    return {
        name
        for klass in classes
        for name, bindings in klass.locals.items()
        if not name.startswith("_") and any(isinstance(b, nodes.FunctionDef) for b in bindings)
    }


def _unread(node: nodes.NodeNG, value: nodes.NodeNG | None) -> bool:
    """Whether *node* gives an attribute a value its class's own bindings don't show:
    an assignment to another object than ``self`` or not a plain one, ``setattr``."""
    if isinstance(node, nodes.AssignAttr):
        on_self = isinstance(node.expr, nodes.Name) and node.expr.name == "self"
        return value is None or not on_self
    return isinstance(node, nodes.Call) and value is None


def _joined(parts: list[Strings]) -> Strings:
    """The strings of every part; None when one part can't be listed."""
    joined: list[tuple[str, str]] = []
    for part in parts:
        if part is None:
            return None
        joined.extend(p for p in part if p not in joined)
    return joined


def _assigned_values(name: nodes.Name) -> list[nodes.NodeNG | None] | None:
    """The values a local or module-level *name* is assigned; None when one of its
    bindings is not a plain assignment (a parameter, a loop, an import)."""
    try:
        _, bindings = name.lookup(name.name)
    except (*INFERENCE_ERRORS, AttributeError, KeyError):
        return None
    values: list[nodes.NodeNG | None] = []
    for binding in bindings:
        parent = binding.parent
        if not isinstance(binding, nodes.AssignName) or not isinstance(
            parent, (nodes.Assign, nodes.AnnAssign)
        ):
            return None
        if isinstance(parent, nodes.Assign) and binding not in parent.targets:
            return None  # an element of an unpacked tuple
        values.append(parent.value)
    return values


def _class_body(cls: nodes.ClassDef) -> list[tuple[str, nodes.NodeNG | None]]:
    """(name, value) of each name a class body assigns: its default when it is a field."""
    found: list[tuple[str, nodes.NodeNG | None]] = []
    for statement in cls.body:
        if isinstance(statement, nodes.AnnAssign) and isinstance(
            statement.target, nodes.AssignName
        ):
            found.append((statement.target.name, statement.value))
        elif isinstance(statement, nodes.Assign):
            found.extend(
                (target.name, statement.value)
                for target in statement.targets
                if isinstance(target, nodes.AssignName)
            )
    return found

"""What a piece of the analysis read: which project modules, and in each whether only its
interface or also the code inside a function.

A piece of facts (a caller's broadcasts, the method a handler runs for a name) is kept
between runs under what it read (see :mod:`pylint_rpcsurface.engine.memo`). While it is
computed, a :class:`ReadRecorder` notes every project module whose nodes the analysis or
astroid's inference touched; the hooks that tell it are installed by
:func:`pylint_rpcsurface.analysis.modules.recording_reads`, the one place that changes
astroid's process-wide state for it.

A read is of a module's *interface* when every node touched lies outside function bodies
(the top level, class bodies, signatures), and of its *body* when a node inside a function
or lambda was touched: inference entered that code. An edit that leaves a module's
interface as it was (see :mod:`pylint_rpcsurface.engine.digests`) invalidates only the
pieces that read its body.

A result kept in a cache (a class's method resolution order, a method's dispatch calls,
astroid's inferences) is reused by later pieces without being computed again, so each
cache keeps what computing its result read and hands it to every piece that reuses it:
the analysis's own through :meth:`ReadRecorder.cached`, astroid's inference cache by
node (:meth:`ReadRecorder.inferring`: what inferring a node read, in any context, is read
again by whoever infers it later), and the results astroid keeps on nodes through
:meth:`ReadRecorder.kept`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, Final, TypeVar, cast

__all__ = [
    "BODY",
    "CLASS",
    "INTERFACE",
    "LOCAL",
    "MEMBER",
    "ReadRecorder",
    "Reads",
    "bound_names",
]

INTERFACE: Final = "interface"
BODY: Final = "body"
# The level prefixes of a top-level class's members: all of them ("class C"), or those
# bound to one name ("member C.N"), see pylint_rpcsurface.engine.digests.
CLASS: Final = "class "
MEMBER: Final = "member "
# The level prefix of what a function binds to one name, with where the statements that
# assign attributes lie among those bindings ("local Q N", see
# pylint_rpcsurface.engine.digests.LocalDigests).
LOCAL: Final = "local "

_V = TypeVar("_V")


class Reads:
    """The project modules one span read, by path, each with the levels read: the
    interface, the code of some functions (``def Q``), or the whole body."""

    __slots__ = ("_added_whole", "levels")

    def __init__(self, levels: Mapping[str, set[str]] | None = None) -> None:
        self.levels: dict[str, set[str]] = {p: set(v) for p, v in (levels or {}).items()}
        # The tuples of levels :meth:`add_all` added, by (path, id): each kept, so that
        # its id is never another's.
        self._added_whole: dict[tuple[str, int], tuple[str, ...]] = {}

    def add(self, path: str, level: str) -> None:
        found = self.levels.get(path)
        if found is None:
            self.levels[path] = {level}
        elif level not in found:
            found.add(level)

    def add_all(self, path: str, levels: tuple[str, ...]) -> None:
        """Each of *levels*, once for the same tuple: every node of a class's statement
        reads the members it binds, which may be thousands (``a = b = ... = None``)."""
        key = (path, id(levels))
        if self._added_whole.get(key) is levels:
            return
        self._added_whole[key] = levels
        for level in levels:
            self.add(path, level)

    def merge(self, other: Reads) -> None:
        for path, levels in other.levels.items():
            found = self.levels.get(path)
            if found is None:
                self.levels[path] = set(levels)
            else:
                found |= levels

    def dependencies(self) -> list[tuple[str, str]]:
        """Every (path, level) read, sorted; the whole body stands for every other level
        of its module."""
        return sorted(
            (path, level)
            for path, levels in self.levels.items()
            for level in ({BODY} if BODY in levels else levels)
        )

    def __repr__(self) -> str:
        return f"Reads({self.levels!r})"


class ReadRecorder:
    """Collects what the spans being computed read; inactive, it records nothing.

    *path_of* maps a module file (as astroid has it) to the project's key of that file,
    or None for a file outside the source roots (the standard library, installed
    libraries: the memo's identity covers those).
    """

    def __init__(self, path_of: Callable[[str], str | None], *, active: bool = True) -> None:
        self.active = active
        self._path_of = path_of
        self._stack: list[Reads] = []
        # What inferring each node read, by id, over every context it was inferred in.
        self._inferred: dict[int, Reads] = {}
        # Results astroid would keep on a node, by (name, id): each with what it read.
        self._kept: dict[tuple[str, int], tuple[Any, Reads]] = {}
        # Each node's place, by id (the modules outlive the recorder): its module's path,
        # or None, and whether it lies inside a function or lambda.
        self._places: dict[int, tuple[str | None, tuple[str, ...]]] = {}
        # The places of the nodes inferred or looked up from, by id: a node of a statement
        # that assigns an attribute in a function's own body is read with the module's
        # interface, which holds that statement; the function's name, for its look-ups.
        self._inferred_places: dict[int, tuple[str | None, tuple[str, ...], str | None]] = {}
        # The levels of a read of a class's body statement, by its id (as the places).
        self._statement_levels: dict[int, tuple[str, ...]] = {}
        self._paths: dict[str, str | None] = {}
        # The top-level classes (by id) whose members' reads are told one by one, by
        # analysis.modules.recording_reads.
        self.split_classes: set[int] = set()

    @property
    def recording(self) -> bool:
        """Whether a span is open: only then does a read count."""
        return bool(self._stack)

    @contextlib.contextmanager
    def span(self) -> Iterator[Reads]:
        """A span of computation whose reads are collected; its reads count for the spans
        around it too."""
        reads = Reads()
        if not self.active:
            yield reads
            return
        self._stack.append(reads)
        try:
            yield reads
        finally:
            self._stack.pop()
            if self._stack:
                self._stack[-1].merge(reads)

    @contextlib.contextmanager
    def unrecorded(self) -> Iterator[None]:
        """A stretch whose reads count for no span: what finds a node again by the name a
        piece's key holds (the piece depends on what it reads of the node, not on how
        it was found)."""
        if not self._stack:
            yield
            return
        self._stack.append(Reads())
        try:
            yield
        finally:
            self._stack.pop()

    @contextlib.contextmanager
    def building(self, file: str | None) -> Iterator[None]:
        """A module of *file* being built: what astroid's steps after parsing read of that
        module's own nodes (its transforms' walk of every node, the attributes assigned
        through ``self``) counts for no span, as for a module pylint built before the
        analysis; what they read of other modules counts. The pieces that use the module
        read what they need of it themselves, and what inferring a node read is kept
        for whoever infers it later (:meth:`inferring`)."""
        path = self.project_path(file)
        if not self._stack or path is None:
            yield
            return
        reads = Reads()
        self._stack.append(reads)
        try:
            yield
        finally:
            self._stack.pop()
            reads.levels.pop(path, None)
            self._stack[-1].merge(reads)

    def replay(self, reads: Reads) -> None:
        """Count *reads* (of a result reused from a cache) for the open spans."""
        if self._stack:
            self._stack[-1].merge(reads)

    def file(self, file: str | None, level: str) -> None:
        """A read of the module of *file* at *level*."""
        if not self._stack or file is None:
            return
        path = self._paths.get(file, "")
        if path == "":
            path = self._paths[file] = self._path_of(file)
        if path is not None:
            self._stack[-1].add(path, level)

    def path(self, path: str, level: str) -> None:
        """A read of the project module whose key is *path* at *level*."""
        if self._stack:
            self._stack[-1].add(path, level)

    def node(self, node: Any) -> None:
        """A read of *node*: of its module's body if it lies in a function or lambda."""
        if not self._stack:
            return
        path, levels = self._place_of(node)
        if path is not None:
            self._stack[-1].add_all(path, levels)

    def _place_of(self, node: Any) -> tuple[str | None, tuple[str, ...]]:
        """*node*'s place (:meth:`_place`), computed once."""
        place = self._places.get(id(node))
        if place is None:
            place = self._places[id(node)] = self._place(node)
        return place

    def inferred_node(self, node: Any) -> str | None:
        """A read of *node* by inference or a look-up from it: as :meth:`node`, except
        for a node of a statement that assigns an attribute (``self.x = f(y)``) in the
        own body of a function Q, which reads the module's interface (it holds that
        statement, see :mod:`pylint_rpcsurface.engine.digests`), not Q's code. Gives Q
        then, whose bindings of each name looked up from the node are read too
        (:meth:`class_lookup`): what else Q's code holds is not read.

        A walk of the nodes (``get_children``) still reads Q's code: what it finds (a
        ``return`` added) is no statement of that kind."""
        if not self._stack:
            return None
        place = self._inferred_places.get(id(node))
        if place is None:
            place = self._inferred_places[id(node)] = self._inferred_place(node)
        path, levels, function = place
        if path is not None:
            self._stack[-1].add_all(path, levels)
        return function

    def _inferred_place(self, node: Any) -> tuple[str | None, tuple[str, ...], str | None]:
        path, levels = self._place_of(node)
        if path is None or len(levels) != 1 or not levels[0].startswith("def "):
            return (path, levels, None)
        frame = _attribute_statement_frame(node)
        if frame is None or _code_level(frame) != levels[0]:
            return (path, levels, None)  # no such statement, or one of a nested function
        return (path, (INTERFACE,), levels[0][len("def ") :])

    def member(self, path: str, owner: str, name: object) -> None:
        """A read of what the top-level class *owner* of *path* binds to *name* (one of
        its members, or its instances' attributes): whether it binds it, and to what."""
        if self._stack:
            self._stack[-1].add(path, f"{MEMBER}{owner}.{name}")

    def whole_class(self, path: str, owner: str) -> None:
        """A read of everything the top-level class *owner* of *path* binds."""
        if self._stack:
            self._stack[-1].add(path, CLASS + owner)

    def project_path(self, file: str | None) -> str | None:
        """The project's key of the module file *file*, or None outside the project."""
        if file is None:
            return None
        path = self._paths.get(file, "")
        if path == "":
            path = self._paths[file] = self._path_of(file)
        return path

    def class_read(self, klass: Any) -> None:
        """A read of everything *klass* binds: its members and its instances'
        attributes (a top-level class's own levels, else where its node lies)."""
        if not self._stack:
            return
        path = self.project_path(getattr(klass.root(), "file", None))
        if path is None:
            return
        self._stack[-1].add(path, INTERFACE)
        if type(getattr(klass, "parent", None)).__name__ == "Module":
            self._stack[-1].add(path, CLASS + klass.name)
        else:
            self.node(klass)

    def class_lookup(self, node: Any, name: str) -> None:
        """A look-up of *name* from *node*: when *node* lies in a top-level class's body
        outside its methods' code, the class's member *name* is read (astroid keeps
        the answer of a look-up, so no later one reads the class's names again); when
        it lies in a statement that assigns an attribute in a function Q's own body
        (:meth:`inferred_node`), what Q binds to *name* is read ("local Q N")."""
        if not self._stack:
            return
        function = self.inferred_node(node)
        path, levels = self._place_of(node)
        if path is None:
            return
        if function is not None:
            self._stack[-1].add(path, f"{LOCAL}{function} {name}")
            return
        for level in levels:
            if level.startswith(MEMBER) or level.startswith(CLASS):
                owner = level[len(MEMBER) :] if level.startswith(MEMBER) else level[len(CLASS) :]
                self.member(path, owner.partition(".")[0], name)
                return

    def split(self, klass: Any) -> bool:
        """Whether reads of the members of *klass* (a top-level class of the project's)
        are told to this recorder one by one (:meth:`member`); if not, a read of any
        node of the class is a read of all of it."""
        return id(klass) in self.split_classes

    def _place(self, node: Any) -> tuple[str | None, tuple[str, ...]]:
        levels: tuple[str, ...] = (INTERFACE,)
        code: Any = None  # the outermost function whose body holds the node
        statement: Any = None  # the statement of a class's body that holds the node
        current = node
        while True:
            parent = getattr(current, "parent", None)
            if parent is None:
                break
            if (
                type(parent).__name__ in _CODE_NODES
                and type(current).__name__ not in _SIGNATURE_NODES
                and current is not getattr(parent, "returns", None)
            ):
                code = parent
            if type(parent).__name__ == "ClassDef":
                statement = current
            current = parent
        levels = (_code_level(code),) if code is not None else self._class_levels(node, statement)
        file = getattr(current, "file", None)
        if not isinstance(file, str):
            return (None, levels)
        path = self._paths.get(file, "")
        if path == "":
            path = self._paths[file] = self._path_of(file)
        return (path, levels)

    def _class_levels(self, node: Any, statement: Any) -> tuple[str, ...]:
        """The levels of a read of *node*, outside every function body: the members of
        the top-level class whose body statement *statement* holds it (the outermost
        class's; None outside any class), else the module's interface."""
        if statement is None:
            klass = node if type(node).__name__ == "ClassDef" else None
        else:
            klass = statement.parent
        if klass is None or type(getattr(klass, "parent", None)).__name__ != "Module":
            return (INTERFACE,)
        if not self.split(klass):
            return (INTERFACE, CLASS + klass.name)  # its members are read unseen
        if statement is None or _in_header(klass, statement):
            return (INTERFACE,)  # the class itself, its bases, keywords and decorators
        if not getattr(statement, "is_statement", False):
            return (INTERFACE, CLASS + klass.name)  # its docstring: the body's first line
        levels = self._statement_levels.get(id(statement))
        if levels is None:
            names = bound_names(statement)
            levels = self._statement_levels[id(statement)] = (
                (INTERFACE, CLASS + klass.name)
                if names is None
                else (INTERFACE, *(f"{MEMBER}{klass.name}.{name}" for name in names))
            )
        return levels

    def inferring(self, node: Any, results: Iterator[_V]) -> Iterator[_V]:
        """*results* (astroid's inference of *node*), with what computing them reads counted
        for the open spans and kept for *node*: an inference of it that astroid answers from
        its cache later reads all that again."""
        if not self._stack:
            return results
        self.inferred_node(node)
        before = self._inferred.get(id(node))
        if before is not None:
            self._stack[-1].merge(before)
        return self._traced(id(node), results)

    def _traced(self, key: int, results: Iterator[_V]) -> Iterator[_V]:
        stack = self._stack
        while True:
            reads = Reads()
            stack.append(reads)
            try:
                result = next(results)
            except StopIteration:
                return
            finally:
                stack.pop()
                if reads.levels:
                    self._inferred.setdefault(key, Reads()).merge(reads)
                    if stack:
                        stack[-1].merge(reads)
            yield result

    def kept(self, name: str, node: Any, compute: Callable[[Any], _V]) -> _V:
        """A result astroid keeps on *node* under *name* once computed (``FunctionDef.type``),
        kept here instead with what computing it read."""
        key = (name, id(node))
        found = self._kept.get(key)
        if found is not None:
            self.replay(found[1])
            return cast(_V, found[0])
        reads = Reads()
        self._stack.append(reads)
        try:
            value = compute(node)
        finally:
            self._stack.pop()
            if self._stack:
                self._stack[-1].merge(reads)
        self._kept[key] = (value, reads)
        return value

    def cached(
        self, table: dict[Hashable, tuple[_V, Reads]], key: Hashable, compute: Callable[[], _V]
    ) -> _V:
        """*table*'s value for *key*, or *compute*'s (kept with what it read); either way
        what computing it read counts for the open spans."""
        found = table.get(key)
        if found is not None:
            value, reads = found
            self.replay(reads)
            return value
        with self.span() as reads:
            value = compute()
        table[key] = (value, reads)
        return value


def _code_level(code: Any) -> str:
    """The level of a read inside *code*'s body: ``def Q`` for a function or method Q
    defined at module level or in classes there, else the module's whole body."""
    names = [getattr(code, "name", "")]
    if type(code).__name__ == "Lambda":
        return BODY
    current = getattr(code, "parent", None)
    while current is not None and getattr(current, "parent", None) is not None:
        kind = type(current).__name__
        if kind in _CODE_NODES:
            return BODY
        if kind == "ClassDef":
            names.append(current.name)
        current = current.parent
    return "def " + ".".join(reversed(names))


# Nodes whose inside is code run later (a call's result), not the module's interface:
# matched by class name, so that this module never imports astroid.
_CODE_NODES: Final = frozenset({"FunctionDef", "AsyncFunctionDef", "Lambda"})
# A function's parameters, defaults, annotations and decorators are its interface.
_SIGNATURE_NODES: Final = frozenset({"Arguments", "Decorators"})
# The statements that assign an attribute when a target is one: the module's interface
# holds them whole (pylint_rpcsurface.engine.digests keeps them, as inference reads them
# from outside the function).
_ASSIGNMENTS: Final = frozenset({"Assign", "AnnAssign", "AugAssign", "Delete"})
# Nodes whose names are looked up in a scope of their own first.
_SCOPES: Final = frozenset(
    {
        "FunctionDef",
        "AsyncFunctionDef",
        "Lambda",
        "ClassDef",
        "ListComp",
        "SetComp",
        "DictComp",
        "GeneratorExp",
        "Module",
    }
)


def _attribute_statement_frame(node: Any) -> Any:
    """The function whose own body holds the statement that assigns an attribute and
    holds *node* (no scope between them); None when no such statement holds it."""
    current = node
    while type(current).__name__ not in _ASSIGNMENTS:
        if current is None or type(current).__name__ in _SCOPES:
            return None
        current = getattr(current, "parent", None)
    targets = current.targets if hasattr(current, "targets") else [current.target]
    if not any(_assigns_attribute(target) for target in targets):
        return None
    frame = current.parent
    while type(frame).__name__ not in _SCOPES:
        frame = getattr(frame, "parent", None)
        if frame is None:
            return None
    return frame if type(frame).__name__ in ("FunctionDef", "AsyncFunctionDef") else None


def _assigns_attribute(target: Any) -> bool:
    """Whether assigning to (or deleting) *target* sets an attribute: ``self.x``,
    ``self.x[k]``, or one of them in a tuple or list of targets."""
    kind = type(target).__name__
    if kind in ("AssignAttr", "DelAttr"):
        return True
    if kind in ("Tuple", "List"):
        return any(_assigns_attribute(element) for element in target.elts)
    if kind == "Starred":
        return _assigns_attribute(target.value)
    if kind == "Subscript":
        value = target.value
        while type(value).__name__ == "Subscript":
            value = value.value
        return type(value).__name__ == "Attribute"
    return False


def bound_names(statement: Any) -> tuple[str, ...] | None:
    """The names a statement of a class's body binds, as astroid has it: what
    :func:`pylint_rpcsurface.engine.digests.member_names` gives for its syntax (a
    definition, a plain assignment, an import), and None for any other statement."""
    kind = type(statement).__name__
    if kind in ("FunctionDef", "AsyncFunctionDef", "ClassDef"):
        return (statement.name,)
    if any(type(n).__name__ == "NamedExpr" for n in _walk(statement)):
        return None
    if kind == "Assign":
        targets = list(statement.targets)
    elif kind in ("AnnAssign", "AugAssign"):
        targets = [statement.target]
    elif kind == "Import":
        return tuple((alias or name).partition(".")[0] for name, alias in statement.names)
    elif kind == "ImportFrom":
        if any(name == "*" for name, _ in statement.names):
            return None
        return tuple(alias or name for name, alias in statement.names)
    else:
        return None
    names: list[str] = []
    while targets:
        target = targets.pop()
        target_kind = type(target).__name__
        if target_kind == "AssignName":
            names.append(target.name)
        elif target_kind in ("Tuple", "List"):
            targets.extend(target.elts)
        elif target_kind == "Starred":
            targets.append(target.value)
        else:
            return None  # an attribute or a subscript: no name of the class's
    return tuple(names)


def _walk(node: Any) -> Iterator[Any]:
    """*node* and every node under it, by astroid's fields: not through the methods the
    recorder's hooks replace, which would note these reads."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        for field in getattr(current, "_astroid_fields", ()):
            values = [getattr(current, field, None)]
            while values:  # a field holds a node, or lists and tuples of them (Dict.items)
                value = values.pop()
                if isinstance(value, (list, tuple)):
                    values.extend(value)
                elif value is not None and hasattr(value, "_astroid_fields"):
                    pending.append(value)


def _in_header(klass: Any, part: Any) -> bool:
    """Whether *part*, a child of the class *klass*, is one of its bases, keywords,
    decorators or type parameters: the class's header, which the interface holds."""
    if part is getattr(klass, "decorators", None):
        return True
    return any(
        part is node
        for field in ("bases", "keywords", "type_params")
        for node in getattr(klass, field, None) or ()
    )

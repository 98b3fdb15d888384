"""What each caller broadcasts: its own code's dispatch calls and its helpers', each
code read once however many callers run it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import replace

import astroid
from astroid import nodes

from pylint_rpcsurface.analysis.broadcasts import (
    Code,
    calls_in,
    code_of,
    dispatch_calls,
    not_a_named_rpc,
    own_code,
    read_broadcast,
    super_attributes,
)
from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.definitions import definition_name
from pylint_rpcsurface.analysis.helper_calls import helper_calls, reached_helpers
from pylint_rpcsurface.analysis.inference import infer_unique, location_of
from pylint_rpcsurface.analysis.library_text import LibraryText
from pylint_rpcsurface.analysis.reads import BODY, ReadRecorder, Reads
from pylint_rpcsurface.analysis.syntax import all_statements
from pylint_rpcsurface.config import DispatchForm
from pylint_rpcsurface.model import Broadcast, HelperStep, Location

__all__ = ["BroadcastCollector", "CodeFacts", "CodeRef", "Members", "chain_order"]


# Where a code is defined, enough to find it again: its module's key, and either "Q",
# the function or method's name as :mod:`.digests` has it (classes' names before it),
# with which of the definitions of that name it is (``if``/``else`` may define two); or
# "@line:col", for code no name finds (a nested function, a lambda, code outside the
# source roots), with 0.
CodeRef = tuple[str, str, int]
# What one code holds: its own dispatch calls' broadcasts, the helpers it calls (each a
# CodeRef, flattened, with the call), and its ``super(...).name`` attributes: the name,
# with where the look-up starts ("" after the code's own class, a class's key for
# ``super(Class, self)``, "?" when Class does not infer to one class).
CodeFacts = tuple[
    tuple[Broadcast, ...],
    tuple[tuple[str, str, int, HelperStep], ...],
    tuple[tuple[str, str], ...],
]
# A caller's method resolution order as the pieces see it: whether every base resolved,
# and each class (its key, see class_key) with its members in the order astroid binds
# them, each with the code it runs (a CodeRef) or None (a plain attribute).
Member = tuple[str, tuple[str, str, int] | None]
Members = tuple[bool, tuple[tuple[str, tuple[Member, ...]], ...]]
# The piece of one code's facts: kept between runs, under what computing them read.
CodePiece = Callable[[CodeRef, Callable[[], CodeFacts]], CodeFacts]


class BroadcastCollector:
    """Reads each code's dispatch calls and helper calls once, however many callers
    inherit it: one piece per code (*piece*, the engine's memo), so that an edit inside
    one method recomputes that method alone.

    A class caller runs its own methods (:func:`own_code`); a function caller runs its
    own body, and has no subclasses.

    A method's broadcasts include those of the helpers it calls (within ``depth``
    calls), each marked with the chain of helper calls that leads to it. Calls that pass
    the name through from a parameter, or send a callable, are not named RPCs: left out.
    """

    def __init__(
        self,
        forms: Mapping[str, DispatchForm],
        index: ClassIndex,
        depth: int,
        reads: ReadRecorder,
        *,
        piece: CodePiece | None = None,
        spans: Callable[[str], Mapping[str, tuple[tuple[int, int], ...]]] | None = None,
        libraries: LibraryText | None = None,
    ) -> None:
        self.forms = dict(forms)
        self.libraries = libraries
        self.index = index
        self.depth = depth
        self.reads = reads
        self._piece = piece
        self._spans = spans
        # Each kept with what computing it read (ReadRecorder.cached): a piece that
        # reuses it read that too.
        self._facts: dict[Hashable, tuple[CodeFacts, Reads]] = {}
        self._supers: dict[Hashable, tuple[list[Code], Reads]] = {}
        # Each code's calls, walked once for its dispatch calls, helpers and super().
        self._call_nodes: dict[Hashable, tuple[list[nodes.Call], Reads]] = {}
        # The codes met in this run, by where they are defined.
        self._codes: dict[CodeRef, Code] = {}
        self._refs: dict[int, CodeRef] = {}
        self._external: set[str] = set()  # the files of code outside the source roots

    def of_caller(self, caller: nodes.ClassDef | nodes.FunctionDef) -> tuple[list[Broadcast], bool]:
        if isinstance(caller, nodes.FunctionDef):
            codes: list[Code] = [caller]
            complete = True
        else:
            order, complete = self.index.linearize(caller)
            codes = self.reads.cached(
                self._supers, tuple(map(id, order)), lambda: own_code(order, None, self._calls_in)
            )
        return self._run_by([self.ref(code) for code in codes]), complete

    def members_of(self, caller: nodes.ClassDef) -> Members | None:
        """*caller*'s method resolution order with each class's members (see Members), or
        None when some code it runs lies outside the project: that code is then read from
        its nodes (:meth:`of_caller`), as no name in the project finds it again. A class
        outside the project that binds no code (``abc.ABC``) runs none, so its members
        are names alone, and the subclasses put their broadcasts together from the pieces
        without a build of their modules."""
        order, complete = self.index.linearize(caller)
        classes: list[tuple[str, tuple[Member, ...]]] = []
        for klass in order:
            outside = self._project_path(klass) is None
            # Which names the class binds: all of its members.
            self.reads.class_read(klass)
            members: list[Member] = []
            for name, bindings in klass.locals.items():
                code = code_of(bindings[-1])
                if code is None:
                    members.append((name, None))
                    continue
                if outside:
                    return None
                ref = self.ref(code)
                if ref[0] in self._external:
                    return None
                if ref[1].startswith("@"):
                    # Found by its position, which the module's body holds.
                    self.reads.path(ref[0], BODY)
                members.append((name, ref))
            classes.append((self.class_key(klass), tuple(members)))
        return complete, tuple(classes)

    def of_members(self, members: Members) -> list[Broadcast]:
        """The broadcasts of the caller whose method resolution order is *members*: its
        own code (as :func:`own_code` finds it, from the pieces), each with the helpers
        it reaches."""
        return self._run_by(self._own_refs(members[1]))

    def _run_by(self, refs: list[CodeRef]) -> list[Broadcast]:
        """The broadcasts of a caller whose own code is *refs*: each code's, and those of
        the helpers it reaches, marked with the chain of calls that reaches them."""
        own = frozenset(refs)
        found: list[Broadcast] = []
        for ref in refs:
            found.extend(self.facts_of(ref)[0])
            for helper, chain in reached_helpers(ref, self.depth, self._helper_calls, own):
                found.extend(self._via(self.facts_of(helper)[0], chain))
        return found

    def _own_refs(self, classes: tuple[tuple[str, tuple[Member, ...]], ...]) -> list[CodeRef]:
        """:func:`own_code` over where the codes are defined: each class's members that no
        class before it in the order binds, and the methods ``super()`` reaches from them,
        in source order."""
        reached: dict[CodeRef, None] = {}
        pending: list[tuple[int, CodeRef]] = []
        seen: set[str] = set()
        for position, (_, members) in enumerate(classes):
            for name, code in members:
                if name in seen:
                    continue  # overridden (or shadowed by a plain attribute) further down
                seen.add(name)
                if code is not None:
                    pending.append((position, code))
        keys = [key for key, _ in classes]
        while pending:
            position, code = pending.pop(0)
            if code in reached:
                continue
            reached[code] = None
            for attribute, start in self.facts_of(code)[2]:
                if start == "":
                    begin = position + 1  # super(): after the class that holds the code
                elif start in keys:
                    begin = keys.index(start) + 1  # super(Class, self): after Class
                else:
                    continue  # super(Unknown, self): not guessed
                for later in range(begin, len(classes)):
                    bound = dict(classes[later][1])
                    if attribute in bound:
                        target = bound[attribute]
                        if target is not None:
                            pending.append((later, target))
                        break
        return sorted(reached, key=self._source_order)

    def _source_order(self, ref: CodeRef) -> tuple[str, int]:
        path, name, index = ref
        if name.startswith("@"):
            return (path, int(name[1:].partition(":")[0]))
        spans = self._spans(path).get(name, ()) if self._spans is not None else ()
        return (path, spans[index][0] if index < len(spans) else 0)

    def class_key(self, klass: nodes.ClassDef) -> str:
        """The key a class is known by in the pieces: its module's key (for a class
        outside the project, its module's file, or name when it has none), and
        :func:`definition_name`'s."""
        module = klass.root()
        path = self._project_path(klass) or module.file or module.name
        name, index = definition_name(klass)
        return f"{path}\0{name}\0{index}"

    def _project_path(self, klass: nodes.ClassDef) -> str | None:
        """The key of *klass*'s module, or None for a class outside the project."""
        file = klass.root().file or ""
        return self.index.store.project_key(file) if file else None

    def _supers_of(self, code: Code) -> Iterator[tuple[str, str]]:
        for attribute in super_attributes(self._calls_in(code)):
            call = attribute.expr
            if not isinstance(call, nodes.Call) or not call.args:
                yield attribute.attrname, ""
                continue
            named = infer_unique(call.args[0])
            yield (
                attribute.attrname,
                (self.class_key(named) if isinstance(named, nodes.ClassDef) else "?"),
            )

    def ref(self, code: Code) -> CodeRef:
        """Where *code* is defined (see CodeRef); the code is kept for this run."""
        known = self._refs.get(id(code))
        if known is not None:
            return known
        file = code.root().file or ""
        path = self.index.store.project_key(file) if file else None
        name = _name_of(code) if path is not None and self._spans is not None else None
        index = -1
        if (
            path is not None
            and name is not None
            and self._spans is not None
            and isinstance(code, nodes.FunctionDef)
        ):
            start = _first_line(code)
            spans = self._spans(path).get(name, ())
            index = next((i for i, (first, _) in enumerate(spans) if first == start), -1)
        if path is None or name is None or index < 0:
            if path is None:
                self._external.add(file)
            at = f"@{code.lineno or 0}:{code.col_offset or 0}"
            if path is None and not _in_its_module(code):
                # Made by one of astroid's brains (a library's stubs, parsed from a string
                # and hung on the module): its position is the stub's, which a node of the
                # module's own text may hold too. Never looked for in a later run.
                at = "@made" + at[1:]
            ref: CodeRef = (path or file, at, 0)
        else:
            ref = (path, name, index)
        self._refs[id(code)] = ref
        self._codes[ref] = code
        return ref

    def facts_of(self, ref: CodeRef) -> CodeFacts:
        """The dispatch calls and helper calls of the code at *ref*: a piece of the memo
        when it is found by its name in a project module, else computed in this run."""

        def compute() -> CodeFacts:
            code = self._code(ref)
            direct = self._read(code)
            calls = tuple(
                (*self.ref(helper), step)
                for helper, step in helper_calls(
                    code, self.index.store.tree, self._calls_in(code), self.libraries
                )
            )
            return tuple(direct), calls, tuple(self._supers_of(code))

        if self._piece is None or self._outside(ref):
            return self.reads.cached(self._facts, ref, compute)
        return self._piece(ref, compute)

    def _outside(self, ref: CodeRef) -> bool:
        """Whether the code at *ref* lies outside the source roots (a library's): met in
        this run, or named by a piece from the memo (a helper a caller's code reached)."""
        if ref[0] in self._external:
            return True
        if self.index.store.project_key(ref[0]) is None:
            self._external.add(ref[0])
            return True
        return False

    def _code(self, ref: CodeRef) -> Code:
        """The code at *ref*: met in this run, or found in its module (built if need be).
        Finding it reads nothing the piece depends on: the piece's key names it, and its
        own "def Q" (or, for a position, its module's body) is what it read."""
        known = self._codes.get(ref)
        if known is not None:
            return known
        with self.reads.unrecorded():
            if self._outside(ref):
                # A library's code that a helper chain from the memo's pieces reached: its
                # module as astroid builds it (the store's record of the libraries read
                # starts afresh when that file changes).
                module = _library_module(ref[0])
            else:
                module = self.index.store.module(ref[0])
            found = None if module is None else self._find(module, ref)
        if found is None:
            raise LookupError(f"no code at {ref}: the module changed during the analysis")
        self._refs[id(found)] = ref
        self._codes[ref] = found
        return found

    def _find(self, module: nodes.Module, ref: CodeRef) -> Code | None:
        path, name, index = ref
        if name.startswith("@made"):
            return _made_at(module, name[len("@made") :])
        if name.startswith("@"):
            line, _, col = name[1:].partition(":")
            for code in module.nodes_of_class((nodes.FunctionDef, nodes.Lambda)):
                if (code.lineno, code.col_offset) == (int(line), int(col)):
                    return code
            return None
        spans = self._spans(path).get(name, ()) if self._spans is not None else ()
        if index >= len(spans):
            return None
        start = spans[index][0]
        last = name.rpartition(".")[2]
        for statement in all_statements(module):
            if (
                isinstance(statement, nodes.FunctionDef)
                and statement.name == last
                and _first_line(statement) == start
                and _name_of(statement) == name
            ):
                return statement
        return None

    def _read(self, code: Code) -> list[Broadcast]:
        fallback = location_of(code) or Location(code.root().file or "", 1, 0, None, None)
        return [
            read_broadcast(call, form, fallback, self.index.qualname)
            for call, form in dispatch_calls(
                code, self.forms, self.index.qualname, self._calls_in(code)
            )
            if not not_a_named_rpc(call, form)
        ]

    def _helper_calls(self, ref: CodeRef) -> list[tuple[CodeRef, HelperStep]]:
        """The helper calls of the code at *ref*, from its facts."""
        return [((path, name, index), step) for path, name, index, step in self.facts_of(ref)[1]]

    def _calls_in(self, code: Code) -> list[nodes.Call]:
        # Read from the code's body, wherever it is. astroid keeps a docstring apart from
        # the body: a function of a docstring alone (an abstract method's) has none.
        if isinstance(code, nodes.FunctionDef):
            self.reads.node(code.body[0] if code.body else code.doc_node or code)
        else:
            self.reads.node(code.body)
        return self.reads.cached(self._call_nodes, id(code), lambda: calls_in(code))

    @staticmethod
    def _via(broadcasts: Sequence[Broadcast], chain: tuple[HelperStep, ...]) -> list[Broadcast]:
        return [replace(broadcast, via=chain) for broadcast in broadcasts]


def _in_its_module(code: Code) -> bool:
    """Whether *code* is a node of its module's own tree: each node up to the module is
    one of its parent's children (a brain's stub is only hung on the module's names)."""
    node: nodes.NodeNG = code
    while node.parent is not None:
        if not any(child is node for child in node.parent.get_children()):
            return False
        node = node.parent
    return True


def _made_at(module: nodes.Module, position: str) -> Code | None:
    """The one function a brain made and hung on *module*'s names whose stub starts at
    *position* (``line:col``); None when none does, or more than one (two brains' stubs
    may share a position)."""
    found = [
        binding
        for bindings in module.locals.values()
        for binding in bindings
        if isinstance(binding, nodes.FunctionDef)
        and f"{binding.lineno}:{binding.col_offset}" == position
        and not _in_its_module(binding)
    ]
    return found[0] if len(found) == 1 else None


def _library_module(path: str) -> nodes.Module | None:
    """The module of the file *path* outside the source roots, from astroid's cache or
    built; None when it can't be built (gone, or no longer Python)."""
    try:
        return astroid.MANAGER.ast_from_file(path)
    except (astroid.AstroidBuildingError, OSError, RecursionError, ValueError):
        return None


def _name_of(code: Code) -> str | None:
    """The name :mod:`.digests` gives *code*: a function or method defined at module
    level or in classes there (compound statements aside), its classes' names first;
    None for a lambda or a function nested in another."""
    if not isinstance(code, nodes.FunctionDef):
        return None
    names = [code.name]
    current = code.parent
    while current is not None and not isinstance(current, nodes.Module):
        if isinstance(current, (nodes.FunctionDef, nodes.Lambda)):
            return None
        if isinstance(current, nodes.ClassDef):
            names.append(current.name)
        current = current.parent
    return ".".join(reversed(names))


def _first_line(code: nodes.FunctionDef) -> int:
    """The line *code*'s definition starts at, its decorators included (as
    :mod:`.digests` spans it)."""
    decorators = code.decorators.nodes if code.decorators is not None else []
    return min([code.lineno or 0, *(d.lineno or 0 for d in decorators)])


def chain_order(chain: tuple[HelperStep, ...]) -> tuple[int, list[tuple[Location, str]]]:
    return len(chain), [(step.call, step.name) for step in chain]

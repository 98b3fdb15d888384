"""Reads of a top-level class told member by member, while reads are recorded.

:func:`pylint_rpcsurface.analysis.modules.recording_reads` is the one user of this
module: it splits the project's top-level classes for the span of the analysis and puts
them back as they were (see :mod:`.reads`, whose ``member C.N`` levels these tell).
astroid looks a class's members up in its ``locals`` and ``instance_attrs``; while a
class is split, those are :class:`_MemberReads`, which tell the recorder each name
looked up, and its ``body`` a :class:`_BodyReads`, which tells it the whole class is
read. A class left unsplit has every read of its nodes count as one of all its
members (``ReadRecorder.split``), so a class this misses is read as a whole, never less.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from astroid import nodes

from pylint_rpcsurface.analysis.lean_build import PendingAttrs
from pylint_rpcsurface.analysis.reads import ReadRecorder, bound_names

__all__ = ["ClassSplitter", "extra_decorators"]


def extra_decorators(recorder: ReadRecorder, compute: Any, function: nodes.FunctionDef) -> Any:
    """astroid's ``extra_decorators`` of *function* (``m = staticmethod(m)`` in its
    class's body), read as what it reads: the class's member of the function's name.

    astroid walks every assignment of the class's scope for it, but keeps only those to
    that name at the class's own level; when every statement of the class's body binds
    names the syntax tells (see :func:`.reads.bound_names`), they are all in that member.
    Else the walk reads the whole class."""
    frame = function.parent.frame() if function.parent is not None else None
    if not (isinstance(frame, nodes.ClassDef) and recorder.split(frame)):
        return compute(function)
    path = recorder.project_path(frame.root().file)
    statements = list.__iter__(frame.body)
    if path is None or any(bound_names(statement) is None for statement in statements):
        return compute(function)
    recorder.member(path, frame.name, function.name)
    with recorder.unrecorded():
        return compute(function)


class _ClassReads:
    """What tells the recorder of the reads of one top-level class (*owner* of *path*)."""

    __slots__ = ("owner", "path", "recorder")

    def __init__(self, recorder: ReadRecorder, path: str, owner: str) -> None:
        self.recorder = recorder
        self.path = path
        self.owner = owner


class _MemberReads(dict):  # type: ignore[type-arg]
    """A top-level class's ``locals`` or ``instance_attrs`` while reads are recorded: a
    read by key is a read of that member alone, any other read (iterating, its size)
    a read of the whole class. Its keys and values are the dict's it replaces."""

    __slots__ = ("_filling", "_pending", "_reads")

    def __init__(self, plain: dict[str, Any], reads: _ClassReads) -> None:
        super().__init__(plain)
        self._reads = reads
        # What adds the members a lean build left for the first read (.lean_build), and
        # whether it runs now: what it adds is no read of the piece that came first.
        self._pending: Callable[[], None] | None = None
        self._filling = False

    def wait_for(self, fill: Callable[[], None]) -> None:
        """Run *fill* (it adds members) before the first read."""
        self._pending = fill

    def _ready(self) -> bool:
        """Whether a read now is the analysis's (not the fill's own)."""
        fill, self._pending = self._pending, None
        if fill is not None:
            self._filling = True
            try:
                fill()
            finally:
                self._filling = False
        return not self._filling

    def _one(self, key: object) -> None:
        if self._ready():
            self._reads.recorder.member(self._reads.path, self._reads.owner, key)

    def _all(self) -> None:
        if self._ready():
            self._reads.recorder.whole_class(self._reads.path, self._reads.owner)

    def plain(self) -> dict[str, Any]:
        """The dict this one stands for, read by no one (members still to come included)."""
        contents = dict(dict.items(self))
        return contents if self._pending is None else PendingAttrs(contents, self._pending)


def _reading_key(name: str) -> Any:
    """dict's method *name*, which first tells the recorder that the member its first
    argument names is read (``_one``)."""

    method = getattr(dict, name)

    def read(self: Any, key: Any, *args: Any) -> Any:
        self._one(key)  # pylint: disable=protected-access
        return method(self, key, *args)

    read.__name__ = name
    return read


def _reading_all(base: type[Any], name: str) -> Any:
    """The method *name* of *base*, which first tells the recorder the whole class is
    read (``_all``)."""

    def read(self: Any, *args: Any, **kwargs: Any) -> Any:
        self._all()  # pylint: disable=protected-access
        return getattr(base, name)(self, *args, **kwargs)

    read.__name__ = name
    return read


class _BodyReads(list):  # type: ignore[type-arg]
    """A top-level class's ``body`` while reads are recorded: any read of it is a read of
    the whole class."""

    __slots__ = ("_reads",)

    def __init__(self, plain: list[Any], reads: _ClassReads) -> None:
        super().__init__(plain)
        self._reads = reads

    def _all(self) -> None:
        self._reads.recorder.whole_class(self._reads.path, self._reads.owner)

    def plain(self) -> list[Any]:
        """The list this one stands for, read by no one."""
        return list(list.__iter__(self))


for _name in (
    "__iter__", "__len__", "__getitem__", "__contains__", "__reversed__", "__repr__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__mul__",
    "__rmul__", "__iadd__", "__imul__", "__setitem__", "__delitem__", "index", "count",
    "copy", "append", "extend", "insert", "remove", "pop", "sort", "reverse", "clear",
):  # fmt: skip
    setattr(_BodyReads, _name, _reading_all(list, _name))
for _name in (
    "__iter__", "__len__", "__reversed__", "__repr__", "__eq__", "__ne__", "__or__",
    "__ror__", "__ior__", "keys", "values", "items", "copy", "update", "clear", "popitem",
):  # fmt: skip
    setattr(_MemberReads, _name, _reading_all(dict, _name))
for _name in (
    "__getitem__",
    "get",
    "__contains__",
    "setdefault",
    "pop",
    "__setitem__",
    "__delitem__",
):
    setattr(_MemberReads, _name, _reading_key(_name))
del _name


class ClassSplitter:
    """Makes the top-level classes of the project's modules tell their members' reads
    one by one (:class:`_MemberReads`), and puts every class back as it was."""

    def __init__(self, recorder: ReadRecorder) -> None:
        self._recorder = recorder
        self._modules: set[int] = set()
        self._classes: list[nodes.ClassDef] = []

    def module(self, module: nodes.Module) -> None:
        if id(module) in self._modules:
            return
        self._modules.add(id(module))
        path = self._recorder.project_path(module.file)
        if path is None:
            return
        for statement in list.__iter__(module.body):
            if isinstance(statement, nodes.ClassDef) and id(statement) not in (
                self._recorder.split_classes
            ):
                self._split(statement, path)

    def _split(self, klass: nodes.ClassDef, path: str) -> None:
        if not (
            type(klass.locals) is dict  # pylint: disable=unidiomatic-typecheck
            and type(klass.instance_attrs) is dict  # pylint: disable=unidiomatic-typecheck
            and type(klass.body) is list  # pylint: disable=unidiomatic-typecheck
        ):
            return  # a shape this does not know: its reads count for the whole class
        reads = _ClassReads(self._recorder, path, klass.name)
        klass.locals = _MemberReads(klass.locals, reads)
        klass.instance_attrs = _MemberReads(klass.instance_attrs, reads)
        klass.body = _BodyReads(klass.body, reads)
        self._recorder.split_classes.add(id(klass))
        self._classes.append(klass)

    def restore(self) -> None:
        for klass in self._classes:
            for attribute in ("locals", "instance_attrs", "body"):
                value = getattr(klass, attribute)
                if isinstance(value, (_MemberReads, _BodyReads)):
                    setattr(klass, attribute, value.plain())
        self._recorder.split_classes.clear()
        self._classes.clear()

"""Handler tables on the worker side: a received name looked up in a table whose result
is called (``self._handlers[method](*args)``, or ``handler = TABLE.get(name)`` and then
``handler()`` or ``getattr(self, handler)()``).

Such a read is what lets ``init`` propose a ``tables`` entry: the receive side
demonstrably answers from that table. Which table it is comes from the code alone: the
attribute of the reading method's class (or of a base class), or a constant of the
reading function's module. Whether the table can be read without running the code is
:func:`pylint_rpcsurface.analysis.tables.read_table`'s to say, the same reader the checker
uses, so ``init`` never writes a table that ``check`` rejects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from astroid import nodes

from pylint_rpcsurface.analysis.syntax import builtin_call, changes_in_place
from pylint_rpcsurface.discovery.reading import (
    FunctionBody,
    class_of,
    is_getattr,
    names_in,
)


@dataclass(frozen=True)
class TableRead:
    """A place a received name is looked up in a table and the result called."""

    function: nodes.FunctionDef  # the reading function
    read: nodes.NodeNG  # the subscript or the .get() call
    owner: nodes.ClassDef | nodes.Module  # what binds the table
    attribute: str  # the table's name in *owner*
    # The method of *owner* that fills the table one entry a call, for a table made at
    # run time (``bind_func(key, handler)``: ``self.callbacks[key] = handler``); None for
    # a table the code writes out.
    binder: str | None = None


Linearize = Callable[[nodes.ClassDef], list[nodes.ClassDef]]


def table_reads(body: FunctionBody, received: set[str], linearize: Linearize) -> list[TableRead]:
    """The reads in the function of *body* of a table by one of its *received* names whose
    result is called there, in source order; *linearize* gives a class and its ancestors
    in MRO."""
    function = body.function
    called = _called_names(body)
    found = []
    reads: list[nodes.NodeNG] = [*body.own_nodes(nodes.Subscript), *body.own_nodes(nodes.Call)]
    for node in sorted(reads, key=lambda n: (n.lineno or 0, n.col_offset or 0)):
        table, key = _lookup(node)
        if table is None or key is None or not names_in(key) & received:
            continue
        if not (_is_called(node) or _bound_to(node, body) & called):
            continue
        owner = _owner(table, function, linearize)
        if owner is not None:
            found.append(TableRead(function, node, owner[0], owner[1]))
    return found


def bound_table_reads(body: FunctionBody, linearize: Linearize) -> list[TableRead]:
    """The reads in the method of *body* of a table of its class by one of its own
    parameters whose result is called (``func = self.callbacks.get(req_type)``, then
    ``func(reqs)``), where the table is filled only by a binding method of the class,
    ``bind_func(self, req_type, callback): self.callbacks[req_type] = callback``."""
    function = body.function
    if not isinstance(function.parent, nodes.ClassDef):
        return []
    params = {arg.name for arg in (function.args.args or [])[1:]} | {
        arg.name for arg in function.args.kwonlyargs
    }
    found = []
    for read in table_reads(body, params, linearize):
        if not isinstance(read.owner, nodes.ClassDef):
            continue
        binder = _binder(read.owner, read.attribute)
        if binder is not None:
            found.append(TableRead(read.function, read.read, read.owner, read.attribute, binder))
    return found


def _binder(owner: nodes.ClassDef, attribute: str) -> str | None:
    """The one method of *owner* that writes an entry of ``self.<attribute>``, a key and
    a value both its parameters (``self.callbacks[req_type] = callback``), when no other
    code of the module changes it in place and its class binds it only to an empty
    dict; None otherwise."""
    module = owner.root()
    writes = list(changes_in_place(module, attribute, attributes=True, in_classes=True))
    if len(writes) != 1 or not isinstance(writes[0], nodes.Subscript):
        return None
    write = writes[0]
    method = write.scope()
    assign = write.parent
    container, key = write.value, write.slice
    if not (
        isinstance(method, nodes.FunctionDef)
        and method.parent is owner
        and isinstance(assign, nodes.Assign)
        and assign.targets == [write]
        and isinstance(container, nodes.Attribute)
        and isinstance(container.expr, nodes.Name)
        and container.expr.name == "self"
        and isinstance(key, nodes.Name)
        and isinstance(assign.value, nodes.Name)
    ):
        return None
    params = [arg.name for arg in method.args.args or []][1:]
    if key.name not in params or assign.value.name not in params:
        return None
    bindings = cast("list[nodes.NodeNG]", owner.instance_attrs.get(attribute, []))
    for bound in bindings:
        value = getattr(getattr(bound, "parent", None), "value", None)
        empty = (isinstance(value, nodes.Dict) and not value.items) or builtin_call(
            value, "dict", 0
        )
        if not empty:
            return None
    return method.name


def _lookup(node: nodes.NodeNG) -> tuple[nodes.NodeNG | None, nodes.NodeNG | None]:
    """(the table, the key) of ``table[key]`` or ``table.get(key[, default])``."""
    if isinstance(node, nodes.Subscript):
        return node.value, node.slice
    if (
        isinstance(node, nodes.Call)
        and isinstance(node.func, nodes.Attribute)
        and node.func.attrname == "get"
        and 1 <= len(node.args) <= 2
        and not node.keywords
    ):
        return node.func.expr, node.args[0]
    return None, None


def _is_called(node: nodes.NodeNG) -> bool:
    """``table[key](...)``: the read is the callee."""
    return isinstance(node.parent, nodes.Call) and node.parent.func is node


def _bound_to(node: nodes.NodeNG, body: FunctionBody) -> set[str]:
    """The locals ``name = <node>`` binds (directly: no expression around the read)."""
    return {name for names, value, _read in body.assignments if value is node for name in names}


def _called_names(body: FunctionBody) -> set[str]:
    """The locals the function of *body* calls, or looks up with getattr and calls."""
    found = set()
    for call in body.own_nodes(nodes.Call):
        if isinstance(call.func, nodes.Name):
            found.add(call.func.name)
        elif is_getattr(call.func) and isinstance(call.func.args[1], nodes.Name):
            found.add(call.func.args[1].name)
    return found


def _owner(
    table: nodes.NodeNG, function: nodes.FunctionDef, linearize: Linearize
) -> tuple[nodes.ClassDef | nodes.Module, str] | None:
    """What binds the table *function* reads: ``self.X`` in a method of a class (the
    class, or the first base in its MRO whose body or ``__init__`` binds X), or a name
    bound at the module's top level. None for anything else (an imported name, a
    local, an expression)."""
    if isinstance(table, nodes.Attribute) and isinstance(table.expr, nodes.Name):
        klass = class_of(function)
        if table.expr.name != "self" or klass is None:
            return None
        for candidate in linearize(klass):
            if table.attrname in candidate.locals or table.attrname in candidate.instance_attrs:
                return candidate, table.attrname
        return None
    if isinstance(table, nodes.Name) and table.name not in function.locals:
        module = function.root()
        bound = module.locals.get(table.name, [])
        if bound and all(isinstance(b, nodes.AssignName) for b in bound):
            return module, table.name
    return None

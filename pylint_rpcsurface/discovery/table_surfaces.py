"""Handler tables for ``init``: the tables a dispatch's receive side answers from, and
the surfaces that name them.

A dispatch's senders are linked to a worker loop (:mod:`.workers`) that looks the name
up in a table and calls the result (:mod:`.table_reads`). Such a table is written as a
``tables`` entry when the checker's own reader
(:func:`pylint_rpcsurface.analysis.tables.read_table`) reads it and it answers a name sent;
otherwise it is a note. A table filled at run time by a binding method is written as each
function that calls that method on an instance of the table's class.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from astroid import nodes

from pylint_rpcsurface.analysis.inference import instance_class
from pylint_rpcsurface.analysis.tables import read_table
from pylint_rpcsurface.discovery.readers import TableReader
from pylint_rpcsurface.discovery.reading import Group, SurfaceProposal
from pylint_rpcsurface.discovery.table_reads import TableRead
from pylint_rpcsurface.discovery.workers import top_of
from pylint_rpcsurface.model import Table

# table -> (what proves the receive side reads it, its keys).
TablesRead = dict[str, tuple[str, frozenset[str]]]


class TableSurfaces:
    """Reads which tables answer a dispatch, and proposes their surfaces, with
    *discovery*'s own readers."""

    def __init__(self, discovery: TableReader) -> None:
        self.discovery = discovery

    def read(self, group: Group, reads: list[TableRead]) -> TablesRead:
        """The tables a worker loop linked to the group's senders (either names the
        other's code) looks a name up in and calls the result of, that the checker's
        reader reads and that answer a name sent; each other one is a note."""
        names = {site.name for site in group.sites}
        tops = [top for top in (top_of(s.function) for s in group.senders) if top is not None]
        found: TablesRead = {}
        for read in reads:
            top = top_of(read.function)
            # Linked either way: the senders name the loop's code (the client starts the
            # engine's class), or the loop's code names theirs (a manager builds the
            # senders that feed its queue).
            if top is None or not any(
                t is top or self.discovery.names(t, top) or self.discovery.names(top, t)
                for t in tops
            ):
                continue
            for qualname, table, at, how in self._tables_of(read):
                if isinstance(table, str):
                    self.discovery.notes.append(
                        f"{at}: {read.function.name}() answers {group.method}() from "
                        f"{qualname}, which {table}: not written"
                    )
                    continue
                answered = names & {entry.key for entry in table.entries}
                if not answered:
                    self.discovery.notes.append(
                        f"{at}: {read.function.name}() answers from {qualname}, which has "
                        f"none of the names {group.method}() sends: not written"
                    )
                    continue
                found[qualname] = (how, frozenset(entry.key for entry in table.entries))
        return found

    def _tables_of(self, read: TableRead) -> Iterator[tuple[str, Table | str, str, str]]:
        """(the table's qualified name, the table or why it can't be read, where, what
        proves it) for the table *read* looks up: the dict the code writes out, or, for
        one filled at run time by a binding method, each function that calls that
        method on an instance of the table's class (each such function is a table)."""
        at = self.discovery.where(read.read)
        owner = read.owner
        if read.binder is None:
            qualname = (
                f"{self.discovery.qualname(owner)}.{read.attribute}"
                if isinstance(owner, nodes.ClassDef)
                else f"{owner.name}.{read.attribute}"
            )
            how = (
                f"{at}: {read.function.name}() looks the received name up in it and calls "
                "the result"
            )
            yield (
                qualname,
                read_table(owner, read.attribute, qualname, self.discovery.qualname),
                at,
                how,
            )
            return
        seen: set[int] = set()
        for call in self.discovery.calls.get(read.binder, []):
            function = call.scope()
            if (
                not isinstance(call.func, nodes.Attribute)
                or not isinstance(function, nodes.FunctionDef)
                or id(function) in seen
                or instance_class(call.func.expr) is not owner
            ):
                continue
            seen.add(id(function))
            holder = function.parent
            if not isinstance(holder, (nodes.ClassDef, nodes.Module)):
                continue
            qualname = self.discovery.qualname(function)
            how = (
                f"{self.discovery.where(call)}: {function.name}() binds keys with "
                f"{read.binder}() on a {owner.name}, whose {read.function.name}() looks "
                f"{read.attribute} up and calls the result ({at})"
            )
            table = read_table(holder, function.name, qualname, self.discovery.qualname)
            yield qualname, table, self.discovery.where(function), how

    def surfaces(self, answered: list[tuple[Group, TablesRead]]) -> list[SurfaceProposal]:
        """One surface per set of tables: the callers of every dispatch those tables
        answer, by the roots of their hierarchies, judged only for those dispatches'
        calls (``send`` and ``async_send`` answered by one request table)."""
        by_tables: dict[tuple[str, ...], list[tuple[Group, TablesRead]]] = defaultdict(list)
        for group, tables in answered:
            by_tables[tuple(sorted(tables))].append((group, tables))
        proposals = []
        used: set[str] = set()
        for names, members in sorted(by_tables.items()):
            groups = [group for group, _ in members]
            callers = self.discovery.caller_hierarchies(groups)
            listed = tuple(
                sorted(
                    (
                        self.discovery.qualname(root),
                        f"{self.discovery.where(callers.first_site[key].call)}: sends "
                        f"{callers.first_site[key].name!r}",
                    )
                    for key, root in callers.roots.items()
                )
            )
            evidence = members[0][1]
            sent = {site.name for group in groups for site in group.sites}
            name = names[0].rsplit(".", 1)[-1].lstrip("_").lower() or groups[0].method
            while name in used:
                name += "-2"
            used.add(name)
            proposals.append(
                SurfaceProposal(
                    name=name,
                    callers=listed,
                    handlers=(),
                    tables=tuple(
                        (
                            table,
                            f"{evidence[table][0]}; answers "
                            f"{len(sent & evidence[table][1])} of the {len(sent)} names sent",
                        )
                        for table in names
                    ),
                    dispatch=tuple(sorted({group.method for group in groups})),
                )
            )
        return proposals

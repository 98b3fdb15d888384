"""The table rules: each entry of a handler table must name a handler that exists.

A table (a surface's ``tables``) answers its keys, as a handler class answers the names
it binds: ``rpc-unanswered`` and the registry and reply rules see its keys among the
handlers' names (the engine puts them there). What only a table can get wrong is its
values: an entry naming a method its class lacks is ``rpc-table-handler-missing``, at
the entry. An entry whose class has an ancestor that does not resolve may be answered
by it: never said to lack one.
"""

from __future__ import annotations

from collections.abc import Sequence

from pylint_rpcsurface.model import Finding, SurfaceFacts

__all__ = ["table_findings"]


def table_findings(surfaces: Sequence[SurfaceFacts]) -> list[Finding]:
    """The missing handlers of every table of *surfaces*, sorted."""
    found = []
    for surface in surfaces:
        for table in surface.tables:
            for entry in table.entries:
                if entry.owner is None or entry.answered is not False:
                    continue
                found.append(
                    Finding(
                        entry.at,
                        "rpc-table-handler-missing",
                        (
                            entry.key,
                            table.qualname.rpartition(".")[2],
                            entry.method,
                            entry.owner.rpartition(".")[2],
                        ),
                        "INFERENCE",
                    )
                )
    return sorted(found)

"""Which tables judge a caller's call, when several describe the same calls.

Two surfaces describe the same calls when both judge the call's dispatch method (a
surface without ``dispatch`` judges every one); two proxy tables, when both name the
call's receiver. Of the tables that have the caller among their callers and describe
the call:

1. **The most specific caller wins.** Only the tables that name the caller's nearest
   configured ancestor (itself first) judge it: a configured class nearer than another
   when it descends from that other. Two configured ancestors neither of which descends
   from the other are equally near, and both their tables judge.
2. **Then ``when``.** Of those, a table whose ``when`` is contradicted where the call
   runs (the call runs under its negation) does not judge it; if any table's ``when``
   holds there, only the tables whose ``when`` holds judge it; otherwise every table
   left does, with or without ``when``, as if none had one.

A call in code a subclass inherits is judged once for each caller that runs it, each
time by that caller's tables: one site may be judged by the base's table for the base,
and by the subclass's own table for the subclass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pylint_rpcsurface.config.expressions import canonical

__all__ = ["Judge", "Judging", "TableScope"]

# Whether one table judges a caller's call: (caller, dispatch method or receiver, the
# call's conditions).
Judge = Callable[[str, str, Sequence[str]], bool]


@dataclass(frozen=True)
class TableScope:
    """What one table says of the calls it judges."""

    callers: frozenset[str]  # as configured, qualified
    members: frozenset[str]  # the configured callers and every subclass found
    keys: frozenset[str] | None  # the dispatch methods or receivers; None: every one
    when: str | None = None  # as configured


class Judging:
    """The judges of each call, among one kind of table (the surfaces, or the proxies)."""

    def __init__(
        self, tables: Sequence[TableScope], family: Mapping[str, tuple[object, frozenset[str]]]
    ) -> None:
        """*family*: each caller class found, with the configured callers it is or
        descends from (``CallerFamily.classes``)."""
        self.tables = tuple(tables)
        self.family = family
        self._holds = tuple(canonical(t.when) if t.when else None for t in self.tables)
        self._fails = tuple(
            canonical(t.when, negated=True) if t.when else None for t in self.tables
        )
        self._specific: dict[tuple[str, str], tuple[int, ...]] = {}

    def judges(self, table: int, caller: str, key: str, conditions: Sequence[str]) -> bool:
        """Whether the table at *table* judges *caller*'s call of *key* (its dispatch
        method or receiver), made under *conditions*."""
        specific = self.most_specific(caller, key)
        live = [i for i in specific if self._fails[i] is None or self._fails[i] not in conditions]
        holding = [i for i in live if self._holds[i] is not None and self._holds[i] in conditions]
        return table in (holding or live)

    def most_specific(self, caller: str, key: str) -> tuple[int, ...]:
        """The tables that describe *caller*'s calls of *key* and name its nearest
        configured ancestor, by position."""
        known = self._specific.get((caller, key))
        if known is not None:
            return known
        candidates = [
            i
            for i, t in enumerate(self.tables)
            if caller in t.members and (t.keys is None or key in t.keys)
        ]
        lineage = self._lineage(caller)
        named = {name for i in candidates for name in self.tables[i].callers if name in lineage}
        nearest = {
            name
            for name in named
            if not any(other != name and name in self._lineage(other) for other in named)
        }
        found = tuple(i for i in candidates if self.tables[i].callers & nearest)
        self._specific[(caller, key)] = found
        return found

    def _lineage(self, caller: str) -> frozenset[str]:
        """The configured callers *caller* is or descends from (a function, itself)."""
        found = self.family.get(caller)
        return frozenset({caller}) | (found[1] if found is not None else frozenset())

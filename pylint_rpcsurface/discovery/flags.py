"""``when`` tables: a flag of the caller chooses the handlers and guards the calls.

verl's trainer tests ``use_legacy_worker_impl`` to choose the worker class and again around
the calls it makes; an ATOM-like core binds its runner under ``if self.use_rapidserve:``
and sends the RapidServe names only under the same test. The receive side of such a
caller, read whole, reaches both classes. It is read again under the test and under its
negation: a binding in the caller's own methods (its class and its subclasses, where
``self`` is the object the test reads) that runs only under the other value is not
followed, and astroid's inference, which merges both branches, is not asked, so every
class found is found by the structural reading alone (which must reach, read whole, the
same handlers inference did). When the two readings reach different handlers, each is a
table with ``when`` set to the test or to its negation, as the checker compares them
(``config/expressions.py``: syntax trees, never text).

The calls must run under one value or the other (``analysis/conditions.py`` reads them as
the checker does): a call under neither that sends a name some of the handlers don't
answer would be judged by both tables, and which worker answers it is not in the code. Then
both tables are written commented out, with the calls listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from astroid import nodes

from pylint_rpcsurface.analysis.conditions import conditions_of
from pylint_rpcsurface.config.expressions import canonical
from pylint_rpcsurface.discovery import unproven
from pylint_rpcsurface.discovery.evidence import Found
from pylint_rpcsurface.discovery.readers import FlagReader, RunMethodHelpers
from pylint_rpcsurface.discovery.reading import Group, Site, SurfaceProposal, Worker, count

# The tests of a caller's methods tried as the flag: each costs two readings of its
# receive side.
_MAX_TESTS = 8
# A comparison and the one its negation is, as written in a ``when``.
_NEGATED_OPS: Mapping[str, str] = MappingProxyType(
    {"==": "!=", "!=": "==", "is": "is not", "is not": "is", "in": "not in", "not in": "in"}
)


@dataclass(frozen=True)
class Branch:
    """One value of the flag: its ``when``, the evidence, the handlers reached under it."""

    when: str
    evidence: str
    handlers: tuple[nodes.ClassDef, ...]
    proven: Found


@dataclass(frozen=True)
class _Reading:
    """What a caller's receive side is read from: its call sites by group index, the
    groups, the worker loops and the run_method helpers."""

    sites: dict[int, list[Site]]
    groups: list[Group]
    workers: list[Worker]
    helpers: RunMethodHelpers


@dataclass(frozen=True)
class FlagSplit:
    """The flag that chooses a caller's handlers, its two branches, and the calls that run
    under neither and send names not every handler answers (then nothing is proven)."""

    test: nodes.NodeNG
    branches: tuple[Branch, Branch]
    unguarded: tuple[str, ...]


class FlagSplits:
    """Finds the flag that splits a caller's handlers, reading with *reader*."""

    def __init__(self, reader: FlagReader) -> None:
        self.reader = reader

    def split(
        self,
        root: nodes.ClassDef | nodes.FunctionDef,
        *,
        sites: dict[int, list[Site]],
        groups: list[Group],
        chosen: list[nodes.ClassDef],
        workers: list[Worker],
        helpers: RunMethodHelpers,
    ) -> FlagSplit | None:
        """The flag that chooses between *chosen*, the handlers *root*'s hierarchy reaches
        (its call sites *sites* by group index); None when no one test does."""
        if not isinstance(root, nodes.ClassDef) or len(chosen) < 2:
            return None
        family = frozenset(
            id(c) for c in [root, *self.reader.receivers.subclasses.get(id(root), [])]
        )
        every = [s for group_sites in sites.values() for s in group_sites]
        reading = _Reading(sites, groups, workers, helpers)
        whole, _ = self._handlers(root, frozenset(), family, reading, every)
        if {id(h) for h in whole} != {id(h) for h in chosen}:
            return None  # the structural reading alone doesn't account for them
        found: list[FlagSplit] = []
        for test, holds, fails in self._candidates(root):
            branches = []
            for contradicted, shown in ((fails, test.as_string()), (holds, _negated(test))):
                running = [s for s in every if contradicted not in conditions_of(s.call)]
                handlers, proven = self._handlers(
                    root, frozenset({contradicted}), family, reading, running
                )
                branches.append((shown, handlers, proven))
            ids = [{id(h) for h in handlers} for _, handlers, _ in branches]
            if not all(ids) or ids[0] == ids[1] or ids[0] | ids[1] != {id(h) for h in chosen}:
                continue
            if (ids[0] - ids[1]) & branches[1][2].keys() or (ids[1] - ids[0]) & branches[0][
                2
            ].keys():
                continue  # reached under both values: the names sent, not the flag, differ
            if canonical(branches[1][0]) != fails:
                continue  # the negation can't be written as the checker reads it
            found.append(self._split(test, holds, fails, branches, every))
        return found[0] if len(found) == 1 else None

    def commented(
        self,
        root: nodes.ClassDef | nodes.FunctionDef,
        split: FlagSplit,
        sites: dict[int, list[Site]],
    ) -> list[SurfaceProposal]:
        """*split*'s two tables, refused: calls run under neither value of the flag."""
        reader = self.reader
        at = reader.where(split.test)
        test = split.test.as_string()
        callers = unproven.sending(reader, root, [s for g in sites.values() for s in g])
        more = len(split.unguarded) - 3
        calls = "; ".join(split.unguarded[:3]) + (f" (and {more} more)" if more > 0 else "")
        return [
            SurfaceProposal(
                name=root.name,
                callers=callers,
                handlers=(),
                refused=f"{at}: `if {test}:` chooses the handlers of "
                f"{reader.qualname(root)}, but calls run under neither it nor its negation "
                f"and send names not every one of them answers: {calls}",
                candidates=tuple(reader.qualname(h) for h in branch.handlers),
                unproven=tuple(
                    (reader.qualname(h), branch.proven[id(h)][1]) for h in branch.handlers
                ),
                confirm="which handlers the calls outside the test's branches reach",
                when=branch.when,
                when_evidence=branch.evidence,
            )
            for branch in split.branches
        ]

    def _split(
        self,
        test: nodes.NodeNG,
        holds: str,
        fails: str,
        branches: list[tuple[str, list[nodes.ClassDef], Found]],
        every: list[Site],
    ) -> FlagSplit:
        at = self.reader.where(test)
        made = []
        for (when, handlers, proven), condition in zip(branches, (holds, fails), strict=True):
            under = [s for s in every if condition in conditions_of(s.call)]
            made.append(
                Branch(
                    when,
                    f"{at}: the handlers are bound under `if {test.as_string()}:`; the "
                    f"callers send under {when} at {count(len(under), 'call site')}",
                    tuple(handlers),
                    {id(h): proven[id(h)] for h in handlers},
                )
            )
        answered_by_all = frozenset.intersection(
            *(self.reader.answers(h) for branch in made for h in branch.handlers)
        )
        unguarded = tuple(
            f"{self.reader.where(s.call)} sends {s.name!r}"
            for s in every
            if holds not in conditions_of(s.call)
            and fails not in conditions_of(s.call)
            and s.name not in answered_by_all
        )
        return FlagSplit(test, (made[0], made[1]), unguarded)

    def _handlers(
        self,
        root: nodes.ClassDef,
        contradicted: frozenset[str],
        family: frozenset[int],
        reading: _Reading,
        running: list[Site],
    ) -> tuple[list[nodes.ClassDef], Found]:
        """The handlers *root*'s receive side reaches, read structurally, skipping the
        bindings under the *contradicted* conditions, for the names of the *running*
        sites; and every class it reaches."""
        reader = self.reader
        with reader.reading_with(reader.receivers.guarded(contradicted, family)):
            groups = reading.groups
            sides = [
                reader.receive_side(
                    groups[i],
                    reading.workers,
                    reading.helpers,
                    reader.senders_for(root, groups[i], mine),
                )
                for i, mine in sorted(reading.sites.items())
            ]
            proven = reader.proven(root, sides)
        names = {s.name for s in running}
        handlers = reader.among(proven, names) if proven and names else []
        if reader.admitted(handlers, proven):
            return [], proven  # an annotation admitting several: which one is not known
        return handlers, proven

    def _candidates(self, root: nodes.ClassDef) -> list[tuple[nodes.NodeNG, str, str]]:
        """The tests of the hierarchy's methods that read ``self`` and call nothing, each
        with its condition and its negation's (a test and its negation are one)."""
        classes = [root, *self.reader.receivers.subclasses.get(id(root), [])]
        found: dict[frozenset[str], tuple[nodes.NodeNG, str, str]] = {}
        for cls in classes:
            for node in cls.nodes_of_class((nodes.If, nodes.IfExp)):
                test = node.test
                if not _reads_self(test):
                    continue
                holds = canonical(test.as_string())
                fails = canonical(test.as_string(), negated=True)
                if holds is None or fails is None:
                    continue
                if isinstance(test, nodes.UnaryOp) and test.op == "not":
                    test, holds, fails = test.operand, fails, holds
                found.setdefault(frozenset({holds, fails}), (test, holds, fails))
        return list(found.values())[:_MAX_TESTS]


def _reads_self(test: nodes.NodeNG) -> bool:
    """Whether *test* reads an attribute of ``self`` and calls nothing: its value is the
    object's, the same in each method of the hierarchy."""
    if any(True for _ in test.nodes_of_class(nodes.Call)):
        return False
    return any(
        isinstance(a.expr, nodes.Name) and a.expr.name == "self"
        for a in test.nodes_of_class(nodes.Attribute)
    )


def _negated(test: nodes.NodeNG) -> str:
    """The negation of *test*, written as a ``when``: a comparison's opposite operator,
    else ``not``."""
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] in _NEGATED_OPS:
        operator, right = test.ops[0]
        return f"{test.left.as_string()} {_NEGATED_OPS[operator]} {right.as_string()}"
    text = test.as_string()
    return f"not {text}" if isinstance(test, (nodes.Name, nodes.Attribute)) else f"not ({text})"

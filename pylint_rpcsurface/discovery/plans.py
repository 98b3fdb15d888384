"""The surfaces being planned: the callers that reach each set of handlers, under each
condition."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from astroid import nodes

from pylint_rpcsurface.discovery.evidence import Found

# The handlers' ids, sorted, and the condition the callers reach them under ("": always).
Plan = tuple[tuple[int, ...], str]


@dataclass
class Plans:
    """The callers that reach each set of handlers (by the handlers' ids) under each
    condition (a ``when``, "" for every call), what proves it, and what the worker loop
    answers for each caller's receive side."""

    callers: dict[Plan, list[int]] = field(default_factory=lambda: defaultdict(list))
    proven: dict[Plan, Found] = field(default_factory=lambda: defaultdict(dict))
    loop_answers: dict[Plan, list[dict[str, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    when_evidence: dict[Plan, str] = field(default_factory=dict)

    def add(
        self,
        caller: int,
        handlers: Sequence[nodes.ClassDef],
        proven: Found,
        answers: dict[str, str],
        when: tuple[str, str] = ("", ""),
    ) -> None:
        plan = (tuple(sorted(id(c) for c in handlers)), when[0])
        self.callers[plan].append(caller)
        self.proven[plan].update(proven)
        self.loop_answers[plan].append(answers)
        self.when_evidence[plan] = when[1]

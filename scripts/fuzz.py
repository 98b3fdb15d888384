#!/usr/bin/env python3
"""Long fuzz runs over file and name shapes (tests/fuzz_shapes.py; docs/reliability.md,
section 9).

    python scripts/fuzz.py --minutes 10                  # random seed, 10 minutes
    python scripts/fuzz.py --examples 200 --seed 1234    # reproducible
    python scripts/fuzz.py --include-pending             # draw the shapes pending a fix too

Runs rounds of random examples until the time or the example budget is spent. When an
example breaks an oracle, hypothesis shrinks it to a minimal one; the script prints it
and writes its project (and the twin the relation compares it with) and a README.txt
with the spec, the commands and what broke to ``--out``/<n>-<kind>/. Later rounds leave
that kind of problem aside, so one bug doesn't hide the others. Exit status: 0 when no
example failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import fuzz_shapes as fz  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402


@dataclass
class Campaign:
    deadline: float
    examples_left: int
    known: set[str] = field(default_factory=set)  # kinds already reported
    examples: int = 0
    failures: list[tuple[fz.Spec, list[fz.Problem], Path]] = field(default_factory=list)
    last_failure: tuple[fz.Spec, list[fz.Problem]] | None = None
    types: dict[str, type[AssertionError]] = field(default_factory=dict)


# Shrinking a failure found near the end may run this long past the time budget.
SHRINK_GRACE = 300.0


class OutOfBudget(Exception):
    """Raised inside an example when the budget is spent: ends the round."""


def _failure_type(campaign: Campaign, kind: str) -> type[AssertionError]:
    """One exception type per kind of problem, the same on every call (a replayed example
    must raise the same type, or hypothesis calls it flaky), so hypothesis keeps them apart."""
    if kind not in campaign.types:
        name = "Fuzz_" + re.sub(r"\W+", "_", kind).strip("_")
        campaign.types[kind] = type(name, (AssertionError,), {})
    return campaign.types[kind]


def run_round(campaign: Campaign, pending: frozenset[str], round_seed: int, chunk: int) -> None:
    @settings(
        max_examples=chunk,
        deadline=None,
        database=None,
        derandomize=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    @seed(round_seed)
    @given(fz.specs(pending))
    def example(spec: fz.Spec) -> None:
        if campaign.last_failure is None:
            if time.monotonic() > campaign.deadline or campaign.examples_left <= 0:
                raise OutOfBudget
        elif time.monotonic() > campaign.deadline + SHRINK_GRACE:
            return  # shrinking past its grace: keep the smallest failure found so far
        campaign.examples += 1
        campaign.examples_left -= 1
        with tempfile.TemporaryDirectory(prefix="rpcsurface-fuzz-") as folder:
            examined = fz.examine(spec, Path(folder) / "project", twin_root=Path(folder) / "twin")
        new = [p for p in examined.problems if p.kind not in campaign.known]
        if new:
            campaign.last_failure = (spec, new)
            raise _failure_type(campaign, new[0].kind)(new[0].kind)

    campaign.last_failure = None
    example()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="time budget (10)")
    parser.add_argument("--examples", type=int, default=10**9, help="example budget")
    parser.add_argument("--seed", type=int, default=None, help="seed (random)")
    parser.add_argument("--chunk", type=int, default=25, help="examples per round (25)")
    parser.add_argument(
        "--out", type=Path, default=Path("fuzz-failures"), help="folder for reproducers"
    )
    parser.add_argument(
        "--include-pending",
        action="store_true",
        help="draw the shapes of PENDING_FIXES too (their fixes are on other branches)",
    )
    arguments = parser.parse_args(argv)
    master = (
        arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    )
    pending = frozenset() if arguments.include_pending else fz.PENDING_FIXES
    started = time.monotonic()
    campaign = Campaign(started + arguments.minutes * 60, arguments.examples)
    chooser = random.Random(master)
    print(f"seed {master}; pending shapes left out: {sorted(pending) or 'none'}", flush=True)
    rounds = 0
    while time.monotonic() < campaign.deadline and campaign.examples_left > 0:
        rounds += 1
        try:
            run_round(campaign, pending, chooser.randrange(2**32), arguments.chunk)
        except OutOfBudget:
            break
        except Exception:  # a failure hypothesis found, or its FlakyFailure group
            if campaign.last_failure is None:
                raise
            spec, problems = campaign.last_failure
            kind = problems[0].kind
            campaign.known.update(p.kind for p in problems)
            number = len(campaign.failures) + 1
            slug = re.sub(r"\W+", "-", kind).strip("-")[:60]
            readme = fz.reproducer(spec, problems, arguments.out / f"{number:02d}-{slug}")
            campaign.failures.append((spec, problems, readme))
            print(f"\nFAILURE {number}: {kind}\n  minimal spec: {spec!r}", flush=True)
            for problem in problems:
                print(f"  * {problem.kind}: {problem.detail[:2000]}", flush=True)
            print(f"  reproducer: {readme}", flush=True)
        print(
            f"round {rounds}: {campaign.examples} examples so far, "
            f"{time.monotonic() - started:.0f} s",
            flush=True,
        )
    elapsed = time.monotonic() - started
    print(
        f"\n{campaign.examples} examples (shrinking included) in {rounds} rounds, "
        f"{elapsed / 60:.1f} min, seed {master}: {len(campaign.failures)} failure(s)"
    )
    for number, (_, problems, readme) in enumerate(campaign.failures, 1):
        print(f"  {number}. {problems[0].kind} -> {readme}")
    return 1 if campaign.failures else 0


if __name__ == "__main__":
    if hasattr(os, "nice") and os.environ.get("RPCSURFACE_FUZZ_NICE"):
        os.nice(int(os.environ["RPCSURFACE_FUZZ_NICE"]))
    sys.exit(main())

#!/usr/bin/env python3
"""A long run of the memo's oracle: random edit sequences, the memo's answer against the
answer from nothing (``--no-cache``) after every step.

    python scripts/oracle_campaign.py --examples 300            # random seed
    python scripts/oracle_campaign.py --examples 300 --seed 7   # reproducible

It draws from the property tests' own strategies, with more examples than the default
test run gives them:

- ``tests/test_incremental.py``: a project and up to four edits of one module each (the
  caller's calls, the handlers' names, the registry, a subclass, everything), written to
  disk, and an unsaved buffer of the caller over a saved project;
- ``tests/test_incremental_bodies.py``: sequences of body-only edits over the shapes
  inference sees through (a helper's return, ``__init__`` attributes, globals, factory
  bases, lines inserted above methods and helpers...), saved or as buffers;
- ``tests/test_incremental_members.py``: sequences of edits of what a class binds (a
  member added that shadows a base's, a class attribute naming another, an import or a
  nested class in its body, an instance attribute set in a new method), saved or as
  buffers.

Every answer from nothing is also computed with astroid's full build of every module
(``RPCSURFACE_BUILD=full``) and held to the lean build's (analysis/lean_build.py): the
count of those comparisons and of their differences is printed (``--no-full-build``
skips them).

Prints, per property, the sequences run and the differences found, and exits 1 if any
sequence's answers differed (hypothesis then prints the shrunk sequence).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import test_incremental as saved_edits  # noqa: E402
import test_incremental_bodies as body_edits  # noqa: E402
import test_incremental_members as member_edits  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pylint_rpcsurface import engine  # noqa: E402
from pylint_rpcsurface.analysis.lean_build import BUILD_ENV  # noqa: E402


def _properties() -> dict[str, tuple[Callable[..., None], tuple[Any, ...]]]:
    """Each property's body (the test without its settings) and its strategies."""
    sequences = st.lists(
        st.tuples(st.sampled_from(body_edits.SCENARIOS), st.sampled_from("ab"), st.booleans()),
        min_size=2,
        max_size=8,
    )
    class_sequences = st.lists(
        st.tuples(st.sampled_from(member_edits.SCENARIOS), st.sampled_from("ab"), st.booleans()),
        min_size=2,
        max_size=8,
    )
    return {
        "edit sequences saved to disk (test_incremental)": (
            lambda versions: _in_folder(saved_edits._edit_in_sequence, versions),
            (saved_edits.edited(),),
        ),
        "an unsaved buffer over a saved project (test_incremental)": (
            lambda saved, edited: _in_folder(saved_edits._edit_a_buffer, saved, edited),
            (saved_edits.projects(), saved_edits.projects()),
        ),
        "body-only edit sequences, saved or buffered (test_incremental_bodies)": (
            body_edits.test_sequences_of_body_edits_give_the_answer_from_nothing.hypothesis.inner_test,
            (sequences,),
        ),
        "class-member edit sequences, saved or buffered (test_incremental_members)": (
            member_edits.test_sequences_of_class_edits_give_the_answer_from_nothing.hypothesis.inner_test,
            (class_sequences,),
        ),
    }


def _in_folder(body: Callable[..., None], *arguments: Any) -> None:
    with saved_edits._folder() as root:
        body(root, *arguments)


def _counted(
    body: Callable[..., None], strategies: tuple[Any, ...], count: list[int]
) -> Callable[[st.DataObject], None]:
    """*body* on values drawn from *strategies*, counting the sequences run."""

    def run(data: st.DataObject) -> None:
        count[0] += 1
        body(*(data.draw(strategy) for strategy in strategies))

    return run


class FullBuildOracle:
    """Computes every answer from nothing (no memo) a second time with astroid's full
    build, and counts the comparisons and the differences with the lean build's."""

    def __init__(self) -> None:
        self.compared = 0
        self.differed: list[str] = []

    def wrap(self, surface_facts: Callable[..., Any]) -> Callable[..., Any]:
        def checked(config: Any, overrides: Any = None, *args: Any, **kwargs: Any) -> Any:
            facts = surface_facts(config, overrides, *args, **kwargs)
            if kwargs.get("memo") is not None or args:
                return facts
            with _environment(BUILD_ENV, "full"):
                full = surface_facts(config, overrides)
            self.compared += 1
            if _answer(facts) != _answer(full):
                self.differed.append(f"{_answer(facts)} != {_answer(full)}")
            return facts

        return checked


def _answer(facts: Any) -> list[tuple[Any, ...]]:
    analysis = facts.analysis()
    found = [
        (f.symbol, f.location.path, f.location.line, f.location.col, f.args, f.surfaces)
        for f in analysis.all_findings()
    ]
    return sorted(found) + sorted(("config", str(e)) for e in analysis.config_errors)


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="sequences per property")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--no-full-build", action="store_true", help="skip the lean = full build comparison"
    )
    options = parser.parse_args()
    oracle = FullBuildOracle()
    if not options.no_full_build:
        checked = oracle.wrap(engine.surface_facts)
        for module in (engine, saved_edits, body_edits, member_edits):
            if hasattr(module, "surface_facts"):
                setattr(module, "surface_facts", checked)  # noqa: B010
    chosen = options.seed if options.seed is not None else random.randrange(2**32)
    print(f"seed {chosen}, {options.examples} sequences per property")
    failed = 0
    for name, (body, strategies) in _properties().items():
        count = [0]
        test = seed(chosen)(
            settings(
                max_examples=options.examples,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )(given(st.data())(_counted(body, strategies, count)))
        )
        started = time.monotonic()
        try:
            test()
            differences = 0
        except AssertionError as error:  # hypothesis re-raises the shrunk example's
            differences = 1
            print(f"  a difference: {error}")
        failed += differences
        took = time.monotonic() - started
        print(f"{name}: {count[0]} sequences run, {differences} with a difference ({took:.0f} s)")
    if not options.no_full_build:
        print(
            f"lean build = astroid's full build: {oracle.compared} answers from nothing "
            f"compared, {len(oracle.differed)} differed"
        )
        for difference in oracle.differed[:5]:
            print(f"  {difference}")
    return 1 if failed or oracle.differed else 0


if __name__ == "__main__":
    sys.exit(main())

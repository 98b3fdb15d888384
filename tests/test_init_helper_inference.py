"""init's worker side asks astroid what a call ``x = f(...)`` calls only when the answer
can be a function of the project that hands a loop a received name (issue 50, item 4): a
name bound to a builtin, to the standard library or to a class statement is a class, its
instance or Python's own, never a helper that receives the name, and inferring it built
``inspect`` (for ``Signature()``) or ran a dataclass's transform for nothing; a name the
look-up and the imports bind to one ``def`` is that function; a helper is called by its
own name (or one it is imported under), so a function held in a local is no helper call;
and where no function of the project returns what it received, no call can be such a
helper."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import asked_of, discovered, project

from pylint_rpcsurface.discovery import loop_helpers

LOOP = """\
import dataclasses
from inspect import Signature

from svc.helpers import next_request, log_size, cached_request
from svc.helpers import cached_request as fetch
from svc.helpers import Kept as Renamed


@dataclasses.dataclass
class Reply:
    value: object


def busy_loop(inbox, outbox, runner, make_reader):
    while True:
        name, args = next_request(inbox)
        signature = Signature()
        kept = Renamed()
        size = len(args)
        logged = log_size(args)
        reader = make_reader
        again = reader()
        cached = cached_request(inbox)
        fetched = fetch(inbox)
        func = getattr(runner, name)
        reply = Reply(func(*args))
        outbox.put(reply)
"""

HELPERS = """\
import functools


def next_request(inbox):
    name, args = inbox.get()
    return name, args


def log_size(args):
    return len(args)


@functools.lru_cache
def cached_request(inbox):
    name, args = inbox.get()
    return name, args


class Kept:
    pass
"""


def _inferred_while_discovering(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], set[str]]:
    """What the loop helpers' search asked astroid to infer, and the names busy_loop
    receives."""
    inferred = asked_of(monkeypatch, loop_helpers, "inferred_values")
    with discovered(root) as found:
        (loop,) = [f for f in found.functions if f.name == "busy_loop"]
        received = found.worker_side.received_names(loop)
    return sorted(inferred), received


def test_only_calls_that_may_reach_a_project_function_are_inferred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(
        tmp_path / "proj",
        {"svc/__init__.py": "", "svc/loops.py": LOOP, "svc/helpers.py": HELPERS},
    )
    inferred, received = _inferred_while_discovering(root, monkeypatch)
    # The name still arrives through the project's helper, found by the imports alone.
    assert {"name", "args"} <= received
    # Inferred: a helper's name bound to a decorated def (cached_request, and fetch
    # through its import), which astroid may infer to something else. Not inferred: one
    # def the look-up and the imports reach (next_request, log_size), a class (Reply, and
    # Renamed through its import), the standard library (Signature), a builtin (len),
    # and a name an assignment binds (reader), which no helper is called by.
    assert inferred == ["cached_request", "fetch"]


def test_nothing_is_inferred_when_no_function_hands_a_received_name_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without next_request, no function of the project returns what it received: no
    # helper can give a loop a name, so no call is asked what it calls.
    loop = LOOP.replace("name, args = next_request(inbox)", "name, args = inbox.get()")
    helpers = HELPERS.replace("    return name, args\n", "    print(name, args)\n")
    root = project(
        tmp_path / "proj",
        {"svc/__init__.py": "", "svc/loops.py": loop, "svc/helpers.py": helpers},
    )
    inferred, received = _inferred_while_discovering(root, monkeypatch)
    assert {"name", "args"} <= received
    assert inferred == []

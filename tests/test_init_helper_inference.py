"""init's worker side asks astroid what a call ``x = f(...)`` calls only when the answer
can be a function of the project (issue 50, item 4): a name bound to a builtin, to the
standard library or to a class statement is a class, its instance or Python's own, never
a helper that receives the name, and inferring it built ``inspect`` (for ``Signature()``)
or ran a dataclass's transform for nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes
from support import discovered, project

from pylint_rpcsurface.discovery import loop_helpers

LOOP = """\
import dataclasses
from inspect import Signature

from svc.helpers import next_request
from svc.helpers import Kept as Renamed


@dataclasses.dataclass
class Reply:
    value: object


def busy_loop(inbox, outbox, runner):
    while True:
        name, args = next_request(inbox)
        signature = Signature()
        kept = Renamed()
        size = len(args)
        func = getattr(runner, name)
        reply = Reply(func(*args))
        outbox.put(reply)
"""

HELPERS = """\
def next_request(inbox):
    name, args = inbox.get()
    return name, args


class Kept:
    pass
"""


def test_only_calls_that_may_reach_a_project_function_are_inferred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(
        tmp_path / "proj",
        {"svc/__init__.py": "", "svc/loops.py": LOOP, "svc/helpers.py": HELPERS},
    )
    inferred: list[str] = []
    infer = loop_helpers.inferred_values

    def recording(node: nodes.NodeNG) -> list[object]:
        inferred.append(node.as_string())
        return infer(node)

    monkeypatch.setattr(loop_helpers, "inferred_values", recording)
    with discovered(root) as found:
        (loop,) = [f for f in found.functions if f.name == "busy_loop"]
        # The name still arrives through the project's helper, which is inferred.
        assert {"name", "args"} <= found.worker_side.received_names(loop)
    # An imported project class (Renamed) may be anything: inferred. A class statement
    # (Reply), the standard library (Signature) and a builtin (len) are not.
    assert sorted(inferred) == ["Renamed", "next_request"]

"""init follows a name passed to a method of another object only where some class the
object may be has that method (issue 50, item 4): reading what ``self.pending`` holds,
to find ``appendleft`` on no class of the project, built the standard library's
``collections`` for nothing (a third of a second of init on vLLM 0.11.2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes
from support import discovered, project

from pylint_rpcsurface.discovery.evidence import Found, Receivers

DRIVER = """\
import collections


class Worker:
    def run_method(self, method, *args):
        return getattr(self, method)(*args)

    def ping(self):
        return "pong"


class Driver:
    def __init__(self):
        self.worker = Worker()
        self.pending = collections.deque()

    def call(self, method, *args):
        self.pending.appendleft(method)
        return self.worker.run_method(method, *args)
"""


def test_only_objects_that_may_have_the_method_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj", {"svc/__init__.py": "", "svc/driver.py": DRIVER})
    read: list[str] = []
    instances = Receivers.instances

    def recorded(self: Receivers, node: nodes.NodeNG, depth: int = 10) -> Found:
        read.append(node.as_string())
        return instances(self, node, depth)

    monkeypatch.setattr(Receivers, "instances", recorded)
    with discovered(root) as found:
        (call,) = [f for f in found.functions if f.name == "call"]
        own, _ = found.sender_side(call, {"method"}, [], {})
    # The name reaches the worker's run_method, which looks it up on the worker.
    assert [cls.name for cls, _ in own.values()] == ["Worker"]
    assert "self.worker" in read
    assert "self.pending" not in read  # no class of the project has appendleft

"""The best handlers of a group of names sent: the classes answering most of them, the
most general of those tied (issue 50, item 4). sglang 0.5.23's thousands of classes
answering ``forward`` made ``init`` ask every pair of tied classes whether one derives
from the other (61.8 million questions, most of its 110 s), and every class the share it
answers of every one of its 895 groups."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import asked_of, discovered, init_engine, project

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.discovery import discover
from pylint_rpcsurface.discovery.core import Discovery

SIBLINGS = 80


def _runners() -> str:
    """SIBLINGS runners answering ``x`` and one name of their own each, the last one's
    subclass answering no more, and a base answering ``x`` alone."""
    classes = ["class Base:\n    def x(self): ...\n"]
    for i in range(SIBLINGS):
        classes.append(f"class Runner{i}:\n    def x(self): ...\n    def y{i}(self): ...\n")
    classes.append(f"class Sub(Runner{SIBLINGS - 1}):\n    def extra(self): ...\n")
    return "\n\n".join(classes)


@pytest.fixture(name="root")
def _root(tmp_path: Path) -> Path:
    return project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/runners.py": _runners()})


def test_the_most_general_of_the_tied_each_order_read_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with discovered(root) as discovery:
        # Every runner answers "x" (the base too, and the subclass of the last runner).
        orders = asked_of(monkeypatch, ClassIndex, "linearize", lambda _index, cls: cls.name)
        best = discovery.best_handlers({"x"}, set())
    assert best is not None
    handlers, share = best
    assert share == 1.0
    # The subclass answers no more than its base: left out; the rest derive from nothing.
    expected = ["Base", *(f"Runner{i}" for i in range(SIBLINGS))]
    assert [cls.name for cls in handlers] == expected
    # An order read for each class, a few times each, not once for each pair of them.
    assert len(orders) <= 3 * (SIBLINGS + 2), len(orders)


def test_what_each_class_answers_is_read_once_for_every_group(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with discovered(root) as discovery:
        asked = asked_of(monkeypatch, Discovery, "answers", lambda _d, cls: cls.name)
        for i in range(10):
            best = discovery.best_handlers({"x", f"y{i}"}, set())
            assert best is not None
            assert [cls.name for cls in best[0]] == [f"Runner{i}"]  # 2 of 2; the rest 1
        # A class excluded (it defines the dispatch method) is not among them.
        runner = best[0][0]
        assert discovery.best_handlers({"x", "y9"}, {id(runner)}) is None
    classes = SIBLINGS + 2
    # Each class once, then the handler of each group (whether it is only stubs).
    assert len(asked) <= classes + 2 * 11, len(asked)


LOGGER = """\
import queue

EVENTS = queue.Queue()


def publish(topic, payload):
    EVENTS.put((topic, payload))


def started():
    publish("engine_event", {"started": True})


def stopped():
    publish("engine_event", {"stopped": True})
    publish("engine_event", {"again": True})
"""


def test_a_group_of_one_name_is_a_note_without_reading_its_receive_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A receive side reaching a class that answers its names confirms a group of two
    names or more only: with one, the group is a note whatever the side reaches, and the
    side is not read (most of sglang 0.5.23's 889 unconfirmed groups)."""
    folder = init_engine(tmp_path / "p", {"seedengine/events.py": LOGGER})
    read = asked_of(monkeypatch, Discovery, "receive_side", lambda _d, group, *_: group.method)
    proposal = discover(folder, (folder,))
    notes = [note for note in proposal.notes if "publish()" in note]
    assert len(notes) == 1
    assert "not a dispatch" in notes[0]
    assert "publish" not in read
    # A second name sent: the receive side is read (and reaches no class answering it).
    (folder / "seedengine" / "events.py").write_text(
        LOGGER.replace('publish("engine_event", {"again"', 'publish("engine_paused", {"again"'),
        encoding="utf-8",
    )
    read.clear()
    proposal = discover(folder, (folder,))
    assert [note for note in proposal.notes if "publish()" in note]
    assert "publish" in read

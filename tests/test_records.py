"""Records (model.Record, model.OrderedRecord) behave as the frozen dataclasses they stand
for: each behaviour is compared with a twin class that lets ``dataclass`` generate it."""

from __future__ import annotations

import ast
import dataclasses
import pickle
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pylint_rpcsurface import model
from pylint_rpcsurface.model import Location, OrderedRecord, Record

PACKAGE = Path(model.__file__).parent
# Below the model (model.py imports them): their dataclasses keep dataclass's methods.
BELOW_THE_MODEL = {"sources.py", "config/schema.py", "config/discovery.py"}


@dataclass(frozen=True, eq=False, repr=False)
class Point(Record):
    x: int
    y: int
    label: str = field(default="", compare=False)
    cache: tuple[int, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class PointTwin:
    x: int
    y: int
    label: str = field(default="", compare=False)
    cache: tuple[int, ...] = field(default=(), repr=False)


@dataclass(frozen=True, eq=False, repr=False)
class Ranked(OrderedRecord):
    name: str
    rank: int


@dataclass(frozen=True, order=True)
class RankedTwin:
    name: str
    rank: int


@dataclass(frozen=True, eq=False, repr=False)
class Single(Record):
    value: str


@dataclass(frozen=True)
class SingleTwin:
    value: str


@dataclass(frozen=True, eq=False, repr=False)
class OtherPoint(Record):
    x: int
    y: int


PAIRS = [
    ((1, 2, "a", (1,)), (1, 2, "b", (1,))),  # differ only in a compare=False field
    ((1, 2, "a", (1,)), (1, 3, "a", (1,))),
    ((1, 2), (1, 2)),
    ((0, 0, "", ()), (0, 0, "", (2,))),
]


@pytest.mark.parametrize(("left", "right"), PAIRS)
def test_equality_and_hash_are_the_dataclasses(left: tuple, right: tuple) -> None:
    ours, theirs = (Point(*left), Point(*right)), (PointTwin(*left), PointTwin(*right))
    assert (ours[0] == ours[1]) is (theirs[0] == theirs[1])
    assert (ours[0] != ours[1]) is (theirs[0] != theirs[1])
    assert hash(ours[0]) == hash(theirs[0])  # both hash the compared fields as a tuple
    assert hash(ours[1]) == hash(theirs[1])


def test_a_single_field_record_compares_and_hashes_as_the_dataclass() -> None:
    assert Single("a") == Single("a")
    assert Single("a") != Single("b")
    assert hash(Single("a")) == hash(SingleTwin("a"))
    assert repr(Single("a")) == repr(SingleTwin("a")).replace("SingleTwin", "Single")


def test_a_record_equals_only_its_own_class() -> None:
    assert Point(1, 2) != OtherPoint(1, 2)
    assert Point(1, 2) != (1, 2)
    assert Point(1, 2).__eq__(OtherPoint(1, 2)) is NotImplemented
    assert len({Point(1, 2), Point(1, 2, "other label"), OtherPoint(1, 2)}) == 2


def test_repr_is_the_dataclasses() -> None:
    ours, theirs = Point(1, 2, "a", (3,)), PointTwin(1, 2, "a", (3,))
    assert repr(ours) == repr(theirs).replace("PointTwin", "Point")
    assert "cache" not in repr(ours)


@pytest.mark.parametrize(
    ("left", "right"), [(("a", 1), ("a", 2)), (("b", 0), ("a", 9)), (("a", 1), ("a", 1))]
)
def test_ordering_is_the_dataclasses(left: tuple, right: tuple) -> None:
    ours = (Ranked(*left), Ranked(*right))
    theirs = (RankedTwin(*left), RankedTwin(*right))
    for compare in ("__lt__", "__le__", "__gt__", "__ge__"):
        assert getattr(ours[0], compare)(ours[1]) is getattr(theirs[0], compare)(theirs[1])
    assert sorted([ours[1], ours[0]]) == sorted([ours[0], ours[1]])


def test_ordering_refuses_another_class_as_the_dataclass_does() -> None:
    with pytest.raises(TypeError):
        _ = Ranked("a", 1) < ("a", 1)  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = RankedTwin("a", 1) < ("a", 1)  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = Point(1, 2) < Point(1, 3)  # type: ignore[operator]  # an unordered record


def test_a_record_stays_a_frozen_dataclass() -> None:
    point = Point(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(point)] == ["x", "y", "label", "cache"]
    assert dataclasses.replace(point, y=5) == Point(1, 5)
    assert pickle.loads(pickle.dumps(point)) == point


def test_the_models_facts_are_records() -> None:
    # Location sorts as before: by path, line, column, end.
    spots = [Location("b", 1, 0, None, None), Location("a", 2, 0, None, None)]
    assert sorted(spots)[0].path == "a"
    assert Location("a", 1, 0, 1, 2) == Location("a", 1, 0, 1, 2)


def _frozen_dataclasses() -> list[tuple[str, str, ast.ClassDef, ast.Call]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Name)
                    and decorator.func.id == "dataclass"
                    and any(
                        k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value
                        for k in decorator.keywords
                    )
                ):
                    found.append((relative, node.name, node, decorator))
    return found


def test_every_frozen_dataclass_above_the_model_is_a_record() -> None:
    """A new fact declared the usual way would bring back dataclass's generated methods,
    and their cost at import: every frozen dataclass is a record, but those below the
    model, which model.py imports."""
    classes = _frozen_dataclasses()
    assert len(classes) > 40, "the search finds the package's dataclasses"
    wrong = []
    for relative, name, node, decorator in classes:
        if relative in BELOW_THE_MODEL:
            continue
        flags = {k.arg: getattr(k.value, "value", None) for k in decorator.keywords}
        bases = {getattr(b, "id", None) for b in node.bases}
        if flags != {"frozen": True, "eq": False, "repr": False}:
            wrong.append(f"{relative}:{name}: @dataclass({flags})")
        elif not bases & {"Record", "OrderedRecord"}:
            wrong.append(f"{relative}:{name}: not a Record")
    assert not wrong, wrong

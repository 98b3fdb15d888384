"""init reads a module's in-place changes once for all its constants (issue 50, item 4):
each constant it reads as a registry candidate is refused when the module changes it in
place (``RPCS.append(...)``), and finding that walked the whole module once per
constant, a module of a thousand constants a million nodes. One walk now gives every
name's first change (``syntax.first_changes_in_place``), the same answer
``changed_in_place`` gives name by name. Whether a constant's call is made by Python
itself (and not read) is asked once a constant too, not once a surface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import astroid
import pytest
from support import asked_of, discovered, project

from pylint_rpcsurface.analysis import registry
from pylint_rpcsurface.analysis.registry import read_registry
from pylint_rpcsurface.analysis.syntax import changed_in_place, first_changes_in_place
from pylint_rpcsurface.discovery import registries

CHANGES = """\
A = ["x"]
B = {"k": 1}
C = ["y"]
D = ["z"]
E = {}
F = ("p", "q")
A.append("w")
A.extend(["v"])
B["j"] = 2


def grow():
    del C[0]
    D += ["u"]
    E.update({"a": 1})
    holder.F.append(1)


class Kept:
    F = []
    F.append(2)
"""


def test_one_walk_gives_each_name_s_first_change_as_changed_in_place_does() -> None:
    module = astroid.parse(CHANGES)
    first = first_changes_in_place(module)
    names = {node.name for node in module.nodes_of_class(astroid.nodes.AssignName)} | {"holder"}
    for name in names:
        assert first.get(name) is changed_in_place(module, name), name
    # Read from the code above, not from either function: A's first change is its
    # append; an attribute's (holder.F) and a class body's (Kept.F) are no name's.
    assert sorted(first) == ["A", "B", "C", "D", "E"]
    assert first["A"].as_string() == "A.append('w')"
    assert "F" not in first


CONSTANTS = """\
FIRST = ("load", "step", "stop")
SECOND = ["load", "step"]
THIRD = {"load", "stop"}
FOURTH = frozenset(("load", "step"))
SECOND.append("drain")


def later():
    THIRD.add("drain")
"""


def test_the_constants_of_a_module_are_read_with_one_walk_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj", {"svc/__init__.py": "", "svc/names.py": CONSTANTS})
    walks = asked_of(monkeypatch, registries, "first_changes_in_place", lambda m: m.name)
    by_name = asked_of(monkeypatch, registry, "changed_in_place", lambda _s, name, **_: name)
    made = asked_of(
        monkeypatch, registries.Registries, "_made_without_the_project", lambda _r, v: v.as_string()
    )
    kept: dict[str, Any] = {}
    read = registries.read_registry

    def recorded(module: Any, attribute: str, qualname: str, *rest: Any) -> Any:
        kept[qualname] = (module, attribute, read(module, attribute, qualname, *rest))
        return kept[qualname][2]

    monkeypatch.setattr(registries, "read_registry", recorded)
    with discovered(root) as found:
        found.registries.choice({"load", "step", "stop"})
        found.registries.choice({"load", "step"})
        assert walks == ["svc.names"]
        assert by_name == []
        # Asked once of each constant, however many surfaces ask for a registry.
        values = ["('load', 'step', 'stop')", "['load', 'step']", "{'load', 'stop'}"]
        assert sorted(made) == sorted([*values, "frozenset(('load', 'step'))"])
        assert sorted(kept) == [f"svc.names.{n}" for n in ("FIRST", "FOURTH", "SECOND", "THIRD")]
        # The oracle: each constant read alone, walking the module for its name.
        monkeypatch.undo()
        for qualname, (module, attribute, answer) in kept.items():
            assert answer == read_registry(module, attribute, qualname), qualname
    # Read from the code: SECOND and THIRD are changed in place, FIRST is not.
    refused = {q for q, (_, _, answer) in kept.items() if answer.problem is not None}
    assert refused == {"svc.names.SECOND", "svc.names.THIRD"}

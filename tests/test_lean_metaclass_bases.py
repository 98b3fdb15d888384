"""A lean build waits with a method's ``self.x = ...`` only where ``self`` is an instance
of its class (analysis/lean_build.py): in a metaclass's methods astroid infers ``self`` to
the class itself, and the assignment joins the class's own members when the module is
built. Whether a base makes a class a metaclass is read from the class statements the
look-up finds in the module (``class Singleton(type)``), as astroid's ``ClassDef.type``
finds it, not from the base's name: a base named like one (``AttentionMetadata``) that is
a plain class statement lets the assignments wait."""

from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes
from support import probe_json, project

from pylint_rpcsurface.analysis import lean_build
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.sources import SourceTree

CODE = """\
class Singleton(type):
    pass


class Registry(Singleton):
    def setup(self):
        self.handlers = {}


class AttentionMetadata:
    pass


class FlashAttentionMetadata(AttentionMetadata):
    def __init__(self):
        self.slots = []


class Loop(Singleton, metaclass=type):
    pass


def registry_handlers():
    return Registry.handlers


def flash_slots():
    return FlashAttentionMetadata().slots
"""

PROBE = """\
import json, sys
from pathlib import Path
from pylint_rpcsurface.analysis.lean_build import PendingAttrs
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.sources import SourceTree

root = Path(sys.argv[1])
store = ModuleStore(SourceTree((root,)))
with store.resolving_imports():
    module = store.module(str(root / "pkg" / "probe.py"))
    # Before anything reads them: whether the assignments wait.
    waiting = {
        name: type(module[name].__dict__["instance_attrs"]) is PendingAttrs
        for name in ("Registry", "FlashAttentionMetadata")
    }
    found = {}
    for function in ("registry_handlers", "flash_slots"):
        value = module[function].body[0].value
        try:
            found[function] = sorted(v.pytype() for v in value.infer())
        except Exception as error:  # what astroid says, whatever it is
            found[function] = type(error).__name__
    found["Registry members"] = sorted(module["Registry"].locals)
print(json.dumps({"waiting": waiting, "found": found}))
"""


def _probe(tmp_path: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    root = project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/probe.py": CODE})
    answer: dict[str, object] = probe_json(PROBE, str(root), env=env)
    return answer


def test_a_lean_build_infers_what_the_full_build_infers(tmp_path: Path) -> None:
    lean = _probe(tmp_path / "lean")
    full = _probe(tmp_path / "full", {"RPCSURFACE_BUILD": "full"})
    assert lean["found"] == full["found"]
    found = full["found"]
    assert isinstance(found, dict)
    # What astroid makes of each: the metaclass's self.handlers is the class's own member.
    assert found["registry_handlers"] == ["builtins.dict"]
    assert "handlers" in found["Registry members"]
    assert found["flash_slots"] == ["builtins.list"]


def test_a_base_named_like_a_metaclass_that_is_none_lets_the_assignments_wait(
    tmp_path: Path,
) -> None:
    waiting = _probe(tmp_path)["waiting"]
    assert waiting == {"Registry": False, "FlashAttentionMetadata": True}


def test_a_class_s_bases_are_read_once_however_many_assignments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each self.x = ... of a method asks whether its class may be a metaclass, at build.
    assignments = "".join(f"        self.a{i} = {i}\n" for i in range(40))
    code = f"class Base:\n    pass\n\n\nclass Many(Base):\n    def __init__(self):\n{assignments}"
    root = project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/many.py": code})
    looked_up: list[str] = []
    plain_base = lean_build._plain_base  # pylint: disable=protected-access

    def counted(base: nodes.NodeNG, *seen: frozenset[int]) -> bool:
        looked_up.append(base.as_string())
        return plain_base(base, *seen)

    monkeypatch.setattr(lean_build, "_plain_base", counted)
    store = ModuleStore(SourceTree((root,)))
    with store.resolving_imports():
        module = store.module(str(root / "pkg" / "many.py"))
        assert module is not None
        assert len(module["Many"].instance_attrs) == 40  # the assignments waited
    assert looked_up.count("Base") == 1

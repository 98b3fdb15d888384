"""init asks whether ``X.M`` passed as a dispatch's RPC name is an enum member by
inferring ``X`` only where the syntax does not already tell that astroid infers ``X`` to
no class (issue 50, item 4): ``self`` in a plain method is an instance, a parameter other
than a method's first is a call's argument or its default (with Uninferable), and a
name bound by ``import m`` is a module. Inferring ``self`` ran its class's transforms,
and ``asyncio.CancelledError`` built ``asyncio`` (0.4 s of init on vLLM 0.7.3), for
nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from astroid import nodes
from support import asked_of, discovered, project

from pylint_rpcsurface import discovery
from pylint_rpcsurface.analysis import inference
from pylint_rpcsurface.analysis.inference import infer_unique
from pylint_rpcsurface.analysis.lean_build import infers_to_no_class

KINDS = """\
import enum


class Kind(enum.Enum):
    ADD = "add"
    STOP = "stop"
"""

# Every name read as ``name.attr`` below, and whether the syntax tells it is no class
# (False is inferred: ``*args``, a static method's first parameter, are left to astroid).
SHAPES = """\
import asyncio
import collections.abc as abc_module

from pkg.kinds import Kind


class Holder:
    kinds = Kind

    def plain(self, request, kind=Kind, *args, **kwargs):
        self.x  #@ True
        request.x  #@ True
        kind.ADD  #@ True
        args.x  #@ False
        kwargs.x  #@ False
        asyncio.x  #@ True
        abc_module.x  #@ True
        local = Kind
        local.ADD  #@ False
        Kind.ADD  #@ False

    @classmethod
    def build(cls):
        cls.x  #@ False

    @staticmethod
    def static(first):
        first.x  #@ False

    def rebinds(self):
        self = Kind
        self.ADD  #@ False

    lam = lambda me: me.x  #@ False


def free(first, *, named=None):
    first.x  #@ True
    named.x  #@ True
"""


def _marked(module: nodes.Module) -> list[tuple[nodes.Name, bool]]:
    """Each ``name.attr`` of *module* marked ``#@ True`` or ``#@ False``, with the mark."""
    lines = module.stream().read().decode().splitlines() if module.file else []
    found = []
    for attribute in module.nodes_of_class(nodes.Attribute):
        line = lines[attribute.lineno - 1]
        if "#@" in line and isinstance(attribute.expr, nodes.Name):
            found.append((attribute.expr, line.rsplit("#@", 1)[1].strip() == "True"))
    return found


def test_what_the_syntax_tells_is_what_astroid_infers(tmp_path: Path) -> None:
    root = project(
        tmp_path / "proj",
        {"pkg/__init__.py": "", "pkg/kinds.py": KINDS, "pkg/shapes.py": SHAPES},
    )
    with discovered(root) as found:
        (module,) = [m for m in found.modules if m.name == "pkg.shapes"]
        marked = _marked(module)
        told = {
            name.as_string() + f"@{name.lineno}": infers_to_no_class(name) for name, _ in marked
        }
        # astroid's own answer, in the same lean build: no class statement, alone.
        inferred = {name.as_string() + f"@{name.lineno}": infer_unique(name) for name, _ in marked}
    assert len(marked) == 15
    assert told == {name.as_string() + f"@{name.lineno}": mark for name, mark in marked}
    for key, no_class in told.items():
        if no_class:
            assert not isinstance(inferred[key], nodes.ClassDef), key
    # The marks that say False include the classes astroid does find.
    assert any(isinstance(value, nodes.ClassDef) for value in inferred.values())


ENGINE = """\
import asyncio

from pkg.kinds import Kind


class Core:
    def __init__(self, mgr):
        self.mgr = mgr
        self.kind = Kind.ADD

    def send(self, kind, *args):
        return self.mgr.put((kind, args))

    def add(self, request):
        kinds = Kind
        self.send(Kind.ADD, 1)
        self.send(kinds.STOP, 2)
        self.send(self.kind, 3)
        self.send(request.kind, 4)
        self.send(asyncio.CancelledError, 5)
"""


def test_only_what_the_syntax_does_not_tell_is_inferred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(
        tmp_path / "proj",
        {"pkg/__init__.py": "", "pkg/kinds.py": KINDS, "pkg/engine.py": ENGINE},
    )
    asked = asked_of(monkeypatch, inference, "infer_unique")
    discovery.discover(root, (root,))
    # Kind.ADD is told by the syntax (tests/test_enum_by_syntax.py); self, request and
    # asyncio by the syntax too: only the local bound to the class is inferred.
    assert "kinds" in asked
    assert not {"self", "request", "asyncio"} & set(asked)


def test_the_sites_are_the_same_as_when_every_attribute_is_inferred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(
        tmp_path / "proj",
        {"pkg/__init__.py": "", "pkg/kinds.py": KINDS, "pkg/engine.py": textwrap.dedent(ENGINE)},
    )
    told = discovery.discover(root, (root,))
    monkeypatch.setattr(
        "pylint_rpcsurface.discovery.core.infers_to_no_class", lambda expression: False
    )
    assert discovery.discover(root, (root,)) == told

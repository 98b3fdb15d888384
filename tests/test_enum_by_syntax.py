"""An enum member sent or keyed (``send(RequestType.ADD_SESSION)``, a table's
``bind_func(RequestType.X, ...)``) is read by the syntax where it tells: ``E`` is bound
by the look-up and imports to one class whose every base is one of the standard
library's enum classes, and ``M`` is a public name its body assigns. Inferring ``E``
would run its transforms, which build ``enum`` (LMDeploy 0.7.3's ``RequestType``, on
every cold run). Each answer is held to astroid's own, and a project's answers to the
full build's."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
import pytest
from astroid import bases, nodes
from support import project, run_check, stats_env, stats_records
from test_tables import ENUM_ENGINE, ENUM_HANDLERS, enum_files

from pylint_rpcsurface.analysis.inference import (
    PROJECT_NAMES,
    enum_member_class,
    infer_unique,
    is_enum,
)

FULL = {"RPCSURFACE_BUILD": "full"}

BASES = {
    "import enum": "enum.Enum",
    "from enum import Enum": "Enum",
    "from enum import IntEnum": "IntEnum",
    "from enum import StrEnum": "StrEnum",
    "from enum import Flag": "Flag",
    "from enum import IntFlag as Bits": "Bits",
}


def _member(source: str, *, lean: frozenset[str] | None = frozenset({"pkg"})) -> nodes.Attribute:
    """The ``E.<name>`` marked ``#@`` in *source*, its module marked as a lean build's
    with the project's names *lean* (None: not a lean build's)."""
    node = astroid.extract_node(textwrap.dedent(source))
    assert isinstance(node, nodes.Attribute)
    if lean is not None:
        node.root().__dict__[PROJECT_NAMES] = lean
    return node


@pytest.mark.parametrize("importing", sorted(BASES))
@pytest.mark.parametrize("value", ["enum_value()", '"x"', "3"])
def test_a_member_by_the_syntax_is_what_astroid_infers(importing: str, value: str) -> None:
    base = BASES[importing]
    value = value.replace("enum_value()", "object()")
    node = _member(f"{importing}\n\nclass E({base}):\n    M = {value}\n\nE.M  #@\n")
    klass = enum_member_class(node)
    assert isinstance(klass, nodes.ClassDef)
    assert klass.name == "E"
    _held_to_astroid(node, klass)


def _held_to_astroid(node: nodes.Attribute, klass: nodes.ClassDef) -> None:
    """astroid's own answers, inferring: ``E`` is *klass*, an enum, and ``E.M`` an
    instance (of the class its brain makes for the member): neither a str nor anything
    callable."""
    assert infer_unique(node.expr) is klass
    assert is_enum(klass)
    values = list(node.infer())
    callables = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, bases.UnboundMethod)
    assert values
    assert all(isinstance(v, bases.Instance) and not isinstance(v, nodes.Const) for v in values)
    assert not any(isinstance(v, callables) for v in values)


TOLD_TOO = {
    # astroid reads an enum's members and bases, not its metaclass, and looks up the last
    # class statement bound to the name, as the syntax does.
    "a metaclass": "import enum\nclass E(enum.Enum, metaclass=type):\n    M = 1\nE.M  #@\n",
    "bound twice": (
        "import enum\nclass E(enum.Enum):\n    M = 1\nclass E(enum.Enum):\n    M = 2\nE.M  #@\n"
    ),
}


@pytest.mark.parametrize("case", sorted(TOLD_TOO))
def test_what_else_the_syntax_tells_is_what_astroid_infers(case: str) -> None:
    node = _member(TOLD_TOO[case])
    klass = enum_member_class(node)
    assert isinstance(klass, nodes.ClassDef)
    _held_to_astroid(node, klass)


NOT_TOLD = {
    "a str base beside": "from enum import Enum\nclass E(str, Enum):\n    M = 1\nE.M  #@\n",
    "a private name": "import enum\nclass E(enum.Enum):\n    _M = 1\nE._M  #@\n",
    "a method": "import enum\nclass E(enum.Enum):\n    M = 1\n    def f(self): ...\nE.f  #@\n",
    "a name it lacks": "import enum\nclass E(enum.Enum):\n    M = 1\nE.N  #@\n",
    "an annotation alone": "import enum\nclass E(enum.Enum):\n    M: int\nE.M  #@\n",
    "no enum base": "class E:\n    M = 1\nE.M  #@\n",
    "another module's base": "from pkg import Enum\nclass E(Enum):\n    M = 1\nE.M  #@\n",
}


@pytest.mark.parametrize("case", sorted(NOT_TOLD))
def test_nothing_is_told_where_the_syntax_does_not_tell(case: str) -> None:
    assert enum_member_class(_member(NOT_TOLD[case])) is None


def test_nothing_is_told_outside_a_lean_build_or_under_a_project_s_enum() -> None:
    source = "import enum\nclass E(enum.Enum):\n    M = 1\nE.M  #@\n"
    assert enum_member_class(_member(source)) is not None
    assert enum_member_class(_member(source, lean=None)) is None
    assert enum_member_class(_member(source, lean=frozenset({"pkg", "enum"}))) is None


def _other_modules_built(root: Path, engine: str, handlers: str) -> tuple[str, int]:
    """A cold ``check``'s findings and how many modules outside the project it built;
    the findings held to ``--no-cache``'s and to astroid's full build's."""
    project(root, enum_files(engine, handlers))
    cold = run_check(root, "--format", "json", env=stats_env(root))
    assert cold.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    assert cold.stdout == run_check(root, "--format", "json", "--no-cache", env=FULL).stdout
    (record,) = stats_records(root)
    return cold.stdout, int(record["other_modules_built"])


def test_an_enum_keyed_project_builds_no_enum(tmp_path: Path) -> None:
    """The members sent and keyed build no more modules outside the project than str
    names do (``enum`` is not built), with the finding the members give."""
    found, built = _other_modules_built(tmp_path / "enum" / "proj", ENUM_ENGINE, ENUM_HANDLERS)
    assert "pkg.kinds.Kind.C" in found
    assert "rpc-unanswered" in found
    by_str = {"Kind.A": '"a"', "Kind.B": '"b"', "Kind.C": '"c"'}
    engine, handlers = ENUM_ENGINE, ENUM_HANDLERS
    for member, name in by_str.items():
        engine, handlers = engine.replace(member, name), handlers.replace(member, name)
    _, built_by_str = _other_modules_built(tmp_path / "str" / "proj", engine, handlers)
    assert built == built_by_str

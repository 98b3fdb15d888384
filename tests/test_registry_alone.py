"""The registry read from its own statement: the answer of the whole module's, or none.

When the registry is one top-level literal of strings that nothing else in its module
names, the engine builds that statement alone instead of the whole module (a dataclass
beside it makes astroid build the standard library's ``dataclasses``). Every shape here
is read both ways: the short way answers as the whole module does, or not at all.
"""

from __future__ import annotations

import astroid
import pytest
from astroid.builder import AstroidBuilder

from pylint_rpcsurface.analysis.registry import read_registry, read_registry_alone

MODNAME = "proj.registry_alone_probe"
PATH = "/proj/registry_alone_probe.py"
QUALNAME = f"{MODNAME}.RPCS"
HEADER = (
    '"""Configuration."""\n\nfrom __future__ import annotations\n\n'
    "from dataclasses import dataclass\n\n"
)
DATACLASS = "\n\n@dataclass\nclass Config:\n    size: int = 1\n"
# A module that binds RPCS for `from ... import *` to pull in.
STAR_SOURCE = "rpcs_star_source"

READ_ALONE = {
    "tuple": HEADER + 'RPCS = (\n    "prefill",\n    "decode",\n)\n' + DATACLASS,
    "list": 'RPCS = ["a", "b"]\n',
    "set": 'RPCS = {"a", "b"}\n',
    "annotated": 'RPCS: tuple[str, ...] = ("a", "b")\n',
    "non-ascii": '# é\nRPCS = ("défaut", "b")  # ünïcode\n',
    "empty": "RPCS = ()\n",
    # Line breaks only str.splitlines sees (Python's lines end at \n, \r\n or \r alone).
    "form feed and separators": '# a\x0cb \u2028 c\x1cd\n\x0c\nRPCS = ("a",  # \u2029\n    "b")\n',
    "carriage returns": '"""doc"""\r\nX = 1\rRPCS = (\r\n    "a",\r\n)\r\n',
}
READ_WHOLE = {
    "used": 'RPCS = ("a",)\nWAITED = set(RPCS)\n',
    "mutated": 'RPCS = ["a"]\nRPCS.append("b")\n',
    "rebound": 'RPCS = ("a",)\nRPCS = RPCS + ("b",)\n',
    "star import": f'RPCS = ("a",)\nfrom {STAR_SOURCE} import *\n',
    "a name inside": 'B = "b"\nRPCS = ("a", B)\n',
    "a constructor": 'RPCS = frozenset({"a"})\n',
    "in a branch": 'import sys\nif sys.version_info >= (3,):\n    RPCS = ("a",)\n',
    "global": 'RPCS = ("a",)\n\n\ndef reset():\n    global RPCS\n    RPCS = ()\n',
    "named in a string": 'RPCS = ("a",)\nNAME = "RPCS"\n',
    "shares a line": 'X = 1; RPCS = ("a",)\n',
    "not defined": 'OTHER = ("a",)\n',
    # Python reads identifiers NFKC-normalized: the fullwidth name is the same name.
    "rebound in fullwidth": 'RPCS = ("a",)\n\uff32\uff30\uff23\uff33 = ("b",)\n',
}


@pytest.fixture(autouse=True)
def star_source() -> None:
    AstroidBuilder(astroid.MANAGER).string_build('RPCS = ("z",)\n', STAR_SOURCE)


def _whole(text: str) -> object:
    module = AstroidBuilder(astroid.MANAGER).string_build(text, MODNAME, PATH)
    try:
        return read_registry(module, "RPCS", QUALNAME)
    finally:
        astroid.MANAGER.astroid_cache.pop(MODNAME, None)


@pytest.mark.parametrize("text", READ_ALONE.values(), ids=READ_ALONE.keys())
def test_a_lone_literal_reads_as_the_whole_module(text: str) -> None:
    alone = read_registry_alone(text, PATH, MODNAME, "RPCS", QUALNAME)
    assert MODNAME not in astroid.MANAGER.astroid_cache  # the part is no one's module
    assert alone is not None
    assert alone == _whole(text)


@pytest.mark.parametrize("text", READ_WHOLE.values(), ids=READ_WHOLE.keys())
def test_anything_else_is_read_from_the_whole_module(text: str) -> None:
    assert read_registry_alone(text, PATH, MODNAME, "RPCS", QUALNAME) is None


def test_a_module_held_under_the_name_stays() -> None:
    held = AstroidBuilder(astroid.MANAGER).string_build("X = 1\n", MODNAME, PATH)
    try:
        assert read_registry_alone('RPCS = ("a",)\n', PATH, MODNAME, "RPCS", QUALNAME)
        assert astroid.MANAGER.astroid_cache[MODNAME] is held
    finally:
        astroid.MANAGER.astroid_cache.pop(MODNAME, None)

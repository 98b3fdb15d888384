"""A module's two digests: the body digest sees every change of the syntax tree and its
positions but no comment; the interface digest sees what inference reads from outside
a function, and nothing else a function's body holds."""

from __future__ import annotations

import pytest

from pylint_rpcsurface.engine.digests import module_digests

MODULE = """\
import os

LIMIT = 3


def decorate(function):
    return function


class Runner:
    size: int = 2

    def __init__(self, rank):
        self.rank = rank
        local = rank + 1
        print(local)

    @decorate
    def forward(self, batch, scale=1.0):
        total = 0
        for item in batch:
            total += item
        return total * scale


def configure():
    global LIMIT
    LIMIT = 4
    return os.getcwd()
"""

# Each edit: (old, new), and whether it changes the interface.
EDITS = {
    "a statement in a method": ("total = 0", "total = 1", False),
    "a local in __init__": ("local = rank + 1", "local = rank + 2", False),
    "a return value": ("return total * scale", "return total", False),
    "an attribute set in __init__": ("self.rank = rank", "self.rank = rank * 2", True),
    "a write to a global": ("    LIMIT = 4", "    LIMIT = 5", True),
    "a default value": ("scale=1.0", "scale=2.0", True),
    "a decorator": ("    @decorate\n", "", True),
    "a class attribute": ("size: int = 2", "size: int = 3", True),
    "a module constant": ("LIMIT = 3", "LIMIT = 30", True),
    "an import": ("import os", "import sys as os", True),
    "a new method": ("def configure", "def extra(self):\n    pass\n\n\ndef configure", True),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_each_edit_changes_the_digests_it_should(edit: str) -> None:
    old, new, interface_changes = EDITS[edit]
    assert old in MODULE
    body, interface = module_digests(MODULE)
    edited_body, edited_interface = module_digests(MODULE.replace(old, new, 1))
    assert edited_body != body
    assert (edited_interface != interface) is interface_changes


def test_comments_and_trailing_blank_lines_change_neither() -> None:
    commented = MODULE.replace("total = 0", "total = 0  # start") + "\n# the end\n\n"
    assert module_digests(commented) == module_digests(MODULE)


def test_a_line_inserted_moves_positions_but_not_the_interface() -> None:
    moved = "\n" + MODULE
    body, interface = module_digests(MODULE)
    assert module_digests(moved) == (module_digests(moved)[0], interface)
    assert module_digests(moved)[0] != body


def test_a_module_that_does_not_parse_changes_with_any_byte() -> None:
    broken = "def f(:\n"
    assert module_digests(broken)[0] == module_digests(broken)[1]
    assert module_digests(broken) != module_digests(broken + "# x\n")

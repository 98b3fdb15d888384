"""``rpcsurface fix`` reads a registry exactly as the checker does.

The oracle is the checker's own reader (``read_registry_text``): for every form fix
edits, the rewrite must read back through it as the names the checker read before the
edit, put in fix's order with the wanted ones; where the checker reads the constant
differently from its literal, or not at all, fix refuses and writes nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pylint_rpcsurface.analysis.registry import read_registry_text
from pylint_rpcsurface.analysis.registry_literal import CONSTRUCTORS
from pylint_rpcsurface.commands.fix.edit import Refused, final_order, rewrite

QUALNAME = "pkg.registry.RPCS"
MODNAME, _, ATTRIBUTE = QUALNAME.rpartition(".")

DISPLAYS = {"tuple": ("(", ")"), "list": ("[", "]"), "set": ("{", "}")}


def checker_values(text: str) -> list[str | None] | None:
    registry = read_registry_text(text, "registry.py", MODNAME, ATTRIBUTE, QUALNAME)
    if registry is None or registry.problem is not None:
        return None
    return [element.value for element in registry.elements]


def written(names: list[str], display: str, constructor: str | None, annotated: bool) -> str:
    opening, closing = DISPLAYS[display]
    inner = ", ".join(repr(name) for name in names)
    if display == "tuple" and len(names) == 1:
        inner += ","
    value = f"{opening}{inner}{closing}"
    if constructor is not None:  # an empty set display can only be the empty call
        value = f"{constructor}()" if display == "set" and not names else f"{constructor}({value})"
    elif display == "set" and not names:
        value = "set()"
    target = f"{ATTRIBUTE}: object" if annotated else ATTRIBUTE
    return f'"""The registry."""\n\nimport os\n\n{target} = {value}\n\nX = os.sep\n'


NAMES = st.lists(st.sampled_from(["a", "b", "c", "fast_x", "slow_y"]), max_size=5)


@settings(max_examples=60, deadline=None)
@given(
    names=NAMES,
    wanted=st.frozensets(st.sampled_from(["a", "b", "c", "new_1", "new_2"]), min_size=1),
    display=st.sampled_from(sorted(DISPLAYS)),
    constructor=st.sampled_from([None, *CONSTRUCTORS]),
    annotated=st.booleans(),
)
def test_every_form_fix_edits_reads_back_through_the_checker(
    names: list[str],
    wanted: frozenset[str],
    display: str,
    constructor: str | None,
    annotated: bool,
) -> None:
    text = written(names, display, constructor, annotated)
    before = checker_values(text)
    assert before is not None, text  # the checker reads every one of these forms
    expected = final_order([str(v) for v in before], wanted)
    new = rewrite(text, ATTRIBUTE, QUALNAME, wanted)  # never refused: a plain literal
    assert checker_values(new) == expected, (text, new)


@pytest.mark.parametrize(
    "text",
    [
        # A second binding the literal's own statement doesn't show: the checker can't
        # read the constant, so fix must not edit it.
        'RPCS = ("a",)\nfor RPCS in ():\n    pass\n',
        'RPCS = ("a",)\nimport RPCS\n',
        'RPCS = ("a",)\ndef f():\n    global RPCS\n    RPCS = ()\n',
        # Changed in place after it is written: it holds more than its literal.
        'RPCS = ["a"]\nRPCS.append("b")\n',
        # A shadowed constructor is not the builtin.
        'def frozenset(x):\n    return ("z",)\nRPCS = frozenset(("a",))\n',
    ],
)
def test_fix_refuses_what_the_checker_reads_otherwise(text: str) -> None:
    with pytest.raises(Refused):
        rewrite(text, ATTRIBUTE, QUALNAME, frozenset({"a", "b", "c"}))

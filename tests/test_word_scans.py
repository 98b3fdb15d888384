"""The fast word scan of the source text gives exactly what the plain one gives.

``analysis.subclasses.words_held`` (the subclass search) first rules out the files that
lack what a round's words share. It is compared with the regular expression it stands
for, on texts built to hold every kind of character a word can start, continue or end
with.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pylint_rpcsurface.analysis.subclasses import word_groups, words_held

# Word characters, digits, ASCII punctuation and whitespace of every kind, non-ASCII
# letters and digits (fullwidth, Greek, Arabic-Indic digits), a combining mark.
PIECES = [
    *"aZ_09 \t\n\r\x0b\x0c.,:;()[]{}'\"#\\+-*/=<>!@$%^&|~`?",
    "é",
    "\uff21",  # fullwidth A
    "β",
    "٣",
    "\u0301",
    "\u00a0",
    "\u2028",
    "class ",
    "import ",
    "_x1",
    "9lives",
]


# Names of a family, and texts that hold them, parts of them, or them inside longer words.
NAMES = st.lists(
    st.sampled_from(
        [
            "DecodeEngineCore",
            "PrefillEngineCore",
            "EngineCore",
            "Core",
            "_Parent",
            "\uff23ore",
            "ngineCor",
        ]
    ),
    min_size=1,
    max_size=4,
).map(frozenset)
SOURCE = st.lists(
    st.sampled_from(
        [
            "DecodeEngineCore",
            "EngineCor",
            "ngineCore",
            "xEngineCore",
            "Core_",
            *PIECES,
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(NAMES, SOURCE)
def test_the_groups_rule_out_only_files_holding_none(words: frozenset[str], text: str) -> None:
    groups = word_groups(words)
    assert sorted(w for _, members in groups for w in members) == sorted(words)  # a partition
    assert all(word.endswith(ending) for ending, members in groups for word in members)
    expected = {word for word in words if re.search(rf"\b{re.escape(word)}\b", text)}
    assert words_held(text, groups) == expected


def test_the_groups_of_a_family() -> None:
    family = {"DecodeEngineCore", "PrefillEngineCore", "MixedEngineCore", "_DisaggBase"}
    assert word_groups(family) == (
        ("EngineCore", frozenset({"DecodeEngineCore", "PrefillEngineCore", "MixedEngineCore"})),
        ("", frozenset({"_DisaggBase"})),
    )
    assert word_groups({"Core"}) == (("", frozenset({"Core"})),)
    # "er" is too short an ending to rule files out: each word is looked for alone.
    assert word_groups({"Worker", "Runner"}) == (
        ("", frozenset({"Runner"})),
        ("", frozenset({"Worker"})),
    )

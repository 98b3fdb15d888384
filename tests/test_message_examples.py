"""Each message's bad and good examples, run as tests, and the pages that show them.

The examples live in docs/messages/<symbol>/. bad.py must give exactly the messages its
``# [symbol]`` markers name, including its own symbol; good.py must give none. The
generated pages must match what docs/gen_messages.py renders now.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
from support import run_cli

from pylint_rpcsurface.messages import MESSAGES, MessageSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))

import gen_messages

SYMBOLS = [spec.symbol for spec in MESSAGES]


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_the_bad_example_gives_exactly_its_marked_messages(symbol: str) -> None:
    source = (gen_messages.DOCS / symbol / "bad.py").read_text("utf-8")
    wanted = gen_messages.expected(source)
    assert symbol in {marked for marked, _ in wanted}, "the example must show its own message"
    messages, _ = gen_messages.lint_example(symbol, "bad")
    assert {(m.symbol, m.line) for m in messages} == wanted
    # What pylint prints ends with a pointer to the message's own page: the command that
    # prints it (test_the_pointer_is_a_command_that_prints_the_page runs it).
    for message in messages:
        assert message.text.endswith(f" (rpcsurface explain {message.symbol})"), message.text


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_the_good_example_is_clean(symbol: str) -> None:
    source = (gen_messages.DOCS / symbol / "good.py").read_text("utf-8")
    assert gen_messages.expected(source) == set()
    messages, _ = gen_messages.lint_example(symbol, "good")
    assert messages == []


def test_every_message_has_examples_and_no_example_is_orphaned() -> None:
    folders = {p.name for p in gen_messages.DOCS.iterdir() if p.is_dir()}
    assert folders == set(SYMBOLS)


def test_the_message_pages_are_up_to_date() -> None:
    stale = [
        str(path)
        for path, text in gen_messages.pages().items()
        if not path.exists() or path.read_text("utf-8") != text
    ]
    assert stale == [], "run: python docs/gen_messages.py"


@pytest.mark.parametrize("spec", MESSAGES, ids=SYMBOLS)
def test_the_pointer_is_a_command_that_prints_the_page(spec: MessageSpec, tmp_path: Path) -> None:
    """A user follows the pointer by typing it, in a folder of their own: no checkout."""
    pointer = re.search(r" \(([^()]+)\)$", spec.text)
    assert pointer is not None, spec.text
    program, *arguments = shlex.split(pointer.group(1))
    assert program == "rpcsurface"
    followed = run_cli(tmp_path, *arguments)
    assert (followed.returncode, followed.stderr) == (0, "")
    assert f"{spec.msgid} {spec.symbol}" in followed.stdout
    assert " ".join(spec.rationale.split()) in " ".join(followed.stdout.split())

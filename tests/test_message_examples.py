"""Each message's bad and good examples, run as tests, and the pages that show them.

The examples live in docs/messages/<symbol>/. bad.py must give exactly the messages its
``# [symbol]`` markers name, including its own symbol; good.py must give none. The
generated pages, the docs site's and those the package ships for ``rpcsurface explain``,
must match what docs/gen_messages.py renders now.
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


@pytest.mark.parametrize("spec", MESSAGES, ids=SYMBOLS)
def test_the_bad_example_gives_exactly_its_marked_messages(spec: MessageSpec) -> None:
    symbol = spec.symbol
    source = (gen_messages.DOCS / symbol / "bad.py").read_text("utf-8")
    wanted = gen_messages.expected(source)
    assert symbol in {marked for marked, _ in wanted}, "the example must show its own message"
    messages, output = gen_messages.lint_example(symbol, "bad")
    assert {(m.symbol, m.line) for m in messages} == wanted
    # What pylint prints ends with a pointer to the message's own page: the command that
    # prints it (test_the_pointer_is_a_command_that_prints_the_page runs it).
    for message in messages:
        assert message.text.endswith(f" (rpcsurface explain {message.symbol})"), message.text
    # The same run is what the message's two pages show: both are up to date (the
    # generator's own lint of the example, in pages(), would be this run again).
    docs_page = gen_messages.DOCS / f"{symbol}.md"
    stale = "stale; run: python docs/gen_messages.py"
    assert docs_page.read_text("utf-8") == gen_messages.render(spec, output, terminal=False), stale
    assert spec.page.read_text("utf-8") == gen_messages.render(spec, output, terminal=True), stale


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_the_good_example_is_clean(symbol: str) -> None:
    source = (gen_messages.DOCS / symbol / "good.py").read_text("utf-8")
    assert gen_messages.expected(source) == set()
    messages, _ = gen_messages.lint_example(symbol, "good")
    assert messages == []


def test_every_message_has_examples_and_no_example_is_orphaned() -> None:
    folders = {p.name for p in gen_messages.DOCS.iterdir() if p.is_dir()}
    assert folders == set(SYMBOLS)


def test_the_docs_pages_and_the_shipped_pages_are_up_to_date(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pages() renders each message's two pages from pylint's output on its bad example,
    and the index; the index is up to date and no page is orphaned. That each message's
    pages are up to date with the real output is checked by
    test_the_bad_example_gives_exactly_its_marked_messages, from the run it makes anyway:
    here a stand-in output per example, which says which example was linted."""
    asked: list[tuple[str, str]] = []

    def lint_example(symbol: str, which: str) -> tuple[list[gen_messages.Reported], str]:
        asked.append((symbol, which))
        return [], f"the output of {symbol}/{which}.py"

    monkeypatch.setattr(gen_messages, "lint_example", lint_example)
    generated = gen_messages.pages()
    assert sorted(asked) == sorted((symbol, "bad") for symbol in SYMBOLS)
    rest = dict(generated)
    for spec in MESSAGES:
        output = f"the output of {spec.symbol}/bad.py"
        docs_page = gen_messages.DOCS / f"{spec.symbol}.md"
        assert rest.pop(docs_page) == gen_messages.render(spec, output, terminal=False)
        assert rest.pop(spec.page) == gen_messages.render(spec, output, terminal=True)
    index = gen_messages.DOCS / "index.md"
    assert list(rest) == [index]
    assert index.read_text("utf-8") == rest[index], "stale; run: python docs/gen_messages.py"
    assert gen_messages.orphans(generated) == [], "run: python docs/gen_messages.py"


def _shipped_as_committed() -> dict[Path, str]:
    return {spec.page: spec.page.read_text("utf-8") for spec in MESSAGES}


def test_check_names_a_stale_shipped_page(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--check reads the shipped pages too (with the committed pages as the generator's
    output, so nothing is linted and nothing written)."""
    committed = _shipped_as_committed()
    monkeypatch.setattr(gen_messages, "pages", lambda: committed)
    assert gen_messages.main(["--check"]) == 0
    changed = MESSAGES[0].page
    monkeypatch.setattr(gen_messages, "pages", lambda: {**committed, changed: "another text\n"})
    assert gen_messages.main(["--check"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{changed}: stale; run python docs/gen_messages.py"
    ]


def test_check_names_a_shipped_page_no_message_has(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    committed = _shipped_as_committed()
    removed = MESSAGES[-1].page
    del committed[removed]  # as if its message were gone: its committed page is left over
    monkeypatch.setattr(gen_messages, "pages", lambda: committed)
    assert gen_messages.main(["--check"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{removed}: stale; run python docs/gen_messages.py"
    ]


# A markdown link to a path, not an address: mkdocs resolves it on the site; a terminal
# can't follow it.
RELATIVE_LINK = re.compile(r"\]\((?![a-z]+://)[^)]*\)")


@pytest.mark.parametrize("spec", MESSAGES, ids=SYMBOLS)
def test_a_shipped_page_names_keys_without_links_a_terminal_cannot_follow(
    spec: MessageSpec,
) -> None:
    docs_page = (gen_messages.DOCS / f"{spec.symbol}.md").read_text("utf-8")
    assert RELATIVE_LINK.search(docs_page), "the pattern finds the site's links"
    shipped = spec.page.read_text("utf-8")
    assert RELATIVE_LINK.findall(shipped) == []
    assert "<!--" not in shipped  # the site's hidden comment would be printed
    for key in spec.settings:
        assert f"`{key}`" in shipped
    assert gen_messages.CONFIGURATION_URL in shipped


@pytest.mark.parametrize("spec", MESSAGES, ids=SYMBOLS)
def test_the_pointer_is_a_command_that_prints_the_page(spec: MessageSpec, tmp_path: Path) -> None:
    """A user follows the pointer by typing it, in a folder of their own: no checkout."""
    pointer = re.search(r" \(([^()]+)\)$", spec.text)
    assert pointer is not None, spec.text
    program, *arguments = shlex.split(pointer.group(1))
    assert program == "rpcsurface"
    followed = run_cli(tmp_path, *arguments)
    assert (followed.returncode, followed.stderr) == (0, "")
    assert followed.stdout == spec.page.read_text("utf-8")

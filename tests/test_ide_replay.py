"""Replays what VS Code's Pylint extension does, in one Python process.

The extension keeps a long-lived server process and, for each edit, runs
``pylint.lint.Run([*pylint.args, "--output-format=json2", "--clear-cache-post-run=y",
"--from-stdin", ABSPATH], exit=False)`` with the unsaved buffer on standard input, then
draws a squiggle from the json2 report's line, column, endLine and endColumn. pylint's
columns are UTF-8 byte offsets (astroid's), which the extension converts.

Here the saved core.py is clean and only the buffers have bugs, so every finding must come
from the buffer. Each finding must span exactly the RPC name's string literal, quotes
included, with non-ASCII text earlier on its line; the next run, with an edited buffer,
must show the new finding and nothing of the old one.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from pylint.lint import Run
from support import EDITOR_FILES

from pylint_rpcsurface.messages import BY_SYMBOL

# What the user put in the extension's "pylint.args".
USER_ARGS = ("--load-plugins=pylint_rpcsurface",)
# What the extension adds on every run.
EXTENSION_ARGS = ("--output-format=json2", "--clear-cache-post-run=y", "--from-stdin")

# The saved files are support.EDITOR_FILES; core.py is clean.
# Buffer one: a misspelt name, after 2-byte characters on the same line.
BUFFER_ONE = """
class Core:
    def step(self):
        état = self.mgr.call_func("prefil", wait_out=True)  # expect: 'prefil'
        return état
"""
# Buffer two: the user keeps typing: a line more above, another misspelling, 3- and
# 4-byte characters before it.
BUFFER_TWO = """
class Core:
    \"\"\"Sends the prefill RPC.\"\"\"

    def step(self):
        note = "→ 🚀"; return self.mgr.call_func("prefll", wait_out=True)  # expect: 'prefll'
"""


@dataclass(frozen=True)
class Squiggle:
    symbol: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


def literal_span(buffer: str) -> tuple[str, int, int, int]:
    """(name, line, start, end) of the literal the ``# expect: 'name'`` marker names, with
    start and end as UTF-8 byte offsets on that line, quotes included."""
    for number, line in enumerate(buffer.splitlines(), start=1):
        match = re.search(r"# expect: '([a-z_]+)'$", line)
        if match:
            name = match.group(1)
            literal = f'"{name}"'
            start = len(line[: line.index(literal)].encode("utf-8"))
            return name, number, start, start + len(literal.encode("utf-8"))
    raise AssertionError("no '# expect:' marker in the buffer")


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    for name, text in EDITOR_FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    cwd = Path.cwd()
    os.chdir(tmp_path)  # the extension runs pylint in the workspace folder
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def lint_buffer(monkeypatch: pytest.MonkeyPatch, path: Path, buffer: str) -> list[Squiggle]:
    """One run as the extension makes it, in this process; our checker's messages."""
    # pylint re-wraps sys.stdin.buffer as UTF-8 and reads it, as from the extension's pipe.
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(buffer.encode("utf-8"))))
    out = io.StringIO()
    with redirect_stdout(out):
        Run([*USER_ARGS, *EXTENSION_ARGS, str(path)], exit=False)
    report = json.loads(out.getvalue())
    ours = [m for m in report["messages"] if m["symbol"] in BY_SYMBOL]
    assert {Path(m["absolutePath"]) for m in ours} <= {path}
    return [
        Squiggle(m["symbol"], m["line"], m["column"], m["endLine"], m["endColumn"], m["message"])
        for m in ours
    ]


def test_each_run_squiggles_exactly_the_name_literal_of_its_own_buffer(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = (project / "core.py").resolve()
    saved = path.read_text("utf-8")
    for template in (BUFFER_ONE, BUFFER_TWO):
        buffer = textwrap.dedent(template).lstrip()
        name, line, start, end = literal_span(buffer)
        marked = buffer.splitlines()[line - 1]
        assert start != marked.index(f'"{name}"'), "the line must have non-ASCII text first"

        (squiggle,) = lint_buffer(monkeypatch, path, buffer)

        assert (squiggle.line, squiggle.column, squiggle.end_line, squiggle.end_column) == (
            line,
            start,
            line,
            end,
        )
        assert squiggle.symbol == "rpc-unanswered"
        assert squiggle.text.startswith(f"'{name}' is broadcast by Core,"), squiggle.text
        assert squiggle.text.endswith("(rpcsurface explain rpc-unanswered)"), squiggle.text
    # the second run reflected the second buffer only: its finding is 'prefll', not 'prefil'
    assert "'prefil'" not in squiggle.text
    assert path.read_text("utf-8") == saved  # nothing was written to disk


def test_a_fixed_buffer_clears_the_squiggle_in_the_next_run(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = (project / "core.py").resolve()
    buffer = textwrap.dedent(BUFFER_ONE).lstrip()
    assert len(lint_buffer(monkeypatch, path, buffer)) == 1
    fixed = buffer.replace('"prefil"', '"prefill"')
    assert lint_buffer(monkeypatch, path, fixed) == []
    assert len(lint_buffer(monkeypatch, path, buffer)) == 1

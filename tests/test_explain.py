"""``rpcsurface explain``: a message's page by symbol or id, the list of every message,
a one-line error for an unknown name, and neither astroid nor pylint imported.

Most tests call the command line's ``main`` in this process; the pointer at the end of
every message text is followed through the installed script in
tests/test_message_examples.py, and from a wheel installed without pylint in
tests/test_packaging.py.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import APP, PYPROJECT, clean_environment, project

from pylint_rpcsurface.commands.main import main
from pylint_rpcsurface.commands.projects import EXIT_CLEAN, EXIT_ERROR
from pylint_rpcsurface.messages import BY_SYMBOL, MESSAGES, MessageSpec

SYMBOLS = [spec.symbol for spec in MESSAGES]
SECTIONS = ["What it does", "Why is this bad?", "Example", "Use instead", "Configuration"]


def explain(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["explain", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("spec", MESSAGES, ids=SYMBOLS)
def test_a_symbol_prints_its_shipped_page_with_the_sections_in_order(
    spec: MessageSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = explain(capsys, spec.symbol)
    assert (code, err) == (EXIT_CLEAN, "")
    assert out == spec.page.read_text("utf-8")
    assert out.startswith(f"# {spec.symbol} ({spec.msgid})\n")
    headings = [line[3:] for line in out.splitlines() if line.startswith("## ")]
    assert headings[: len(SECTIONS)] == SECTIONS
    assert spec.description in out
    assert spec.rationale in out


@pytest.mark.parametrize(
    "spelling",
    [str.upper, str.lower, lambda msgid: f"  {msgid.lower()}\n"],
    ids=["upper", "lower", "lower-with-spaces"],
)
def test_an_id_in_any_case_prints_the_same_page_as_the_symbol(
    spelling: Callable[[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    spec = BY_SYMBOL["rpc-unlisted"]
    code, out, err = explain(capsys, spelling(spec.msgid))
    assert (code, err) == (EXIT_CLEAN, "")
    assert out == explain(capsys, spec.symbol)[1]


def test_a_misspelt_symbol_exits_2_with_one_line_that_suggests_the_real_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    symbol = BY_SYMBOL["rpc-unlisted"].symbol
    typo = symbol[:5] + symbol[6:]  # one letter dropped
    code, out, err = explain(capsys, typo)
    assert (code, out) == (EXIT_ERROR, "")
    (line,) = err.splitlines()
    assert line.startswith("rpcsurface: error: ")
    assert repr(typo) in line  # what was given
    assert f"symbol like {MESSAGES[0].symbol}" in line  # what was expected
    assert f"id like {MESSAGES[0].msgid}" in line
    assert symbol in line.split("did you mean ", 1)[1]


def test_a_name_like_no_message_exits_2_without_suggestions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = explain(capsys, "unused-import")
    assert (code, out) == (EXIT_ERROR, "")
    (line,) = err.splitlines()
    assert "'unused-import'" in line
    assert "did you mean" not in line


def test_without_an_argument_every_message_is_listed_with_its_id_and_first_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = explain(capsys)
    assert (code, err) == (EXIT_CLEAN, "")
    lines = out.splitlines()
    assert len(lines) == len(MESSAGES)
    for line, spec in zip(lines, MESSAGES, strict=True):
        msgid, symbol, summary = line.split(maxsplit=2)
        assert (msgid, symbol) == (spec.msgid, spec.symbol)
        description = " ".join(spec.description.split())
        first_sentence = summary.removesuffix(" Off by default.")
        assert first_sentence.endswith(".")
        assert ". " not in first_sentence, "one sentence"
        assert description.startswith(first_sentence)
        rest = description[len(first_sentence) :]
        assert rest == "" or rest.startswith(" "), "cut at the end of a sentence"
        assert (first_sentence != summary) is (not spec.default_enabled)
    # The symbols start in one column, so the list reads as a table.
    assert len({line.index(spec.symbol) for line, spec in zip(lines, MESSAGES, strict=True)}) == 1


def _imported_after(arguments: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    probe = (
        "import sys\n"
        "from pylint_rpcsurface.commands.main import main\n"
        f"code = main({arguments!r})\n"
        "print(sorted(m for m in ('astroid', 'pylint') if m in sys.modules))\n"
        "sys.exit(code)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=folder,
        env=clean_environment(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("arguments", [["explain", "rpc-unlisted"], ["explain"]], ids=" ".join)
def test_explain_imports_neither_astroid_nor_pylint(arguments: list[str], tmp_path: Path) -> None:
    ran = _imported_after(arguments, tmp_path)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.splitlines()[-1] == "[]"


def test_the_probe_sees_astroid_when_the_analyser_runs(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP})
    ran = _imported_after(["check", "--no-cache"], root)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert "'astroid'" in ran.stdout.splitlines()[-1]

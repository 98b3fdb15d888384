"""Hostile names: control characters and Trojan Source in RPC names, helper chains of
thousands of calls.

A registry element or a broadcast name is a str the analysed code chooses. Before the
fix ``"evil\\x1b]0;TITLE\\x07\\rfake: all clean"`` reached the terminal raw from
``rpcsurface check``, ``rpcsurface report`` and pylint: it retitled the terminal, sent
the cursor back over the line and printed a fake verdict, and a newline split one finding
over two lines. Now every text output shows names through ``rules.text.safe_name``: the
dangerous characters as Python's ``repr`` escapes them, everything else as it is. JSON
keeps the exact names (JSON escapes by itself).

A chain of 3,000 helpers gave a message line of 70 KB; now the chain is capped like the
callers are (``rules.text.MAX_STEPS_SHOWN``).
"""

from __future__ import annotations

import json
import subprocess
import unicodedata
from pathlib import Path

import pytest
from support import (
    APP_PLANTED,
    PLANTED_LINE,
    PYPROJECT,
    clean_environment,
    fast_surface,
    marked_findings,
    project,
    pylint_argv,
    run_check,
    run_cli,
    run_pylint,
)

from pylint_rpcsurface.model import Broadcast, CallerBroadcast, HelperStep, Location
from pylint_rpcsurface.rules.text import MAX_STEPS_SHOWN, callers_text, safe_name

EVIL = "evil\x1b]0;TITLE\x07\rfake: all clean"
# EVIL as every text output must show it, written out by hand.
EVIL_SHOWN = "evil\\x1b]0;TITLE\\x07\\rfake: all clean"
NEWLINE = "two\nlines"
NEWLINE_SHOWN = "two\\nlines"
# A right-to-left override and a pipe and a backtick (markdown), with readable letters.
TROJAN = "ünï|b`c\u202ed"
TROJAN_SHOWN = "ünï|b`c\\u202ed"

# Every character no text output may carry raw: C0 (but the newline ending each line),
# DEL, C1, the line and paragraph separators, the bidi embeddings, overrides and isolates.
FORBIDDEN = (
    {chr(c) for c in range(0x20)} - {"\n"}
    | {"\x7f"}
    | {chr(c) for c in range(0x80, 0xA0)}
    | {"\u2028", "\u2029"}
    | {chr(c) for c in range(0x202A, 0x202F)}
    | {chr(c) for c in range(0x2066, 0x206A)}
)

# The registry lists EVIL and TROJAN, which no handler answers; Core waits on EVIL and
# NEWLINE. Each marker plants the findings on its line.
HOSTILE_APP = f"""\
FAST_RPCS = (  # [rpc-listed-unanswered]
    "fast_step",
    {EVIL!r},
    {TROJAN!r},
)


class Runner:
    def step(self):
        return "step"


class FastRunner(Runner):
    def fast_step(self):
        return "fast"


class Core:
    def run(self):
        self.mgr.call_func("fast_step", wait_out=True)
        self.mgr.call_func({EVIL!r}, wait_out=True)  # [rpc-unanswered]
        self.mgr.call_func({NEWLINE!r}, wait_out=True)  # [rpc-unanswered]
"""
REGISTRY_FINDINGS = 2  # EVIL and TROJAN are both listed and unanswered


def _hostile(tmp_path: Path) -> Path:
    return project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": HOSTILE_APP})


def _expected_count() -> int:
    planted = marked_findings(HOSTILE_APP)
    # The registry's marker stands for one finding per hostile element, on their lines.
    return len(planted) - 1 + REGISTRY_FINDINGS


def assert_safe(stdout: str) -> None:
    raw = sorted({char for char in stdout if char in FORBIDDEN})
    assert not raw, f"raw {[hex(ord(c)) for c in raw]} in output:\n{stdout!r}"


# --- safe_name itself


@pytest.mark.parametrize("char", sorted(FORBIDDEN | {"\n"}))
def test_every_dangerous_character_is_escaped(char: str) -> None:
    shown = safe_name(f"a{char}b")
    assert char not in shown
    assert shown.startswith("a\\"), shown
    assert shown.endswith("b"), shown
    # The escape is Python's: it reads back as the character.
    assert shown[1:-1].encode("ascii").decode("unicode_escape") == char


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (EVIL, EVIL_SHOWN),
        (NEWLINE, NEWLINE_SHOWN),
        (TROJAN, TROJAN_SHOWN),
        ("\u2028\u2029\u2066x\u2069", "\\u2028\\u2029\\u2066x\\u2069"),
        ("\x85\x9b\x7f", "\\x85\\x9b\\x7f"),
        ("tab\there", "tab\\there"),
        ("surrogate\udcff", "surrogate\\udcff"),  # an undecodable byte in a file name
    ],
)
def test_names_show_escaped(name: str, shown: str) -> None:
    assert safe_name(name) == shown


@pytest.mark.parametrize("name", ["prefill", "ünïcödé", "名前", "a b", "back\\slash", "'q'"])
def test_printable_names_stay_as_they_are(name: str) -> None:
    assert safe_name(name) == name


def test_escaping_twice_changes_nothing() -> None:
    for name in (EVIL, NEWLINE, TROJAN):
        assert safe_name(safe_name(name)) == safe_name(name)


def test_no_format_character_survives() -> None:
    # Every format character (zero-width joiners, bidi marks, tags) and every
    # separator, over the whole of Unicode's BMP.
    odd = [
        chr(c)
        for c in range(0x10000)
        if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
    ]
    shown = safe_name("".join(odd))
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") for c in shown)


# --- End to end: pylint's text output, rpcsurface check and report


def _pylint_text(root: Path) -> subprocess.CompletedProcess[str]:
    """pylint's own text output (the json2 that run_pylint reads escapes by itself)."""
    return subprocess.run(
        pylint_argv("--msg-template={path}:{line}:{column}: {symbol}: {msg}", "app.py"),
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env=clean_environment(),
        check=False,
    )


def _finding_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("app.py:")]


def test_pylint_text_output_shows_names_escaped(tmp_path: Path) -> None:
    root = _hostile(tmp_path)
    run = _pylint_text(root)
    assert run.returncode & 2, run  # an error message was issued
    assert_safe(run.stdout)
    lines = _finding_lines(run.stdout)
    # One finding per line: every line of the report but pylint's header is a finding.
    body = [line for line in run.stdout.splitlines() if line and not line.startswith("*")]
    assert body == lines
    assert len(lines) == _expected_count(), run.stdout
    for shown in (EVIL_SHOWN, NEWLINE_SHOWN, TROJAN_SHOWN):
        assert any(f"'{shown}'" in line for line in lines), (shown, run.stdout)


def test_check_text_output_shows_names_escaped(tmp_path: Path) -> None:
    root = _hostile(tmp_path)
    run = run_check(root, "--no-cache")
    assert run.returncode == 1, run
    assert_safe(run.stdout)
    lines = run.stdout.splitlines()
    assert lines == _finding_lines(run.stdout)  # nothing but findings, one per line
    assert len(lines) == _expected_count(), run.stdout
    assert sum(f"'{EVIL_SHOWN}'" in line for line in lines) == 2  # listed, and broadcast
    assert sum(f"'{NEWLINE_SHOWN}'" in line for line in lines) == 1
    assert sum(f"'{TROJAN_SHOWN}'" in line for line in lines) == 1


def test_check_json_and_sarif_say_what_pylint_says(tmp_path: Path) -> None:
    root = _hostile(tmp_path)
    pylint = run_pylint(root, "app.py")
    check = run_check(root, "--format", "json", "--no-cache")
    assert check.returncode == 1, check
    assert {(m.symbol, m.line, m.text) for m in check.messages} == {
        (m.symbol, m.line, m.text) for m in pylint.messages
    }
    assert any(f"'{EVIL_SHOWN}'" in m.text for m in check.messages)
    sarif = run_check(root, "--format", "sarif", "--no-cache")
    texts = [r["message"]["text"] for r in json.loads(sarif.stdout)["runs"][0]["results"]]
    assert len(texts) == _expected_count()
    assert_safe("".join(texts))
    assert any(f"'{EVIL_SHOWN}'" in text for text in texts)


def test_report_text_shows_names_escaped(tmp_path: Path) -> None:
    root = _hostile(tmp_path)
    run = run_cli(root, "report", env={"COLUMNS": "300"})  # the aligned columns
    assert run.returncode == 0, run
    assert_safe(run.stdout)
    lines = run.stdout.splitlines()
    # The title, the header, and one row per name: fast_step, EVIL, NEWLINE, TROJAN.
    assert len(lines) == 2 + 4, run.stdout
    for shown in (EVIL_SHOWN, NEWLINE_SHOWN, TROJAN_SHOWN):
        assert sum(line.startswith(shown + " ") for line in lines) == 1, (shown, run.stdout)


def _cells(row: str) -> list[str]:
    """A markdown table row's cells, split on the pipes that are not escaped."""
    cells, cell, escaped = [], "", False
    for char in row.strip()[1:-1]:
        if char == "|" and not escaped:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
        escaped = char == "\\" and not escaped
    return [*cells, cell.strip()]


def test_report_markdown_keeps_each_name_in_its_cell(tmp_path: Path) -> None:
    root = _hostile(tmp_path)
    run = run_cli(root, "report", "--format", "markdown")
    assert run.returncode == 0, run
    assert_safe(run.stdout)
    rows = [line for line in run.stdout.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 4, run.stdout  # the header and one row per name
    assert all(len(_cells(row)) == 5 for row in rows), rows
    first = {_cells(row)[0] for row in rows[1:]}
    assert f"`{EVIL_SHOWN}`" in first
    assert f"`{NEWLINE_SHOWN}`" in first
    # The backtick in TROJAN can't end its code span: the fence is longer; the pipe in it
    # is escaped, as GitHub's tables ask even inside a code span.
    assert "``" + TROJAN_SHOWN.replace("|", "\\|") + "``" in first, first


def test_report_markdown_escapes_markup_in_plain_cells(tmp_path: Path) -> None:
    # The caller's module is a package's __init__.py: its path must not turn bold.
    files = {
        "pyproject.toml": fast_surface("pkg.Core", "pkg.FastRunner", "pkg.Runner", "pkg.FAST_RPCS"),
        "pkg/__init__.py": HOSTILE_APP,
    }
    run = run_cli(project(tmp_path / "proj", files), "report", "--format", "markdown")
    assert run.returncode == 0, run
    assert "pkg/\\_\\_init\\_\\_.py:" in run.stdout, run.stdout


def test_report_json_keeps_the_exact_names(tmp_path: Path) -> None:
    root = _hostile(tmp_path)
    run = run_cli(root, "report", "--format", "json")
    assert run.returncode == 0, run
    assert_safe(run.stdout)  # JSON escapes them by itself
    (surface,) = json.loads(run.stdout)
    assert {row["rpc"] for row in surface["rows"]} == {"fast_step", EVIL, NEWLINE, TROJAN}


def test_explain_shows_an_unknown_name_escaped(tmp_path: Path) -> None:
    run = run_cli(tmp_path, "explain", EVIL)
    assert run.returncode == 2, run
    assert_safe(run.stderr)
    (line,) = run.stderr.splitlines()
    assert f"no message '{EVIL_SHOWN}'" in line, line


# A source root's folder may have any name: its files' paths are shown in every text.
FOLDER = "src\x1b[2J\nroot"
FOLDER_SHOWN = "src\\x1b[2J\\nroot"


def test_a_hostile_folder_name_is_escaped_in_paths(tmp_path: Path) -> None:
    config = PYPROJECT.replace(
        "[tool.rpcsurface]\n", f"[tool.rpcsurface]\nsource-roots = {json.dumps([FOLDER])}\n"
    )
    files = {"pyproject.toml": config, f"{FOLDER}/app.py": APP_PLANTED}
    root = project(tmp_path / "proj", files)
    check = run_check(root, "--no-cache")
    assert check.returncode == 1, check
    assert_safe(check.stdout)
    (line,) = check.stdout.splitlines()
    assert line.startswith(f"{FOLDER_SHOWN}/app.py:{PLANTED_LINE}:"), line
    report = run_cli(root, "report")
    assert report.returncode == 0, report
    assert_safe(report.stdout)
    assert f"Core ({FOLDER_SHOWN}/app.py:{PLANTED_LINE})" in report.stdout, report.stdout
    sarif = run_check(root, "--format", "sarif", "--no-cache")
    (result,) = json.loads(sarif.stdout)["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "src%1B%5B2J%0Aroot/app.py"


# --- A chain of thousands of helpers (10b)

CHAIN = 3000
# Far below the 70 KB the uncapped chain gave: a few steps and the callers.
MAX_LINE = 1000


def _chain_app(length: int) -> str:
    lines = [
        'FAST_RPCS = ("fast_step",)',
        "",
        "class Runner:",
        "    def step(self):",
        "        return 1",
        "",
        "class FastRunner(Runner):",
        "    def fast_step(self):",
        "        return 1",
        "",
        "class Core:",
        "    def run(self):",
        "        h0(self.mgr)",
        "",
        "    def go(self):",
        '        self.mgr.call_func("fast_step", wait_out=True)',
        "",
    ]
    for number in range(length):
        lines.append(f"def h{number}(mgr):")
        if number < length - 1:
            lines.append(f"    h{number + 1}(mgr)")
        else:
            lines.append('    mgr.call_func("no_such_rpc", wait_out=True)')
    return "\n".join(lines) + "\n"


def test_a_chain_of_3000_helpers_gives_one_short_line(tmp_path: Path) -> None:
    config = PYPROJECT.replace(
        "[tool.rpcsurface]\n", f"[tool.rpcsurface]\nhelper-depth = {CHAIN}\n"
    )
    app = _chain_app(CHAIN)
    root = project(tmp_path / "proj", {"pyproject.toml": config, "app.py": app})
    run = run_check(root, "--no-cache")
    assert run.returncode == 1, run.stderr
    (line,) = run.stdout.splitlines()
    assert len(line) < MAX_LINE, len(line)
    first_call = app.splitlines().index("        h0(self.mgr)") + 1
    assert (
        f"rpc-unanswered: 'no_such_rpc' is broadcast by Core via h0() at app.py:{first_call}, "
        in line
    )
    hidden = CHAIN - MAX_STEPS_SHOWN
    last_call = app.splitlines().index(f"    h{CHAIN - 1}(mgr)") + 1
    assert f", {hidden} more helper calls, then h{CHAIN - 1}() at app.py:{last_call}, but" in line
    pylint = run_pylint(root, "app.py")
    (message,) = pylint.messages
    assert message.text in line  # the same capped text


def _site(steps: int) -> CallerBroadcast:
    here = Location("/p/app.py", 1, 0, 1, 4)
    via = tuple(
        HelperStep(f"h{n}", Location("/p/app.py", n + 10, 0, None, None)) for n in range(steps)
    )
    broadcast = Broadcast(here, here, "call_func", "x", '"x"', True, None, None, via=via)
    return CallerBroadcast(broadcast, ("app.Core",))


def test_a_chain_up_to_one_past_the_cap_is_named_in_full() -> None:
    # As with callers: counting one step would save nothing.
    steps = MAX_STEPS_SHOWN + 1
    text = callers_text(_site(steps), "/p")
    assert text == "Core via " + ", ".join(f"h{n}() at app.py:{n + 10}" for n in range(steps))


def test_a_longer_chain_names_its_first_steps_and_its_last() -> None:
    steps = MAX_STEPS_SHOWN + 2
    text = callers_text(_site(steps), "/p")
    first = [f"h{n}() at app.py:{n + 10}" for n in range(MAX_STEPS_SHOWN - 1)]
    last = f"h{steps - 1}() at app.py:{steps - 1 + 10}"
    assert text == f"Core via {', '.join(first)}, 2 more helper calls, then {last}"


# "Core" in fullwidth letters: Python reads identifiers NFKC-normalized, so this is Core.
FULLWIDTH_CORE = "\uff23\uff4f\uff52\uff45"


def _fullwidth_project(tmp_path: Path) -> Path:
    from support import EDITOR_FILES  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    child = (
        f"from {FULLWIDTH_CORE.lower()} import {FULLWIDTH_CORE}\n\n\n"  # from core import Core
        f"class Child({FULLWIDTH_CORE}):\n"
        "    def extra(self):\n"
        '        return self.mgr.call_func("nowhere", wait_out=True)\n'
    )
    return project(tmp_path / "proj", {**EDITOR_FILES, "child.py": child})


def test_a_subclass_naming_its_base_in_fullwidth_letters_is_found(tmp_path: Path) -> None:
    """The subclass search looks for the base's name in the files' text; Python reads
    the fullwidth spelling as that name, and so does the search."""
    from pylint_rpcsurface import engine  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
    from pylint_rpcsurface.config import load_config  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    assert unicodedata.normalize("NFKC", FULLWIDTH_CORE) == "Core"
    root = _fullwidth_project(tmp_path)
    (surface,) = engine.surface_facts(load_config(root / "pyproject.toml")).surfaces
    assert "child.Child" in surface.callers
    assert ("rpc-unanswered", "child.py", 6) in marked_findings_of(root)


def marked_findings_of(root: Path) -> set[tuple[str, str, int]]:
    run = run_check(root, "--format", "json", "--no-cache", timeout=120)
    return {(m.symbol, m.path, m.line) for m in run.messages}


def _messages(root: Path, *extra: str) -> set[tuple[str, str, int, str]]:
    run = run_check(root, "--format", "json", *extra, timeout=120)
    return {(m.symbol, m.path, m.line, m.text) for m in run.messages}


def test_an_import_in_fullwidth_letters_is_a_dependency(tmp_path: Path) -> None:
    """The memo's keys follow the modules a module imports, read from its text: an import
    spelled in fullwidth letters still names the module, so an edit of that module
    recomputes the facts of the importing one (here: which callers broadcast a name)."""
    root = _fullwidth_project(tmp_path)
    assert _messages(root) == _messages(root, "--no-cache")  # the memo is written
    core = root / "core.py"
    more = '    def more(self):\n        return self.mgr.call_func("also_nowhere", wait_out=True)\n'
    core.write_text(core.read_text(encoding="utf-8") + more, encoding="utf-8")
    after = _messages(root)
    assert any("also_nowhere" in text and "Child" in text for *_, text in after)
    assert after == _messages(root, "--no-cache")

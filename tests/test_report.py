"""``rpcsurface report`` on examples/engine: the rows its README promises, in every format."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import APP, fast_surface, project, read_terminal, run_check, run_cli

EXAMPLE = Path(__file__).parent.parent / "examples" / "engine"
README = (EXAMPLE / "README.md").read_text(encoding="utf-8")
BUG_ROW = re.compile(
    r"^\| \d \| `(?P<where>[^`]+)` \| (?P<bug>.*) \| `[EW]\d{4}` `(?P<symbol>[a-z-]+)`", re.M
)


def _bugs() -> list[tuple[str, str, str | None]]:
    """(file:line, symbol, RPC name or None when it isn't a literal) from the README table."""
    found = []
    for match in BUG_ROW.finditer(README):
        name = re.search(r'`"([^"]+)"`', match["bug"])
        found.append((match["where"], match["symbol"], name[1] if name else None))
    return found


def _prose_names(sentence_start: str) -> list[str]:
    """The backticked names of the README sentence that starts with *sentence_start*."""
    start = README.index(sentence_start)
    sentence = README[start : README.index(".", start + len(sentence_start))]
    return re.findall(r"`([a-z_]+)`", sentence)


BASE_OK = _prose_names("`load_model`")  # "... are answered by the base `ModelRunner`"
LISTED_OK = _prose_names("`send_kv_cache` and")  # "... answered only by ..., and listed"
# Wide enough for the aligned columns, one line a row (100 columns piped would make each
# row a block: tests/test_report_width.py).
WIDE = {"COLUMNS": "300"}


def _report() -> list[dict[str, object]]:
    run = run_cli(EXAMPLE, "report", "--format", "json")
    assert (run.returncode, run.stderr) == (0, ""), run
    (surface,) = json.loads(run.stdout)
    assert surface["surface"] == "disagg"
    assert surface["registry"] == "minimind.config.DISAGG_RPCS"
    rows = surface["rows"]
    assert isinstance(rows, list)
    return rows


def test_the_readme_promises_four_bugs_and_five_consistent_names() -> None:
    # Guards the parsing below: a reworded README must fail here, not pass vacuously.
    assert len(_bugs()) == 4
    assert len(BASE_OK) == 3
    assert len(LISTED_OK) == 2


def test_report_rows_match_the_example_readme() -> None:
    rows = _report()
    by_name = {row["rpc"]: row for row in rows if row["inferred"]}
    uninferable = [row for row in rows if not row["inferred"]]
    for where, symbol, name in _bugs():
        if name is None:
            (row,) = uninferable
        else:
            row = by_name.pop(name)
        assert row["verdict"] == [symbol], row
        if where.startswith("minimind/engine_core.py"):
            assert where in [site["at"] for site in row["waitedBy"]], row
    for name in BASE_OK:
        row = by_name.pop(name)
        assert (row["verdict"], row["answeredBy"], row["listed"]) == (
            ["ok"],
            "ModelRunner (base)",
            "no",
        )
    for name in LISTED_OK:
        row = by_name.pop(name)
        assert (row["verdict"], row["answeredBy"], row["listed"]) == (
            ["ok"],
            "DisaggModelRunner",
            "yes",
        )
        assert all(site["waited"] for site in row["waitedBy"]), row
    assert by_name == {}  # no row the README doesn't account for


def test_text_and_markdown_carry_the_same_rows() -> None:
    rows = _report()
    text = run_cli(EXAMPLE, "report", env=WIDE)
    markdown = run_cli(EXAMPLE, "report", "--format", "markdown")
    assert text.returncode == markdown.returncode == 0
    text_lines = text.stdout.splitlines()
    assert text_lines[0] == "surface disagg (registry minimind.config.DISAGG_RPCS)"
    assert text_lines[1].split() == ["RPC", "waited", "by", "answered", "by", "listed", "verdict"]
    table = [line for line in markdown.stdout.splitlines() if line.startswith("| ")]
    assert table[0] == "| RPC | Waited by | Answered by | Listed | Verdict |"
    assert len(text_lines) - 2 == len(table) - 1 == len(rows)
    for row, line, md in zip(rows, text_lines[2:], table[1:], strict=True):
        assert line.startswith(str(row["rpc"])), line
        assert line.endswith(", ".join(row["verdict"])), line
        assert md.startswith(f"| `{row['rpc']}`"), md
        verdicts = ", ".join(v if v == "ok" else f"`{v}`" for v in row["verdict"])
        assert md.endswith(f"| {verdicts} |"), md


@pytest.mark.skipif(sys.platform == "win32", reason="pty")
def test_a_terminal_gets_a_rich_table() -> None:
    pytest.importorskip("rich")
    main, secondary = pty.openpty()
    environment = {**os.environ, "COLUMNS": "200", "TERM": "xterm"}
    with subprocess.Popen(
        [sys.executable, "-m", "pylint_rpcsurface.commands", "report"],
        cwd=EXAMPLE,
        stdout=secondary,
        stderr=subprocess.PIPE,
        env=environment,
    ) as process:
        os.close(secondary)
        shown = read_terminal(main)
        assert process.wait(timeout=120) == 0
    os.close(main)
    assert "┃" in shown or "│" in shown  # rich's box drawing, absent from the plain table
    assert "export_kv_handles" in shown
    assert "rpc-unlisted" in shown


def test_piped_output_is_plain_text() -> None:
    run = run_cli(EXAMPLE, "report")
    assert "│" not in run.stdout
    assert "\x1b[" not in run.stdout


# A project where every kind of rule fires: the registry rules and the reply rules
# (drops-none and shared-reply-queue on). A line's "# [symbols]" marker names the
# findings planted there.
VERDICT_APP = """\
FAST_RPCS = ("fast_step", "stale")


class Runner:
    def load(self):
        return 1

    def ping(self):
        return None

    def send(self, value):
        return True


class FastRunner(Runner):
    def fast_step(self):
        return 1

    def pair(self):
        return 1, 2

    def stale(self):
        return 1


class Core:
    def go(self):
        self.mgr.call_func("load", wait_out=True)
        self.mgr.call_func("ping", wait_out=True)  # [rpc-waited-none-reply]
        self.mgr.call_func("send")  # [rpc-unwaited-reply, rpc-handler-signature]
        a, b, c = self.mgr.call_func("pair", wait_out=True)  # [rpc-reply-arity, rpc-unlisted]
        self.mgr.call_func("fast_step", wait_out=True)
        self.mgr.call_func("missing", wait_out=True)  # [rpc-unanswered]
        return a, b, c
"""
VERDICT_PYPROJECT = fast_surface(
    "app.Core", "app.FastRunner", "app.Runner", "app.FAST_RPCS"
).replace(
    'waits = "wait_out"\n', 'waits = "wait_out"\ndrops-none = true\nshared-reply-queue = true\n'
)


def _planted(source: str) -> dict[str, set[str]]:
    """RPC name -> the symbols the markers plant on its line; the listed-only entry too."""
    planted: dict[str, set[str]] = {}
    for line in source.splitlines():
        name = re.search(r'call_func\("([a-z_]+)"', line)
        marker = re.search(r"# \[([a-z, -]+)\]$", line)
        if name:
            planted[name[1]] = {s.strip() for s in marker[1].split(",")} if marker else set()
    planted["stale"] = {"rpc-listed-unwaited"}  # listed, answered, never broadcast
    return planted


def test_each_verdict_is_exactly_what_check_reports_for_that_row(tmp_path: Path) -> None:
    root = project(tmp_path, {"pyproject.toml": VERDICT_PYPROJECT, "app.py": VERDICT_APP})
    check = run_check(root, "--format", "json", "--no-cache")
    assert check.returncode == 1, check
    run = run_cli(root, "report", "--format", "json")
    assert (run.returncode, run.stderr) == (0, ""), run
    (surface,) = json.loads(run.stdout)
    verdicts = {row["rpc"]: set(row["verdict"]) - {"ok"} for row in surface["rows"]}
    # Each text starts with the RPC's name in single quotes: that is the finding's row.
    checked: dict[str, set[str]] = {name: set() for name in verdicts}
    for message in check.messages:
        checked[message.text.split("'")[1]].add(message.symbol)
    planted = _planted(VERDICT_APP)
    assert checked == planted  # check finds what was planted, the reply rules included
    assert verdicts == checked


ANSWERED_APP = """\
class Runner:
    def load(self):
        return 1


class RlhfMixin:
    def rollout(self):
        return 1


class RlhfRunner(RlhfMixin, Runner):
    def reward(self):
        return 1


class FastRunner(Runner):
    pass


class Core:
    def go(self):
        self.mgr.call_func("load", wait_out=True)
        self.mgr.call_func("rollout", wait_out=True)
        self.mgr.call_func("reward", wait_out=True)
"""


def test_answered_by_names_only_the_classes_that_bind_the_name(tmp_path: Path) -> None:
    """Two handlers: 'rollout' (through a mixin) and 'reward' only RlhfRunner binds;
    'load' both inherit from Runner."""
    table = fast_surface("app.Core", "app.RlhfRunner", "app.Runner", "app.NONE")
    table = table.replace(
        'handlers = ["app.RlhfRunner"]', 'handlers = ["app.RlhfRunner", "app.FastRunner"]'
    )
    table = table.replace('base-handlers = ["app.Runner"]\n', "").replace(
        'registry = "app.NONE"\n', ""
    )
    root = project(tmp_path, {"pyproject.toml": table, "app.py": ANSWERED_APP})
    run = run_cli(root, "report", "--format", "json")
    assert run.returncode == 0, run.stderr
    (surface,) = json.loads(run.stdout)
    answered = {row["rpc"]: row["answeredBy"] for row in surface["rows"]}
    assert answered == {
        "load": "FastRunner and RlhfRunner",
        "reward": "RlhfRunner",
        "rollout": "RlhfRunner",
    }


def test_a_name_the_loop_answers_is_said_to_be_answered_by_it(tmp_path: Path) -> None:
    """answered-before-lookup: 'stop' is answered by the loop, not by a handler, and its
    verdict is that of check (none)."""
    table = fast_surface("app.Core", "app.RlhfRunner", "app.Runner", "app.NONE")
    table = table.replace('registry = "app.NONE"\n', 'answered-before-lookup = ["stop"]\n')
    app = ANSWERED_APP + '        self.mgr.call_func("stop", wait_out=True)\n'
    root = project(tmp_path, {"pyproject.toml": table, "app.py": app})
    run = run_cli(root, "report", "--format", "json")
    assert run.returncode == 0, run.stderr
    (surface,) = json.loads(run.stdout)
    rows = {row["rpc"]: (row["answeredBy"], row["verdict"]) for row in surface["rows"]}
    assert rows["stop"] == ("the receiving loop itself (answered-before-lookup)", ["ok"])
    assert rows["reward"] == ("RlhfRunner", ["ok"])


def test_report_takes_checks_enable_and_disable(tmp_path: Path) -> None:
    """``--disable`` silences in report what it silences in check: the row says so."""
    root = project(tmp_path, {"pyproject.toml": VERDICT_PYPROJECT, "app.py": VERDICT_APP})
    check = run_check(root, "--format", "json", "--no-cache", "--disable=rpc-unanswered")
    assert "rpc-unanswered" not in {m.symbol for m in check.messages}, check
    run = run_cli(root, "report", "--format", "json", "--disable=rpc-unanswered")
    assert (run.returncode, run.stderr) == (0, ""), run
    (surface,) = json.loads(run.stdout)
    (row,) = [row for row in surface["rows"] if row["rpc"] == "missing"]
    assert row["verdict"] == ["rpc-unanswered (silenced)"], row
    again = run_cli(root, "report", "--format", "json")
    (row,) = [row for row in json.loads(again.stdout)[0]["rows"] if row["rpc"] == "missing"]
    assert row["verdict"] == ["rpc-unanswered"], row


def test_an_invalid_registry_is_said_in_the_title_and_in_every_row(tmp_path: Path) -> None:
    # app.NO_SUCH does not resolve: whether a name must be listed can't be judged, so no
    # row may say "listed: no, verdict: ok" (with FAST_RPCS = () fast_step is unlisted).
    table = fast_surface("app.Core", "app.FastRunner", "app.Runner", "app.NO_SUCH")
    root = project(tmp_path, {"pyproject.toml": table, "app.py": APP})
    check = run_check(root, "--format", "json", "--no-cache")
    assert [m.symbol for m in check.messages] == ["rpc-registry-invalid"], check
    run = run_cli(root, "report", "--format", "json")
    assert (run.returncode, run.stderr) == (2, ""), run  # a configuration error, as in check
    (surface,) = json.loads(run.stdout)
    assert surface["registryProblem"] == "is not defined in module app"
    cells = {row["rpc"]: (row["listed"], row["verdict"]) for row in surface["rows"]}
    unknown = ("? (registry invalid)", ["? (registry invalid)"])
    assert cells == {"fast_step": unknown, "step": unknown}
    text = run_cli(root, "report", env=WIDE)
    assert (text.returncode, text.stderr) == (2, ""), text
    lines = text.stdout.splitlines()
    assert lines[0] == "surface fast (registry app.NO_SUCH, invalid)"
    assert re.search(
        r"^fast_step .*  \? \(registry invalid\)  \? \(registry invalid\)$", text.stdout, re.M
    )
    assert lines[-1] == "note: app.NO_SUCH is not defined in module app (rpc-registry-invalid)"
    markdown = run_cli(root, "report", "--format", "markdown")
    assert "### Surface `fast` (registry `app.NO_SUCH`, invalid)" in markdown.stdout
    assert "| ? (registry invalid) | ? (registry invalid) |" in markdown.stdout

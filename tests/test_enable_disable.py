"""Our messages are switched on and off by symbol as well as by id, on the command line
and in pragmas: pylint alone takes any name starting with ``rp`` for a report id."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import APP_PLANTED, PLANTED_LINE, PYPROJECT, project, run_pylint

from pylint_rpcsurface.messages import BY_SYMBOL

UNANSWERED = BY_SYMBOL["rpc-unanswered"].msgid


def _planted(root: Path, *args: str, only_ours: bool = True) -> set[tuple[str, int]]:
    run = run_pylint(root, *args, "app.py", only_ours=only_ours)
    assert "Traceback" not in run.stderr, run.stderr
    return {(m.symbol, m.line) for m in run.messages}


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})


@pytest.mark.parametrize("name", ["rpc-unanswered", UNANSWERED])
def test_disable_on_the_command_line(planted: Path, name: str) -> None:
    assert _planted(planted) == {("rpc-unanswered", PLANTED_LINE)}
    assert _planted(planted, f"--disable={name}") == set()


@pytest.mark.parametrize("name", ["rpc-unanswered", UNANSWERED])
def test_enable_just_one_message(planted: Path, name: str) -> None:
    found = _planted(planted, "--disable=all", f"--enable={name}", only_ours=False)
    assert found == {("rpc-unanswered", PLANTED_LINE)}
    other = "rpc-unlisted" if name == "rpc-unanswered" else BY_SYMBOL["rpc-unlisted"].msgid
    assert _planted(planted, "--disable=all", f"--enable={other}", only_ours=False) == set()


@pytest.mark.parametrize("name", ["rpc-unanswered", UNANSWERED])
def test_a_pragma_on_the_line(planted: Path, name: str) -> None:
    app = planted / "app.py"
    lines = app.read_text(encoding="utf-8").splitlines()
    lines[PLANTED_LINE - 1] += f"  # pylint: disable={name}"
    app.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _planted(planted) == set()


def test_report_ids_still_reach_pylint(planted: Path) -> None:
    """The rerouting is for our symbols only: a real report id is pylint's business."""
    run = run_pylint(planted, "--disable=RP0001", "--reports=y", "app.py")
    assert run.returncode != 32, run.stderr
    assert {(m.symbol, m.line) for m in run.messages} == {("rpc-unanswered", PLANTED_LINE)}

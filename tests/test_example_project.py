"""The bundled example gives exactly the findings its README promises."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from support import run_pylint

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "engine"


def promised() -> set[tuple[str, str, int]]:
    """The (symbol, path, line) in the README's table: `` `rpc-x` at `path:line` ``."""
    text = (EXAMPLE / "README.md").read_text("utf-8")
    found = {
        (symbol, path, int(line))
        for symbol, path, line in re.findall(r"`(rpc[a-z-]*)` at `([^`:]+):(\d+)`", text)
    }
    assert len(found) == 4  # the four planted bugs
    return found


def test_the_example_gives_exactly_its_planted_findings(tmp_path: Path) -> None:
    project = Path(shutil.copytree(EXAMPLE, tmp_path / "engine"))
    run = run_pylint(project, "--recursive=y", ".")
    assert "Traceback" not in run.stderr
    assert run.keys() == promised()
    assert run.returncode & (2 | 4)
    assert not run.returncode & (1 | 32)

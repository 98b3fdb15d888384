"""Classes named by strings: ``rpcsurface init`` proves a runner built from
``resolve_obj_by_qualname(config.runner_qualname)`` (or ``getattr(importlib.
import_module(m), n)``) is one of the classes the project's string literals name, when
every value it assigns or passes is such a literal; one that isn't keeps the surface
unproven (commented out). Each runs the real console script on the fixture
``init_qualname``, whose own table is the hand-written one init's is compared with.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT, edited_copy, run_cli
from test_init_commented import located, uncommented

from pylint_rpcsurface.config import load_config

FIXTURE = ROOT / "tests" / "fixtures" / "init_qualname"
RUNNERS = {"qn.runners.ModelRunner", "qn.runners.PrefillRunner", "qn.runners.DecodeRunner"}
NOTE = "a class supplied from outside the project is not covered"


Edits = dict[str, list[tuple[str, str]]]


def _fixture(tmp_path: Path, edits: Edits | None = None) -> Path:
    """The fixture without its hand-written table, each file in *edits* with its text
    replaced (old, new)."""
    return edited_copy(FIXTURE, tmp_path / "qn", edits or {}, '[project]\nname = "qn"\n')


def _handlers(folder: Path) -> set[str]:
    return {h for s in load_config(folder / "pyproject.toml").surfaces for h in s.handlers}


FORMS: dict[str, Edits] = {
    "resolve_obj_by_qualname": {},
    # The module and the class name as two settings, the name chosen by the role.
    "import_module-getattr": {
        "qn/worker.py": [
            ("from typing import Any\n", "import importlib\nfrom typing import Any\n"),
            (
                "        runner_cls = resolve_obj_by_qualname(config.runner_qualname)\n",
                "        module = importlib.import_module(config.runner_module)\n"
                "        runner_cls = getattr(module, config.runner_name)\n",
            ),
        ],
        "qn/config.py": [
            (
                '    runner_qualname: str = "qn.runners.ModelRunner"\n',
                '    runner_module: str = "qn.runners"\n'
                "    runner_name: str = (\n"
                '        "PrefillRunner" if role == "prefill" else '
                '"DecodeRunner" if role == "decode" else "ModelRunner"\n'
                "    )\n",
            ),
            ("config.runner_qualname = ", "config.runner_name = "),
            ('"qn.runners.PrefillRunner"', '"PrefillRunner"'),
            ('"qn.runners.DecodeRunner"', '"DecodeRunner"'),
        ],
    },
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_runner_named_by_string_literals_is_one_of_their_classes(
    tmp_path: Path, form: str
) -> None:
    folder = _fixture(tmp_path, FORMS[form])
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    assert "1 commented out" not in written.stderr
    handlers = _handlers(folder)
    assert handlers, (folder / "pyproject.toml").read_text("utf-8")
    assert handlers <= RUNNERS
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert "resolved from the string" in text
    assert NOTE in text
    # The active table finds what the hand-written one finds, and nothing more.
    assert located(folder) == located(FIXTURE)


NOT_CLOSED = {
    # A value read at run time: the set of classes can't be listed.
    "from-environment": [
        (
            'config.runner_qualname = "qn.runners.DecodeRunner"',
            'config.runner_qualname = os.environ["RUNNER"]',
        ),
        ("from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n"),
    ],
    # A literal naming no class of the project: a plugin's, say.
    "outside-the-project": [('"qn.runners.DecodeRunner"', '"plugin.runners.RemoteRunner"')],
}


@pytest.mark.parametrize("case", sorted(NOT_CLOSED))
def test_a_qualname_that_isnt_a_project_literal_proves_nothing(tmp_path: Path, case: str) -> None:
    folder = _fixture(tmp_path, {"qn/config.py": NOT_CLOSED[case]})
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    assert _handlers(folder) == set()
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert "# Not proven: the surface of qn.executor.Executor" in text
    assert "resolved from the string" not in text
    # Confirmed and uncommented, it loads and finds nothing the hand-written table doesn't.
    (folder / "pyproject.toml").write_text(uncommented(text), "utf-8")
    assert _handlers(folder)
    assert located(folder) <= located(FIXTURE)

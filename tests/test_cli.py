"""``rpcsurface check``: output formats, paths, exit statuses, and the same findings as pylint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import (
    APP,
    APP_PLANTED,
    PLANTED,
    PLANTED_LINE,
    PYPROJECT,
    project,
    run_check,
    run_pylint,
)

from pylint_rpcsurface import __version__
from pylint_rpcsurface.messages import BY_SYMBOL

PLANTED_COLUMN = PLANTED.index('"no_such_rpc"')


def _two_modules(tmp_path: Path) -> Path:
    """app.py holds the planted bug; pkg/other.py subclasses the caller with another."""
    other = "from app import Core\n\n\nclass Other(Core):\n    def go(self):\n"
    other += '        self.mgr.call_func("other_missing", wait_out=True)\n'
    return project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT,
            "app.py": APP_PLANTED,
            "pkg/__init__.py": "",
            "pkg/other.py": other,
        },
    )


def test_clean_project_exits_0_and_prints_nothing(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP})
    run = run_check(root)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_text_lines_are_path_line_column_symbol_message(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    run = run_check(root)
    text = BY_SYMBOL["rpc-unanswered"].template.split("%s")[0]
    assert run.returncode == 1
    (line,) = run.stdout.splitlines()
    assert line.startswith(f"app.py:{PLANTED_LINE}:{PLANTED_COLUMN}: rpc-unanswered: {text}")
    assert "'no_such_rpc'" in line
    assert line.endswith(f" ({BY_SYMBOL['rpc-unanswered'].pointer})")


def test_the_same_findings_as_pylint_to_the_column_and_text(tmp_path: Path) -> None:
    root = _two_modules(tmp_path)
    pylint = run_pylint(root, "--recursive=y", ".", "--rpcsurface-no-cache=y")
    check = run_check(root, "--format", "json", "--no-cache")
    assert len(pylint.messages) == 2, pylint.stdout
    assert check.messages == pylint.messages


def test_paths_limit_the_report_but_not_the_analysis(tmp_path: Path) -> None:
    """The subclass in pkg/ is found whatever is asked for; only the report is filtered."""
    root = _two_modules(tmp_path)
    only_pkg = run_check(root, "--format", "json", "pkg")
    assert {(m.symbol, m.path) for m in only_pkg.messages} == {("rpc-unanswered", "pkg/other.py")}
    only_app = run_check(root, "--format", "json", "app.py")
    assert {(m.path, m.line) for m in only_app.messages} == {("app.py", PLANTED_LINE)}
    both = run_check(root, "--format", "json", "app.py", "pkg/other.py")
    assert len(both.messages) == 2


def test_paths_are_shown_relative_to_the_current_folder(tmp_path: Path) -> None:
    """Inside the current folder a path is relative; above it, absolute (never '../')."""
    root = _two_modules(tmp_path)
    run = run_check(root / "pkg")
    assert run.returncode == 1
    assert {line.split(":")[0] for line in run.stdout.splitlines()} == {
        str(Path(os.path.realpath(root)) / "app.py"),
        "other.py",
    }


def test_output_is_sorted_by_path_line_column_symbol(tmp_path: Path) -> None:
    root = _two_modules(tmp_path)
    run = run_check(root, "--format", "json")
    keys = [(m["path"], m["line"], m["column"], m["symbol"]) for m in json.loads(run.stdout)]
    assert len(keys) == 2
    assert keys == sorted(keys)


def test_json_carries_ids_spans_and_confidence(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    (item,) = json.loads(run_check(root, "--format", "json").stdout)
    assert item["messageId"] == BY_SYMBOL["rpc-unanswered"].msgid
    assert item["confidence"] == BY_SYMBOL["rpc-unanswered"].confidence
    assert (item["line"], item["column"], item["endLine"]) == (
        PLANTED_LINE,
        PLANTED_COLUMN,
        PLANTED_LINE,
    )
    assert item["endColumn"] == PLANTED_COLUMN + len('"no_such_rpc"')


def test_a_configuration_error_exits_2_with_the_key(tmp_path: Path) -> None:
    broken = PYPROJECT.replace('callers = ["app.Core"]', 'callers = ["app.NoSuchCore"]')
    root = project(tmp_path / "proj", {"pyproject.toml": broken, "app.py": APP_PLANTED})
    run = run_check(root)
    assert run.returncode == 2
    assert run.stdout == ""
    assert "tool.rpcsurface.surface[0].callers[0]" in run.stderr
    assert "Traceback" not in run.stderr


def test_invalid_toml_exits_2_naming_the_file(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": "[tool.rpcsurface\n", "app.py": APP})
    run = run_check(root)
    assert run.returncode == 2
    assert "pyproject.toml" in run.stderr
    assert "invalid TOML" in run.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("no_such_dir",), "no_such_dir: no such file or folder"),
        (("--config", "missing.toml"), "missing.toml: no such file"),
        (("--format", "xml"), "invalid choice"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP})
    run = run_check(root, *args)
    assert run.returncode == 2
    assert says in run.stderr
    assert "Traceback" not in run.stderr


def test_no_configuration_found_exits_2(tmp_path: Path) -> None:
    root = project(tmp_path / "bare", {"app.py": APP})
    run = run_check(root)
    assert run.returncode == 2
    assert "no pyproject.toml with a [tool.rpcsurface] table" in run.stderr


def test_an_explicit_config_file(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", {"conf/rpc.toml": PYPROJECT, "app.py": APP_PLANTED})
    # Source roots default to the TOML file's folder: point them back at the project.
    toml = root / "conf" / "rpc.toml"
    toml.write_text('[tool.rpcsurface]\nsource-roots = [".."]\n' + PYPROJECT.split("\n", 1)[1])
    run = run_check(root, "--config", "conf/rpc.toml", "--format", "json")
    assert {(m.symbol, m.line) for m in run.messages} == {("rpc-unanswered", PLANTED_LINE)}


def test_the_console_script_and_version(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("rpcsurface")
    assert script.exists(), "the rpcsurface console script is not installed"
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    run = subprocess.run(
        [str(script), "check"], cwd=root, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    version = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, check=False
    )
    assert version.stdout.strip() == f"rpcsurface {__version__}"
    bare = subprocess.run([str(script)], capture_output=True, text=True, check=False)
    assert bare.returncode == 2

"""Determinism: the same input gives byte-identical output.

On the busy mutation of the fixture (findings in three modules): pylint's whole json2
report, byte for byte, is the same across runs, under ``-j 2``, and with the files named
instead of the tree; its messages come sorted by path, line, column and symbol. Files
named in another order give the same messages per file (pylint prints files in the order
it was given them).
The CLI, when this checkout has it, is held to the same with its cache on and off.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acceptance_cases import BUSY, assert_ran, expected_findings, make_copy, python_files
from support import PylintRun, run_cli, run_pylint


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_copy(tmp_path_factory.mktemp("determinism") / "engine", BUSY)


def raw_keys(run: PylintRun) -> list[tuple[str, int, int, str]]:
    """(path, line, column, symbol) of each message in the order pylint printed them."""
    return [
        (m["path"], m["line"], m["column"], m["symbol"]) for m in json.loads(run.stdout)["messages"]
    ]


def test_pylint_output_is_sorted_and_byte_identical_across_runs_and_modes(busy: Path) -> None:
    files = [f for f in python_files(busy) if f.startswith("atom/")]
    modes = {
        "whole-tree": ("--recursive=y", "atom"),
        "whole-tree-again": ("--recursive=y", "atom"),
        "jobs-2": ("-j", "2", "--recursive=y", "atom"),
        "files": tuple(files),
        "files-jobs-2": ("-j", "2", *files),
    }
    runs = {mode: run_pylint(busy, *args) for mode, args in modes.items()}
    reference = runs["whole-tree"]
    assert_ran(reference)
    keys = raw_keys(reference)
    assert len(keys) == len(expected_findings(busy)) > 0
    assert keys == sorted(keys)
    for mode, run in runs.items():
        assert_ran(run)
        assert run.stdout == reference.stdout, mode


def test_reversed_file_order_changes_only_the_order_of_files(busy: Path) -> None:
    """pylint prints each file's messages in the order the files were named; that order is
    pylint's, not the plugin's. Each file's messages, and their order, are the same."""
    files = [f for f in python_files(busy) if f.startswith("atom/")]
    ordered = run_pylint(busy, *files)
    backwards = run_pylint(busy, *reversed(files))
    assert_ran(ordered)
    assert_ran(backwards)
    per_file = {
        f: [m for m in json.loads(ordered.stdout)["messages"] if m["path"] == f] for f in files
    }
    again = {
        f: [m for m in json.loads(backwards.stdout)["messages"] if m["path"] == f] for f in files
    }
    assert per_file == again
    assert sum(len(found) for found in per_file.values()) == len(expected_findings(busy))


def test_cli_output_is_identical_with_cache_on_and_off(busy: Path) -> None:
    outputs = {}
    for name, no_cache in (("cold", {}), ("warm", {}), ("off", {"RPCSURFACE_NO_CACHE": "1"})):
        for fmt in ("text", "json"):
            completed = run_cli(busy, "check", "--format", fmt, env=no_cache)
            assert completed.returncode == 1, completed.stderr  # the busy mutation has findings
            outputs[name, fmt] = completed.stdout
    for fmt in ("text", "json"):
        assert outputs["cold", fmt] == outputs["warm", fmt] == outputs["off", fmt], fmt

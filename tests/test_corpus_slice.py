"""The always-on slice of the corpus runs (bench/corpus.py): the standard library's json
package, with each of the three config kinds, through real pylint.

Pass, as for the full runs: no traceback, no astroid-error, no fatal, and
``rpcsurface check`` gives exactly the findings pylint gives. Beyond that, each kind must
do what it is for: ``exists`` resolves every configured class (no config error),
``missing`` gives exactly one config error per configured name in every module, ``call``
resolves the classes too and reads the call-valued registry.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import pytest

BENCH = Path(__file__).parent.parent / "bench" / "corpus.py"


def load_corpus():  # the script is not a package module: load it by path (our own code)
    spec = importlib.util.spec_from_file_location("corpus", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus"] = module
    spec.loader.exec_module(module)
    return module


corpus = load_corpus()


@pytest.fixture(scope="module")
def results() -> dict:
    target = corpus.TARGETS[corpus.SLICE]
    found = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        folders = corpus.copy_target(target, root)
        for kind in corpus.KINDS:
            (root / "pyproject.toml").write_text(corpus.config_text(target, kind), "utf-8")
            found[kind] = corpus.judge_pylint(
                corpus.SLICE, kind, root, folders, jobs=1, timeout=300
            )
            found[kind, "check"] = corpus.judge_cli(corpus.SLICE, kind, root, folders, 300)
    return found


@pytest.mark.parametrize("tool", ["pylint", "check"])
@pytest.mark.parametrize("kind", corpus.KINDS)
def test_slice_passes(results: dict, kind: str, tool: str) -> None:
    result = results[kind] if tool == "pylint" else results[kind, tool]
    assert result.files > 0
    assert result.lines > 0
    assert result.exit_code >= 0, result
    assert (result.tracebacks, result.astroid_errors, result.fatals) == (0, 0, 0), result
    assert result.passed


@pytest.mark.parametrize("kind", ["exists", "call"])
def test_check_gives_the_findings_pylint_gives(results: dict, kind: str) -> None:
    pylint, check = results[kind], results[kind, "check"]
    assert pylint.keys, "the slice must give findings, or the comparison proves nothing"
    assert corpus.compare(pylint, check) == []
    assert check.passed


def test_check_names_each_missing_class_once(results: dict) -> None:
    """The command line tool reports a configuration once, not once per module: exit 2
    and the three unresolved names on one line."""
    check = results["missing", "check"]
    assert (check.exit_code, check.config_errors) == (2, 3), check


def test_each_config_kind_does_what_it_is_for(results: dict) -> None:
    assert results["exists"].config_errors == 0, results["exists"]
    assert results["call"].config_errors == 0, results["call"]
    # the one caller, the one handler and the registry of the "missing" config don't
    # resolve: one error for each, in every module (base-handlers is not configured).
    text = corpus.config_text(corpus.TARGETS[corpus.SLICE], "missing")
    named = text.count('"nowhere.')
    assert named == 3
    missing = results["missing"]
    assert missing.by_symbol == {"rpcsurface-config-error": named * missing.files}, missing


def test_the_call_registry_is_read_as_not_a_collection(results: dict) -> None:
    """json.decoder.NaN is ``float('nan')``: evaluable or not, never a collection of str,
    so it is rpc-registry-invalid, once, and nothing is judged against it."""
    assert results["call"].by_symbol.get("rpc-registry-invalid") == 1, results["call"]

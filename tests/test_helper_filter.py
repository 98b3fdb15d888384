"""The syntax filter in front of helper inference: calls that can only reach builtins or
the standard library are not inferred; everything else still is."""

from __future__ import annotations

from pathlib import Path

import astroid
import pytest
from astroid import nodes

from pylint_rpcsurface.analysis.helper_calls import _reaches_only_python_itself
from pylint_rpcsurface.sources import SourceTree

MODULE = """\
import logging
import os.path
import json as js
from collections import OrderedDict
from . import sibling
import helpers_mod
from helpers_mod import warm_up

logger = logging.getLogger(__name__)
alias = logger


def run(self, path):
    len(path)                       # builtin
    logging.info("x")               # stdlib module
    os.path.join(path, "x")         # stdlib, dotted import
    js.dumps({})                    # stdlib under an alias
    OrderedDict()                   # from a stdlib module
    logger.debug("x")               # assigned from a stdlib call
    alias.debug("x")                # two hops
    with open(path) as handle:
        handle.read()               # bound by with, from a builtin
    warm_up(self)                   # project helper: inferred
    helpers_mod.warm_up(self)       # project module: inferred
    sibling.go()                    # relative import: inferred
    self.step()                     # a method: inferred
    undefined_here.x()              # unbound: a builtin look-up fails, so skipped
    (lambda: 1)()                   # no name to start from: inferred
"""

SKIPPED = {
    "len",
    "logging.info",
    "os.path.join",
    "js.dumps",
    "OrderedDict",
    "logger.debug",
    "alias.debug",
    "open",
    "handle.read",
    "undefined_here.x",
}
INFERRED = {"warm_up", "helpers_mod.warm_up", "sibling.go", "self.step", "lambda: 1"}


def _calls(tree: SourceTree) -> dict[str, bool]:
    module = astroid.parse(MODULE, module_name="app")
    (run,) = [f for f in module.body if isinstance(f, nodes.FunctionDef)]
    return {
        call.func.as_string(): _reaches_only_python_itself(call, tree)
        for call in run.nodes_of_class(nodes.Call)
    }


def test_builtins_and_the_standard_library_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "helpers_mod.py").write_text("def warm_up(core):\n    pass\n")
    decided = _calls(SourceTree((tmp_path,)))
    assert {call for call, skipped in decided.items() if skipped} == SKIPPED
    assert {call for call, skipped in decided.items() if not skipped} == INFERRED


@pytest.mark.parametrize("shadow", ["logging.py", "json/__init__.py", "collections.py"])
def test_a_project_module_shadowing_the_standard_library_is_inferred(
    tmp_path: Path, shadow: str
) -> None:
    target = tmp_path / shadow
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("def info(*args):\n    pass\n")
    decided = _calls(SourceTree((tmp_path,)))
    shadowed = {
        "logging.py": {"logging.info", "logger.debug", "alias.debug"},
        "json/__init__.py": {"js.dumps"},
        "collections.py": {"OrderedDict"},
    }[shadow]
    assert {call for call in shadowed if decided[call]} == set()

"""The syntax filter in front of helper inference: calls that can only reach builtins or
the standard library are not inferred; everything else still is."""

from __future__ import annotations

from pathlib import Path

import astroid
import pytest
from astroid import nodes

from pylint_rpcsurface.analysis.helper_calls import reaches_only_python_itself
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
        call.func.as_string(): reaches_only_python_itself(call, tree)
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


# Shapes where a name's look-up does not end where a first glance says: the two
# shortcuts in front of astroid's look-up (a parameter and nothing else; bound in no
# scope at all) must decide every call as the look-up itself does.
SHORTCUTS = """\
import logging
import helpers_mod

open_alias = open


class Shadow:
    open = helpers_mod.warm_up  # a class-level name a builtin's
    opened = open("z")  # in the class body: the class-level name

    def method(self, handle=open("x")):  # a default: looked up in the class
        return self.step(handle)

    def uses(self):
        return open("y")  # methods do not see class-level names: the builtin


def uses_param(self, logging):
    logging.info("x")  # the parameter, not the import
    self.step()


def rebound(self):
    self = logging.getLogger()  # rebound: the look-up gives the assignment
    self.info("x")


def default_from_outside(logger=logging.getLogger()):
    logger.info("x")


def nested(self):
    def inner(self=self.make()):  # inner's default: the outer self
        return self.run()

    return inner


def nested_logger():
    log = logging.getLogger()

    def inner(log=log.info("x")):  # inner's default: the outer log, a stdlib value
        return log

    return inner


def comprehension(self, items):
    return [self.step(item) for item in items]


def builtins_only(items):
    return sorted(len(item) for item in items), abs(-1)


def shadowed_builtin():
    len = helpers_mod.warm_up
    return len([1])


def declared_global():
    global sorted
    sorted = helpers_mod.warm_up


def module_dunder():
    return __name__.upper()


def undefined():
    return nowhere.go()


def lambdas():
    return (lambda self: self.step())(None), (lambda: sorted([]))()
"""


def test_the_shortcuts_decide_as_the_look_up_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pylint_rpcsurface.analysis import helper_calls  # noqa: PLC0415

    (tmp_path / "helpers_mod.py").write_text("def warm_up(core):\n    pass\n")
    tree = SourceTree((tmp_path,))
    module = astroid.parse(SHORTCUTS, module_name="app")
    calls = list(module.nodes_of_class(nodes.Call))
    taken = {"parameter": 0, "no scope": 0}
    only_a_parameter = helper_calls._only_a_parameter
    bound_in_no_scope = helper_calls._bound_in_no_scope

    def counting_parameter(name: nodes.Name) -> bool:
        found = only_a_parameter(name)
        taken["parameter"] += found
        return found

    def counting_no_scope(name: nodes.Name) -> bool:
        found = bound_in_no_scope(name)
        taken["no scope"] += found
        return found

    monkeypatch.setattr(helper_calls, "_only_a_parameter", counting_parameter)
    monkeypatch.setattr(helper_calls, "_bound_in_no_scope", counting_no_scope)
    with_shortcuts = [reaches_only_python_itself(call, tree) for call in calls]
    monkeypatch.setattr(helper_calls, "_only_a_parameter", lambda name: False)
    monkeypatch.setattr(helper_calls, "_bound_in_no_scope", lambda name: False)
    by_look_up = [reaches_only_python_itself(call, tree) for call in calls]
    assert with_shortcuts == by_look_up
    assert taken["parameter"] >= 5  # both shortcuts are taken, often
    assert taken["no scope"] >= 3
    assert set(by_look_up) == {True, False}

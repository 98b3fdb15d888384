"""The helper filter on a class called by its name (``EngineOutput(...)``, LMDeploy's
engine instance): a name bound only to class statements, here or through imports, is
never a helper, so it is not inferred, and a dataclass's transforms (which build
``typing`` and ``dataclasses``) never run for it. A name bound to anything else is still
inferred, and a helper reached that way still counts."""

from __future__ import annotations

from pathlib import Path

import astroid
from astroid import nodes
from support import fast_surface, project, run_check, stats_env, stats_records

from pylint_rpcsurface.analysis.helper_calls import _method_of_a_named_class, calls_a_class

MESSAGES = """\
import dataclasses
from typing import Dict, List, Optional


@dataclasses.dataclass
class Output:
    tokens: List[int]
    extra: Optional[Dict[str, int]] = None
"""

CORE = """\
from pkg.reexport import Output
from pkg.helpers import announce


class Core:
    def step(self, tokens):
        out = Output(tokens)
        announce(self.mgr)
        self.mgr.call_func("prefill", wait_out=True)
        return out
"""

FILES = {
    "pkg/__init__.py": "",
    "pkg/messages.py": MESSAGES,
    "pkg/reexport.py": "from pkg.messages import Output\n",
    "pkg/helpers.py": 'def announce(mgr):\n    mgr.call_func("annouce", wait_out=True)\n',
    "pkg/runners.py": (
        "RPCS = ()\n\n\nclass Runner:\n    def prefill(self):\n        return 1\n\n\n"
        "class FastRunner(Runner):\n    pass\n"
    ),
    "pyproject.toml": fast_surface(
        "pkg.core.Core", "pkg.runners.FastRunner", "pkg.runners.Runner", "pkg.runners.RPCS"
    ),
}


def _built(root: Path, core: str) -> tuple[set[tuple[str, int]], int]:
    project(root, {**FILES, "pkg/core.py": core})
    checked = run_check(root, "--format", "json", env=stats_env(root))
    uncached = run_check(root, "--format", "json", "--no-cache")
    assert checked.stdout == uncached.stdout, checked.stderr
    (record,) = stats_records(root)
    found = {(m.symbol, m.line) for m in checked.messages if m.path == "pkg/helpers.py"}
    return found, int(record["other_modules_built"])


def test_a_class_called_by_name_is_not_inferred_and_helpers_still_count(
    tmp_path: Path,
) -> None:
    found, built = _built(tmp_path / "with" / "proj", CORE)
    # The helper reached beside the class is followed: its misspelled name is reported.
    assert found == {("rpc-unanswered", 2)}
    _, built_without = _built(
        tmp_path / "without" / "proj",
        CORE.replace("        out = Output(tokens)\n", "        out = 1\n"),
    )
    # The dataclass's transforms never ran: the modules built are those of the same
    # code without the call.
    assert built == built_without


def test_only_names_bound_to_classes_alone_are_skipped() -> None:
    module = astroid.parse(
        """
from collections import OrderedDict
import functools

class Local:
    pass

def function():
    pass

Rebound = Local
maybe = Local
maybe = function

Local()            # a class statement
OrderedDict()      # imported, bound to a class statement there
function()         # a function
Rebound()          # an assignment
maybe()            # a class, then a function
functools.partial(function)()  # not a name
undefined()        # bound nowhere
"""
    )
    calls = [
        statement.value
        for statement in module.body
        if isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Call)
    ]
    assert [calls_a_class(call) for call in calls] == [
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


PARAMS = """\
import dataclasses
from typing import Dict, List, Optional


@dataclasses.dataclass
class Params:
    tokens: List[int]
    extra: Optional[Dict[str, int]] = None

    @classmethod
    def make(cls, mgr):
        return len(mgr)
"""

MAKER = """\
from pkg.reexport import Params


class Core:
    def step(self):
        Params.make(self.mgr)
        self.mgr.call_func("prefil", wait_out=True)
"""


def _made(root: Path, params: str) -> tuple[set[tuple[str, str, int]], int]:
    files = {
        **FILES,
        "pkg/messages.py": params,
        "pkg/reexport.py": "from pkg.messages import Params\n",
    }
    project(root, {**files, "pkg/core.py": MAKER})
    checked = run_check(root, "--format", "json", env=stats_env(root))
    assert checked.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    (record,) = stats_records(root)
    return {(m.symbol, m.path, m.line) for m in checked.messages}, int(
        record["other_modules_built"]
    )


def test_a_classmethod_of_a_named_class_is_found_without_its_class_s_transforms(
    tmp_path: Path,
) -> None:
    found, built = _made(tmp_path / "dataclass" / "proj", PARAMS)
    assert found == {("rpc-unanswered", "pkg/core.py", 7)}
    plain = PARAMS.replace("@dataclasses.dataclass\n", "").replace(
        "    tokens: List[int]\n    extra: Optional[Dict[str, int]] = None\n", ""
    )
    found_plain, built_plain = _made(tmp_path / "plain" / "proj", plain)
    assert found_plain == found
    # The dataclass's transforms never ran: it built what the plain class builds.
    assert built == built_plain
    # The classmethod is still a helper: what it sends counts, through the re-export.
    sending = PARAMS.replace(
        "        return len(mgr)\n", '        mgr.call_func("mak", wait_out=True)\n'
    )
    found_sending, _ = _made(tmp_path / "sending" / "proj", sending)
    assert found_sending == {*found, ("rpc-unanswered", "pkg/messages.py", 12)}


def test_only_a_plain_def_bound_once_is_taken_by_its_name() -> None:
    module = astroid.parse(
        """
import functools

class Kind:
    @classmethod
    def plain(cls): pass
    @staticmethod
    def static(): pass
    @functools.cache
    def cached(self): pass
    def __init__(self): pass
    def twice(self): pass
    twice = staticmethod(twice)
    def method(self): pass

Kind.plain()
Kind.static()
Kind.cached()
Kind.__init__()
Kind.twice()
Kind.method()
"""
    )
    calls = [
        statement.value
        for statement in module.body
        if isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Call)
    ]
    named = [_method_of_a_named_class(call.func) for call in calls]
    assert [None if found is None else found.name for found in named] == [
        "plain",
        "static",
        None,
        None,
        None,
        "method",
    ]

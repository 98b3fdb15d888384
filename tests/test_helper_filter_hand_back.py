"""The helper search skips a call that can only reach the standard library (``logger =
logging.getLogger(...)`` then ``logger.info(...)``), but not when a call on the way may
hand back what it is given: ``cast(T, x)``, ``getattr(x, "m")`` give the project's own
object, whose staticmethod is a helper (red before: each helper's send was lost). A
project function whose every return is of the standard library's (``get_logger(name)``
returning ``logging.getLogger(name)``, or its ``cast``) counts as the standard library's:
``logger.info(...)`` builds no ``logging`` (vLLM 0.7.3's ``init_logger``).

Each call the filter takes to give nothing back, whatever it is given, is held to
astroid's own answer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
import pytest
from astroid import bases, nodes
from support import FAST_PACKAGE, line_of, project, run_check, stats_env, stats_records

from pylint_rpcsurface.analysis.helper_calls import GIVING_NOTHING_BACK, calls_a_partial_of_a_method
from pylint_rpcsurface.sources import SourceTree

FILES = FAST_PACKAGE

CORE = textwrap.dedent(
    """\
    import copy
    from typing import cast

    from pkg.logs import get_logger, same

    logger = get_logger("pkg")


    class Helpers:
        @staticmethod
        def send_all(mgr):
            mgr.call_func("helper_load", wait_out=True)


    class Core:
        def __init__(self):
            self.helpers = Helpers()

        def step(self):
            logger.info("step")
    """
)

LOGS = textwrap.dedent(
    """\
    import logging
    from typing import cast


    def get_logger(name):
        logger = logging.getLogger(name)
        for handler in logger.handlers:
            handler.setLevel(logging.INFO)
        return cast(logging.Logger, logger)


    def same(value):
        return value
    """
)

HANDING_BACK = {
    "cast": "        h = cast(Helpers, self.helpers)\n        h.send_all(self.mgr)\n",
    "cast inline": "        cast(Helpers, self.helpers).send_all(self.mgr)\n",
    "getattr": "        getattr(self.helpers, 'send_all')(self.mgr)\n",
    "getattr bound": "        f = getattr(self.helpers, 'send_all')\n        f(self.mgr)\n",
    "a project function": "        h = same(self.helpers)\n        h.send_all(self.mgr)\n",
    "an item of a literal": (
        "        for self.item in [self.helpers]:\n            self.item.send_all(self.mgr)\n"
    ),
    "an item of a named literal": (
        "        items = [len, self.helpers]\n"
        "        for item in items:\n            item.send_all(self.mgr)\n"
    ),
    "an item of a literal beside the library's": (
        "        for item in (len, self.helpers):\n            item.send_all(self.mgr)\n"
    ),
}


@pytest.mark.parametrize("case", sorted(HANDING_BACK))
def test_a_call_handing_back_the_project_s_object_is_followed(tmp_path: Path, case: str) -> None:
    core = CORE + HANDING_BACK[case]
    root = project(tmp_path / "proj", {**FILES, "pkg/core.py": core, "pkg/logs.py": LOGS})
    checked = run_check(root, "--format", "json", "--no-cache")
    found = {(m.symbol, m.path, m.line) for m in checked.messages}
    assert found == {("rpc-unanswered", "pkg/core.py", line_of(core, '"helper_load"'))}


def _built(root: Path, core: str) -> tuple[set[tuple[str, str, int]], int]:
    project(root, {**FILES, "pkg/core.py": core, "pkg/logs.py": LOGS})
    cached = run_check(root, "--format", "json", env=stats_env(root))
    assert cached.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    found = {(m.symbol, m.path, m.line) for m in cached.messages}
    return found, int(stats_records(root)[-1]["other_modules_built"])


def test_a_logger_from_a_project_function_builds_no_logging(tmp_path: Path) -> None:
    """``logger.info(...)``, ``logger`` from the project's ``get_logger``: no more
    modules are built than without the call (``logging`` is not)."""
    sends = "        self.helpers.send_all(self.mgr)\n"
    answer, built = _built(tmp_path / "with", CORE + sends)
    without = CORE.replace('        logger.info("step")\n', "        pass\n")
    answer_without, built_without = _built(tmp_path / "without", without + sends)
    assert (
        answer
        == answer_without
        == {("rpc-unanswered", "pkg/core.py", line_of(CORE + sends, '"helper_load"'))}
    )
    assert built == built_without


SETUP = textwrap.dedent(
    """\
    import logging
    import sys


    def setup(name):
        logger = logging.getLogger(name)
        stream_handler = logging.StreamHandler(stream=sys.stdout)
        handlers = [stream_handler]
        for handler in handlers:
            handler.setLevel(logging.INFO)
        for handler in (logging.FileHandler("log.txt"),):
            handler.setLevel(logging.INFO)
        return logger
    """
)


def test_the_items_of_a_literal_of_the_library_s_values_build_no_logging(
    tmp_path: Path,
) -> None:
    """LMDeploy 0.7.3's ``get_logger``, a helper its callers call: a loop over a literal
    listing the library's handlers builds no ``logging``, no more modules than the
    helper without its loops."""
    core = CORE.replace('        logger.info("step")\n', '        setup("pkg")\n')
    core = core.replace("from pkg.logs import", "from pkg.setup import setup\nfrom pkg.logs import")
    sends = "        self.helpers.send_all(self.mgr)\n"
    loops = SETUP[SETUP.index("    for handler in handlers") : SETUP.index("    return logger")]
    counts = []
    for name, setup in (("with", SETUP), ("without", SETUP.replace(loops, ""))):
        root = project(tmp_path / name / "proj", {"pkg/setup.py": setup})
        answer, built = _built(root, core + sends)
        assert answer == {("rpc-unanswered", "pkg/core.py", line_of(core + sends, '"helper_load"'))}
        counts.append(built)
    assert counts[0] == counts[1]


def _every_parameter(callable_node: nodes.NodeNG) -> int:
    """How many positional parameters the class's ``__init__`` or the function takes."""
    function = callable_node
    if isinstance(callable_node, nodes.ClassDef):
        try:
            function = callable_node.getattr("__init__")[0]
        except astroid.AttributeInferenceError:
            return 0
    if not isinstance(function, nodes.FunctionDef) or function.args.args is None:
        return 0
    names = [argument.name for argument in function.args.args]
    return len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)


@pytest.mark.parametrize("name", sorted(GIVING_NOTHING_BACK))
def test_a_call_giving_nothing_back_does_for_astroid(name: str) -> None:
    """``F(helper, helper, ...)``: neither the value astroid infers nor any attribute
    of it (its instance's attributes, its classes' names) is the project's function."""
    module = name.rpartition(".")[0]
    made = astroid.extract_node(f"import {module}\n{name} #@\n")
    (callable_node,) = [v for v in made.infer() if isinstance(v, nodes.NodeNG)][:1] or [None]
    count = _every_parameter(callable_node) if callable_node is not None else 0
    arguments = ", ".join(["helper"] * count)
    code = f"import {module}\n\n\ndef helper(mgr):\n    pass\n\n\nvalue = {name}({arguments})\n"

    def helper_in(values: list[object]) -> bool:
        return any(
            isinstance(v, (nodes.FunctionDef, bases.BoundMethod)) and v.name == "helper"
            for v in values
        )

    values = list(astroid.extract_node(code + "value #@\n").infer())
    assert not helper_in(values)
    names: set[str] = set()
    for value in values:
        if isinstance(value, bases.Instance):
            klass = value._proxied  # pylint: disable=protected-access
            names |= set(klass.instance_attrs)
            names |= {n for k in [klass, *klass.ancestors()] for n in k.locals}
    # open(...) infers to nothing astroid knows: no attribute of it can be a helper.
    assert names or all(not isinstance(value, nodes.NodeNG) for value in values), values
    for attribute_name in sorted(names):
        node = astroid.extract_node(code + f"value.{attribute_name} #@\n")
        try:
            inferred = list(node.infer())
        except astroid.InferenceError:
            continue
        assert not helper_in(inferred), attribute_name


PARTIALS = textwrap.dedent(
    """\
    from functools import partial


    def send_all(mgr):
        mgr.call_func("helper_load", wait_out=True)


    class Core:
        def __init__(self, mgr):
            self.mgr = mgr
            self._record = partial(self._put, 1)

        def _put(self, kind, tokens=None):
            return kind, tokens

        def step(self):
            self._record([0])
    """
)


SHAPES = textwrap.dedent(
    """\
    import functools
    from functools import partial

    from pkg.tools import partial as own_partial


    def send_all(mgr):
        mgr.call_func("helper_load", wait_out=True)


    class Core:
        def __init__(self, mgr):
            self.plain = partial(self._put, 1)
            self.dotted = functools.partial(self._put)
            self.static = partial(self._send_static, mgr)
            self.function = partial(send_all, mgr)
            self.own = own_partial(self._put)
            self.twice = partial(self._put)
            self.shadowed = partial(self._shadow)
            self._shadow = None

        def switch(self):
            self.twice = send_all

        def _put(self, kind, tokens=None):
            return kind, tokens

        def _shadow(self):
            return None

        @staticmethod
        def _send_static(mgr):
            mgr.call_func("static_load", wait_out=True)

        def step(self):
            self.plain()
            self.dotted()
            self.static()
            self.function()
            self.own()
            self.twice()
            self.shadowed()


    class Sub(Core):
        def step(self):
            self.plain()


    class Override(Core):
        @staticmethod
        def _put(kind, tokens=None):
            return kind, tokens

        def step(self):
            self.plain()
    """
)


def test_which_partials_are_a_method_s() -> None:
    """Only a ``functools.partial`` of a plain method of the class, for every value of the
    attribute, is taken for one (a staticmethod's or a function's partial may call a
    helper; a project's own ``partial`` is anything; an attribute bound to something else
    too, or a method name shadowed by an instance attribute, is left to astroid)."""
    module = astroid.parse(SHAPES, module_name="pkg.core")
    steps = {f.parent.name: f for f in module.nodes_of_class(nodes.FunctionDef) if f.name == "step"}
    tree = SourceTree((str(Path("/nonexistent")),))

    def told_in(klass: str) -> dict[str, bool]:
        return {
            call.func.attrname: calls_a_partial_of_a_method(call, tree)
            for call in steps[klass].nodes_of_class(nodes.Call)
        }

    # A subclass calls its base's partial of a plain method; not where it makes the
    # method a staticmethod, as astroid may read the base's self as the subclass's.
    assert told_in("Sub") == {"plain": True}
    assert told_in("Override") == {"plain": False}
    told = told_in("Core")
    assert told == {
        "plain": True,
        "dotted": True,
        "static": False,
        "function": False,
        "own": False,
        "twice": False,
        "shadowed": False,
    }


def test_a_partial_of_a_plain_method_builds_no_functools(tmp_path: Path) -> None:
    """``self._record([0])``, ``self._record = partial(self._put, 1)``: the partial calls a
    plain method, never a helper, and ``functools`` is not built to tell: no more modules
    than without the call."""
    sends = '        self.mgr.call_func("prefill", wait_out=True)\n'
    counts = []
    for name, core in (
        ("with", PARTIALS),
        ("without", PARTIALS.replace("self._record([0])", "pass")),
    ):
        root = project(tmp_path / name / "proj", {**FILES, "pkg/core.py": core + sends})
        cached = run_check(root, "--format", "json", env=stats_env(root))
        assert cached.stdout == run_check(root, "--format", "json", "--no-cache").stdout
        full = run_check(root, "--format", "json", "--no-cache", env={"RPCSURFACE_BUILD": "full"})
        assert cached.stdout == full.stdout
        assert cached.messages == ()  # prefill is answered; no helper is called
        counts.append(int(stats_records(root)[-1]["other_modules_built"]))
    assert counts[0] == counts[1]

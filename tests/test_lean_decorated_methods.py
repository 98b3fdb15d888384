"""A method decorated only by decorators that leave it a method (``@contextmanager``,
``@abstractmethod``, ``@property``) assigns ``self.x`` to its class's instance, as an
undecorated one does: the lean build adds it when the class's members are first read,
and tells astroid the method's type from its syntax, so that no decorator's module is
built for it (LMDeploy 0.7.3's ``mp_executor.py``: a ``@contextmanager`` method built
``contextlib``, ``abc`` and ``functools`` on every edit of the module).

The list of such decorators is held to astroid's own answer on this Python; the
answers to the lean build's and to astroid's full build's."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
import pytest
from astroid import nodes
from support import (
    FAST_PACKAGE,
    lean_as_full,
    line_of,
    project,
    run_check,
    stats_env,
    stats_records,
)

from pylint_rpcsurface.analysis.lean_build import _KEEP_A_METHOD, decorator_name

FULL = {"RPCSURFACE_BUILD": "full"}

CORE = textwrap.dedent(
    """\
    from contextlib import contextmanager


    class Helper:
        @staticmethod
        def send_all(mgr):
            mgr.call_func("helper_load", wait_out=True)


    class Core:
        @contextmanager
        def session(self):
            self.helper = Helper()
            yield self.helper

        def step(self):
            self.helper.send_all(self.mgr)
            self.mgr.call_func("prefill", wait_out=True)
    """
)

FILES: dict[str, str | bytes] = {**FAST_PACKAGE, "pkg/core.py": CORE}


def _built(root: Path, core: str) -> tuple[int, int]:
    """The other modules than the project's a cold ``check`` builds, and one after a
    body edit of the caller's module; each answer held to ``--no-cache``'s."""
    project(root, {**FILES, "pkg/core.py": core})
    env = stats_env(root)
    cold = run_check(root, "--format", "json", env=env)
    assert cold.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    edited = core.replace("    def step(self):\n", "    def step(self):\n        edited = 1\n")
    (root / "pkg/core.py").write_text(edited)
    after = run_check(root, "--format", "json", env=env)
    assert after.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    first, second = stats_records(root)[-2:]
    assert "pkg/core.py" in second["modules_built"]
    return int(first["other_modules_built"]), int(second["other_modules_built"])


def test_an_attribute_set_in_a_contextmanager_method_is_read_without_contextlib(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "proj", FILES)
    lean = run_check(root, "--format", "json", "--no-cache")
    full = run_check(root, "--format", "json", "--no-cache", env=FULL)
    assert lean.stdout == full.stdout, (lean.stderr, full.stderr)
    # The helper reached through self.helper, set in the decorated method, sends.
    found = {(m.symbol, m.line) for m in lean.messages}
    assert found == {("rpc-unanswered", line_of(CORE, '"helper_load"'))}
    # Without the attribute, the helper is unknown, and nothing is found.
    lost = CORE.replace("self.helper = Helper()", "self.other = Helper()")
    (root / "pkg/core.py").write_text(lost)
    assert run_check(root, "--format", "json", "--no-cache").stdout == "[]\n"
    # The decorator's name bound, through another module, to what may make a static
    # method: the lean build no longer knows the method by its syntax, and a run from
    # the store answers as one without it, and as astroid's full build.
    (root / "pkg/core.py").write_text(CORE)
    run_check(root, "--format", "json")
    (root / "pkg/deco.py").write_text("contextmanager = staticmethod\n")
    rebound = CORE.replace("from contextlib import", "from pkg.deco import")
    (root / "pkg/core.py").write_text(rebound)
    warm = run_check(root, "--format", "json")
    uncached = run_check(root, "--format", "json", "--no-cache")
    assert warm.stdout == uncached.stdout
    assert warm.stdout == run_check(root, "--format", "json", "--no-cache", env=FULL).stdout
    # No more modules are built, cold or after a body edit, than with the method
    # undecorated: contextlib is never built.
    undecorated = CORE.replace("    @contextmanager\n", "")
    assert _built(tmp_path / "a", CORE) == _built(tmp_path / "b", undecorated)


SOURCE = """\
import abc
import contextlib
from abc import abstractmethod
from contextlib import asynccontextmanager, contextmanager
from contextlib import contextmanager as cm


class A:
    @contextmanager
    def a(self): ...

    @contextlib.contextmanager
    def b(self): ...

    @asynccontextmanager
    async def c(self): ...

    @abstractmethod
    def d(self): ...

    @abc.abstractmethod
    def e(self): ...

    @property
    def f(self): ...

    @cm
    def g(self): ...

    @staticmethod
    def h(): ...

    @contextlib.nullcontext
    def i(self): ...


try:
    from contextlib import nullcontext as maybe
except ImportError:
    maybe = None


class B:
    property = staticmethod

    @property
    def j(self): ...

    @maybe
    def k(self): ...
"""


def _methods() -> dict[str, nodes.FunctionDef]:
    module = astroid.parse(SOURCE)
    return {
        method.name: method
        for klass in module.nodes_of_class(nodes.ClassDef)
        for method in klass.mymethods()
    }


def test_the_decorators_named_by_syntax() -> None:
    named = {
        name: decorator_name(method.decorators.nodes[0], frozenset({"pkg"}))
        for name, method in _methods().items()
    }
    assert named == {
        "a": "contextlib.contextmanager",
        "b": "contextlib.contextmanager",
        "c": "contextlib.asynccontextmanager",
        "d": "abc.abstractmethod",
        "e": "abc.abstractmethod",
        "f": "builtins.property",
        "g": "contextlib.contextmanager",
        "h": "builtins.staticmethod",
        "i": "contextlib.nullcontext",
        # astroid looks a builtin's name up around the class, as Python does not.
        "j": "builtins.property",
        "k": None,  # bound twice
    }
    # A package of the project's may shadow the module: then nothing is known.
    assert decorator_name(_methods()["a"].decorators.nodes[0], frozenset({"contextlib"})) is None


@pytest.mark.parametrize("name", sorted(_KEEP_A_METHOD))
def test_each_decorator_known_to_keep_a_method_does_for_astroid(name: str) -> None:
    """astroid itself, inferring the decorator, takes the method for a method."""
    module, _, attribute = name.rpartition(".")
    importing = "" if module == "builtins" else f"import {module}\n"
    decorator = attribute if module == "builtins" else name
    method = astroid.extract_node(
        f"{importing}class A:\n    @{decorator}\n    def f(self):  #@\n        self.x = 1\n"
    )
    assert isinstance(method, nodes.FunctionDef)
    assert decorator_name(method.decorators.nodes[0], frozenset()) == name
    assert method.type == "method"


# A property's setter assigns ``self.helper``: the helper it sets is what ``step`` reaches.
SESSION = (
    "    @contextmanager\n    def session(self):\n"
    "        self.helper = Helper()\n        yield self.helper\n"
)
PROPERTY = textwrap.indent(
    textwrap.dedent(
        """\
        @property
        def slot(self):
            return None

        @slot.setter
        def slot(self, value):
            self.helper = Helper()

        @slot.deleter
        def slot(self):
            self.helper = None
        """
    ),
    "    ",
)
SETTER_CORE = CORE.replace("from contextlib import contextmanager\n\n\n", "").replace(
    SESSION, PROPERTY
)


def test_an_attribute_set_in_a_property_setter_is_read_as_astroid_reads_it(
    tmp_path: Path,
) -> None:
    assert "contextmanager" not in SETTER_CORE
    assert "@slot.setter" in SETTER_CORE
    root = project(tmp_path / "proj", {**FAST_PACKAGE, "pkg/core.py": SETTER_CORE})
    found = {(m.symbol, m.line) for m in lean_as_full(root).messages}
    assert found == {("rpc-unanswered", line_of(SETTER_CORE, '"helper_load"'))}
    # Set by a setter of another property than the one named: nothing is known of it.
    crossed = SETTER_CORE.replace("@slot.setter", "@other.setter").replace(
        "    @property\n    def slot(self):\n        return None\n",
        "    @property\n    def slot(self):\n        return None\n\n"
        "    @property\n    def other(self):\n        return None\n",
    )
    (root / "pkg/core.py").write_text(crossed)
    lean = run_check(root, "--format", "json", "--no-cache")
    assert lean.stdout == run_check(root, "--format", "json", "--no-cache", env=FULL).stdout


# A class of the caller's module, unrelated to the calls, whose base is the standard
# library's: astroid's own build of a ``self.x = ...`` asks the class's ``__slots__``,
# which builds its bases' modules (vLLM 0.7.3's MedusaConfig, a PretrainedConfig: all
# of ``transformers``, 2,342 modules, 26 s, where it is installed).
SETTINGS = textwrap.dedent(
    """\


    import argparse


    class Settings(argparse.Namespace):
        @property
        def level(self):
            return self._level

        @level.setter
        def level(self, value):
            self._level = value
    """
)


def test_a_property_setter_builds_none_of_its_class_s_bases(tmp_path: Path) -> None:
    plain = SETTINGS.replace("    @level.setter\n    def level(", "    def set_level(")
    assert plain != SETTINGS
    assert _built(tmp_path / "a", CORE + SETTINGS) == _built(tmp_path / "b", CORE + plain)

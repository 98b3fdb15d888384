"""A static method's first argument is a parameter like any other to astroid (its type
is told by the decorator's spelling, before anything is inferred): an assignment to its
attribute waits, in the lean build, as a plain function's does, instead of inferring
what it holds at once (LMDeploy 0.18.0's ``ConfigBuilder.update_engine_config``, whose
``engine_config = copy.deepcopy(engine_config)`` built ``copy``, the engine's
configuration dataclass and ``typing`` while the module was built). Every answer is held
to astroid's full build."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
from support import FAST_PACKAGE, found_and_built, lean_as_full, line_of, project

from pylint_rpcsurface.analysis.lean_build import _static_by_spelling

CORE = """\
from pkg.params import Params


class Core:
    def step(self):
        Params.make(self.mgr)
        self.mgr.call_func("prefill", wait_out=True)
"""

# A module the check builds for its sender, whose classes' members nothing reads: what a
# static method assigns there is never asked for.
PARAMS = textwrap.dedent(
    """\
    import shlex


    class Params:
        @classmethod
        def make(cls, mgr):
            mgr.call_func("params_load", wait_out=True)
            return Params()

        @staticmethod
        def tokenized(config):
            config = shlex.shlex(config)
            config.whitespace_split = True
            return config
    """
)


def _checked(root: Path, params: str) -> tuple[set[tuple[str, str, int]], int]:
    return found_and_built(root, {**FAST_PACKAGE, "pkg/core.py": CORE, "pkg/params.py": params})


def test_a_static_method_s_assignment_builds_nothing_at_once(tmp_path: Path) -> None:
    found, built = _checked(tmp_path / "static", PARAMS)
    assert found == {("rpc-unanswered", "pkg/params.py", line_of(PARAMS, '"params_load"'))}
    # The same method as a function of the module, whose parameter astroid's build
    # never inferred at once: as many modules built.
    function = PARAMS.replace(
        "\n    @staticmethod\n    def tokenized(config):\n"
        "        config = shlex.shlex(config)\n"
        "        config.whitespace_split = True\n"
        "        return config\n",
        "\n\ndef tokenized(config):\n"
        "    config = shlex.shlex(config)\n"
        "    config.whitespace_split = True\n"
        "    return config\n",
    )
    assert "@staticmethod" not in function
    found_function, built_function = _checked(tmp_path / "function", function)
    assert found_function == found
    assert built == built_function


WIRED = textwrap.dedent(
    """\
    class Helper:
        @staticmethod
        def send_all(mgr):
            mgr.call_func("helper_load", wait_out=True)


    class Link:
        pass


    class Wiring:
        @staticmethod
        def linked(link):
            link = Link()
            link.helper = Helper()
            return link


    class Core:
        def __init__(self):
            self.link = Wiring.linked(None)

        def step(self):
            self.link.helper.send_all(self.mgr)
            self.mgr.call_func("prefill", wait_out=True)
    """
)


def test_what_a_static_method_assigns_is_read_as_astroid_reads_it(tmp_path: Path) -> None:
    """The helper reached through ``self.link.helper``, set by a static method on the
    object it made, sends: the assignment is there when the link's members are read."""
    root = project(tmp_path / "proj", {**FAST_PACKAGE, "pkg/core.py": WIRED})
    found = {(m.symbol, m.line) for m in lean_as_full(root).messages}
    assert found == {("rpc-unanswered", line_of(WIRED, '"helper_load"'))}


def test_a_static_method_told_by_its_spelling_as_astroid_tells_it() -> None:
    module = astroid.parse(
        textwrap.dedent(
            """\
            import builtins


            def deco(f):
                return f


            class A:
                @staticmethod
                def a(x): ...

                @builtins.staticmethod
                def b(x): ...

                @deco
                @staticmethod
                def c(x): ...

                @staticmethod
                def __new__(cls): ...

                def e(x): ...

                e = staticmethod(e)

                @classmethod
                def f(cls): ...

                def g(self): ...
            """
        )
    )
    klass = module.body[-1]
    spelled = {m.name: _static_by_spelling(m) for m in klass.mymethods()}
    assert spelled == {
        "a": True,
        "b": True,
        "c": False,  # another decorator first: astroid infers it
        "__new__": False,  # a classmethod to astroid whatever its decorators
        "e": False,  # decorated by an assignment in the class
        "f": False,
        "g": False,
    }
    # Each told static is static to astroid.
    assert all(m.type == "staticmethod" for m in klass.mymethods() if spelled[m.name])

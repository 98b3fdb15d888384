"""A lean module's function decorated only by decorators known by their imports is told
its decorators' names, whether it is a property and its type by the syntax, without
inferring the decorators (which builds their modules).

astroid asks all three of every function a class's attribute look-up finds:
LMDeploy 0.7.3's ``get_device_manager().context(...)``, an instance method behind
``@contextmanager``, built ``contextlib``, ``abc`` and ``functools`` on every cold run.
Each answer is held to astroid's own, inferring, on this Python."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
import pytest
from astroid import bases, nodes
from support import FAST_PACKAGE, line_of, project, run_check, stats_env, stats_records

from pylint_rpcsurface.analysis.lean_build import (
    _KEEP_A_METHOD,
    _LEAN,
    _NAMED_AS_IMPORTED,
    _type_by_syntax,
    decorator_names_by_syntax,
    property_by_names,
)

FULL = {"RPCSURFACE_BUILD": "full"}


def _decorated(name: str, where: str) -> nodes.FunctionDef:
    """A function decorated by *name* (``module.attribute``), imported as users do, in a
    module astroid builds in full and the lean build's marker set on it."""
    module, _, attribute = name.rpartition(".")
    importing = "" if module == "builtins" else f"from {module} import {attribute}\n"
    if where == "function":
        source = f"{importing}@{attribute}\ndef f(x):  #@\n    return x\n"
    else:
        name_of = "__new__" if where == "__new__" else "f"
        source = (
            f"{importing}class A:\n    @{attribute}\n    def {name_of}(self):  #@\n"
            "        return self\n"
        )
    function = astroid.extract_node(source)
    assert isinstance(function, nodes.FunctionDef)
    function.root().__dict__[_LEAN] = {}
    return function


@pytest.mark.parametrize("where", ["method", "function", "__new__"])
@pytest.mark.parametrize("name", sorted(_NAMED_AS_IMPORTED))
def test_the_names_and_property_as_astroid_infers_them(name: str, where: str) -> None:
    function = _decorated(name, where)
    told = decorator_names_by_syntax(function, frozenset({"pkg"}))
    assert told == {name}
    assert told == function.decoratornames()  # astroid's own, inferring
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    assert property_by_names(told) == bases._is_property(function)  # pylint: disable=protected-access


@pytest.mark.parametrize("where", ["method", "function", "__new__"])
@pytest.mark.parametrize("name", sorted(_NAMED_AS_IMPORTED))
def test_the_type_as_astroid_infers_it(name: str, where: str) -> None:
    function = _decorated(name, where)
    told = _type_by_syntax(function, frozenset({"pkg"}))
    if name in _KEEP_A_METHOD:
        assert told is not None
        assert told == function.type  # astroid's own, inferring
    else:  # spelled classmethod or staticmethod: astroid reads the spelling
        assert told is None


def test_nothing_is_told_where_the_syntax_does_not_tell() -> None:
    module = astroid.parse(
        textwrap.dedent(
            """\
            from contextlib import contextmanager, nullcontext
            from contextlib import contextmanager as staticmethod

            class A:
                @staticmethod
                def spelled(self): ...

                @nullcontext
                def unknown(self): ...

                @contextmanager
                def assigned(self): ...
                assigned = classmethod(assigned)

                def plain(self): ...
            """
        )
    )
    module.__dict__[_LEAN] = {}
    methods = {m.name: m for m in module.body[-1].mymethods()}
    # Spelled as a builtin descriptor: astroid gives the spelling, whatever it names.
    assert methods["spelled"].type == "staticmethod"
    assert _type_by_syntax(methods["spelled"], frozenset()) is None
    assert decorator_names_by_syntax(methods["unknown"], frozenset()) is None
    assert decorator_names_by_syntax(methods["assigned"], frozenset()) is None
    assert decorator_names_by_syntax(methods["plain"], frozenset()) is None
    # A package of the project's may shadow contextlib: nothing is known.
    spelled_aside = module.body[-1].mymethods()
    assert all(
        decorator_names_by_syntax(m, frozenset({"contextlib"})) is None for m in spelled_aside
    )
    # Outside a lean module, astroid tells.
    del module.__dict__[_LEAN]
    assert decorator_names_by_syntax(methods["assigned"], frozenset()) is None


DEVICES = textwrap.dedent(
    """\
    from contextlib import contextmanager


    class DeviceManager:
        def __init__(self):
            self.current = None

        @contextmanager
        def context(self, device):
            self.current = device
            yield self


    _MANAGER = DeviceManager()


    def get_device_manager():
        return _MANAGER
    """
)

CORE = textwrap.dedent(
    """\
    from pkg.devices import get_device_manager


    class Core:
        def step(self, device):
            with get_device_manager().context(device):
                self.mgr.call_func("decode", wait_out=True)
    """
)


def _other_modules_built(root: Path, devices: str) -> int:
    """The modules other than the project's a cold ``check`` builds; its answer held to
    ``--no-cache``'s and to astroid's full build's."""
    project(root, {**FAST_PACKAGE, "pkg/core.py": CORE, "pkg/devices.py": devices})
    cold = run_check(root, "--format", "json", env=stats_env(root))
    assert cold.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    full = run_check(root, "--format", "json", "--no-cache", env=FULL)
    assert cold.stdout == full.stdout
    found = {(m.symbol, m.line) for m in cold.messages}
    assert found == {("rpc-unanswered", line_of(CORE, '"decode"'))}
    (record,) = stats_records(root)
    return int(record["other_modules_built"])


def test_a_contextmanager_method_called_through_a_helper_builds_no_contextlib(
    tmp_path: Path,
) -> None:
    undecorated = DEVICES.replace("    @contextmanager\n", "")
    assert _other_modules_built(tmp_path / "a" / "proj", DEVICES) == _other_modules_built(
        tmp_path / "b" / "proj", undecorated
    )

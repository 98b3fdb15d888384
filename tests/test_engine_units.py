"""Focused tests of the derivation's parts, on small projects written to a temp folder."""

from __future__ import annotations

import contextlib
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

import astroid
import pytest
from astroid import nodes

from pylint_rpcsurface.analysis.broadcasts import dispatch_calls, own_code, read_broadcast
from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.analysis.registry import read_registry
from pylint_rpcsurface.analysis.subclasses import callers_in_module
from pylint_rpcsurface.analysis.syntax import all_statements
from pylint_rpcsurface.config import DispatchForm
from pylint_rpcsurface.model import Broadcast, Location, Registry
from pylint_rpcsurface.sources import SourceTree, real


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@contextlib.contextmanager
def analysing(root: Path, files: dict[str, str]) -> Iterator[ModuleStore]:
    """Write *files*, then open an analysis of *root*, as a lint run would."""
    write(root, files)
    store = ModuleStore(SourceTree((root,)))
    with store.resolving_imports():
        yield store


# --- module names come from paths, never from pylint's guesses -------------------------


def test_module_names_follow_paths_under_the_deepest_root(tmp_path: Path) -> None:
    write(tmp_path, {"src/pkg/ns/mod.py": "", "src/pkg/__init__.py": "", "tool.py": ""})
    tree = SourceTree((tmp_path, tmp_path / "src"))
    assert tree.module_name(str(tmp_path / "src/pkg/ns/mod.py")) == "pkg.ns.mod"
    assert tree.module_name(str(tmp_path / "src/pkg/__init__.py")) == "pkg"
    assert tree.module_name(str(tmp_path / "tool.py")) == "tool"
    assert tree.module_name("/elsewhere/x.py") is None


def test_files_that_cannot_be_imported_have_no_module_name(tmp_path: Path) -> None:
    write(tmp_path, {"my-scripts/run.py": "", "pkg/2fast.py": ""})
    tree = SourceTree((tmp_path,))
    assert tree.module_name(str(tmp_path / "my-scripts/run.py")) is None
    assert tree.module_name(str(tmp_path / "pkg/2fast.py")) is None
    assert tree.python_files() == ()


def test_a_namespace_package_may_span_roots(tmp_path: Path) -> None:
    write(tmp_path, {"a/ns/one.py": "", "b/ns/two.py": ""})
    tree = SourceTree((tmp_path / "a", tmp_path / "b"))
    assert tree.locate("ns") == (real(tmp_path / "a/ns"), real(tmp_path / "b/ns"))
    assert tree.locate("ns.two") == (real(tmp_path / "b/ns/two.py"),)
    assert tree.locate("ns.three") == ()


def test_the_scan_skips_virtualenvs_and_hidden_folders(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"pkg/a.py": "", ".venv/lib/x.py": "", "env/pyvenv.cfg": "", "env/lib/y.py": ""},
    )
    assert SourceTree((tmp_path,)).python_files() == (real(tmp_path / "pkg/a.py"),)


def test_the_scan_lists_what_os_walk_lists_and_enters_no_linked_folder(tmp_path: Path) -> None:
    # The scan reads directory entries instead of os.walk plus a stat per file; it must
    # list the same files: a folder linked into the tree is not entered (os.walk's rule),
    # a linked file is the file it names, a FIFO named like a module is a file.
    outside = tmp_path / "outside"
    write(outside, {"lib/b.py": ""})
    root = tmp_path / "root"
    write(root, {"pkg/a.py": "", "pkg/sub/c.py": "", "pkg/bad-name/d.py": "", "top.py": ""})
    (root / "linked").symlink_to(outside / "lib", target_is_directory=True)
    (root / "pkg" / "alias.py").symlink_to(root / "pkg" / "a.py")
    (root / "pkg" / "gone.py").symlink_to(root / "missing.py")
    os.mkfifo(root / "pkg" / "pipe.py")
    expected = {
        real(root / "pkg/a.py"),  # and alias.py, the same file
        real(root / "pkg/sub/c.py"),
        real(root / "top.py"),
        real(root / "pkg/gone.py"),  # a dangling link: by the path it names, under the root
        real(root / "pkg/pipe.py"),
    }
    assert set(SourceTree((root,)).python_files()) == expected
    walked = {
        os.path.join(folder, name)
        for folder, dirs, names in os.walk(root)
        for name in names
        if name.endswith(".py") and "bad-name" not in folder
    }
    assert {os.path.basename(p) for p in walked} == {
        "a.py",
        "alias.py",
        "c.py",
        "top.py",
        "gone.py",
        "pipe.py",
    }


def test_same_basename_in_two_folders_gives_two_identities(tmp_path: Path) -> None:
    files = {"a/engine_core.py": "class Core: pass\n", "b/engine_core.py": "class Core: pass\n"}
    with analysing(tmp_path, files) as store:
        index = ClassIndex(store)
        first, second = (index.resolve(f"{folder}.engine_core.Core") for folder in "ab")
        assert isinstance(first, nodes.ClassDef)
        assert isinstance(second, nodes.ClassDef)
        assert index.qualname(first) == "a.engine_core.Core"
        assert index.qualname(second) == "b.engine_core.Core"


def test_the_stdin_buffer_replaces_the_saved_file(tmp_path: Path) -> None:
    write(tmp_path, {"m.py": "class Saved: pass\n"})
    store = ModuleStore(SourceTree((tmp_path,)), {real(tmp_path / "m.py"): "class Buffer: pass\n"})
    module = store.module(str(tmp_path / "m.py"))
    assert module is not None
    assert "Buffer" in module.locals
    assert "Saved" not in module.locals


def test_a_syntax_error_is_a_recorded_failure_not_an_exception(tmp_path: Path) -> None:
    write(tmp_path, {"broken.py": "def (:\n"})
    store = ModuleStore(SourceTree((tmp_path,)))
    assert store.module(str(tmp_path / "broken.py")) is None
    failure = store.failure(str(tmp_path / "broken.py"))
    assert failure is not None
    assert failure.line == 1
    assert "syntax error" in failure.reason


def test_resolving_reports_why_a_class_does_not_resolve(tmp_path: Path) -> None:
    files = {"pkg/mod.py": "VALUE = 1\nclass Real: pass\n", "bad.py": "def (:\n"}
    with analysing(tmp_path, files) as store:
        index = ClassIndex(store)
        assert "no module" in str(index.resolve("nowhere.Thing"))
        assert "has no attribute 'Missing'" in str(index.resolve("pkg.mod.Missing"))
        assert "has no attribute 'VALUE'" in str(index.resolve("pkg.mod.VALUE"))
        assert "syntax error" in str(index.resolve("bad.Thing"))
        assert isinstance(index.resolve("pkg.mod.Real"), nodes.ClassDef)


def test_imports_across_a_namespace_package_resolve_under_the_roots(tmp_path: Path) -> None:
    files = {
        "ns/base.py": "class Base:\n    def hello(self): pass\n",
        "ns/child.py": "from ns.base import Base as B\nclass Child(B): pass\n",
    }
    with analysing(tmp_path, files) as store:
        index = ClassIndex(store)
        child = index.resolve("ns.child.Child")
        assert isinstance(child, nodes.ClassDef)
        ancestors = [index.qualname(a) for a in child.ancestors()]
    assert ancestors == ["ns.base.Base", "builtins.object"]


def test_another_projects_module_of_the_same_name_is_not_used(tmp_path: Path) -> None:
    """astroid's cache outlives a run; a same-named module from elsewhere must not leak in."""
    for project, value in (("first", "one"), ("second", "two")):
        files = {"names.py": f"NAME = {value!r}\n", "use.py": "from names import NAME\n"}
        with analysing(tmp_path / project, files) as store:
            module = store.module(str(tmp_path / project / "use.py"))
            assert module is not None
            (inferred,) = module.igetattr("NAME")
            assert isinstance(inferred, nodes.Const)
            assert inferred.value == value


def test_module_files_are_the_files_python_would_import(tmp_path: Path) -> None:
    """One file per module name: a package's __init__.py wins over a module file of the
    same name beside it (Python's path finder looks for the package first), and a file
    under a nested root is named from the deepest root."""
    write(
        tmp_path,
        {"pkg.py": "", "pkg/__init__.py": "", "pkg/mod.py": "", "src/solo.py": ""},
    )
    tree = SourceTree((tmp_path, tmp_path / "src"))
    assert tree.module_files() == {
        "pkg": real(tmp_path / "pkg/__init__.py"),
        "pkg.mod": real(tmp_path / "pkg/mod.py"),
        "solo": real(tmp_path / "src/solo.py"),
    }


def test_look_ups_point_at_the_roots_only_while_analysing(tmp_path: Path) -> None:
    """Within an analysis astroid finds our module names under the roots, whatever else
    is on sys.path; afterwards it remembers nothing of them, so pylint's next run in the
    same process (an IDE's language server) searches for them afresh."""
    files = {"names.py": "NAME = 1\n", "pkg/__init__.py": "", "pkg/mod.py": ""}
    found = astroid.MANAGER._mod_file_cache  # pylint: disable=protected-access
    with analysing(tmp_path, files):
        located = {name: found[(name, None)].location for name in ("names", "pkg", "pkg.mod")}
        assert located == {
            "names": real(tmp_path / "names.py"),
            "pkg": real(tmp_path / "pkg/__init__.py"),
            "pkg.mod": real(tmp_path / "pkg/mod.py"),
        }
    assert [key for key in found if key[0].partition(".")[0] in ("names", "pkg")] == []


# --- the registry keeps each element's place -------------------------------------------


def registry_of(root: Path, source: str, extra: dict[str, str] | None = None) -> Registry:
    with analysing(root, {"reg.py": source, **(extra or {})}) as store:
        module = store.module(str(root / "reg.py"))
        assert module is not None
        return read_registry(module, "RPCS", "reg.RPCS")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('RPCS = ("a",\n        "b")\n', [("a", 1), ("b", 2)]),
        ('RPCS = ["a", "b"]\n', [("a", 1), ("b", 1)]),
        ('RPCS = {"a": 1,\n        "b": 2}\n', [("a", 1), ("b", 2)]),
        ('_A = ("a",)\nRPCS = frozenset(_A + (\n    "x",\n))\n', [("a", 1), ("x", 3)]),
        ('_A = {"a"}\nRPCS = set(_A | {"b"})\n', [("a", 1), ("b", 2)]),
        ('_A = ("a",)\nRPCS = (*_A,\n    "b")\n', [("a", 1), ("b", 3)]),
        ('_A = {"a": 1}\nRPCS = {**_A,\n    "b": 2}\n', [("a", 1), ("b", 3)]),
        ('RPCS: tuple[str, ...] = ("a",)\n', [("a", 1)]),
        ("RPCS = frozenset()\n", []),
    ],
)
def test_registry_forms_keep_element_lines(
    tmp_path: Path, source: str, expected: list[tuple[str, int]]
) -> None:
    registry = registry_of(tmp_path, source)
    assert registry.problem is None
    assert [(e.value, e.location.line) for e in registry.elements] == expected


def test_registry_imported_from_another_module_points_there(tmp_path: Path) -> None:
    root = tmp_path
    registry = registry_of(root, "from names import RPCS\n", {"names.py": '\n\nRPCS = ("a",)\n'})
    assert registry.problem is None
    (element,) = registry.elements
    assert (element.value, element.location.path, element.location.line) == (
        "a",
        real(root / "names.py"),
        3,
    )


def test_registry_built_by_a_function_astroid_can_evaluate(tmp_path: Path) -> None:
    registry = registry_of(tmp_path, 'def make():\n    return ("a",)\nRPCS = make()\n')
    assert [e.value for e in registry.elements] == ["a"]


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("import os\nRPCS = os.environ['X']\n", "does not infer to one value"),
        ("RPCS = 3\n", "not a tuple, list, set or dict"),
        ('RPCS = ("a",)\nRPCS = ("b",)\n', "is bound 2 times (lines 1, 2)"),
        ("OTHER = 1\n", "is not defined in module reg"),
        ("def f(x):\n    return x\nRPCS = f(unknown)\n", "does not infer"),
    ],
)
def test_registries_that_cannot_be_read_say_why(tmp_path: Path, source: str, problem: str) -> None:
    registry = registry_of(tmp_path, source)
    assert registry.problem is not None
    assert problem in registry.problem


def test_non_str_elements_are_kept_for_the_rules_to_report(tmp_path: Path) -> None:
    registry = registry_of(tmp_path, 'RPCS = ("a", 3, None)\n')
    assert [e.value for e in registry.elements] == ["a", None, None]
    assert [e.source for e in registry.elements] == ["'a'", "3", "None"]


# --- a caller's own code ----------------------------------------------------------------

HIERARCHY = """
class Base:
    def step(self): pass
    def shared(self): pass
    def reload(self): pass
    attribute_shadowed = 1
    def shadowed(self): pass

class Mid(Base):
    def step(self):
        super().step()
    def reload(self):
        pass
    handler = lambda self: None
    shadowed = None

class Leaf(Mid):
    def reload(self):
        super(Mid, self).reload()
"""


def test_own_code_is_the_effective_methods_plus_what_super_reaches(tmp_path: Path) -> None:
    with analysing(tmp_path, {"h.py": HIERARCHY}) as store:
        index = ClassIndex(store)
        leaf = index.resolve("h.Leaf")
        assert isinstance(leaf, nodes.ClassDef)
        order, complete = index.linearize(leaf)
        code = own_code(order)
    assert complete
    assert [c.name for c in order] == ["Leaf", "Mid", "Base"]
    reached = {
        (
            code.parent.frame().name if isinstance(code, nodes.Lambda) else code.parent.name,
            code.name,
        )
        for code in code
    }
    assert reached == {
        ("Leaf", "reload"),  # its own
        ("Mid", "step"),  # inherited, not overridden
        ("Base", "step"),  # reached by Mid.step's super()
        ("Base", "shared"),  # inherited
        ("Base", "reload"),  # reached by super(Mid, self) from Leaf
        ("Mid", "<lambda>"),  # a lambda bound in the class body
    }
    # Mid.reload is overridden by Leaf and never reached: not Leaf's code.
    # Base.shadowed is shadowed by Mid's plain attribute: not Leaf's code either.


DISPATCH = {
    "call_func": DispatchForm(method="call_func", waits="wait_out"),
    "by_keyword": DispatchForm(method="by_keyword", waits=True, name_arg=1, name_keyword="rpc"),
}


def broadcasts_of(root: Path, body: str) -> list[Broadcast]:
    files = {"names.py": 'IMPORTED = "imported"\n', "c.py": textwrap.dedent(body)}
    with analysing(root, files) as store:
        module = store.module(str(root / "c.py"))
        assert module is not None
        function = module.body[-1]
        assert isinstance(function, nodes.FunctionDef)
        here = Location(real(root / "c.py"), 1, 0, None, None)
        named = ClassIndex(store).qualname
        return [
            read_broadcast(c, form, here, named)
            for c, form in dispatch_calls(function, DISPATCH, named)
        ]


def test_names_and_flags_are_inferred_or_refused(tmp_path: Path) -> None:
    found = broadcasts_of(
        tmp_path,
        """
        from names import IMPORTED
        LOCAL_CONST = "const"
        def run(mgr, param, opts):
            flag = True
            local_name = "local"
            mgr.call_func(local_name)
            mgr.call_func("literal", wait_out=True)
            mgr.call_func(LOCAL_CONST, wait_out=flag)
            mgr.call_func(IMPORTED)
            mgr.call_func(param, wait_out=param)
            mgr.call_func("x" if param else "y")
            mgr.call_func("opts", **opts)
            mgr.call_func(*opts)
            mgr.by_keyword(0, "second")
            mgr.by_keyword(rpc="keyword")
            inner = lambda: mgr.call_func("in_lambda", wait_out=False)
            return [mgr.call_func(n) for n in ("one", "two")]
        """,
    )
    assert [(b.rpc, b.waited) for b in found] == [
        ("local", False),
        ("literal", True),
        ("const", True),
        ("imported", False),
        (None, None),
        (None, False),  # two different values: refused, not guessed
        ("opts", None),  # **opts may carry wait_out
        (None, False),  # *opts: the name's position is unknown
        ("second", True),
        ("keyword", True),
        ("in_lambda", False),
        (None, False),  # the comprehension variable has several values
    ]
    unknown_flag = found[4]
    assert unknown_flag.wait_source == "wait_out=param"
    assert found[6].wait_source == "**opts"


MULTIPLE = """
from typing import Generic, TypeVar
T = TypeVar("T")
class O: pass
class A(O): pass
class B(O): pass
class C(O): pass
class D(O): pass
class E(O): pass
class K1(A, B, C): pass
class K2(D, B, E): pass
class K3(D, A): pass
class Z(K1, K2, K3): pass
class Left(A): pass
class Right(A): pass
class Diamond(Left, Right): pass
class Box(Generic[T]): pass
class IntBox(Box[int], O): pass
"""


@pytest.mark.parametrize("name", ["Z", "K1", "Diamond", "IntBox", "O"])
def test_linearize_agrees_with_astroids_mro_on_consistent_hierarchies(
    tmp_path: Path, name: str
) -> None:
    """The C3 order computed once per class is the order astroid computes every time
    (Python's own example hierarchy Z among them), object aside."""
    with analysing(tmp_path, {"h.py": MULTIPLE}) as store:
        index = ClassIndex(store)
        cls = index.resolve(f"h.{name}")
        assert isinstance(cls, nodes.ClassDef)
        order, complete = index.linearize(cls)
        expected = [c.qname() for c in cls.mro() if c.qname() != "builtins.object"]
    assert [c.qname() for c in order] == expected
    assert complete


def test_linearize_survives_cycles_and_reports_them_unresolved(tmp_path: Path) -> None:
    with analysing(tmp_path, {"c.py": "class A(B): pass\nclass B(A): pass\n"}) as store:
        index = ClassIndex(store)
        cls = index.resolve("c.A")
        assert isinstance(cls, nodes.ClassDef)
        order, complete = index.linearize(cls)
    assert order[0].name == "A"
    assert not complete


# --- aliases the subclass search follows --------------------------------------------------


ALIASES = """\
from core import Core
import core as core_module

Base = Core
Made = make_base()


class Holder:
    Kept = Core


def make_base():
    found = Core
    return found


def start():
    engine = Core(1)
    runner = Core
    engine.step()
    print(runner)
"""


def test_a_local_bound_in_a_function_is_an_alias_only_when_the_function_returns_it(
    tmp_path: Path,
) -> None:
    """Module and class level bindings of a name, a factory's call, and a local that
    its function returns are aliases; ``engine = Core(1)`` in a function is an instance,
    and ``runner = Core`` a local nobody else sees: neither joins the search."""
    files = {"core.py": "class Core:\n    pass\n", "user.py": ALIASES}
    with analysing(tmp_path, files) as store:
        index = ClassIndex(store)
        module = store.module(str(tmp_path / "user.py"))
        assert module is not None
        found = callers_in_module(module, index, frozenset({"core.Core"}))
    assert set(found.aliases) == {
        ("core_module", "core"),
        ("Base", "Core"),
        ("Made", "make_base"),
        ("Kept", "Core"),
        ("found", "Core"),
        ("make_base", "found"),
    }


EVERY_STATEMENT_HOLDER = """
import os as operating_system
from . import sibling
Base = operating_system.PathLike
class Outer(Base):
    class Inner:
        from typing import Any
        alias = Base
        def method(self):
            class InMethod: pass
            return InMethod
    async def run(self):
        async with guard() as held:
            async for item in held:
                x = item
            else:
                y = lambda: (z := [w for w in range(3)])
        with open("f") as f, open("g") as g:
            return f
def factory(flag):
    if flag:
        Made = Outer
    elif not flag:
        Made = Outer.Inner
    else:
        Made = None
    while flag:
        flag = False
    else:
        pass
    try:
        import json as j
    except* ValueError:
        class Failed: pass
    try:
        pass
    except (OSError, KeyError) as error:
        raise
    else:
        from os import path as p
    finally:
        del p
    match flag:
        case [first, *rest] if first:
            class Matched(Outer): pass
        case {"k": v}:
            return Matched
        case _:
            pass
    for i in range(3):
        def nested():
            nonlocal flag
            return Made
    else:
        global G
    return Made
"""


@pytest.mark.parametrize(
    "kinds",
    [
        (nodes.ClassDef, nodes.Import, nodes.ImportFrom, nodes.Assign, nodes.Return),
        (nodes.FunctionDef,),
        (nodes.ImportFrom,),
        (nodes.ExceptHandler, nodes.Try, nodes.TryStar, nodes.Match, nodes.With, nodes.Global),
    ],
)
def test_every_statement_is_walked_in_the_order_nodes_of_class_gives(
    kinds: tuple[type[nodes.NodeNG], ...],
) -> None:
    """all_statements is what nodes_of_class finds of statement kinds, node for node and
    in the same order, over every kind of node that holds statements."""
    module = astroid.parse(EVERY_STATEMENT_HOLDER, module_name="pkg.mod")
    expected = list(module.nodes_of_class(kinds))
    assert len(expected) >= 3, expected  # the source holds some of each
    assert [node for node in all_statements(module) if isinstance(node, kinds)] == expected

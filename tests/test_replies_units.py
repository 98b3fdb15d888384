"""Unit tests of the reply facts (analysis/handlers.py), the argument facts
(analysis/broadcasts.py), the helper walk (analysis/helper_calls.py) and the binding rule
(rules/reply_rules.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
import pytest
from astroid import nodes

from pylint_rpcsurface.analysis.broadcasts import not_a_named_rpc, sent_arguments
from pylint_rpcsurface.analysis.handlers import can_complete, returns_of, signature_of
from pylint_rpcsurface.analysis.helper_calls import helper_calls, reached_helpers
from pylint_rpcsurface.config import DispatchForm
from pylint_rpcsurface.model import HelperStep, Signature
from pylint_rpcsurface.rules.reply_rules import bind_problem
from pylint_rpcsurface.sources import SourceTree

FORM = DispatchForm("call_func", "wait_out")
VLLM = DispatchForm("collective_rpc", True, args_from="args", kwargs_from="kwargs")


def method(source: str, tmp_path: Path, name: str = "m") -> nodes.FunctionDef:
    """The function *name* of *source*, parsed from a real file (locations need one)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "mod.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    module = astroid.MANAGER.ast_from_file(str(path), "mod_" + str(abs(hash(path))), source=True)
    found = [f for f in module.nodes_of_class(nodes.FunctionDef) if f.name == name]
    assert len(found) == 1
    return found[0]


def line_of(source: str, text: str) -> int:
    (number,) = [
        n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1) if text in line
    ]
    return number


# --- returns --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "never_value"),
    [
        ("x = 1", True),
        ("return", True),
        ("if a:\n    return None\nreturn", True),
        ("if a:\n    return None\nreturn 1", False),
        ("if a:\n    return 1\nraise ValueError", False),
        ("raise NotImplementedError", False),  # never returns at all
        ("while True:\n    pass", False),
        ("while True:\n    break", True),
        ("try:\n    return 1\nexcept KeyError:\n    pass", False),  # falls off: maybe only
        ("return a.unknown()", False),
        ("with a:\n    return 1", False),
    ],
)
def test_never_value(body: str, never_value: bool, tmp_path: Path) -> None:
    source = "def m(a):\n" + textwrap.indent(body, "    ") + "\n"
    returns = returns_of(method(source, tmp_path))
    assert returns is not None
    assert returns.never_value is never_value


def test_maybe_none_points_at_the_first_none_path(tmp_path: Path) -> None:
    source = "def m(a):\n    if a:\n        return None\n    return [a]\n"
    returns = returns_of(method(source, tmp_path))
    assert returns is not None
    assert not returns.never_value
    first = returns.first_maybe_none
    assert first is not None
    assert first.line == line_of(source, "return None")
    assert [at.line for at in returns.value_at] == [line_of(source, "return [a]")]


def test_generators_and_coroutines_give_no_reply_facts(tmp_path: Path) -> None:
    assert returns_of(method("def m():\n    yield 1\n", tmp_path)) is None
    assert returns_of(method("async def m():\n    return None\n", tmp_path / "a")) is None


@pytest.mark.parametrize(
    ("body", "arity"),
    [
        ("return 1, 2, 3", 3),
        ("t = (1, 2)\nreturn t", 2),
        ("if a:\n    return 1, 2\nreturn 3, 4", 2),
        ("if a:\n    return 1, 2\nreturn 1, 2, 3", None),  # two shapes
        ("if a:\n    return 1, 2", None),  # falls off: None is another shape
        ("return (*a, 1)", None),
        ("return [1, 2]", None),
    ],
)
def test_tuple_arity(body: str, arity: int | None, tmp_path: Path) -> None:
    source = "def m(a):\n" + textwrap.indent(body, "    ") + "\n"
    returns = returns_of(method(source, tmp_path))
    assert returns is not None
    assert returns.tuple_arity == arity


def test_nested_function_returns_are_not_the_methods(tmp_path: Path) -> None:
    source = "def m():\n    def inner():\n        return 1\n    inner()\n"
    returns = returns_of(method(source, tmp_path))
    assert returns is not None
    assert returns.never_value  # inner's return 1 is not m's


def test_can_complete_if_else_both_return(tmp_path: Path) -> None:
    function = method(
        "def m(a):\n    if a:\n        return 1\n    else:\n        raise X\n", tmp_path
    )
    assert not can_complete(function.body)


# --- signatures and binding -----------------------------------------------------------


def test_signature_leaves_self_out_and_keeps_staticmethods_whole(tmp_path: Path) -> None:
    source = """\
    class C:
        def m(self, a, b=1, *args, c, d=2, **kw):
            pass

        @staticmethod
        def s(a, /, b):
            pass

        @property
        def p(self):
            pass
    """
    m = signature_of(method(source, tmp_path))
    assert m == Signature(("a", "b"), 0, 1, True, ("c", "d"), ("c",), True, m.text if m else "")
    assert m is not None
    assert m.text == "(a, b=..., *args, c, d=..., **kw)"
    s = signature_of(method(source, tmp_path / "s", "s"))
    assert s is not None
    assert (s.positional, s.positional_only, s.required_positional) == (("a", "b"), 1, 2)
    assert signature_of(method(source, tmp_path / "p", "p")) is None  # decorated: unknown


def _sig(**fields: object) -> Signature:
    values: dict[str, object] = {
        "positional": ("a", "b"),
        "positional_only": 0,
        "required_positional": 2,
        "varargs": False,
        "keyword_only": (),
        "required_keyword_only": (),
        "varkw": False,
        "text": "",
    }
    values.update(fields)
    return Signature(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("signature", "positional", "keywords", "problem"),
    [
        (_sig(), 2, (), None),
        (_sig(), 1, (), "missing required argument(s) 'b'"),
        (_sig(), 3, (), "takes 2 positional argument(s) but 3 were given"),
        (_sig(varargs=True), 7, (), None),
        (_sig(), 1, ("b",), None),
        (_sig(), 1, ("a",), "multiple values for argument 'a'"),
        (_sig(), 2, ("z",), "unexpected keyword argument 'z'"),
        (_sig(varkw=True), 2, ("z",), None),
        (_sig(positional_only=1), 0, ("a", "b"), "'a' is positional-only"),
        (_sig(keyword_only=("k",), required_keyword_only=("k",)), 2, (), "'k'"),
        (_sig(keyword_only=("k",), required_keyword_only=("k",)), 2, ("k",), None),
    ],
)
def test_bind_problem(
    signature: Signature, positional: int, keywords: tuple[str, ...], problem: str | None
) -> None:
    found = bind_problem(signature, positional, keywords)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert problem in found


# --- what a call sends ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "form", "sent"),
    [
        ('mgr.call_func("x", 1, 2, wait_out=True)', FORM, (2, ())),
        ('mgr.call_func("x")', FORM, (0, ())),
        ('mgr.call_func("x", *rest)', FORM, None),
        ('mgr.call_func("x", 1, other=3)', FORM, None),  # forwarded or not: unknown
        ('mgr.call_func("x", **opts)', FORM, None),
        ('mgr.collective_rpc("x", args=(1, 2), kwargs={"k": 1})', VLLM, (2, ("k",))),
        # A positional argument after the name, with no dispatch method in sight: it may
        # be the args tuple, so the handler's signature is not judged.
        ('mgr.collective_rpc("x", 5.0)', VLLM, None),
        ('mgr.collective_rpc("x", args=(1,), timeout=5)', VLLM, None),
        ('mgr.collective_rpc("x", args=None, kwargs=None)', VLLM, (0, ())),
        ('mgr.collective_rpc("x", args=rest)', VLLM, None),
        ('mgr.collective_rpc("x", kwargs={**more})', VLLM, None),
    ],
)
def test_sent_arguments(
    call: str, form: DispatchForm, sent: tuple[int, tuple[str, ...]] | None
) -> None:
    node = astroid.extract_node(call)
    assert isinstance(node, nodes.Call)
    found = sent_arguments(node, form)
    assert (None if found is None else (found.positional, found.keywords)) == sent


def test_forwarding_layers_and_callables_are_not_named_rpcs() -> None:
    module = astroid.parse(
        textwrap.dedent(
            """\
            def job(w):
                return w

            class E:
                def forward(self, method):
                    return self.mgr.call_func(method)  #@

                def rebound(self, method):
                    method = method + "_x"
                    return self.mgr.call_func(method)  #@

                def literal(self):
                    self.mgr.call_func(job)  #@
                    self.mgr.call_func("job")  #@
            """
        )
    )
    calls = [
        n
        for n in module.nodes_of_class(nodes.Call)
        if getattr(n.func, "attrname", "") == "call_func"
    ]
    assert [not_a_named_rpc(call, FORM) for call in calls] == [True, False, True, False]


# --- helpers --------------------------------------------------------------------------


def test_helper_walk_is_cycle_safe_and_depth_bounded(tmp_path: Path) -> None:
    source = """\
    def a(m):
        b(m)

    def b(m):
        a(m)
        c(m)

    def c(m):
        c(m)

    def start(m):
        a(m)
    """
    start = method(source, tmp_path, "start")
    tree = SourceTree((tmp_path,))

    def calls(code: nodes.FunctionDef) -> list[tuple[nodes.FunctionDef, HelperStep]]:
        return list(helper_calls(code, tree))

    names = [(helper.name, len(chain)) for helper, chain in reached_helpers(start, 5, calls)]
    assert names == [("a", 1), ("b", 2), ("c", 3)]
    assert [h.name for h, _ in reached_helpers(start, 2, calls)] == ["a", "b"]
    assert reached_helpers(start, 0, calls) == []


METHOD_TYPES = """
class A:
    def plain(self): pass
    def s(x): pass
    s = staticmethod(s)
    def c(cls): pass
    c = classmethod(c)
    if True:
        def d(x): pass
        d = staticmethod(d)
    @staticmethod
    def e(): pass
    @classmethod
    def f(cls): pass
    def __new__(cls): pass
    def __init_subclass__(cls): pass
    def __class_getitem__(cls, item): pass
    def g(self): pass
    g = 3
    class Inner:
        def h(self): pass
        h = staticmethod(h)
def module_level(): pass
"""


def test_method_type_is_astroids_without_the_walk() -> None:
    """The shortcut answers as astroid's FunctionDef.type for every kind of method,
    reassigned at class level or not."""
    from pylint_rpcsurface.analysis.handlers import _method_type  # noqa: PLC0415

    functions = list(astroid.parse(METHOD_TYPES).nodes_of_class(nodes.FunctionDef))
    assert len(functions) == 12  # every def above
    assert {f.name: _method_type(f) for f in functions} == {f.name: f.type for f in functions}
    assert {f.type for f in functions} == {"method", "staticmethod", "classmethod", "function"}


LITERAL_RECEIVERS = """\
def helper(m):
    m.call_func("ping")

def start(m, flag, make):
    out = []
    out.append(m)                 # a list's method: not inferred
    table = {"go": helper}
    table.get("go")(m)            # calls what the dict holds: inferred
    handlers = [helper]
    handlers[0](m)                # the same, by subscript
    text = f"{m}"
    text.upper()                  # a str's method
    either = []
    if flag:
        either = make()
    either.send(m)                # bound to a call on one path: inferred
"""


def test_a_method_of_a_literal_is_skipped_but_what_the_literal_holds_is_followed(
    tmp_path: Path,
) -> None:
    from pylint_rpcsurface.analysis.helper_calls import (  # noqa: PLC0415
        reaches_only_python_itself,
    )

    start = method(LITERAL_RECEIVERS, tmp_path, "start")
    tree = SourceTree((tmp_path,))
    calls = {call.as_string(): call for call in start.nodes_of_class(nodes.Call)}
    skipped = {text for text, call in calls.items() if reaches_only_python_itself(call, tree)}
    assert {"out.append(m)", "text.upper()"} <= skipped
    assert not skipped & {"table.get('go')(m)", "handlers[0](m)", "either.send(m)"}
    # astroid gives no value for dict.get(); the subscript's helper is found.
    helpers = [(helper.name, step.call.line) for helper, step in helper_calls(start, tree)]
    assert helpers == [("helper", 10)]

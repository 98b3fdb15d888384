"""``syntax.nodes_of`` walks as astroid's ``nodes_of_class`` does: the same nodes, in
the same order, on every kind of statement and expression, and on real modules of the
standard library (whose trees astroid's brains have transformed)."""

from __future__ import annotations

import textwrap

import astroid
import pytest
from astroid import nodes

from pylint_rpcsurface.analysis import syntax
from pylint_rpcsurface.analysis.syntax import nodes_of

EVERY_SHAPE = textwrap.dedent(
    '''
    """The module's docstring."""
    from __future__ import annotations
    import os, sys as system
    from collections import OrderedDict as OD, deque
    from . import sibling

    X: int = 1
    Y: "list[int]"
    a, *rest = b, c = [1, 2, 3]
    d = {"k": 1, **other, None: -1}
    e = {1, 2} | {3}
    f = (x for x in range(3) if x if not x)
    g = [y async for y in z] if t else [y for y in z]
    h = {k: v for k, v in d.items()}
    i = {s for s in e}
    j = lambda p, /, q=1, *r, s, t=2, **u: (p, q, r, s, t, u)
    k = f"{X!r:>{width}} and {Y=}" f"{'nested'}"
    m = seq[1:2:3], seq[::], seq[...], seq[a, b:c]
    n = not a and b or c
    o = -a + b * c @ d ** e // f % g << h >> i & j ^ k | l
    p = a < b <= c != d is not e in f not in g
    q = (yield_ := 3)
    del d["k"], r.attr, s
    assert X, "message"
    global_name = None


    @decorator
    @other.decorator(arg, key=value)
    class Klass(Base, metaclass=Meta, **options):
        """The class's docstring."""
        attr: int = 0
        other = attr

        def method(self, a: int, /, b: str = "x", *args: object, c, d=4, **kw: bytes) -> None:
            """The method's docstring."""
            global global_name
            self.attr += 1
            self.a.b = c
            del self.a.b
            for item in args:
                if item:
                    continue
                elif not item:
                    break
                else:
                    pass
            else:
                return
            while a:
                a -= 1
            else:
                a = 0
            try:
                raise ValueError("x") from None
            except (ValueError, TypeError) as error:
                raise
            except Exception:
                pass
            else:
                pass
            finally:
                pass
            with open(a) as first, open(b):
                pass

            def inner():
                nonlocal a
                yield a
                yield from args
                return lambda: a

            return inner

        @property
        async def coroutine(self, *, key):
            async with lock as held, other:
                await held
            async for value in source():
                yield value
            result = [await v async for v in source()]

        @staticmethod
        def plain(*, only, **rest):
            match only:
                case {"a": 1, **others}:
                    pass
                case [1, 2, *more]:
                    pass
                case Point(x=0, y=yy) | Point(0, yy) if yy > 0:
                    pass
                case str() as text:
                    pass
                case None | True | 1.5 | -1 | 1 + 2j:
                    pass
                case _:
                    pass


    try:
        pass
    except* ValueError as group:
        pass
    if __name__ == "__main__":
        Klass().method(1, c=2)
    '''
)

STANDARD_LIBRARY = ("argparse", "asyncio.base_events", "typing", "dataclasses", "enum")
KINDS = (
    nodes.NodeNG,
    nodes.Call,
    nodes.Name,
    (nodes.AssignAttr, nodes.ClassDef, nodes.Call, nodes.FunctionDef, nodes.Compare),
    (nodes.Return, nodes.Yield),
    nodes.Const,
)


def _trees() -> list[nodes.NodeNG]:
    module = astroid.parse(EVERY_SHAPE, module_name="every_shape")
    manager = astroid.MANAGER
    library = [manager.ast_from_module_name(name) for name in STANDARD_LIBRARY]
    return [module, *library]


@pytest.mark.parametrize("kinds", KINDS, ids=repr)
def test_nodes_of_gives_what_nodes_of_class_gives(kinds: object) -> None:
    for tree in _trees():
        starts = [tree, *tree.nodes_of_class((nodes.FunctionDef, nodes.If, nodes.Call))]
        for start in starts[:400]:
            expected = list(start.nodes_of_class(kinds))  # type: ignore[arg-type]
            walked = list(nodes_of(start, kinds))  # type: ignore[call-overload]
            assert len(walked) == len(expected), (tree.name, start.lineno)
            assert all(w is e for w, e in zip(walked, expected, strict=True)), (
                tree.name,
                start.lineno,
            )


def test_every_node_class_read_by_its_fields_is_met() -> None:
    """Each node class the walk reads by its fields is in the trees above, so the test
    above holds its fields' order to astroid's get_children."""
    met = {type(node) for tree in _trees() for node in tree.nodes_of_class(nodes.NodeNG)}
    by_fields = set(syntax._PUSHED)  # pylint: disable=protected-access
    assert by_fields - met == set()


def test_a_node_class_not_listed_is_read_by_get_children() -> None:
    """A match statement's nodes are not listed: what the walk gives there is what their
    own get_children gives."""
    module = astroid.parse(EVERY_SHAPE)
    match = next(module.nodes_of_class(nodes.Match))
    assert type(match) not in syntax._PUSHED  # pylint: disable=protected-access
    names = [n.name for n in nodes_of(match, nodes.AssignName)]
    assert names == [n.name for n in match.nodes_of_class(nodes.AssignName)]
    assert {"others", "more", "yy", "text"} <= set(names)


def test_a_walk_gives_every_node_and_where_each_function_s_body_lies() -> None:
    """``walked`` is ``nodes_of`` for every node, and its slice for a function is the
    nodes of its body's statements (``own_nodes``: a nested function's and a lambda's
    included), for a method, a nested function and an async one, decorated or not."""
    functions = 0
    for tree in _trees():
        order, bodies = syntax.walked(tree)
        expected = list(nodes_of(tree, nodes.NodeNG))
        assert len(order) == len(expected)
        assert all(w is e for w, e in zip(order, expected, strict=True)), tree.name
        for function in tree.nodes_of_class(nodes.FunctionDef):
            start, end = bodies[id(function)]
            own = [n for statement in function.body for n in nodes_of(statement, nodes.NodeNG)]
            assert len(order[start:end]) == len(own), (tree.name, function.lineno)
            assert all(w is e for w, e in zip(order[start:end], own, strict=True))
            functions += 1
    assert functions > 100
    # The module's own shapes: a decorated method, an async function, a nested one.
    module = _trees()[0]
    _, bodies = syntax.walked(module)
    kinds = {type(f) for f in module.nodes_of_class(nodes.FunctionDef) if id(f) in bodies}
    assert nodes.AsyncFunctionDef in kinds


class _Recorded(list):  # type: ignore[type-arg]
    """A list of a class of its own, as a class's body is while reads are recorded."""


def test_a_walk_reads_a_body_held_in_a_list_of_its_own_class() -> None:
    module = astroid.parse("class A:\n    def f(self):\n        return g(1)\n")
    plain_order, plain_bodies = syntax.walked(module)
    klass = module.body[0]
    klass.body = _Recorded(klass.body)
    order, bodies = syntax.walked(module)
    assert [type(n).__name__ for n in order] == [type(n).__name__ for n in plain_order]
    assert all(a is b for a, b in zip(order, plain_order, strict=True))
    assert bodies == plain_bodies


# A docstring's node and an argument's type comment: fields astroid's transforms walk and
# get_children leaves out.
FIELDS_ONLY = textwrap.dedent(
    '''
    """The module's docstring."""
    from typing import Dict, List


    def typed(
        a,  # type: int
        b,  # type: List[str]
        *,
        c,  # type: Dict[str, int]
    ):
        # type: (...) -> None
        """A function's docstring."""


    def positional(
        a,  # type: int
        /,
        b,  # type: str
    ):
        pass


    class Documented:
        """A class's docstring."""

        async def run(self, x):
            """An async method's docstring."""
    '''
)


def _by_fields(root: nodes.NodeNG) -> dict[int, nodes.NodeNG]:
    """Every node under *root* by the fields of ``_astroid_fields``, as astroid's
    transforms walk them, by id."""
    found: dict[int, nodes.NodeNG] = {}

    def visit(value: object) -> None:
        # Recursive, as astroid's own TransformVisitor._visit_generic is.
        if isinstance(value, (list, tuple)):
            for item in value:
                visit(item)
        elif isinstance(value, nodes.NodeNG):
            found[id(value)] = value
            for field in value._astroid_fields:  # pylint: disable=protected-access
                visit(getattr(value, field))

    visit(root)
    return found


def test_a_walk_gives_every_node_astroid_s_transforms_walk() -> None:
    """With *every*, ``walked`` also gives each node astroid's transforms walk, by id:
    the lean build's nodes whose transforms wait, from its one walk of a module, those
    get_children leaves out (a docstring's node, an argument's type comment and what is
    under it) with the rest. Its order is ``nodes_of``'s all the same."""
    extra = astroid.parse(FIELDS_ONLY, module_name="fields_only")
    typed = extra.body[1]
    assert isinstance(typed, nodes.FunctionDef)
    # the parse kept the type comments, on each kind of argument
    assert any(typed.args.type_comment_args)
    assert any(typed.args.type_comment_kwonlyargs)
    positional = extra.body[2]
    assert isinstance(positional, nodes.FunctionDef)
    assert any(positional.args.type_comment_posonlyargs)
    for tree in [*_trees(), extra]:
        every: dict[int, nodes.NodeNG] = {}
        order, _ = syntax.walked(tree, every)
        expected = _by_fields(tree)
        assert set(every) == set(expected), tree.name
        assert all(every[key] is node for key, node in expected.items())
        assert all(w is e for w, e in zip(order, nodes_of(tree, nodes.NodeNG), strict=True))
    order, _ = syntax.walked(extra)
    assert len(order) < len(_by_fields(extra))  # some nodes only the fields reach

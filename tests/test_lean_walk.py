"""The lean build's one walk of a module gives what astroid's own walks give.

:func:`pylint_rpcsurface.analysis.lean_build._parsed_nodes` replaced two walks of every
lean module (astroid's ``nodes_of_class(ClassDef)`` for the classes, and a walk of the
transforms' fields for the nodes still to transform): held here to astroid's answers on
a module with classes nested every way the grammar allows.
"""

from __future__ import annotations

import astroid
from astroid import nodes

from pylint_rpcsurface.analysis.lean_build import _parsed_nodes

NESTED = """
import functools


@functools.total_ordering
class Outer:
    class Inner:
        class Innermost:
            pass

    def method(self):
        class InMethod:
            pass

        if self:
            class InBranch:
                pass
        else:
            class InElse:
                pass
        return InMethod


def function():
    try:
        class InTry:
            pass
    except ValueError:
        class InHandler:
            pass
    finally:
        class InFinally:
            pass
    with open("f") as handle:
        class InWith:
            pass
    for _ in handle:
        class InLoop:
            pass
    while False:
        class InWhile:
            pass
    match handle:
        case 1:
            class InCase:
                pass


class Last(Outer.Inner):
    value = [lambda: 1 for _ in range(2)]
"""


def test_the_classes_in_the_order_astroid_walks_them() -> None:
    module = astroid.parse(NESTED)
    expected = [klass.name for klass in module.nodes_of_class(nodes.ClassDef)]
    assert len(expected) == 14  # the fixture's classes, counted by hand
    _, classes, _ = _parsed_nodes(module)
    assert [klass.name for klass in classes] == expected


def test_every_node_astroid_walks_is_pending() -> None:
    module = astroid.parse(NESTED)
    found, _, _ = _parsed_nodes(module)
    walked = {id(node) for node in module.nodes_of_class(nodes.NodeNG)}
    assert walked <= set(found)
    assert id(module) in found


DECORATED = """
import functools


class Holder:
    @property
    def plain(self):
        return 1

    def undecorated(self):
        @functools.wraps(print)
        async def nested_coroutine():
            pass

        return nested_coroutine

    @staticmethod
    async def coroutine():
        pass


@functools.cache
def top():
    pass
"""


def test_every_decorated_function_a_coroutine_too() -> None:
    module = astroid.parse(DECORATED)
    expected = [
        function.name
        for function in module.nodes_of_class(nodes.FunctionDef)
        if function.decorators is not None
    ]
    assert expected == ["plain", "nested_coroutine", "coroutine", "top"]  # counted by hand
    _, _, decorated = _parsed_nodes(module)
    assert [function.name for function in decorated] == expected

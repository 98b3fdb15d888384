"""Conditions as syntax trees: how a table's ``when`` and the tests of the callers' code
are compared (``analysis.conditions`` reads the tests; ``engine.judging`` compares).

Two conditions are the same when their syntax trees are, never their text: each is kept
as the dump of Python's own ``ast`` of it, a negation written the way its comparison
would be (``not X == Y`` is ``X != Y``, ``not X is None`` is ``X is not None``, ``not not
X`` is ``X``). Nothing here imports astroid: the configuration checks a ``when`` with it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NoReturn

__all__ = ["canonical", "checked_expression", "implied"]

# Each comparison operator and the one its negation is.
_NEGATED: Mapping[type[ast.cmpop], type[ast.cmpop]] = MappingProxyType(
    {
        ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq,
        ast.Is: ast.IsNot,
        ast.IsNot: ast.Is,
        ast.In: ast.NotIn,
        ast.NotIn: ast.In,
    }
)


def canonical(text: str, *, negated: bool = False) -> str | None:
    """The syntax tree of the expression *text* (with *negated*, of its negation), as
    conditions are compared; None when it is not one Python expression."""
    tree = _parsed(text)
    if tree is None:
        return None
    return _dump(_negation(tree) if negated else tree)


def implied(text: str, holds: bool) -> list[str]:
    """What the test *text* having the value *holds* says, as :func:`canonical` forms:
    itself (or its negation), and each conjunct of a true ``and`` (each disjunct of a
    false ``or``) the same way; none when it does not parse."""
    tree = _parsed(text)
    return [] if tree is None else [_dump(part) for part in _implied(tree, holds)]


def checked_expression(value: object, key: str, fail: Callable[[str, str], NoReturn]) -> str:
    """*value*, the configuration key *key*'s, when it is one Python expression; else
    *fail* (key, problem)."""
    if not isinstance(value, str) or not value.strip():
        fail(key, f"expected a Python expression as a str, got {value!r}")
    try:
        ast.parse(value.strip(), mode="eval")
    except SyntaxError as error:
        fail(key, f"expected a Python expression, got {value!r} ({error.msg})")
    except ValueError as error:  # a null character
        fail(key, f"expected a Python expression, got {value!r} ({error})")
    return value.strip()


def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _implied(test: ast.expr, holds: bool) -> list[ast.expr]:
    found = [test if holds else _negation(test)]
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or):
        for value in test.values:
            found.extend(_implied(value, holds))
    return found


def _negation(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        return ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)


def _normal(test: ast.expr) -> ast.expr:
    """*test* with a leading negation written as the comparison (or operand) it means."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _normal(test.operand)
        negated = _negation(inner)
        return negated if not isinstance(negated, ast.UnaryOp) else ast.UnaryOp(ast.Not(), inner)
    return test


def _dump(test: ast.expr) -> str:
    return ast.dump(_normal(test))

"""The conditions a call runs under, read from the syntax of the function that makes it.

A table's ``when`` (``[[tool.rpcsurface.surface]]`` and ``[[tool.rpcsurface.proxy]]``)
names a condition; a call runs under it when it is

* in the body of an ``if``/``elif`` (or ``while``, or the first branch of a conditional
  expression) whose test is the condition, or a conjunct of an ``and`` test;
* in the other branch of one whose test is the condition's negation (an ``elif`` is in
  the ``else`` of the tests before it), or a disjunct of an ``or`` test negated;
* after ``if <negation>: ... return`` (or ``raise``, ``continue``, ``break``) in the same
  block, or in a block that holds its statement.

Conditions are compared as syntax trees, never as text (:mod:`..config.expressions`).
The walk stops at the function (or lambda) holding the call: what the code around a
nested function tests says nothing of when that function runs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from astroid import nodes

from pylint_rpcsurface.config.expressions import implied

__all__ = ["attribute_truths", "conditions_of"]

_EXITS = (nodes.Return, nodes.Raise, nodes.Continue, nodes.Break)
# Where the walk stops: what the code around them tests says nothing of when they run.
_SCOPES = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)


def conditions_of(node: nodes.NodeNG) -> tuple[str, ...]:
    """The conditions *node* runs under (``config.expressions.canonical`` forms), sorted."""
    found: set[str] = set()
    for test, holds in _tests_over(node):
        found.update(implied(test.as_string(), holds))
    return tuple(sorted(found))


def _tests_over(node: nodes.NodeNG) -> Iterator[tuple[nodes.NodeNG, bool]]:
    """Each test whose value is known where *node* runs, and that value."""
    child, parent = node, node.parent
    while parent is not None:
        yield from _guards_before(child, parent)
        if isinstance(parent, _SCOPES):
            return
        if isinstance(parent, (nodes.If, nodes.While)):
            if child in parent.body:
                yield parent.test, True
            elif isinstance(parent, nodes.If) and child in parent.orelse:
                yield parent.test, False
        elif isinstance(parent, nodes.IfExp) and child is not parent.test:
            yield parent.test, child is parent.body
        child, parent = parent, parent.parent


def _guards_before(
    statement: nodes.NodeNG, holder: nodes.NodeNG
) -> Iterator[tuple[nodes.NodeNG, bool]]:
    """The tests of the ``if`` statements before *statement* in its block of *holder*
    whose body always leaves the block: *statement* runs only where they are false."""
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(holder, field, None)
        if isinstance(block, list) and statement in block:
            for earlier in block[: block.index(statement)]:
                if (
                    isinstance(earlier, nodes.If)
                    and earlier.body
                    and isinstance(earlier.body[-1], _EXITS)
                ):
                    yield earlier.test, False
            return


def attribute_truths(
    order: Iterable[nodes.ClassDef], codes: Iterable[nodes.NodeNG], attributes: Collection[str]
) -> tuple[tuple[str, bool | None], ...]:
    """The truth of each of *attributes* on an instance of the class whose MRO is *order*
    and whose own code is *codes*: True or False when every binding of it there (at
    class level in the MRO, ``self.<name> = ...`` in the code) is a constant of that
    truth; None when one is not a constant, the code assigns it on another object, or
    nothing binds it."""
    found: dict[str, set[bool | None]] = {name: set() for name in attributes}
    for klass in order:
        for name, values in found.items():
            values.update(
                _constant_truth(binding) if isinstance(binding, nodes.NodeNG) else None
                for binding in klass.locals.get(name, [])
            )
    for code in codes:
        for node in code.nodes_of_class(nodes.AssignAttr):
            if node.attrname in found:
                mine = isinstance(node.expr, nodes.Name) and node.expr.name == "self"
                found[node.attrname].add(_constant_truth(node) if mine else None)
    return tuple(
        (name, next(iter(values)) if len(values) == 1 else None)
        for name, values in sorted(found.items())
    )


def _constant_truth(binding: nodes.NodeNG) -> bool | None:
    """The truth of the constant *binding* (a target) is bound to, or None."""
    statement = binding.parent
    alone = isinstance(statement, nodes.Assign) and statement.targets == [binding]
    if not (alone or isinstance(statement, nodes.AnnAssign)):
        return None
    value = getattr(statement, "value", None)
    return bool(value.value) if isinstance(value, nodes.Const) else None

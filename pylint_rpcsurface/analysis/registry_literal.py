"""What a registry constant's statement is, read from the syntax alone.

The checker (:mod:`.registry`, with astroid) and ``rpcsurface fix`` (which edits text)
both start from the one statement that assigns the registry. These are the definitions
they share, so the two can't drift apart on which statement that is, which builtin
constructors wrap a literal, or when a display holds only str literals: what ``fix`` edits is
always a registry the checker reads the same way (``fix`` also reads each rewrite back
through the checker's reader before it writes it).

Only :mod:`ast`: importing this loads neither astroid nor pylint.
"""

from __future__ import annotations

import ast

__all__ = ["CONSTRUCTORS", "assigned_value", "str_literals"]

# The builtins whose call on one literal (or on nothing) is read as that literal's
# elements: ``frozenset({...})``, ``sorted([...])``. Keywords (``sorted(key=...)``) are
# not: they could change what the call gives.
CONSTRUCTORS = ("frozenset", "set", "tuple", "list", "sorted")


def assigned_value(statement: ast.stmt, attribute: str) -> ast.expr | None:
    """The value of ``attribute = value`` or ``attribute: T = value`` (one target, the
    plain name); None for any other statement, and for a declaration without a value."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    if isinstance(target, ast.Name) and target.id == attribute:
        return statement.value
    return None


def str_literals(value: ast.expr | None) -> list[ast.Constant] | None:
    """The elements of a tuple, list or set display of str literals only; None when
    *value* is anything else (a constructor call, a name, a non-str element)."""
    if not isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return None
    found = []
    for element in value.elts:
        if not isinstance(element, ast.Constant) or not isinstance(element.value, str):
            return None
        found.append(element)
    return found

"""What the syntax alone tells of a node, with no inference."""

from __future__ import annotations

from typing import TypeGuard

from astroid import nodes

__all__ = ["builtin_call"]


def builtin_call(node: object, name: str, *arities: int) -> TypeGuard[nodes.Call]:
    """Whether *node* calls *name* by its bare name (``getattr(obj, "x")``), without
    keywords and with as many positional arguments as one of *arities*."""
    return (
        isinstance(node, nodes.Call)
        and isinstance(node.func, nodes.Name)
        and node.func.name == name
        and len(node.args) in arities
        and not node.keywords
    )

"""Classes and functions named by where they are defined, not by their position.

A piece of the analysis's memo names a definition by its dotted name in its module and
which of that name's definitions it is: both hold while lines are inserted above it.
"""

from __future__ import annotations

from astroid import nodes

__all__ = ["Definition", "definition_name", "find_definition"]


Definition = nodes.ClassDef | nodes.FunctionDef


def definition_name(node: Definition) -> tuple[str, int]:
    """Where *node* is defined, by name: its dotted name within its module (the classes'
    and functions' names around it first) and which of the definitions of that name it
    is, in source order (``if``/``else`` may define one name twice). Unlike a position,
    neither changes when lines are inserted above it."""
    names = [node.name]
    current = node.parent
    while current is not None and not isinstance(current, nodes.Module):
        if isinstance(current, (nodes.ClassDef, nodes.FunctionDef)):
            names.append(current.name)
        current = current.parent
    name = ".".join(reversed(names))
    found = _definitions_named(node.root(), name)
    index = next((i for i, candidate in enumerate(found) if candidate is node), 0)
    return name, index


def find_definition(module: nodes.Module, name: str, index: int) -> Definition | None:
    """The definition :func:`definition_name` names as (*name*, *index*) in *module*."""
    found = _definitions_named(module, name)
    return found[index] if 0 <= index < len(found) else None


def _definitions_named(module: nodes.NodeNG, name: str) -> list[Definition]:
    """Every class or function definition whose dotted name in *module* is *name*, in
    source order; read from the scopes' names, not by walking the module."""
    scopes: list[nodes.NodeNG] = [module]
    found: list[Definition] = []
    for part in name.split("."):
        found = [
            binding
            for scope in scopes
            for binding in getattr(scope, "locals", {}).get(part, ())
            if isinstance(binding, (nodes.ClassDef, nodes.FunctionDef))
        ]
        scopes = list(found)
    return sorted(found, key=lambda d: (d.lineno or 0, d.col_offset or 0))

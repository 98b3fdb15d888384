"""``init``'s discovery walks each module once: the constructor collects its calls,
classes and functions from that walk, and each function's body, which its readers ask
for again and again, is the walk's slice of it (``syntax.walked``, held to ``nodes_of``
and ``own_nodes`` in tests/test_syntax_walk.py).

A lean module's transforms run when a node is first inferred, after the walk, and one
may put another node in the place of the one inferred: a body read from the walk would
then hold a node the tree no longer has. Such a body is walked again.
"""

from __future__ import annotations

from pathlib import Path

import astroid
from astroid import nodes
from support import project

from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.discovery.reading import FunctionBodies
from pylint_rpcsurface.sources import SourceTree

MODULE = """\
def serve(queue):
    name = queue.get()
    return swap_me(name)
"""


def _is_swapped(call: nodes.Call) -> bool:
    return isinstance(call.func, nodes.Name) and call.func.name == "swap_me"


def _swap(call: nodes.Call) -> nodes.Const:
    return nodes.Const(
        7,
        lineno=call.lineno,
        col_offset=call.col_offset,
        parent=call.parent,
        end_lineno=call.end_lineno,
        end_col_offset=call.end_col_offset,
    )


def _bodies_around_a_replacement(tmp_path: Path, *, infer: bool) -> tuple[list[object], object]:
    root = project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/worker.py": MODULE})
    store = ModuleStore(SourceTree((root,)))
    manager = astroid.MANAGER
    manager.register_transform(nodes.Call, _swap, _is_swapped)
    try:
        with store.resolving_imports():
            module = store.module(str(root / "pkg" / "worker.py"))
            assert module is not None
            bodies = FunctionBodies()
            bodies.walked(module)
            function = module["serve"]
            call = function.body[1].value
            if infer:
                list(call.infer())  # the lean build runs the transform now
            return list(bodies(function).own_nodes(nodes.NodeNG)), call
    finally:
        manager.unregister_transform(nodes.Call, _swap, _is_swapped)


def test_a_body_is_the_walk_s_slice_while_its_module_is_unchanged(tmp_path: Path) -> None:
    own, call = _bodies_around_a_replacement(tmp_path, infer=False)
    assert any(node is call for node in own)
    assert [type(node).__name__ for node in own][:2] == ["Assign", "AssignName"]


def test_a_body_is_walked_again_once_a_transform_replaced_a_node(tmp_path: Path) -> None:
    own, call = _bodies_around_a_replacement(tmp_path, infer=True)
    # The tree holds the transform's constant where the call was: so does the body.
    assert not any(node is call for node in own)
    assert any(isinstance(node, nodes.Const) and node.value == 7 for node in own)

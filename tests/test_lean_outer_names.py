"""A name in a method that astroid's look-up finds bound outside the classes around it
(a module's ``logger``) is inferred without first running those classes' transforms:
inferring it reads nothing of theirs (LMDeploy 0.7.3's ``logger.warning(...)`` in a
dataclass's classmethod ran the dataclass's transform, which built ``typing``, a fifth
of a cold ``check``). ``self`` is bound inside: the classes' transforms run first, as
before. Every answer is held to astroid's full build."""

from __future__ import annotations

import textwrap
from pathlib import Path

import astroid
from astroid import nodes
from support import FAST_PACKAGE, found_and_built, line_of

from pylint_rpcsurface.analysis.lean_build import _reads_no_class_around

PARAMS = textwrap.dedent(
    """\
    import logging
    from dataclasses import dataclass, field
    from typing import List

    logger = logging.getLogger(__name__)


    @dataclass
    class Params:
        sizes: List[int] = field(default_factory=list)

        @classmethod
        def make(cls, mgr):
            logger.warning("made")
            mgr.call_func("params_load", wait_out=True)
            return Params()
    """
)

CORE = """\
from pkg.params import Params


class Core:
    def step(self):
        Params.make(self.mgr)
        self.mgr.call_func("prefill", wait_out=True)
"""

FILES: dict[str, str | bytes] = {**FAST_PACKAGE, "pkg/core.py": CORE}


def _checked(root: Path, params: str) -> tuple[set[tuple[str, str, int]], int]:
    return found_and_built(root, {**FILES, "pkg/params.py": params})


def test_a_module_name_in_a_dataclass_method_runs_no_transform(tmp_path: Path) -> None:
    found, built = _checked(tmp_path / "dataclass", PARAMS)
    assert found == {("rpc-unanswered", "pkg/params.py", line_of(PARAMS, '"params_load"'))}
    plain = PARAMS.replace("@dataclass\n", "\n")  # the same lines
    found_plain, built_plain = _checked(tmp_path / "plain", plain)
    assert found_plain == found
    # The dataclass's transform never ran: it would have built typing.
    assert built == built_plain


def test_which_names_read_no_class_around() -> None:
    """A method's first parameter, a lambda's in a class's body too, reads the class; a
    later parameter, a constant and a module's name do not."""
    module = astroid.parse(
        textwrap.dedent(
            """\
            import logging

            logger = logging.getLogger()


            class Params:
                size = 1
                pick = lambda self, other: (self, other)

                def make(self, mgr):
                    return self, mgr, logger.warning, 3, size
            """
        )
    )
    klass = next(module.nodes_of_class(nodes.ClassDef))
    read = {
        (node.as_string(), node.lineno, _reads_no_class_around(node, klass))
        for node in klass.nodes_of_class((nodes.Name, nodes.Attribute, nodes.Const))
        if not isinstance(node.parent, nodes.Attribute)
    }
    assert read == {
        ("1", 7, True),  # the class attribute's constant
        ("self", 8, False),  # the lambda's first, in the class's body
        ("other", 8, True),
        ("self", 11, False),  # the method's first
        ("mgr", 11, True),
        ("logger.warning", 11, True),
        ("3", 11, True),
        ("size", 11, True),  # methods do not see class-level names: builtins' look-up
    }

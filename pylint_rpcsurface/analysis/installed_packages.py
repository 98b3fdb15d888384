"""Reading a project as if none of its dependencies were installed: what ``rpcsurface
init`` reads, the project under the source roots and Python's standard library alone.

astroid builds whatever the code imports that it can find on ``sys.path``. In an engine's
own environment that is its dependencies, and ``init`` reads every class of the project:
astroid's enum transform asks each class it meets whether it derives from ``enum.Enum``,
inferring its bases, so vLLM 0.7.3's model configurations (``PretrainedConfig``) built
2,342 modules of ``transformers``, 26 of the 34 seconds ``init`` took there. What ``init``
proposes would also depend on what the environment holds. Within
:func:`installed_packages_unread`, which ``ModuleStore.resolving_imports(
installed_packages=False)`` enters for ``init``, an import of an installed package fails
as if it were not installed: what comes from one is unknown (never a guess), as on a
machine without it, where ``init`` is measured (``bench/init_speed.py``) and tested.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import astroid
from astroid import nodes
from astroid.manager import AstroidManager

from pylint_rpcsurface.sources import SourceTree

__all__ = ["installed_packages_unread"]


@contextlib.contextmanager
def installed_packages_unread(tree: SourceTree) -> Iterator[None]:
    """Within this block astroid builds no module but those of the project under *tree*'s
    roots and the standard library's; importing any other fails (an installed package's,
    or one pylint's own run built before)."""
    allowed = frozenset(tree.top_level_names()) | sys.stdlib_module_names
    roots = tuple(os.path.join(os.path.abspath(root), "") for root in tree.roots)
    # The method astroid looks every import up through (``AstroidManager()`` is made
    # anew at each, so the class's, not an instance's).
    own = AstroidManager.__dict__["ast_from_module_name"]

    def ast_from_module_name(
        manager: AstroidManager,
        modname: str | None,
        context_file: str | None = None,
        use_cache: bool = True,
    ) -> nodes.Module:
        if (
            modname
            and modname.partition(".")[0] not in allowed
            and not _under_the_roots(manager, modname, context_file, roots)
        ):
            raise astroid.AstroidImportError(
                f"{modname} is an installed package's: not read by init"
            )
        module: nodes.Module = own(manager, modname, context_file, use_cache)
        return module

    setattr(AstroidManager, "ast_from_module_name", ast_from_module_name)  # noqa: B010
    try:
        yield
    finally:
        setattr(AstroidManager, "ast_from_module_name", own)  # noqa: B010


def _under_the_roots(
    manager: AstroidManager, modname: str, context_file: str | None, roots: tuple[str, ...]
) -> bool:
    """Whether astroid finds *modname* (imported from *context_file*) in a file under the
    roots: a sibling imported by its bare name, as a script run from its folder does. One
    it can't find at all is left to astroid, which looks it up under the roots last."""
    try:
        found: Any = manager.file_from_module_name(modname, context_file)
    except (astroid.AstroidBuildingError, ImportError):
        return True
    location = getattr(found, "location", None)
    if not isinstance(location, str):
        return False
    return os.path.abspath(location).startswith(roots)

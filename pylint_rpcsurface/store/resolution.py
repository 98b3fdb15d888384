"""Where the import system finds a module name now, without importing anything: the
store's record of how the names its pieces read resolved, and the libraries' text the
helper search reads (:mod:`..analysis.library_text`), both ask it."""

from __future__ import annotations

import os
import sys
from typing import Protocol

from pylint_rpcsurface.sources import real
from pylint_rpcsurface.store.file import NOT_LOCATED

__all__ = ["locate"]


def locate(modname: str) -> str | None:
    """Where the import system would find *modname* now, without importing anything.

    Each finder of ``sys.meta_path`` is asked, as the import system asks it; a dotted
    name's parent is never imported: its spec's search locations are passed on instead.
    The answer is the file (real path), ``namespace:`` and the folders of a namespace
    package, another origin (``built-in``, ``frozen``), or None when nothing is found.
    """
    parts = modname.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    path: list[str] | None = None
    spec: _Spec | None = None
    try:
        for depth in range(len(parts)):
            if spec is not None:
                if spec.submodule_search_locations is None:
                    return None  # not a package: it has no submodules
                path = [str(location) for location in spec.submodule_search_locations]
            spec = _find_spec(".".join(parts[: depth + 1]), path)
            if spec is None:
                return None
    except Exception:  # pylint: disable=broad-exception-caught  # a third-party finder
        return NOT_LOCATED
    if spec is None:
        return None
    origin, locations = spec.origin, spec.submodule_search_locations
    if locations is not None and origin in (None, "namespace"):
        return "namespace:" + os.pathsep.join(real(str(p)) for p in locations)
    if isinstance(origin, str) and os.path.isabs(origin):
        return real(origin)
    return str(origin)


class _Spec(Protocol):  # what the store reads of an importlib ModuleSpec
    origin: str | None
    submodule_search_locations: list[str] | None


def _find_spec(name: str, path: list[str] | None) -> _Spec | None:
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is not None:
            spec = find(name, path)
            if spec is not None:
                return spec  # type: ignore[no-any-return]  # a finder is duck-typed
    return None

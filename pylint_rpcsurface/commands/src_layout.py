"""Whether a project keeps its packages in a ``src`` folder, as the packaging guide's
"src layout" does: then ``init`` reads the project with ``src`` as a source root too, so
that its modules are named as the code imports them (``engine.core``, not
``src.engine.core``).

Proven, never assumed from the folder's name alone: ``src`` is no package itself, and
some file of the project imports one of the packages (or modules) in it by its absolute
name, which only resolves with ``src`` as a root. Read with Python's own parser, before
astroid builds anything.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

from pylint_rpcsurface.sources import SourceTree, UnreadableSource, decode_source, read_source

SRC = "src"


@dataclass(frozen=True)
class SrcLayout:
    """The package under ``src`` that the project imports by name, and where."""

    package: str
    evidence: str  # path:line of an absolute import of it, relative to the project

    def comment(self) -> str:
        return f"{self.evidence}: imports {self.package}, which is under {SRC}/"


def src_layout(folder: Path) -> SrcLayout | None:
    """The proof that *folder*'s project keeps packages in ``src`` (None: no proof)."""
    src = folder / SRC
    if not src.is_dir() or (src / "__init__.py").exists():
        return None  # no such folder, or a package named src that code imports as such
    names = _top_level_names(src)
    if not names:
        return None
    real = Path(os.path.realpath(folder))
    for path in SourceTree((real,)).python_files():
        found = _absolute_import(path, names)
        if found is not None:
            name, line = found
            shown = Path(os.path.relpath(path, real)).as_posix()
            return SrcLayout(name, f"{shown}:{line}")
    return None


def _top_level_names(src: Path) -> set[str]:
    """What an absolute import may name under *src*: its packages (a folder holding
    Python files, ``__init__.py`` or not) and its modules."""
    names = set()
    for child in src.iterdir():
        if child.name.startswith("."):
            continue
        if child.is_file() and child.suffix == ".py":
            names.add(child.stem)
        elif child.is_dir() and any(child.rglob("*.py")):
            names.add(child.name)
    return {name for name in names if name.isidentifier()}


def _absolute_import(path: str, names: set[str]) -> tuple[str, int] | None:
    """(the name, the line) of the first absolute import in *path* of one of *names*."""
    try:
        data, _ = read_source(path)
    except (UnreadableSource, OSError):
        return None  # init names the file among its notes when it reads the project
    text, _ = decode_source(data)
    if not any(name in text for name in names):
        return None
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                if top in names:
                    return top, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.partition(".")[0]
            if top in names:
                return top, node.lineno
    return None

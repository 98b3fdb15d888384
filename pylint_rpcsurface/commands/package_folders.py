"""The folders of a project that hold its packages without being packages themselves:
``src`` in the packaging guide's "src layout" (``src/engine/core.py``, imported as
``engine.core``), ``python`` in a repository laid out as sglang's and Ray's are
(``python/sglang/...``). ``init`` reads the project with each as a source root too, so
that its modules are named as the code imports them, not ``src.engine.core``.

Proven, never assumed from a folder's name: the folder is no package (no
``__init__.py``), it holds a package (a folder of Python files) that no folder beside it
shadows, and some file of the project imports that package by its absolute name, which
only resolves with the folder as a root. Read with Python's own parser, before astroid
builds anything. Folders of tests are left out: init does not read them.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pylint_rpcsurface.sources import (
    TEST_FOLDERS,
    SourceTree,
    UnreadableSource,
    decode_source,
    may_hold_project_code,
    read_source,
    shown_path,
)


@dataclass(frozen=True)
class PackageFolder:
    """A folder (relative to the project) that is a source root, and the proof: the
    package in it that the project imports by name, and where (path:line)."""

    folder: str
    package: str
    evidence: str

    def comment(self) -> str:
        return f"{self.evidence}: imports {self.package}, which is under {self.folder}/"


def package_folders(project: Path) -> tuple[PackageFolder, ...]:
    """Each folder of *project* proven to be a source root (none: the project's own
    folder is its only one), in the order of their names."""
    candidates = _candidates(project)
    if not candidates:
        return ()
    real = Path(os.path.realpath(project))
    proven: dict[str, PackageFolder] = {}
    for path in SourceTree((real,)).python_files():
        for package, line in _absolute_imports(path, candidates.keys() - proven.keys()):
            evidence = f"{shown_path(path, real)}:{line}"
            proven[package] = PackageFolder(candidates[package], package, evidence)
        if proven.keys() == candidates.keys():
            break
    by_folder: dict[str, PackageFolder] = {}
    for found in sorted(proven.values(), key=lambda f: (f.folder, f.package)):
        by_folder.setdefault(found.folder, found)
    return tuple(by_folder.values())


def _candidates(project: Path) -> dict[str, str]:
    """package name -> the folder of *project* holding it, for each folder that is no
    package and each package in it no folder or module of *project* itself shadows."""
    found: dict[str, str] = {}
    for folder in _folders(project):
        if folder.name in TEST_FOLDERS or (folder / "__init__.py").exists():
            continue
        for package in _folders(folder):
            name = package.name
            if (
                any(package.rglob("*.py"))
                and not (project / name).exists()
                and not (project / f"{name}.py").exists()
            ):
                found.setdefault(name, folder.name)
    return found


def _folders(parent: Path) -> list[Path]:
    """The folders in *parent* the walk of a source root enters (no link, no hidden
    folder, cache or virtualenv), in the order of their names."""
    try:
        children = sorted(parent.iterdir())
    except OSError:
        return []
    return [
        child
        for child in children
        if child.is_dir() and not child.is_symlink() and may_hold_project_code(str(child))
    ]


# A line starting (after indentation) with ``import`` or ``from``: the rest of it.
_IMPORT_LINE = re.compile(r"^[ \t]*(?:import|from)[ \t]+([^\n]*)", re.MULTILINE)


def _named(name: str, line: str) -> bool:
    """Whether *line* (what follows ``import`` or ``from``) names *name* as a module."""
    return any(part.partition(".")[0] == name for part in re.split(r"[\s,()]+", line))


def _absolute_imports(path: str, names: set[str]) -> list[tuple[str, int]]:
    """(the name, the line) of the first absolute import in *path* of each of *names*."""
    if not names:
        return []
    try:
        data, _ = read_source(path)
    except (UnreadableSource, OSError):
        return []  # init names the file among its notes when it reads the project
    text, _ = decode_source(data)
    # Only a file with a line that imports one of the names by itself is parsed: a name
    # such as "kernels" is in the text of half an engine's files. A file that imports it
    # only on a continued line is missed, which loses a proof, never makes one.
    statements = _IMPORT_LINE.findall(text)
    if not any(_named(name, line) for line in statements for name in names):
        return []
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [alias.name.partition(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops = [node.module.partition(".")[0]]
        else:
            continue
        for top in tops:
            if top in names:  # the first line: ast.walk goes by depth, not by line
                found[top] = min(found.get(top, node.lineno), node.lineno)
    return sorted(found.items(), key=lambda item: item[1])

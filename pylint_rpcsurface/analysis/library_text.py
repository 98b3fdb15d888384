"""Whether an installed library's code can reach a dispatch call, told by its text alone.

A helper the caller's code calls in a library (``version.parse(...)`` after ``from
packaging import version``) is followed as a project's is: its code is read for dispatch
calls, and for the helpers it calls in turn. Following it has astroid build the library's
modules; on vLLM 0.7.3, ``packaging``'s and ``pkg_resources``'s are a fifth of a cold
``check``.

What inference can reach from a library's code is bounded by what that code imports. A
name is found in the scope that binds it, and a module binds a name by defining it or by
importing it, so every function astroid reaches from the library lies in the library's
package or in a package one of its modules imports, and so on (astroid infers no
``importlib.import_module`` or ``__import__`` call, and a function's parameter, without
the call that passes it, infers to nothing it can call). When no file of those packages
spells a dispatch form's name, or an ``instance-of`` class's, as a word, none of their code
holds a call of a dispatch form's shape: the helpers reached there send nothing, and the
call into the library need not be inferred. The standard library is left out of the
packages read, as everywhere in the helper search (see
:func:`.helper_calls.reaches_only_python_itself`).

- A module the import system can't find (an optional dependency, a later Python's
  module) is one astroid can't build either: nothing is reached through it. It is kept in
  :attr:`LibraryText.missing`, and the store starts afresh once it is found.
- A compiled module has no code astroid reads; ``__main__`` is an empty module to astroid.
- The answer is "maybe" (infer the call) for a package that imports the project, one the
  import system finds other than as files (a built-in, another importer's), one with a
  file that can't be read, and when the packages to read hold more than ``MAX_FILES``
  files.
- Every file read is kept in :attr:`LibraryText.read`, by module name: the store starts
  afresh when one changes, as for a module astroid built.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

__all__ = ["MAX_FILES", "LibraryText"]

# The most files the packages of one library's closure may hold for their text to be
# read; beyond it (a framework of thousands of files) the call is inferred.
MAX_FILES = 400


class LibraryText:
    """What one analysis read of installed libraries' text, and what it concluded.

    *words* are the names a dispatch call is spelled with; *locate* says where the import
    system finds a top-level module name now (a file, ``namespace:`` and its folders, or
    anything else for "not as Python files"), without importing it; *in_project* whether a
    module name is the project's (found under the source roots)."""

    def __init__(
        self,
        words: Iterable[str],
        locate: Callable[[str], str | None],
        in_project: Callable[[str], bool],
    ) -> None:
        spelled = sorted({word for word in words if word})
        self._words = re.compile(r"\b(?:" + "|".join(map(re.escape, spelled)) + r")\b")
        self._any_word = bool(spelled)
        self._locate = locate
        self._in_project = in_project
        self._verdicts: dict[str, bool] = {}
        # Every library file read, by module name.
        self.read: dict[str, str] = {}
        # The modules a library imports that the import system can't find: astroid can't
        # build them either, so nothing is reached through them; the store starts afresh
        # once one is found.
        self.missing: set[str] = set()

    def sends_nothing(self, name: str) -> bool:
        """Whether no code reachable from the library *name* (a module name, any depth)
        holds a dispatch call: see the module's docstring."""
        top = name.partition(".")[0]
        known = self._verdicts.get(top)
        if known is None:
            closure = self._closure_sends_nothing(top)
            known = closure is not None
            for member in closure or (top,):
                self._verdicts.setdefault(member, known)
        return known

    def _closure_sends_nothing(self, top: str) -> set[str] | None:
        """The packages *top*'s code can reach, when none of them spells a dispatch word;
        None when one may, or can't be read."""
        pending, seen = [top], {top}
        files_read = 0
        while pending:
            package = pending.pop()
            if self._verdicts.get(package) is True:
                continue  # its own closure was read whole already: nothing there
            files = self._files_of(package)
            if files is None:
                return None
            files_read += len(files)
            if files_read > MAX_FILES:
                return None
            for module, path in files:
                imported = self._imports_of(path)
                if imported is None:
                    return None
                self.read[module] = path
                for other in imported:
                    if other in seen or other in sys.stdlib_module_names or other == "__main__":
                        continue  # astroid makes __main__ an empty module
                    if self._in_project(other):
                        return None
                    seen.add(other)
                    pending.append(other)
        return seen

    def _files_of(self, package: str) -> list[tuple[str, str]] | None:
        """The Python files of the top-level module *package*, each with its module name:
        none when it is not found or compiled; None when it is found other than as files."""
        where = self._locate(package)
        if where is None:
            self.missing.add(package)
            return []
        if where.startswith("namespace:"):
            folders = [f for f in where[len("namespace:") :].split(os.pathsep) if f]
            return _package_files(package, folders)
        if not os.path.isabs(where):
            return None  # built-in, frozen or another importer's
        if not where.endswith(".py"):
            return []  # compiled: no code astroid reads, its functions have no body
        if os.path.basename(where) == "__init__.py":
            return _package_files(package, [os.path.dirname(where)])
        return [(package, where)]

    def _imports_of(self, path: str) -> set[str] | None:
        """The top-level names of the absolute imports in the file at *path*, or more (a
        word ``import`` in a string counts too); None when it spells a dispatch word, or
        can't be read."""
        try:
            text = Path(path).read_text("utf-8", errors="replace")
        except OSError:
            return None
        if self._any_word and self._words.search(text):
            return None
        found: set[str] = set()
        for match in _IMPORTS.finditer(text.replace("\\\n", " ")):
            source, names = match.group("source"), match.group("names")
            if source is not None:
                if not source.startswith("."):  # a relative import: the same package
                    found.add(source.partition(".")[0])
                continue
            for name in names.split(","):
                found.add(name.split()[0].partition(".")[0])
        return found


# Every import statement's modules, read from the text, not parsed: parsing a library's
# files costs as much as inferring the call. A ``from`` statement is matched whole up to
# its ``import``, so the names it imports are never taken for modules.
_IMPORTS = re.compile(
    r"\bfrom\s+(?P<source>\.*[\w.]*)\s+import\b"
    r"|\bimport\s+(?P<names>[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)"
)


def _package_files(package: str, folders: list[str]) -> list[tuple[str, str]]:
    """Every ``.py`` file under *folders*, with its module name. A compiled module has no
    code astroid reads (built from the living module, or left empty, its functions have
    no body): none holds a call."""
    found: list[tuple[str, str]] = []
    for folder in folders:
        for path in _walk(folder):
            if not path.endswith(".py"):
                continue
            relative = os.path.relpath(path, folder)[: -len(".py")].split(os.sep)
            if relative[-1] == "__init__":
                relative = relative[:-1]
            found.append((".".join([package, *relative]), path))
    return found


def _walk(folder: str) -> Iterator[str]:
    for where, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for file in sorted(files):
            yield os.path.join(where, file)

"""Which project modules a module's facts can depend on, read from its text alone.

A fact about a module (a class's MRO, a method's broadcasts, a handler's replies) is
computed by astroid inference, and inference moves from one module to another only by
names: an ``import`` statement, or an attribute of an imported package that is one of its
submodules (``import pkg`` then ``pkg.sub.Base``). So a module can reach only the modules
it imports, their parent packages, the submodules of those it names anywhere in its text,
and, transitively, whatever those reach.

This over-approximates on purpose: a module name counts as imported when its last
component is a word of an import statement, and a submodule as named when it is a word
anywhere in the text. A fact is reused only when every module it may depend on is
byte for byte the same (see :mod:`.memo`), so an over-approximation costs a recomputation,
never a stale answer. Modules outside the source roots (the standard library, installed
libraries) are the memo's identity, not a dependency tracked here.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from pylint_rpcsurface.sources import SourceTree

__all__ = ["ProjectDependencies", "words_of"]

_WORD = re.compile(r"[^\W\d]\w*")
_IMPORT = re.compile(r"\bimport\b")
# For ASCII text, _WORD's words are the runs of [A-Za-z0-9_], leading digits cut: the
# bytes' own translate and split find them a few times faster than the expression.
_ASCII_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_A_WORD = bytes(b if b in _ASCII_WORD_BYTES else 32 for b in range(256))


def words_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of *text*'s import statements, and all its words.

    An import statement is every physical line holding the word ``import``, with the lines
    a backslash joins to it and, while a parenthesis is open, the lines after it. Comments
    are cut first, so a ``)`` in one can't end the statement early. Strings are not told
    apart from code: an import in a docstring only adds words.
    """
    lines = text.splitlines()
    imported: set[str] = set()
    for number, line in enumerate(lines):
        if "import" not in line or not _IMPORT.search(line):
            continue
        start = number
        while start > 0 and lines[start - 1].rstrip().endswith("\\"):
            start -= 1
        statement: list[str] = []
        depth = 0
        end = start
        while end < len(lines):
            code = lines[end].split("#", 1)[0]
            statement.append(code)
            depth += code.count("(") - code.count(")")
            end += 1
            if depth <= 0 and not code.rstrip().endswith("\\"):
                break
        imported.update(_WORD.findall(" ".join(statement)))
    return frozenset(imported), all_words(text)


def all_words(text: str) -> frozenset[str]:
    """The words of *text* (``[^\\W\\d]\\w*``: a name, or a name's tail after digits)."""
    if not text.isascii():
        return frozenset(_WORD.findall(text))
    runs = set(text.encode("ascii").translate(_NOT_A_WORD).split())
    words = {run.lstrip(b"0123456789") for run in runs}
    words.discard(b"")
    return frozenset(word.decode("ascii") for word in words)


class ProjectDependencies:
    """The transitive dependencies of the project's modules, by path.

    *text_of* gives a module's text (an editor's unsaved buffer included) with its names
    as Python reads them (``sources.as_identifiers``: ``core`` written in fullwidth
    letters imports ``core``), and *digest_of* the hash of its content; *known* maps
    content hashes to words already read, so a module is scanned once per version across
    runs (:attr:`scanned` holds what this run read, for the memo to keep).
    """

    def __init__(
        self,
        tree: SourceTree,
        text_of: Callable[[str], str],
        digest_of: Callable[[str], str],
        known: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self._text_of = text_of
        self._digest_of = digest_of
        self._known = dict(known or {})
        self.scanned: dict[str, frozenset[str]] = {}
        self._path_of: dict[str, str] = {}
        self._by_word: dict[str, list[str]] = defaultdict(list)
        for name, path in tree.module_files().items():
            self._path_of[name] = path
            self._by_word[name.rpartition(".")[2]].append(name)
        self._name_of = {path: name for name, path in self._path_of.items()}
        self._closures: dict[str, frozenset[str]] = {}
        self._digests: dict[frozenset[str], str] = {}

    def direct(self, path: str) -> frozenset[str]:
        """The module files *path* may reach by one import or submodule access.

        Kept by the module's path and content (:attr:`scanned`): the project's list of
        files is part of the memo's identity, so the same text reaches the same files."""
        key = f"{path}\0{self._digest_of(path)}"
        found = self._known.get(key)
        if found is None:
            found = self._direct(path)
            self._known[key] = found
        self.scanned[key] = found
        return found

    def _direct(self, path: str) -> frozenset[str]:
        name = self._name_of.get(path)
        if name is None:
            return frozenset()
        imported, mentioned = words_of(self._text_of(path))
        names = {n for word in imported for n in self._by_word.get(word, ())}
        names.update(_parents(name))
        for known in list(names):
            names.update(_parents(known))
        # Submodules of what it reaches, named anywhere in its text, down any depth.
        frontier = set(names)
        while frontier:
            found = {
                sub
                for word in mentioned
                for sub in self._by_word.get(word, ())
                if sub not in names and sub.rpartition(".")[0] in frontier
            }
            names |= found
            frontier = found
        return frozenset(self._path_of[n] for n in names if n in self._path_of) - {path}

    def closure(self, path: str) -> frozenset[str]:
        """*path* and every module file it may reach, transitively."""
        if path not in self._closures:
            seen = {path}
            stack = [path]
            while stack:
                for reached in self.direct(stack.pop()):
                    if reached not in seen:
                        seen.add(reached)
                        stack.append(reached)
            self._closures[path] = frozenset(seen)
        return self._closures[path]

    def digest(self, paths: Iterable[str]) -> str:
        """One hash of the content of *paths* and everything they may reach (computed
        once per set of paths: many pieces share their modules)."""
        asked = frozenset(paths)
        if asked not in self._digests:
            self._digests[asked] = self._digest(asked)
        return self._digests[asked]

    def reached(self, paths: Iterable[str]) -> frozenset[str]:
        """*paths* and every module file they may reach, transitively."""
        found: set[str] = set()
        for path in paths:
            found |= self.closure(path)
        return frozenset(found)

    def _digest(self, paths: frozenset[str]) -> str:
        hasher = hashlib.sha256()
        for path in sorted(self.reached(paths)):
            hasher.update(f"{path}\0{self._digest_of(path)}\0".encode("utf-8", "surrogatepass"))
        return hasher.hexdigest()


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]

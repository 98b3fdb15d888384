"""The analysed project: its source roots, module names, and the astroid modules we build.

Module names come from paths (see ``sources.py``), never from the names pylint or astroid
gave a module.

The project is never imported. Modules are built by astroid from source text; the text of
the file being linted from stdin replaces the saved file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import astroid
import astroid.context
from astroid import modutils, nodes
from astroid.builder import AstroidBuilder, build_namespace_package_module

# Private to astroid; tests/test_private_hooks.py checks the shape relied on.
from astroid.interpreter._import import spec as import_spec
from astroid.interpreter._import import util as import_util
from astroid.interpreter._import.spec import ModuleSpec, ModuleType
from astroid.manager import AstroidManager
from astroid.nodes import _base_nodes

from pylint_rpcsurface.analysis.assigned_members import AssignedElsewhere
from pylint_rpcsurface.analysis.inference_cache import forget_inferences, untruncated_inferences
from pylint_rpcsurface.analysis.installed_packages import installed_packages_unread
from pylint_rpcsurface.analysis.lean_build import LeanBuilds, built_lean, function_type
from pylint_rpcsurface.analysis.member_reads import ClassSplitter, extra_decorators
from pylint_rpcsurface.analysis.reads import INTERFACE, ReadRecorder
from pylint_rpcsurface.analysis.syntax import all_statements
from pylint_rpcsurface.sources import (
    TIMESTAMP_TICK_NS,
    KnownFile,
    SourceTree,
    as_identifiers,
    decode_source,
    read_source,
    real,
    stat_identity,
    unreadable_reason,
)

__all__ = [
    "BuildFailure",
    "BuiltFromFile",
    "ModuleStore",
    "ProjectImportRefused",
    "failed_import_hooks",
    "failed_imports_recorded",
]


class ProjectImportRefused(ImportError):
    """An import of one of the project's modules, refused while the project is analysed."""


class _NoProjectImports:
    """A ``sys.meta_path`` finder that refuses to import any module of the project.

    astroid's brains import modules to inspect them: the gi brain's failed-import hook
    calls ``__import__`` on ``gi.repository.<name>``, its transform of
    ``gi.require_version()`` imports ``gi``, and a C extension allowed by pylint's
    ``extension-pkg-allow-list`` is loaded. A project package of such a name would then
    run. While it is first on ``sys.meta_path``, every import not already done comes here
    first (``__import__``, ``importlib.import_module`` and ``import`` all do): a package
    named like one of the project's and not imported yet, or a module the other finders
    would load from a file under the source roots, is refused with an ImportError, which
    the brains take as "not installed". Other modules (the standard library, installed
    packages, those of a package already imported from elsewhere, such as astroid's own
    lazy imports when the project is a copy of astroid) are found as usual.
    """

    def __init__(self, roots: Sequence[str], names: frozenset[str]) -> None:
        self.roots = tuple(root.rstrip(os.sep) + os.sep for root in roots)
        self.names = names
        self._asking = False

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        top = sys.modules.get(name.partition(".")[0])
        if top is None and name.partition(".")[0] in self.names:
            self._refuse(name)
        if self._asking or (top is not None and any(self._ours(p) for p in _places(top))):
            # A package of the roots already imported is the running program itself
            # (this plugin analysing its own checkout): not refused. The analysed code
            # is never imported by the analysis, so it is never one of these.
            return None
        self._asking = True
        try:
            for finder in [f for f in sys.meta_path if f is not self]:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find is not None else None
                if spec is not None:
                    if any(self._ours(place) for place in _places(spec)):
                        self._refuse(name)
                    break
        finally:
            self._asking = False
        return None  # not refused: the finders after this one import it as usual

    def _ours(self, place: str) -> bool:
        """Whether *place* is under a source root, by its path or by what it links to."""
        paths = (os.path.normpath(place) + os.sep, real(place) + os.sep)
        return any(path.startswith(root) for path in paths for root in self.roots)

    @staticmethod
    def _refuse(name: str) -> None:
        raise ProjectImportRefused(
            f"{name}: a module of the analysed project is never imported", name=name
        )


def _places(found: Any) -> list[str]:
    """The file and folders a module spec would load from, or an imported module did."""
    origin = getattr(found, "origin", None) or getattr(found, "__file__", None)
    folders = getattr(found, "submodule_search_locations", None) or getattr(found, "__path__", None)
    return [p for p in [origin, *(folders or [])] if isinstance(p, str) and os.path.isabs(p)]


@dataclass(frozen=True)
class BuildFailure:
    path: str
    line: int | None
    reason: str


@dataclass
class ModuleStore:
    """Builds and keeps the astroid modules of one analysis.

    *overrides* maps a real path to source text that replaces the saved file (the buffer
    pylint reads from stdin). Modules are built fresh, under their path-derived names, and
    installed in astroid's module cache so that inference across modules reaches them and
    never a stale or misnamed copy.
    """

    tree: SourceTree
    overrides: Mapping[str, str] = field(default_factory=dict)
    # Modules pylint already built: from an override's text (the stdin buffer it lints),
    # or from a saved file (BuiltFromFile), used instead of building a second copy when
    # it is certainly of the text this store reads (see _build).
    prebuilt: Mapping[str, nodes.Module | BuiltFromFile] = field(default_factory=dict)
    _modules: dict[str, nodes.Module | None] = field(default_factory=dict)
    _failures: dict[str, BuildFailure] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)
    _names_texts: dict[str, str] = field(default_factory=dict)  # (names_text)
    _digests: dict[str, str] = field(default_factory=dict)
    _stats: dict[str, tuple[int, int, int, int, int]] = field(default_factory=dict)
    _undecodable: dict[str, str] = field(default_factory=dict)
    # Content hashes known from an earlier read (the cache's fingerprints of this run):
    # a file whose stat is still the one they were taken at is not read for its hash.
    known: Mapping[str, KnownFile] = field(default_factory=dict)
    # Set when a file read after its hash was taken from `known` holds other bytes.
    _moved: bool = False
    _began_ns: int = 0  # when this analysis began resolving imports (_built_by_astroid)
    # Told of every module the analysis asks for (see .reads).
    reads: ReadRecorder | None = None
    # Told of each module this store builds or reuses (recording_reads splits its classes).
    on_module: Callable[[nodes.Module], None] | None = None
    # The project's modules built lean (see .lean_build), out of astroid's cache since.
    lean_built: list[nodes.Module] = field(default_factory=list)
    # Whether the project's modules may be built lean; not when a long-lived process
    # keeps them for its next analysis (built_from_files), which a lean build's deferred
    # work, done only while an analysis runs, can't outlive.
    lean: bool = True
    _last_began_ns: int = 0  # when the last analysis began resolving imports

    def __post_init__(self) -> None:
        # Keyed as the tree knows each file: a link under the roots is the project's file.
        self.overrides = {self.tree.key(path): text for path, text in self.overrides.items()}
        self.prebuilt = {self.tree.key(path): module for path, module in self.prebuilt.items()}

    @property
    def manager(self) -> AstroidManager:
        return astroid.MANAGER

    def text(self, path: str) -> str:
        """The source text of *path* (the override if there is one); '' if unreadable."""
        if path in self._texts and path not in self.overrides:
            return self._texts[path]  # already a key, read before: skip resolving it
        path = self.tree.key(path)
        if path in self.overrides:
            return self.overrides[path]
        if path not in self._texts:
            known = self.known.get(path)
            if (
                known is not None
                and known.data is not None
                and self._digests.get(path, known.sha256) == known.sha256
            ):
                # The version this run's fingerprint read (its hash, if taken already, came
                # from it too): not read and hashed again. Its stat is the one recorded, so
                # changed_since_read sees a later write.
                data = known.data
                self._digests[path] = known.sha256
                self._stats[path] = known.identity
            else:
                try:
                    data, info = read_source(path)
                    digest = hashlib.sha256(data).hexdigest()
                    if self._digests.get(path, digest) != digest:
                        self._moved = True  # written since its known hash was taken
                    self._digests[path] = digest
                    self._stats[path] = stat_identity(info)
                except OSError as error:
                    data = b""
                    self._digests[path] = f"not read: {error}"
            # Decoded as Python decodes a module; when it can't be, the text is a guess
            # and undecodable() says so.
            self._texts[path], problem = decode_source(data)
            if problem is not None:
                self._undecodable[path] = problem
        return self._texts[path]

    def names_text(self, path: str) -> str:
        """The text of *path* with its names as Python reads them (``as_identifiers``):
        what the searches for names read (the subclass search, the import scan), made
        once a file for both."""
        found = self._names_texts.get(path)
        if found is None:
            found = self._names_texts[path] = as_identifiers(self.text(path))
        return found

    def undecodable(self, path: str) -> str | None:
        """Why the saved text of *path* can't be decoded (latin-1 bytes without a coding
        cookie, UTF-16, an unknown codec), or None.

        A word search over its text may miss any word, so it must be treated as a file
        that may mention anything, as a module that doesn't parse."""
        path = self.tree.key(path)
        if path in self.overrides:
            return None
        self.text(path)
        return self._undecodable.get(path)

    def digest(self, path: str) -> str:
        """The hash of *path*'s bytes (of the buffer, for an override), as :meth:`text`
        read them: two versions of a module never share one."""
        known = self._digests.get(path)
        if known is not None:
            return known  # already a key, read before: skip resolving it (as text() does)
        path = self.tree.key(path)
        if path in self.overrides:
            if path not in self._digests:
                text = self.overrides[path].encode("utf-8", "surrogatepass")
                sha256 = hashlib.sha256(text).hexdigest()
                # A buffer that holds the saved file's bytes is that version of the module
                # (an editor sends the open file again after a save elsewhere): its pieces
                # are the file's. Any other buffer is a version no file has.
                same = sha256 == self._saved_digest(path)
                self._digests[path] = sha256 if same else "buffer " + sha256
            return self._digests[path]
        if path not in self._digests and not self._known_digest(path):
            self.text(path)
        return self._digests[path]

    def unsaved(self, path: str) -> bool:
        """Whether *path* is a buffer whose text is not what its saved file holds."""
        return path in self.overrides and self.digest(path).startswith("buffer ")

    def _saved_digest(self, path: str) -> str | None:
        """The hash of the saved file's bytes at *path* (None if it can't be read)."""
        if unreadable_reason(path) is not None:
            return None
        try:
            data, _ = read_source(path)
        except OSError:
            return None
        return hashlib.sha256(data).hexdigest()

    def _known_digest(self, path: str) -> bool:
        """Take *path*'s hash from :attr:`known` if its stat is still the one it was taken
        at (recorded, so that changed_since_read sees a later write); whether it was."""
        known = self.known.get(path)
        if known is None:
            return False
        try:
            info = os.stat(path)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode) or not known.matches(info):
            return False
        self._digests[path] = known.sha256
        self._stats[path] = stat_identity(info)
        return True

    def changed_since_read(self) -> bool:
        """Whether a saved file this store read is no longer what it read: facts computed
        from it must not be kept under the hash it had.

        A write changes the inode's ctime, which no one can set back (``touch -r`` sets
        only mtime and atime), so a stat tells without reading the file again."""
        if self._moved:
            return True
        for path, before in self._stats.items():
            try:
                info = os.stat(path)
            except OSError:
                return True
            if stat_identity(info) != before:
                return True
        return False

    def _built_from_text(self, built: BuiltFromFile, path: str) -> bool:
        """Whether pylint's module of the saved file *path* was built from the bytes this
        store read, and can stand for ours.

        The file, as read here, was last written before pylint built the module by a
        margin no timestamp's coarseness can cross: a write sets the inode's ctime, and
        nothing sets it back, so no write came between pylint's read and this one."""
        modname = self.tree.module_name(path)
        if modname is None or not self._written_before(path, built.read_after_ns):
            return False
        return _reusable(built.module, modname, path, self.text(path))

    def _built_by_astroid(self, modname: str, path: str) -> nodes.Module | None:
        """The module astroid built from the file *path* while this analysis ran, when an
        import inference followed reached it first (a handler's base class, resolved
        while its subclass's module was built): it is then not built a second time.

        Only when the file, as this store reads it, was last written (mtime and ctime)
        before the analysis began, by more than a clock tick: astroid read it after that
        moment, so no write came between its read and this store's."""
        # The analysis began by dropping every project module from astroid's cache but
        # pylint's checked ones, built from their files (taken as BuiltFromFile before
        # this is asked): one there now was built from its file by astroid's imports since.
        cached = self.manager.astroid_cache.get(modname)
        if not self._began_ns or not isinstance(cached, nodes.Module):
            return None
        if cached.name != modname or not _reusable(cached, modname, path, None):
            return None
        # Written too recently, it can't be told which bytes astroid read.
        return cached if self._written_before(path, self._began_ns) else None

    def _written_before(self, path: str, moment_ns: int) -> bool:
        """Whether *path*, as this store reads it, was last written (mtime and ctime)
        before *moment_ns* by more than a clock tick: a write sets the ctime, which
        nothing sets back, so no write came after that moment."""
        self.digest(path)  # its stat as read (or as its known hash was taken at)
        identity = self._stats.get(path)
        if identity is None:
            return False
        _, mtime_ns, ctime_ns, _, _ = identity
        return max(mtime_ns, ctime_ns) < moment_ns - TIMESTAMP_TICK_NS

    def project_key(self, file: str) -> str | None:
        """The key of the project's module file *file* (as astroid has it), or None when
        it is not one of the project's modules."""
        path = self.tree.key(file)
        return path if self.tree.module_name(path) is not None else None

    def module(self, path: str) -> nodes.Module | None:
        """The module built from *path*, or None when it can't be parsed (see failure())."""
        path = self.tree.key(path)
        if self.reads is not None:
            self.reads.path(path, INTERFACE)
        if path not in self._modules:
            built = self._modules[path] = self._build(path)
            if built is not None and self.on_module is not None:
                self.on_module(built)
        return self._modules[path]

    def built_from_files(self) -> dict[str, BuiltFromFile]:
        """The project's modules built from their saved files in this store's last
        analysis, by this store or by astroid's imports, or reused: what a later analysis
        of the process may take as pylint's (``prebuilt``), each once its file is shown
        unwritten since it was read.

        Every other module of the project was dropped from astroid's cache when the
        analysis began (:meth:`_evict_unverified_modules`): one there now that is not a
        reused one was read after that moment."""
        if not self._last_began_ns:
            return {}
        reused = {
            id(built.module): built
            for built in self.prebuilt.values()
            if isinstance(built, BuiltFromFile)
        }
        ours = self.tree.top_level_names()
        kept: dict[str, BuiltFromFile] = {}
        for name, module in list(self.manager.astroid_cache.items()):
            file = getattr(module, "file", None)
            if (
                name.partition(".")[0] not in ours
                or not isinstance(module, nodes.Module)
                or not isinstance(file, str)
                or module.file_bytes is not None  # built from a text: a buffer's
                or built_lean(module)
            ):
                continue
            path = self.tree.key(file)
            if path in self.overrides or self.tree.module_name(path) != name:
                continue
            kept[path] = reused.get(id(module)) or BuiltFromFile(module, self._last_began_ns)
        return kept

    def has_module(self, path: str) -> bool:
        """Whether a module of *path* is at hand without a build: built already, or
        pylint's (a buffer's, or a file's pylint built in this run)."""
        path = self.tree.key(path)
        return self._modules.get(path) is not None or path in self.prebuilt

    def python_files(self) -> tuple[str, ...]:
        """The tree's files, and the unsaved buffers under the roots that are not saved yet
        (an editor's new file): the analysis must see the text being edited."""
        unsaved = [p for p in self.overrides if self.tree.module_name(p) is not None]
        return tuple(sorted({*self.tree.python_files(), *unsaved}))

    def unreadable(self, path: str) -> str | None:
        """Why *path* is never read (not a regular file, over the size cap), or None.

        Its text is '' and it has no module, so a word search must treat it as one that
        may mention anything, as a module that doesn't parse."""
        path = self.tree.key(path)
        return None if path in self.overrides else unreadable_reason(path)

    def failure(self, path: str) -> BuildFailure | None:
        return self._failures.get(self.tree.key(path))

    def module_by_name(self, modname: str) -> nodes.Module | None:
        """The module *modname* names under the source roots, namespace packages included."""
        located = self.tree.locate(modname)
        if len(located) == 1 and not os.path.isdir(located[0]):
            return self.module(located[0])
        if located:
            key = "namespace:" + modname
            if key not in self._modules:
                namespace = build_namespace_package_module(modname, list(located))
                self.manager.astroid_cache[modname] = namespace
                self._modules[key] = namespace
            return self._modules[key]
        return None

    def _build(self, path: str) -> nodes.Module | None:
        modname = self.tree.module_name(path)
        if modname is None:
            self._failures[path] = BuildFailure(path, None, "outside every source root")
            return None
        refused = None if path in self.overrides else unreadable_reason(path)
        if refused is not None:
            # As for a module that doesn't parse: what it might hold is unknown.
            self._failures[path] = BuildFailure(path, None, refused)
            return None
        built = self.prebuilt.get(path)
        buffer = path in self.overrides
        if (
            buffer
            and isinstance(built, nodes.Module)
            and _reusable(built, modname, path, self.overrides[path])
        ):
            self.manager.astroid_cache[modname] = built
            return built
        undecodable = self.undecodable(path)
        if undecodable is not None:
            self._failures[path] = BuildFailure(path, 1, undecodable)
            return None
        if not buffer and isinstance(built, BuiltFromFile) and self._built_from_text(built, path):
            self.manager.astroid_cache[modname] = built.module
            return built.module
        imported = None if buffer else self._built_by_astroid(modname, path)
        if imported is not None:
            return imported
        builder = AstroidBuilder(self.manager)
        self.digest(path)  # what it was before astroid read it, to compare after
        try:
            if path in self.overrides:
                module = builder.string_build(self.overrides[path], modname, path)
            else:
                module = builder.file_build(path, modname)
        except astroid.AstroidSyntaxError as error:
            inner = error.error
            line = getattr(inner, "lineno", None)
            self._failures[path] = BuildFailure(path, line, f"syntax error: {inner}")
            return None
        except (astroid.AstroidBuildingError, RecursionError, ValueError) as error:
            self._failures[path] = BuildFailure(path, None, str(error).splitlines()[0])
            return None
        # astroid caches the first module it saw under a name (setdefault); ours is the
        # fresh one, built from the text this analysis is about, so it must win.
        self.manager.astroid_cache[module.name] = module
        return module

    @contextlib.contextmanager
    def resolving_imports(
        self,
        *,
        installed_packages: bool = True,
        lean_standard_library: bool = False,
        positions: bool = True,
    ) -> Iterator[None]:
        """Within this block, imports of our module names find the files under the roots;
        without *installed_packages* (``init``), those of an installed package fail.
        With *lean_standard_library* (``init``, in a process of its own) the standard
        library's modules are built lean too (:class:`.lean_build.LeanBuilds`), and no
        answer cut short by astroid's budget is cached (:mod:`.inference_cache`: their
        deferred work moves inferences inside others); without *positions* (``init``), no
        class or function of a lean module gets its ``position``. They leave astroid's
        cache on exit, and pylint's checkers, in the same process, would build them again.

        Module names are the roots' (see ``sources.py``), so ``from pkg.base import Base``
        must reach the roots' ``pkg/base.py`` even when another copy of ``pkg`` sits on
        sys.path (the project installed in its virtualenv, or a tree copied out of
        site-packages): astroid is told where each module file under the roots is, in the
        table where it remembers its look-ups, as Python would find it with the roots first
        on sys.path (pylint puts the root of each file it lints there). pylint does not put
        the roots of implicit namespace packages on sys.path, and astroid remembers failed
        look-ups, so ``from atom.config import X`` would not infer either: imports astroid
        can't resolve are looked up under the roots through astroid's public fallback hook.

        The project is never imported, whatever astroid's brains do: a finder first on
        ``sys.meta_path`` refuses every import of its modules (:class:`_NoProjectImports`).
        All of it is undone on exit, an exception included: nothing outlives the analysis
        (pylint's process, an IDE's language server).
        """

        def resolve(modname: str) -> nodes.Module:
            module = self.module_by_name(modname)
            if module is None:
                raise astroid.AstroidImportError(f"{modname} is not under the source roots")
            return module

        self._evict_unverified_modules()
        changed = _drop_changed_modules(self.tree.top_level_names())
        elsewhere = AssignedElsewhere()
        elsewhere.take_from(self.manager.astroid_cache.values())
        forget_inferences(look_ups=changed > 0 or elsewhere.taken)
        self._forget_look_ups()
        self._point_look_ups_at_the_roots()
        self._began_ns = self._last_began_ns = time.time_ns()
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        hooks = self.manager._failed_import_hooks  # pylint: disable=protected-access
        guard = _NoProjectImports(self.tree.roots, self.tree.top_level_names())
        sys.meta_path.insert(0, guard)
        hooks.append(resolve)
        lean = contextlib.ExitStack()
        try:
            names = self.tree.top_level_names()
            forget = partial(forget_inferences, look_ups=True)
            if not installed_packages:
                lean.enter_context(installed_packages_unread(self.tree))
            if lean_standard_library:
                lean.enter_context(untruncated_inferences())
            if self.lean:
                builds = LeanBuilds(
                    self.manager,
                    names,
                    self.lean_built,
                    forget,
                    standard_library=lean_standard_library,
                    positions=positions,
                )
                lean.enter_context(builds.active())
            elsewhere.start()
            for path in self.overrides:
                self.module(path)  # before any look-up can build the saved file instead
            yield
        finally:
            lean.close()
            hooks.remove(resolve)
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(guard)
            self._forget_look_ups()
            if elsewhere.restore():
                # What was inferred or looked up without them is not what pylint's other
                # checkers would see: they infer it again.
                forget_inferences(look_ups=True)
            _stamp_modules(self.tree.top_level_names(), self._began_ns)
            self._began_ns = 0

    def _point_look_ups_at_the_roots(self) -> None:
        """Record, for each module file under the roots, that its name is found there.

        astroid resolves every import by absolute name through ``file_from_module_name``
        with no context file, and looks in its file cache under ``(name, None)`` before it
        searches sys.path. Namespace packages are left to the search and the fallback hook,
        as Python lets a regular package anywhere on sys.path win over them.
        """
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        found = self.manager._mod_file_cache  # pylint: disable=protected-access
        for name, path in self.tree.module_files().items():
            found[(name, None)] = ModuleSpec(name, ModuleType.PY_SOURCE, path)

    def _forget_look_ups(self) -> None:
        """Drop what astroid remembers about where our module names are.

        Its file cache outlives an analysis (an IDE's language server, a test session):
        an earlier look-up may have found another project's module of the same name, or
        failed. Names that are not ours keep their entries.
        """
        ours = self.tree.top_level_names()
        # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
        found = self.manager._mod_file_cache  # pylint: disable=protected-access
        for key in [key for key in found if key[0].partition(".")[0] in ours]:
            del found[key]

    def _evict_unverified_modules(self) -> None:
        """Drop every cached module that carries one of our module names, but pylint's
        modules of this run that are certainly of the bytes this store reads.

        astroid's module cache lives as long as the process (an IDE's language server, a
        test session, ``fix`` planning again). A module there may be another project's
        ``config`` or ``names``, or this project's as an earlier analysis read it: one
        that is only imported, never built here, would answer from its old text. Each
        dropped module is built again, from the file as it is, when inference imports
        it. pylint's modules of this run (``BuiltFromFile``) stay when their file was last
        written before pylint opened its checkers (:meth:`_built_from_text`); a whole
        tree's run then builds nothing twice.
        """
        ours = self.tree.top_level_names()
        cache = self.manager.astroid_cache
        for name in [n for n in cache if n.partition(".")[0] in ours]:
            cached = cache[name]
            cached_file = getattr(cached, "file", None)
            if cached_file is None:
                located = self.tree.locate(name)
                folders = getattr(cached, "path", None) or ()
                if located and {self.tree.key(folder) for folder in folders} == set(located):
                    continue  # a namespace package of the roots: it holds no text
                del cache[name]
                continue
            path = self.tree.key(cached_file)
            built = self.prebuilt.get(path)
            if (
                isinstance(built, BuiltFromFile)
                and built.module is cached
                and path not in self.overrides
                and self._built_from_text(built, path)
            ):
                continue
            del cache[name]


def failed_import_hooks() -> list[Callable[[str], nodes.Module]]:
    """astroid's hooks for a module name it can't find, tried in order."""
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    return astroid.MANAGER._failed_import_hooks  # pylint: disable=protected-access


@contextlib.contextmanager
def failed_imports_recorded(also: set[str] | None = None) -> Iterator[set[str]]:
    """The names of the modules astroid could not find on the search path while the
    block ran, added to *also* too (a memo's, whose pieces hold only while those names
    stay missing)."""
    failed: set[str] = set()

    def record(modname: str) -> nodes.Module:
        # Names the roots' namespace packages answer too (by ModuleStore's hook, after
        # this one): a regular package of that name installed later would win over them.
        failed.add(modname)
        if also is not None:
            also.add(modname)
        raise astroid.AstroidImportError(f"{modname} was not found")

    hooks = failed_import_hooks()
    hooks.append(record)
    try:
        yield failed
    finally:
        hooks.remove(record)


def release_modules(roots: Iterable[str], keep: Container[int]) -> int:
    """Drop from astroid's cache every module of a file under *roots* not in *keep* (by
    id), and astroid's caches that hold nodes: the modules an analysis built for itself,
    once pylint needs no module any more; how many were dropped.

    A module in astroid's cache lives until the process ends, and Python's collections
    at exit then walk its tree once more for every one they make: dropped at the end of
    the run, the handler modules of a cold run are garbage when those collections begin,
    and the process ends sooner. Only what nothing can still use goes:
    the caller keeps the modules pylint linted and those held before the run. The look-up
    caches are astroid's own ``lru_cache``s, keyed by node (a kept module's entries are
    computed again when asked).
    """
    prefixes = tuple(root.rstrip(os.sep) + os.sep for root in roots)
    cache = astroid.MANAGER.astroid_cache
    # By the path as the module has it, no link resolved: a run with an analysis asks
    # this of every module in astroid's cache (a few hundred: the standard library's),
    # and the analysis builds its modules from their paths under the roots. A module
    # reached through a link from elsewhere stays.
    dropped = [
        name
        for name, module in list(cache.items())
        if id(module) not in keep
        and isinstance(file := getattr(module, "file", None), str)
        and os.path.abspath(file).startswith(prefixes)
    ]
    for name in dropped:
        del cache[name]
    if dropped:
        forget_inferences(look_ups=True)
    return len(dropped)


# The attribute an analysis sets on each module of astroid's cache that has a file: the
# file's stat when an analysis first saw the module (None: written while the analysis
# that built it ran, so which version it holds is not known).
_SEEN_AS = "_rpcsurface_seen_as"


def _stamp_modules(project_names: Container[str], began_ns: int) -> int:
    """Note on each module of astroid's cache outside the project (not named by one of
    *project_names*), built from a file and not noted yet, the stat its file has now,
    which :func:`_drop_changed_modules` compares with in a later analysis of the
    process; how many were noted. One built from a file written after *began_ns* (the
    analysis began) may hold either version: noted as unknown."""
    noted = 0
    for name, module in list(astroid.MANAGER.astroid_cache.items()):
        file = getattr(module, "file", None)
        if (
            name.partition(".")[0] in project_names
            or not isinstance(module, nodes.Module)
            or not isinstance(file, str)
            or module.file_bytes is not None
            or _SEEN_AS in module.__dict__
        ):
            continue
        try:
            identity: tuple[int, int, int, int, int] | None = stat_identity(os.stat(file))
        except OSError:
            identity = None
        if identity is not None and max(identity[1], identity[2]) >= began_ns - TIMESTAMP_TICK_NS:
            identity = None
        setattr(module, _SEEN_AS, identity)
        noted += 1
    return noted


def _drop_changed_modules(project_names: Container[str]) -> int:
    """Drop from astroid's cache every module outside the project (an installed or
    editable library, the standard library) whose file is no longer what it was when an
    earlier analysis of this process first saw it (:func:`_stamp_modules`): astroid keeps
    a module for the life of the process, and would answer from the old text. How many
    were dropped; the project's own modules are :meth:`ModuleStore._evict_unverified_modules`'s.
    A module not noted yet is noted now, before the analysis reads it.

    The cost is a stat per module noted, once each, and per module noted before at each
    analysis; plus, when a module was dropped or a name was not found before, astroid's
    searches for files done again."""
    cache = astroid.MANAGER.astroid_cache
    dropped = []
    for name, module in list(cache.items()):
        if name.partition(".")[0] in project_names or _SEEN_AS not in module.__dict__:
            continue
        before = module.__dict__[_SEEN_AS]
        try:
            now: tuple[int, int, int, int, int] | None = stat_identity(os.stat(str(module.file)))
        except OSError:
            now = None
        if before is None or now != before:
            dropped.append(name)
    for name in dropped:
        del cache[name]
    # Where astroid found each module name, or that it found none: a library moved,
    # removed or installed since is searched for again. Our names are forgotten anyway
    # (ModuleStore._forget_look_ups).
    gone = set(dropped)
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    found = astroid.MANAGER._mod_file_cache  # pylint: disable=protected-access
    forgotten = [
        key
        for key, where in found.items()
        if key[0] in gone or isinstance(where, astroid.AstroidBuildingError)
    ]
    for key in forgotten:
        del found[key]
    if forgotten or dropped:
        _forget_where_files_are()
    _stamp_modules(project_names, time.time_ns())
    return len(dropped)


def _forget_where_files_are() -> None:
    """Empty astroid's caches of the search for module files (which file is a file, which
    folder a package, where a name's spec is), as its own ``clear_cache`` does, without
    dropping the modules it holds: a library moved or removed is looked for anew."""
    # Private to astroid; tests/test_private_hooks.py checks the shape relied on.
    searches: list[Any] = [
        modutils._cache_normalize_path_,  # pylint: disable=protected-access
        modutils._has_init,  # pylint: disable=protected-access
        modutils.cached_os_path_isfile,
        import_util.is_namespace,
        import_spec._find_spec,  # pylint: disable=protected-access
        import_spec._is_setuptools_namespace,  # pylint: disable=protected-access
        *(finder.find_module for finder in import_spec._SPEC_FINDERS),  # pylint: disable=protected-access
    ]
    for search in searches:
        search.cache_clear()


@dataclass(frozen=True)
class BuiltFromFile:
    """A module pylint built from the saved file it lints, after *read_after_ns* (the
    moment its checkers were opened, with the module not yet in astroid's cache)."""

    module: nodes.Module
    read_after_ns: int


# Where a relative import may be: ``from`` then a dot, with any spaces, tabs or line
# continuations between (``from.mod import x`` is one). Comments and strings match too,
# which only costs the walk that finds out.
_RELATIVE_IMPORT = re.compile(r"\bfrom[\s\\]*\.")


def _reusable(module: nodes.Module, modname: str, path: str, text: str | None) -> bool:
    """Whether pylint's *module* can stand for ours, named *modname*, of the file the
    project knows by *path*, whose text is *text* (None: not at hand).

    Its file must be that path, and not a link: every place the analysis reports comes
    from it. Under its own name it can.
    Under another (pylint names a module in an implicit namespace package by the folder
    it found a package in), only a relative import reads the name: classes are named from
    paths here, never from ``module.name``.
    """
    if module.file is None or os.path.abspath(module.file) != path:
        return False
    if real(path) != path:
        # A file linked into the roots: pylint inferred through it from the folder of
        # what it links to while building it, and those answers stay in its module.
        return False
    if module.name == modname:
        return True
    if text is not None and not _RELATIVE_IMPORT.search(text):
        # No relative import can be written without these words, and a text search is
        # cheaper than walking the module's nodes, on every run that lints it.
        return True
    return not any(
        isinstance(node, nodes.ImportFrom) and node.level for node in all_statements(module)
    )


# astroid's results kept on a node once computed, which infer other modules (decorators,
# slots): while reads are recorded the recorder keeps them, with what they read, so that
# each piece that uses one reads what it depends on.
_KEPT_ON_NODES: tuple[tuple[type[Any], str], ...] = (
    (nodes.FunctionDef, "type"),
    (nodes.FunctionDef, "extra_decorators"),
    (nodes.ClassDef, "_all_slots"),
    (nodes.ClassDef, "_assign_nodes_in_scope"),
)


@contextlib.contextmanager
def recording_reads(recorder: ReadRecorder, store: ModuleStore | None = None) -> Iterator[None]:
    """Within this block, *recorder* learns every project module whose nodes astroid's
    inference or the analysis touch, and at which level (see :mod:`.reads`).

    A module is reached through astroid's manager (an import, a submodule as an
    attribute), and its nodes through inference, name look-ups, call results and walks
    of the tree: each of these astroid entry points notes the node it starts from. The
    project's top-level classes tell the members looked up in them, one by one
    (:mod:`.member_reads`), from the project's modules astroid holds already and from
    each one reached or built (*store*'s) in the block. Both are astroid's classes' and
    nodes' attributes, so the block restores every one on exit, an exception included,
    and nothing outlives the analysis (an IDE's process runs pylint again). An inactive
    recorder installs nothing.
    """
    if not recorder.active:
        yield
        return
    splitter = ClassSplitter(recorder)
    replaced: list[tuple[type[Any], str, Any]] = []
    try:
        for owner, name, value in _hooks(recorder, splitter):
            replaced.append((owner, name, owner.__dict__[name]))
            setattr(owner, name, value)
        for module in list(AstroidManager().astroid_cache.values()):
            splitter.module(module)
        if store is not None:
            store.on_module = splitter.module
        yield
    finally:
        if store is not None:
            store.on_module = None
        splitter.restore()
        for owner, name, original in reversed(replaced):
            setattr(owner, name, original)


def _hooks(recorder: ReadRecorder, splitter: ClassSplitter) -> list[tuple[type[Any], str, Any]]:
    """Each astroid entry point recording_reads replaces, with what replaces it."""
    from_module_name = AstroidManager.ast_from_module_name

    def ast_from_module_name(self: AstroidManager, *args: Any, **kwargs: Any) -> nodes.Module:
        module = from_module_name(self, *args, **kwargs)
        splitter.module(module)
        recorder.file(module.file, INTERFACE)
        return module

    lookup = _base_nodes.LookupMixIn.__dict__["lookup"]

    def looked_up(self: nodes.NodeNG, name: str) -> Any:
        """A look-up from a class's body (not a method's) reads that class's member
        *name*: astroid keeps the answer, which no later look-up reads again."""
        recorder.class_lookup(self, name)
        return lookup(self, name)

    metaclass_lookup = nodes.ClassDef.__dict__["_metaclass_lookup_attribute"]

    def metaclass_attribute(self: nodes.ClassDef, name: str, context: Any) -> Any:
        """astroid keeps this answer, which no later call reads again: the recorder reads
        it anew each time."""
        return metaclass_lookup.__wrapped__(self, name, context)

    infer = nodes.NodeNG.infer

    def inferred(self: nodes.NodeNG, *args: Any, **kwargs: Any) -> Any:
        return recorder.inferring(self, infer(self, *args, **kwargs))

    hooks: list[tuple[type[Any], str, Any]] = [
        (AstroidManager, "ast_from_module_name", ast_from_module_name),
        (AstroidBuilder, "_post_build", _splitting_first(recorder, splitter)),
        (nodes.NodeNG, "infer", inferred),
        (_base_nodes.LookupMixIn, "lookup", _like(lookup, looked_up)),
        (
            nodes.ClassDef,
            "_metaclass_lookup_attribute",
            _like(metaclass_lookup, metaclass_attribute),
        ),
        (
            nodes.NodeNG,
            "nodes_of_class",
            _noting(recorder, nodes.NodeNG.nodes_of_class, whole=True),
        ),
    ]
    for owner, name in (
        (nodes.FunctionDef, "infer_call_result"),
        (nodes.FunctionDef, "infer_yield_result"),
        (nodes.Lambda, "infer_call_result"),
    ):
        hooks.append((owner, name, _noting(recorder, owner.__dict__[name])))
    node_classes: tuple[Any, ...] = nodes.ALL_NODE_CLASSES
    for cls in node_classes:
        if "get_children" in cls.__dict__:
            walk = _noting(recorder, cls.__dict__["get_children"], whole=cls is nodes.ClassDef)
            hooks.append((cls, "get_children", walk))
    for owner, name in _KEPT_ON_NODES:
        compute = owner.__dict__[name].func
        if (owner, name) == (nodes.FunctionDef, "extra_decorators"):
            compute = partial(extra_decorators, recorder, compute)
        elif (owner, name) == (nodes.FunctionDef, "type"):
            compute = partial(function_type, compute)
        hooks.append((owner, name, _kept_by(recorder, name, compute)))
    return hooks


def _splitting_first(recorder: ReadRecorder, splitter: ClassSplitter) -> Any:
    """astroid's steps after parsing a module (the attributes assigned through ``self``,
    its transforms' walk of every node), with the module's classes split before they
    touch them and what they read of the module itself counted for no piece
    (``ReadRecorder.building``): else they read each class whole, for the piece that
    built the module and for every piece that reuses what they inferred."""
    post_build = AstroidBuilder._post_build  # pylint: disable=protected-access

    def built(self: AstroidBuilder, module: nodes.Module, *args: Any) -> nodes.Module:
        splitter.module(module)
        with recorder.building(module.file):
            return post_build(self, module, *args)

    return built


def _noting(recorder: ReadRecorder, function: Any, *, whole: bool = False) -> Any:
    """*function*, which notes the node it is called on first; with *whole*, a top-level
    class it is called on (a walk of its nodes) is read whole."""

    def noted(self: nodes.NodeNG, *args: Any, **kwargs: Any) -> Any:
        recorder.node(self)
        if whole and isinstance(self, nodes.ClassDef) and recorder.split(self):
            path = recorder.project_path(self.root().file)
            if path is not None:
                recorder.whole_class(path, self.name)
        return function(self, *args, **kwargs)

    return _like(function, noted)


def _like(function: Any, replacement: Any) -> Any:
    """*replacement*, with the cache controls *function* has (astroid clears its caches
    through them)."""
    for attribute in ("cache_clear", "cache_info"):
        if hasattr(function, attribute):
            setattr(replacement, attribute, getattr(function, attribute))
    return replacement


def _kept_by(recorder: ReadRecorder, name: str, compute: Any) -> property:
    return property(lambda node: recorder.kept(name, node, compute))

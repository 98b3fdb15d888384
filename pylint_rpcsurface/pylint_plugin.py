"""The pylint adapter: the checker, and two of pylint's methods replaced on its linter.

What it does, and nothing more:

* :class:`RpcSurfaceChecker` finds the configuration of the module pylint visits, asks
  the engine for the project's analysis (with the modules pylint already built), and
  reports that module's findings on the nodes at their lines. The analysis itself, and
  every judgement, is the engine's and the rules'.
* It replaces two private methods of pylint, on this linter instance only (never the
  class, so nothing outlives the run); tests/test_private_hooks.py checks the shape each
  relies on:

  - ``_expand_files``: pylint never lints a folder without ``__init__.py`` inside a
    package it expands (pylint#3944, #9187), and an engine's callers and handlers often
    live in just such a folder; :func:`_lint_folders_without_init` adds those modules
    (see docs/modes.md);
  - ``_get_messages_to_set``: pylint takes any name starting with ``rp`` for a report's
    id and ignores it, which would silently drop every ``--disable=rpc-...`` and pragma
    of ours; :func:`_accept_our_symbols_in_enable_and_disable` sends them to the
    message store.

All state lives on the checker instance, which pylint creates anew for every run, so a
long-lived process (an IDE's language server) never sees findings from an earlier run.
Under ``-j`` pylint calls ``open()``/``close()`` once per file in each worker and never in
the parent, so nothing is reported from them and the analysis is kept across files
instead of being rebuilt in ``open()``.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astroid import MANAGER, nodes
from astroid.exceptions import AstroidImportError
from pylint import interfaces
from pylint.checkers import BaseChecker
from pylint.typing import MessageDefinitionTuple, ModuleDescriptionDict

from pylint_rpcsurface.analysis.modules import BuiltFromFile, failed_import_hooks, release_modules
from pylint_rpcsurface.config import Config, ConfigError, ConfigFinder
from pylint_rpcsurface.messages import BY_SYMBOL, CHECKER_NAME, MESSAGES
from pylint_rpcsurface.model import Analysis, Finding
from pylint_rpcsurface.rules.text import safe_args, safe_name
from pylint_rpcsurface.sources import SourceTree, real
from pylint_rpcsurface.store import (
    CACHE_DIR_ENV,
    NO_CACHE_ENV,
    analyse_with_cache,
    disabled_by_environment,
)

if TYPE_CHECKING:
    from pylint.lint import PyLinter
    from pylint.message import MessageDefinition

_Span = tuple[int, int | None, int | None, int | None]
LINT_FOLDERS_OPTION = "rpcsurface-lint-folders-without-init"


class RpcSurfaceChecker(BaseChecker):
    """Checks RPCs dispatched by name against their handlers and registry."""

    name = CHECKER_NAME
    # BaseChecker declares msgs as an instance attribute; pylint reads it from the class.
    msgs: dict[str, MessageDefinitionTuple] = {  # noqa: RUF012
        spec.msgid: (
            (spec.text, spec.symbol, spec.description)
            if spec.default_enabled
            else (spec.text, spec.symbol, spec.description, {"default_enabled": False})
        )
        for spec in MESSAGES
    }
    options = (
        (
            "rpcsurface-config",
            {
                "default": "",
                "type": "path",
                "metavar": "<file>",
                "help": "TOML file whose [tool.rpcsurface] table configures the checker. "
                "By default the nearest pyproject.toml with such a table, searched upward "
                "from each linted file.",
            },
        ),
        (
            "rpcsurface-no-cache",
            {
                "default": False,
                "type": "yn",
                "metavar": "<y or n>",
                "help": "Don't read or write the fact cache, kept in the user's cache folder "
                f"or in {CACHE_DIR_ENV} (the environment variable {NO_CACHE_ENV}=1 does the same).",
            },
        ),
        (
            LINT_FOLDERS_OPTION,
            {
                "default": True,
                "type": "yn",
                "metavar": "<y or n>",
                "help": "Also lint the modules in folders without __init__.py inside a "
                "package that pylint expands (pylint itself skips them), when they are "
                "under the source roots of a [tool.rpcsurface] table. Every enabled "
                "checker lints them, not only this one. n lints what pylint alone would.",
            },
        ),
    )

    def __init__(self, linter: PyLinter) -> None:
        super().__init__(linter)
        self._finder: ConfigFinder | None = None
        self._analyses: dict[tuple[str, str, str], Analysis] = {}
        # When the checkers were last opened, and the modules astroid held then: a module
        # pylint lints that is not among them was built from its file after that moment.
        self._opened_ns = 0
        self._held_when_opened: frozenset[int] = frozenset()
        # The module names astroid failed to find since then: pylint's build of a module
        # the engine reuses may have looked them up before the engine could see it.
        self._failed_imports: set[str] = set()
        # The modules pylint lints in this run (by id), and the source roots analysed:
        # what close() keeps of astroid's cache, and where it drops the rest.
        self._linted: set[int] = set()
        self._analysed_roots: set[str] = set()

    def open(self) -> None:
        # pylint opens the checkers before it builds the modules of the run (once, or per
        # file in each worker under -j); the analysis is kept, this is only a moment.
        _drop_earlier_buffers()
        self._opened_ns = time.time_ns()
        self._held_when_opened = frozenset(id(module) for module in MANAGER.astroid_cache.values())
        self._stop_recording()
        failed_import_hooks().append(self._record_failed_import)

    def close(self) -> None:
        self._stop_recording()
        # Once per run in pylint's own process (under -j a worker closes after each file,
        # and its next file may need the modules): the modules the analyses built for
        # themselves are dropped, the ones pylint linted or held before the run kept.
        if self._analysed_roots and self.linter.config.jobs == 1:
            release_modules(self._analysed_roots, self._held_when_opened | self._linted)
        self._analysed_roots.clear()
        self._linted.clear()

    def _record_failed_import(self, modname: str) -> nodes.Module:
        self._failed_imports.add(modname)
        raise AstroidImportError(f"{modname} was not found")  # the next hook may find it

    def _stop_recording(self) -> None:
        # Any checker's recorder, not only this one's: a run that ended without close()
        # (pylint crashed) must not leave one behind in a long-lived process.
        hooks = failed_import_hooks()
        hooks[:] = [hook for hook in hooks if not _is_recorder(hook)]

    def visit_module(self, node: nodes.Module) -> None:
        self._linted.add(id(node))
        if not node.file or not node.file.endswith((".py", ".pyi")):
            return
        try:
            config = self._config_finder().config_for(Path(node.file))
        except ConfigError as unusable:
            self._report_config_error(node, unusable)
            return
        if config is None:
            return  # no [tool.rpcsurface] table applies: this module is not ours to judge
        analysis = self._analysis(config, node)
        for error in analysis.config_errors:
            self._report_config_error(node, error)
        findings = analysis.findings_in(node.file)
        if findings:
            self._report(node, findings)

    def _config_finder(self) -> ConfigFinder:
        if self._finder is None:
            explicit = self.linter.config.rpcsurface_config
            self._finder = ConfigFinder(Path(explicit).resolve() if explicit else None)
        return self._finder

    def modules_pylint_skips(
        self, files_or_modules: Sequence[str], expanded: dict[str, ModuleDescriptionDict]
    ) -> dict[str, ModuleDescriptionDict]:
        """The project modules under the packages pylint expanded that it left out.

        pylint lists a package's modules only through folders with ``__init__.py``; these
        are the other ones: files of our project (under the source roots of the
        ``[tool.rpcsurface]`` table that applies to them) not already in *expanded*,
        found honouring pylint's ``ignore``, ``ignore-patterns`` and ``ignore-paths``.
        """
        known = {real(entry["path"]) for entry in expanded.values()}
        trees: dict[Path, tuple[SourceTree, frozenset[str]]] = {}
        added: dict[str, ModuleDescriptionDict] = {}
        for something in files_or_modules:
            package = _expanded_package(something, expanded)
            if package is None:
                continue
            init, name = package
            for path in self._files_under(os.path.dirname(init)):
                if real(path) in known:
                    continue
                modname = self._project_module_name(path, trees)
                if modname is None:
                    continue
                known.add(real(path))
                added[path] = {
                    "path": path,
                    "name": modname,
                    "isarg": False,
                    "basepath": init,
                    "basename": name,
                    "isignored": False,
                }
        return added

    def _files_under(self, folder: str) -> Iterator[str]:
        config = self.linter.config
        names: Sequence[str] = config.ignore
        patterns: Sequence[re.Pattern[str]] = config.ignore_patterns
        paths: Sequence[re.Pattern[str]] = config.ignore_paths

        def ignored(path: str) -> bool:
            base = os.path.basename(path)
            return (
                base in names
                or any(p.match(base) for p in patterns)
                or any(p.match(path) for p in paths)
            )

        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(
                d for d in dirs if not ignored(os.path.normpath(os.path.join(root, d)))
            )
            for file in sorted(files):
                path = os.path.normpath(os.path.join(root, file))
                if file.endswith(".py") and not ignored(path):
                    yield path

    def _project_module_name(
        self, path: str, trees: dict[Path, tuple[SourceTree, frozenset[str]]]
    ) -> str | None:
        try:
            config = self._config_finder().config_for(Path(path))
        except ConfigError:
            return None  # reported on the modules pylint lints anyway
        if config is None:
            return None
        if config.path not in trees:
            tree = SourceTree(config.source_roots)
            trees[config.path] = (tree, frozenset(tree.python_files()))
        tree, files = trees[config.path]
        return tree.module_name(path) if tree.key(path) in files else None

    def _analysis(self, config: Config, module: nodes.Module) -> Analysis:
        # pylint builds a module from a string only for --from-stdin: that text, not the
        # saved file, is what the user is editing, so the analysis must see it. Only this
        # run's own input says so: a module built from an earlier run's buffer is no buffer.
        text: str | None = None
        if self.linter.config.from_stdin and module.file_bytes is not None and module.file:
            raw = module.file_bytes
            text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
        buffer_digest = "" if text is None else hashlib.sha256(text.encode()).hexdigest()
        key = (str(config.path), config.digest, buffer_digest)
        if key in self._analyses:
            return self._analyses[key]  # every module of the run after the first
        overrides: dict[str, str] = {}
        prebuilt = self._built_in_this_run()
        if text is not None and module.file:
            overrides[os.path.abspath(module.file)] = text  # the engine keys it
            prebuilt[os.path.abspath(module.file)] = module  # the engine builds no second copy
        use_cache = not (self.linter.config.rpcsurface_no_cache or disabled_by_environment())
        self._analysed_roots.update(real(root) for root in config.source_roots)
        self._analyses[key] = analyse_with_cache(
            config,
            overrides,
            use_cache=use_cache,
            prebuilt=prebuilt,
            failed_imports=frozenset(self._failed_imports),
        )
        return self._analyses[key]

    def _built_in_this_run(self) -> dict[str, nodes.Module | BuiltFromFile]:
        """The modules pylint built in this run, from their files as they were after the
        checkers were opened, by path: the engine uses one if its file was last written
        before that moment, and builds the others again."""
        if not self._opened_ns:
            return {}
        return {
            os.path.abspath(cached.file): BuiltFromFile(cached, self._opened_ns)
            for cached in list(MANAGER.astroid_cache.values())
            if isinstance(cached, nodes.Module)
            and isinstance(cached.file, str)
            and cached.file_bytes is None
            and id(cached) not in self._held_when_opened
        }

    def _report_config_error(self, module: nodes.Module, error: ConfigError) -> None:
        self.add_message(
            "rpcsurface-config-error",
            node=module,
            line=1,
            args=(safe_name(str(error)),),
            confidence=interfaces.HIGH,
        )

    def _report(self, module: nodes.Module, findings: tuple[Finding, ...]) -> None:
        spans = _spans(module, {finding.location.line for finding in findings})
        for finding in findings:
            args = safe_args(finding.args)  # pylint prints them as they are
            where = finding.location
            span = (where.line, where.col, where.end_line, where.end_col)
            confidence = getattr(interfaces, finding.confidence, interfaces.UNDEFINED)
            node = spans.get(span)
            if node is not None:
                self.add_message(finding.symbol, node=node, args=args, confidence=confidence)
            else:  # no node has exactly this span (a made-up element): report the place
                self.add_message(
                    finding.symbol,
                    node=module,
                    line=where.line,
                    col_offset=where.col,
                    end_lineno=where.end_line,
                    end_col_offset=where.end_col,
                    args=args,
                    confidence=confidence,
                )


def _drop_earlier_buffers() -> None:
    """Drop from astroid's cache the modules an earlier run built from its buffer.

    In a long-lived process astroid keeps a module pylint built from ``--from-stdin``'s
    text under the file's name, and hands it back for that file in every later run (to
    pylint as the module to lint, to the analysis as an import): the buffer, never saved,
    would stand for the file. The checkers are opened before the run builds any module, so
    every module built from a string for a source file is then an earlier run's.
    """
    cache = MANAGER.astroid_cache
    stale = {
        id(module): module.file
        for module in cache.values()
        if isinstance(module, nodes.Module)
        and module.file_bytes is not None
        and isinstance(module.file, str)
        and module.file.endswith((".py", ".pyi"))
    }
    if stale:
        keep = {id(module) for module in cache.values()} - stale.keys()
        release_modules({os.path.dirname(os.path.abspath(file)) for file in stale.values()}, keep)


def _is_recorder(hook: Callable[[str], nodes.Module]) -> bool:
    recorder = RpcSurfaceChecker._record_failed_import  # pylint: disable=protected-access
    return getattr(hook, "__func__", None) is recorder


def _spans(module: nodes.Module, lines: set[int]) -> dict[_Span, nodes.NodeNG]:
    """pylint's own nodes of this module that start on one of *lines*, by span, innermost
    last so it wins.

    The engine read the same text, so every finding's span is a node's span here; the
    message is attached to pylint's node so that pragmas and the enclosing object work.
    Only the nodes whose lines hold one of *lines* are walked into (a 5k-line module has
    some 50k nodes, a finding's line a few).
    """
    spans: dict[_Span, nodes.NodeNG] = {}
    pending: list[nodes.NodeNG] = [module]
    while pending:
        node = pending.pop()
        if node.lineno is not None and node.position is None and node.lineno in lines:
            spans[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = node
        children = [child for child in node.get_children() if _may_hold(child, lines)]
        pending.extend(reversed(children))  # depth first, in source order: inner wins
    return spans


def _may_hold(node: nodes.NodeNG, lines: set[int]) -> bool:
    """Whether *node* or a node inside it may start on one of *lines*: it starts before
    one and ends after it (a decorated definition starts at its first decorator), or its
    lines are unknown."""
    first, last = node.lineno, node.end_lineno
    if first is None or last is None:
        return True
    decorators = getattr(node, "decorators", None)
    if isinstance(decorators, nodes.Decorators) and decorators.lineno is not None:
        first = min(first, decorators.lineno)
    return any(first <= line <= last for line in lines)


def _expanded_package(
    something: str, expanded: dict[str, ModuleDescriptionDict]
) -> tuple[str, str] | None:
    """The ``__init__.py`` and name of the package pylint expanded for the argument
    *something* (a folder, or a module name), or None when it expanded none."""
    if os.path.isdir(something):
        init = os.path.normpath(os.path.join(something, "__init__.py"))
        entry = expanded.get(init)
        return None if entry is None or entry["isignored"] else (init, entry["name"])
    if os.path.exists(something):
        return None  # a file: pylint lints just that file
    for path, entry in expanded.items():  # a module name, as in `pylint engine.core`
        if entry["name"] == something and os.path.basename(path) == "__init__.py":
            return (path, something)
    return None


def register(linter: PyLinter) -> None:
    checker = RpcSurfaceChecker(linter)
    linter.register_checker(checker)
    _accept_our_symbols_in_enable_and_disable(linter)
    _lint_folders_without_init(linter, checker)


def _lint_folders_without_init(linter: PyLinter, checker: RpcSurfaceChecker) -> None:
    """Make ``pylint pkg``, ``--recursive=y`` and ``-j N`` lint every module we judge.

    pylint expands a package argument through folders with ``__init__.py`` only
    (pylint#3944, #9187), so the whole-tree commands silently skip a folder without one
    inside a regular package, where an engine's callers and handlers often live. The fix
    wraps pylint's expansion of the arguments into modules, on this linter instance, and
    adds :meth:`RpcSurfaceChecker.modules_pylint_skips`. It runs once, in the process
    that lists the modules (the parent under ``-j``, which sends each to a worker); the
    result is keyed by path and already-listed files are left out, so no module is
    linted twice. ``--rpcsurface-lint-folders-without-init=n`` turns it off.
    """
    # Private to pylint; tests/test_private_hooks.py checks the shape relied on.
    pylints_own = linter._expand_files  # pylint: disable=protected-access

    def expand_files(files_or_modules: Sequence[str]) -> dict[str, ModuleDescriptionDict]:
        expanded = pylints_own(files_or_modules)
        if linter.config.rpcsurface_lint_folders_without_init:
            expanded.update(checker.modules_pylint_skips(files_or_modules, expanded))
        return expanded

    linter._expand_files = expand_files  # type: ignore[method-assign]  # pylint: disable=protected-access


def _accept_our_symbols_in_enable_and_disable(linter: PyLinter) -> None:
    """Make ``--disable=rpc-unanswered`` and ``# pylint: disable=rpc-unanswered`` work.

    pylint takes any name starting with ``rp`` for the id of a report (``RP0001``) and
    silently does nothing else with it, so without this every one of our symbols would be
    ignored by ``--enable``, ``--disable`` and pragmas; only the ids would work. The fix
    wraps one method on this linter instance (never the class, so nothing outlives the
    run) and sends our symbols to the message store; every other
    name, report ids included, goes to pylint unchanged. pylint loads plugins before it
    reads ``--enable``/``--disable``, so the command line is covered too.
    """
    # Private to pylint; tests/test_private_hooks.py checks the shape relied on.
    pylints_own = linter._get_messages_to_set  # pylint: disable=protected-access

    def messages_to_set(
        msgid: str, enable: bool, ignore_unknown: bool = False
    ) -> list[MessageDefinition]:
        if msgid in BY_SYMBOL:
            return list(linter.msgs_store.get_message_definitions(msgid))
        return pylints_own(msgid, enable, ignore_unknown)

    linter._get_messages_to_set = messages_to_set  # type: ignore[method-assign]  # pylint: disable=protected-access

"""What every subcommand shares: the projects the paths on the command line belong to.

Exit statuses, the usage error, and the configuration of each path (searched upward from
it, or the one ``--config`` names).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pylint_rpcsurface.config import PYPROJECT, Config, ConfigError, ConfigFinder
from pylint_rpcsurface.config.pylint_control import (
    MessageControl,
    PylintOptionError,
    message_control,
    overridden,
)
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.rules import unusable_registry
from pylint_rpcsurface.sources import SourceTree, real
from pylint_rpcsurface.store import NO_CACHE_ENV, disabled_by_environment, facts_with_cache

if TYPE_CHECKING:
    from pylint_rpcsurface.engine import Facts

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


def exit_status(findings: Iterable[Finding]) -> int:
    """The status for these (not silenced) findings: EXIT_ERROR when one says that a
    registry can't be used at all (its constant missing, not readable), a configuration
    that can't be used as written, as a class name that doesn't resolve is (a usage
    error, raised before any finding); else EXIT_FINDINGS when there is one."""
    status = EXIT_CLEAN
    for found in findings:
        if unusable_registry(found):
            return EXIT_ERROR
        status = EXIT_FINDINGS
    return status


class UsageError(Exception):
    """A problem with the command line or the configuration: exit status 2."""


@dataclass(frozen=True)
class Scope:
    """Paths given on the command line and the configuration that applies to them."""

    paths: tuple[str, ...]  # real paths
    config: Config
    # Each of *paths* spelled as pylint would be given it: as on the command line, or a
    # source root relative to the current folder (what pylint's ignore-paths sees).
    spelled: tuple[str, ...] = ()

    def covers(self, file: str) -> bool:
        return any(file == p or file.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)

    def linted(self, file: str, control: MessageControl) -> bool:
        """Whether pylint, given these paths, lints *file* under *control*'s ``ignore``,
        ``ignore-patterns`` and ``ignore-paths``."""
        return any(
            (file == real_path or file.startswith(real_path.rstrip(os.sep) + os.sep))
            and control.lints(spelling, real_path, file)
            for real_path, spelling in zip(self.paths, self.spelled or self.paths, strict=True)
        )


def project_options(command: argparse.ArgumentParser, paths_help: str) -> None:
    """What every command that reads projects takes: the paths, pylint's ``--enable`` and
    ``--disable``, ``--config`` and ``--no-cache``."""
    command.add_argument("paths", nargs="*", metavar="PATH", help=paths_help)
    messages_control_option(command)
    config_option(command)
    cache_option(command)


def format_option(command: argparse.ArgumentParser, formats: tuple[str, ...], more: str) -> None:
    """``--format``, one of *formats*, text by default; *more* says what the others are."""
    command.add_argument(
        "--format", choices=("text", *formats), default="text", help=f"output format (text); {more}"
    )


def write_options(command: argparse.ArgumentParser, written: str) -> None:
    """What every command that writes a user's file takes: ``--diff`` to only show the
    change, ``--force`` to write *written* (the file, as help names it) when read-only."""
    command.add_argument(
        "--diff", action="store_true", help="print the change as a unified diff and write nothing"
    )
    command.add_argument(
        "--force",
        action="store_true",
        help=f"write {written} even if it is read-only (it stays read-only)",
    )


def config_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--config",
        metavar="FILE",
        help="TOML file whose [tool.rpcsurface] table to use, instead of searching upward",
    )


def messages_control_option(command: argparse.ArgumentParser) -> None:
    """``--enable``/``--disable``, kept in the order given, as pylint applies them."""
    for option in ("enable", "disable"):
        command.add_argument(
            f"--{option}",
            action=_InOrder,
            dest="messages_control",
            default=[],
            metavar="NAMES",
            help=f"{option} these messages (symbols, ids, rpcsurface, a category letter or all, "
            "comma-separated) after pylint's configuration file, as pylint's own "
            f"--{option} does; repeatable, applied in order",
        )


def messages_control(config: Config, arguments: argparse.Namespace) -> MessageControl:
    """Which messages are on for *config*'s project: pylint's configuration file there,
    then the command line's ``--enable``/``--disable``; a usage error for an option pylint
    would refuse."""
    try:
        return overridden(message_control(config.root), arguments.messages_control)
    except PylintOptionError as error:
        raise UsageError(str(error)) from None


class _InOrder(argparse.Action):
    """Keeps ``--enable`` and ``--disable`` in the order given, as pylint applies them."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        del parser
        option = (option_string or self.option_strings[0]).lstrip("-")
        given = [*getattr(namespace, self.dest, []), (option, str(values))]
        setattr(namespace, self.dest, given)


def _current_folder_gone(paths: Sequence[str], config_file: str | None) -> str | None:
    """What needs the current folder although it was removed, or None.

    A relative path, or no path at all (the project is searched from the current folder),
    can't be resolved once the folder was deleted; absolute paths can.
    """
    try:
        os.getcwd()
    except FileNotFoundError:
        relative = [p for p in (*paths, config_file or "") if p and not os.path.isabs(p)]
        if not paths:
            return "with no paths, the project is searched from the current folder"
        if relative:
            return f"{relative[0]} is relative to it"
    return None


def scopes(paths: Sequence[str], config_file: str | None) -> list[Scope]:
    gone = _current_folder_gone(paths, config_file)
    if gone is not None:
        raise UsageError(
            f"the current folder no longer exists ({gone}): "
            "run from an existing folder or pass absolute paths"
        )
    finder = ConfigFinder(Path(config_file) if config_file else None)
    if config_file and not os.path.isfile(config_file):
        raise UsageError(f"{config_file}: no such file (expected the TOML file of --config)")
    if not paths:
        config = _config_for(finder, Path.cwd() / PYPROJECT, ".")
        # The project is what its source roots hold: a finding in a library that a
        # caller inherits from is not the project's, and pylint would not lint it.
        roots = tuple(real(root) for root in config.source_roots)
        return [Scope(roots, config, tuple(shown(str(root)) for root in config.source_roots))]
    targets = []
    for given in paths:
        if not os.path.exists(given):
            raise UsageError(f"{given}: no such file or folder")
        # A folder's configuration is searched from inside it, as for a file it holds.
        probe = Path(given, PYPROJECT) if os.path.isdir(given) else Path(given)
        config = _config_for(finder, probe, given)
        # Known as the analysis knows the file: a link under the roots stays there.
        targets.append(Scope((SourceTree(config.source_roots).key(given),), config, (given,)))
    return targets


def _config_for(finder: ConfigFinder, probe: Path, given: str) -> Config:
    try:
        config = finder.config_for(probe)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    if config is None:
        raise UsageError(
            f"{given}: no {PYPROJECT} with a [tool.rpcsurface] table in this folder "
            "or any folder above it (or pass --config FILE)"
        )
    return config


def configs(paths: Sequence[str], config_file: str | None) -> list[Config]:
    """The configurations of the projects *paths* belong to, each once."""
    found: dict[Path, Config] = {}
    for scope in scopes(paths, config_file):
        found.setdefault(scope.config.path, scope.config)
    return list(found.values())


def facts(config: Config, arguments: argparse.Namespace) -> Facts:
    """The facts of *config*'s surfaces, their pieces from the memo the fact cache keeps
    unless *arguments* (``--no-cache``) or the environment say not to; a usage error for
    a bad configuration."""
    use_cache = not (arguments.no_cache or disabled_by_environment())
    analysed: Facts = facts_with_cache(config, use_cache=use_cache)
    if analysed.config_errors:
        raise UsageError("; ".join(dict.fromkeys(str(e) for e in analysed.config_errors)))
    return analysed


def cache_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--no-cache",
        action="store_true",
        help=f"don't read or write the fact cache (also: {NO_CACHE_ENV}=1)",
    )


def shown(path: str) -> str:
    """A path as the user gave it: relative to the current folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except OSError:  # the current folder was removed: the absolute path is all there is
        return path
    return path if relative.startswith(os.pardir) else relative

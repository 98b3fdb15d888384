"""pylint's own configuration of our messages: which are on before any pragma, which
confidence levels it reports, and which files it does not lint.

pylint starts from each message's default (``rpc-waited-maybe-none`` is off) and applies
the ``disable`` and ``enable`` options of its configuration file, an ``all`` first, then
the others in the order they are written; ``confidence``, ``fail-on``, ``ignore``,
``ignore-patterns`` and ``ignore-paths`` as pylint 4 parses them. This re-implements
pylint's own option handling rather than calling it, so that a warm ``rpcsurface check``
imports neither pylint nor astroid; tests/test_pragmas.py compares it with real pylint.

``rpcsurface check``, ``report`` and ``fix`` read the file pylint reads when it runs in
the project's folder (the one holding the ``[tool.rpcsurface]`` table): the first
of ``pylintrc``, ``pylintrc.toml``, ``.pylintrc``, ``.pylintrc.toml``, ``pyproject.toml``
(with a ``[tool.pylint]`` table), ``setup.cfg`` and ``tox.ini`` (with a ``[pylint...]``
section) found there, as pylint's ``find_default_config_files`` orders them. They do not
read a ``PYLINTRC`` variable or ``~/.pylintrc``; ``rpcsurface check --enable/--disable``
stand for the options of pylint's command line (:func:`overridden`).

A finding is silenced when pylint does not report its confidence level, when none of
our messages is on (pylint then runs no checker of ours), when its file's pragmas
disable it at its line (``Finding.pragma``), or when no pragma decides and this
configuration has it off. Nothing here imports pylint.
"""

from __future__ import annotations

import configparser
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PureWindowsPath
from types import MappingProxyType
from typing import Any

from pylint_rpcsurface.messages import MESSAGES, symbols_named
from pylint_rpcsurface.model import Finding

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

CONFIG_FILES = (
    "pylintrc",
    "pylintrc.toml",
    ".pylintrc",
    ".pylintrc.toml",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
)


# pylint's confidence levels, and the defaults of the options read here (pylint 4's
# interfaces.CONFIDENCE_LEVEL_NAMES, constants.DEFAULT_IGNORE_LIST, ignore-patterns).
CONFIDENCE_LEVELS = ("HIGH", "CONTROL_FLOW", "INFERENCE", "INFERENCE_FAILURE", "UNDEFINED")
DEFAULT_IGNORE = ("CVS",)
DEFAULT_IGNORE_PATTERNS = (re.compile(r"^\.#"),)
_CATEGORY_LETTERS = frozenset("ICRWEF")
# pylint's own messages that disable=all leaves alone (pylint 4's lint/pylinter.py MSGS,
# the default-enabled ones, with their old names), and the categories holding them.
_PYLINTS_OWN = frozenset(
    {
        *("F0001", "fatal", "F0002", "astroid-error", "F0010", "parse-error"),
        *("F0011", "config-parse-error", "E0001", "syntax-error"),
        *("E0011", "unrecognized-inline-option", "W0012", "unknown-option-value"),
        *("R0022", "useless-option-value", "E0012", "bad-option-value"),
        *("E0013", "bad-plugin-value", "E0014", "bad-configuration-section"),
        *("E0015", "unrecognized-option", "main"),
    }
)
_PYLINTS_OWN_CATEGORIES = frozenset("FEWR")
# What pylint resolves to no message: the long category names (see symbols_named).
_UNKNOWN_TO_PYLINT = frozenset({"info", "convention", "refactor", "warning", "error", "fatal"})
# The options read, as pylint's command line spells them.
_MESSAGES_OPTIONS = ("enable", "disable")
_READ = (*_MESSAGES_OPTIONS, "confidence", "ignore", "ignore-patterns", "ignore-paths", "fail-on")


class PylintOptionError(ValueError):
    """An option pylint refuses, so it lints nothing: the text names the file and key."""


@dataclass(frozen=True)
class MessageControl:
    """What pylint's options say of our messages, and of the files it lints.

    ``enabled``: each of our symbols, on or off before any pragma; ``confidence``: the
    levels pylint reports; ``ignore``, ``ignore_patterns`` and ``ignore_paths``: the files
    and folders it does not lint; ``file``: the configuration file read.
    """

    enabled: Mapping[str, bool]
    file: Path | None  # None: no pylint configuration, the defaults apply
    confidence: frozenset[str] = frozenset(CONFIDENCE_LEVELS)
    ignore: tuple[str, ...] = DEFAULT_IGNORE
    ignore_patterns: tuple[re.Pattern[str], ...] = DEFAULT_IGNORE_PATTERNS
    ignore_paths: tuple[re.Pattern[str], ...] = ()
    fail_on: tuple[str, ...] = ()  # pylint enables these after every other option
    # The enable and disable options applied, each item alone, in pylint's order.
    toggles: tuple[tuple[str, str], ...] = ()

    def silenced(self, finding: Finding) -> bool:
        """Whether pylint would not report *finding*, in a file it lints: a level it does
        not report, or none of our messages on (pylint then runs no checker of ours, so a
        pragma enables nothing), else the pragmas at its line, else this configuration."""
        if finding.confidence not in self.confidence or not any(self.enabled.values()):
            return True
        if finding.pragma is not None:
            return not finding.pragma
        return not self.enabled.get(finding.symbol, True)

    def lints(self, argument: str, real_argument: str, file: str) -> bool:
        """Whether ``pylint --recursive=y ARGUMENT``, the plugin loaded, lints *file*.

        *argument* is spelled as pylint would be given it, *real_argument* is the path
        the analysis knows it by and *file* is under it; pylint tests the paths spelled
        from *argument* against ``ignore-paths``. The walk is pylint's: folders without
        ``__init__.py`` down to the first package, each pruned when ignored; in a package,
        a file is linted when pylint's own expansion reaches it (sub-packages only, pruned
        by ``ignore`` alone) or the plugin's does (every folder, pruned as files are).
        """
        if self._ignored(argument):
            return False
        parts = os.path.relpath(file, real_argument).split(os.sep)
        if parts == ["."]:
            return True  # the file itself was named
        *folders, name = parts
        spelled, real_folder = argument, real_argument
        while not os.path.isfile(os.path.join(real_folder, "__init__.py")):
            if not folders:
                return not self._ignored(os.path.join(spelled, name))
            folder = folders.pop(0)
            spelled, real_folder = os.path.join(spelled, folder), os.path.join(real_folder, folder)
            if self._ignored(spelled):
                return False
        if self._ignored(os.path.join(spelled, *folders, name)):
            return False
        by_pylint = by_plugin = True
        for folder in folders:
            spelled, real_folder = os.path.join(spelled, folder), os.path.join(real_folder, folder)
            has_init = any(
                os.path.isfile(os.path.join(real_folder, init))
                for init in ("__init__.py", "__init__.pyi")
            )
            by_pylint = by_pylint and has_init and folder not in self.ignore
            by_plugin = by_plugin and not self._ignored(spelled)
        return by_pylint or by_plugin

    @property
    def lints_nothing(self) -> bool:
        """Whether pylint stops before linting ("No files to lint: exiting.", status 32).

        pylint stops when every message is off and its own default-enabled messages
        (which ``disable=all`` leaves alone) were never named: after ``disable=all``,
        nothing enabled again, and no option names one of those (by name, id, their
        category or ``enable=all``), whether to enable or to disable it. A name that is
        neither ours, nor one of those, nor a long category name pylint does not know, is
        taken to be another checker's message, as it is when pylint knows it.
        """
        all_disabled = touched = False
        ours: set[str] = set()
        others: set[str] = set()
        fail_on = (("enable", name) for name in self.fail_on if name not in _CATEGORY_LETTERS)
        for option, item in (*self.toggles, *fail_on):
            enable = option == "enable"
            if item == "all":
                touched = touched or enable
                all_disabled, ours, others = not enable, set(), set()
                continue
            if item in _PYLINTS_OWN or item.upper() in _PYLINTS_OWN | _PYLINTS_OWN_CATEGORIES:
                touched = True
            symbols = set(symbols_named(item))
            if enable:
                ours |= symbols
            else:
                ours -= symbols
            if symbols or item.lower() in _UNKNOWN_TO_PYLINT or item.lower().startswith("rp"):
                continue  # "rp...": a report id, no message
            if enable:
                others.add(item)
            else:
                others.discard(item)
        return all_disabled and not touched and not ours and not others

    def _ignored(self, path: str) -> bool:
        """pylint's ``_is_ignored_file``: the base name in ``ignore`` or matching a pattern
        of ``ignore-patterns``, or the path matching one of ``ignore-paths``."""
        path = os.path.normpath(path)
        base = os.path.basename(os.path.abspath(path))
        return (
            base in self.ignore
            or any(p.match(base) for p in self.ignore_patterns)
            or any(p.match(path) for p in self.ignore_paths)
        )


def overridden(control: MessageControl, options: Iterable[tuple[str, str]]) -> MessageControl:
    """*control* after pylint command-line style options, ``("enable", "a,b")`` or
    ``("disable", ...)``, applied after the file as pylint applies its own: an ``all``
    first, then in order. A usage error (PylintOptionError) if both say ``all``."""
    enabled = dict(control.enabled)
    toggles = _all_first(list(options), "the command line")
    _apply(enabled, toggles)
    _apply_fail_on(enabled, control.fail_on)
    return replace(
        control,
        enabled=MappingProxyType(enabled),
        toggles=(*control.toggles, *_items(toggles)),
    )


def defaults() -> MessageControl:
    return MessageControl(
        MappingProxyType({spec.symbol: spec.default_enabled for spec in MESSAGES}), None
    )


def message_control(folder: Path) -> MessageControl:
    """What the pylint configuration file in *folder* says; PylintOptionError when
    pylint would refuse it."""
    for name in CONFIG_FILES:
        path = folder / name
        if not path.is_file():
            continue
        options = _options(path)
        if options is None:
            continue  # not a pylint configuration: pylint looks at the next name
        return _control(path, options)
    return defaults()


def _control(path: Path, options: list[tuple[str, str]]) -> MessageControl:
    """The file's options as pylint takes them: ``enable``/``disable`` with an ``all``
    first, then each in the order written; the other options, the last one written."""
    enabled = {spec.symbol: spec.default_enabled for spec in MESSAGES}
    toggles = _all_first(
        [(key, value) for key, value in options if key in _MESSAGES_OPTIONS], str(path)
    )
    _apply(enabled, toggles)
    last = {key: value for key, value in options if key not in _MESSAGES_OPTIONS}

    def invalid(key: str, why: str) -> PylintOptionError:
        return PylintOptionError(f"{path}: pylint's {key} = {last[key]!r}: {why}")

    confidence = frozenset(CONFIDENCE_LEVELS)
    if last.get("confidence"):  # empty: every level, as pylint has it
        levels = _splitstrip(last["confidence"])
        unknown = [level for level in levels if level not in CONFIDENCE_LEVELS]
        if unknown:
            raise invalid(
                "confidence", f"{unknown[0]!r} is not one of {', '.join(CONFIDENCE_LEVELS)}"
            )
        confidence = frozenset(levels)
    try:
        patterns = (
            tuple(re.compile(p) for p in _regexp_csv(last["ignore-patterns"]))
            if "ignore-patterns" in last
            else DEFAULT_IGNORE_PATTERNS
        )
    except re.error as error:
        raise invalid("ignore-patterns", f"not a regular expression ({error})") from None
    try:
        paths = tuple(_path_pattern(p) for p in _splitstrip(last.get("ignore-paths", "")))
    except re.error as error:
        raise invalid("ignore-paths", f"not a regular expression ({error})") from None
    fail_on = tuple(_splitstrip(last.get("fail-on", "")))
    _apply_fail_on(enabled, fail_on)
    return MessageControl(
        MappingProxyType(enabled),
        path,
        confidence,
        tuple(_splitstrip(last["ignore"])) if "ignore" in last else DEFAULT_IGNORE,
        patterns,
        paths,
        fail_on,
        tuple(_items(toggles)),
    )


def _all_first(options: list[tuple[str, str]], where: str) -> list[tuple[str, str]]:
    """*options* with those whose names include ``all`` moved first, as pylint moves them
    (``_order_all_first``); an error when one enables all and another disables all."""
    with_all = [(key, value) for key, value in options if "all" in _splitstrip(value)]
    if len({key for key, _ in with_all}) > 1:
        raise PylintOptionError(f"{where}: pylint refuses enable=all together with disable=all")
    return with_all + [pair for pair in options if pair not in with_all]


def _items(options: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    for option, value in options:
        for item in _splitstrip(value):
            yield option, item


def _apply(enabled: dict[str, bool], options: Iterable[tuple[str, str]]) -> None:
    for option, item in _items(options):
        for symbol in symbols_named(item):
            enabled[symbol] = option == "enable"


def _apply_fail_on(enabled: dict[str, bool], fail_on: Iterable[str]) -> None:
    """``fail-on`` enables the messages it names by id or symbol, exactly spelled (a
    category it only watches), after every other option (``enable_fail_on_messages``)."""
    for item in fail_on:
        for spec in MESSAGES:
            if item in (spec.msgid, spec.symbol):
                enabled[spec.symbol] = True


def _splitstrip(value: str) -> list[str]:
    """pylint's ``_splitstrip``: the comma-separated items, stripped, empty ones left out."""
    return [item.strip() for item in value.split(",") if item.strip()]


def _regexp_csv(value: str) -> list[str]:
    """pylint's ``_check_regexp_csv``: split at commas outside ``{...}``, each stripped
    (an item of blanks is an empty pattern, which matches every name)."""
    items: list[str | None] = [None]
    in_braces = False
    for char in value:
        if char == "{":
            in_braces = True
        elif char == "}" and in_braces:
            in_braces = False
        if char == "," and not in_braces:
            items.append(None)
        elif items[-1] is None:
            items[-1] = char
        else:
            items[-1] += char
    return [item.strip() for item in items if item is not None]


def _path_pattern(pattern: str) -> re.Pattern[str]:
    """pylint's pattern for one item of ``ignore-paths``: in Windows and in POSIX form."""
    windows = PureWindowsPath(pattern)
    return re.compile(str(windows).replace("\\", "\\\\") + "|" + windows.as_posix())


def _rich(value: object) -> str:
    """A TOML value as pylint's ``_parse_rich_type_value`` makes it a string."""
    if isinstance(value, (list, tuple)):
        return ",".join(_rich(item) for item in value)
    if isinstance(value, dict):
        return ",".join(f"{key}:{item}" for key, item in value.items())
    return str(value)


def _options(path: Path) -> list[tuple[str, str]] | None:
    """The options of *path* read here, each in the order pylint applies them, as the
    strings pylint parses; None if *path* is not a pylint configuration pylint would take."""
    if path.suffix == ".toml":
        try:
            with path.open("rb") as stream:
                table: dict[str, Any] = tomllib.load(stream)
        except (OSError, tomllib.TOMLDecodeError):
            return None
        tool = table.get("tool")
        pylint = tool.get("pylint") if isinstance(tool, dict) else None
        if not isinstance(pylint, dict):
            return None
        pairs: list[tuple[str, object]] = []
        for key, value in pylint.items():  # [tool.pylint.<section>] tables, or keys
            pairs.extend(value.items() if isinstance(value, dict) else [(key, value)])
        return [(key, _rich(value)) for key, value in pairs if key in _READ]
    parser = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
    try:
        with path.open(encoding="utf_8_sig") as stream:
            parser.read_file(stream)
    except (OSError, configparser.Error, UnicodeDecodeError):
        return None
    with_sections = path.name in ("setup.cfg", "tox.ini")
    sections = [s for s in parser.sections() if not with_sections or s.startswith("pylint")]
    if with_sections and not any(s == "pylint" or s.startswith("pylint.") for s in sections):
        return None
    return [
        (key, value)
        for section in sections
        for key, value in parser[section].items()
        if key in _READ
    ]

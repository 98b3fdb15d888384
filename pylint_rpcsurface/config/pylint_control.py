"""pylint's own configuration of our messages: which are on before any pragma.

pylint starts from each message's default (``rpc-waited-maybe-none`` is off) and applies
the ``disable`` and ``enable`` options of its configuration file in the order they are
written. ``rpcsurface check``, ``report`` and ``fix`` read the file pylint reads when it
runs in the project's folder (the one holding the ``[tool.rpcsurface]`` table): the first
of ``pylintrc``, ``pylintrc.toml``, ``.pylintrc``, ``.pylintrc.toml``, ``pyproject.toml``
(with a ``[tool.pylint]`` table), ``setup.cfg`` and ``tox.ini`` (with a ``[pylint...]``
section) found there, as pylint's ``find_default_config_files`` orders them. They do not
read a ``PYLINTRC`` variable or ``~/.pylintrc``; ``rpcsurface check --enable/--disable``
stand for the options of pylint's command line (:func:`overridden`).

A finding is silenced when its file's pragmas disable it at its line
(``Finding.pragma``), or when no pragma decides and this configuration has it off.
Nothing here imports pylint.
"""

from __future__ import annotations

import configparser
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pylint_rpcsurface.messages import MESSAGES, symbols_named
from pylint_rpcsurface.model import Finding, Record

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


@dataclass(frozen=True, eq=False, repr=False)
class MessageControl(Record):
    """Each of our symbols, on or off by pylint's configuration; and the file read."""

    enabled: Mapping[str, bool]
    file: Path | None  # None: no pylint configuration, the defaults apply

    def silenced(self, finding: Finding) -> bool:
        """Whether pylint would not report *finding*."""
        if finding.pragma is not None:
            return not finding.pragma
        return not self.enabled.get(finding.symbol, True)


def overridden(control: MessageControl, options: Iterable[tuple[str, str]]) -> MessageControl:
    """*control* after pylint command-line style options, ``("enable", "a,b")`` or
    ``("disable", ...)``, applied in order after the file, as pylint applies its own."""
    enabled = dict(control.enabled)
    for option, value in options:
        for item in _names(value):
            for symbol in symbols_named(item):
                enabled[symbol] = option == "enable"
    return MessageControl(MappingProxyType(enabled), control.file)


def defaults() -> MessageControl:
    return MessageControl(
        MappingProxyType({spec.symbol: spec.default_enabled for spec in MESSAGES}), None
    )


def message_control(folder: Path) -> MessageControl:
    """The state of our messages by the pylint configuration file in *folder*."""
    for name in CONFIG_FILES:
        path = folder / name
        if not path.is_file():
            continue
        options = _options(path)
        if options is None:
            continue  # not a pylint configuration: pylint looks at the next name
        enabled = {spec.symbol: spec.default_enabled for spec in MESSAGES}
        for option, value in options:
            for item in _names(value):
                for symbol in symbols_named(item):
                    enabled[symbol] = option == "enable"
        return MessageControl(MappingProxyType(enabled), path)
    return defaults()


def _names(value: object) -> Iterator[str]:
    items = value if isinstance(value, list) else str(value).split(",")
    for item in items:
        text = str(item).strip()
        if text:
            yield text


def _options(path: Path) -> list[tuple[str, object]] | None:
    """The ``disable``/``enable`` options of *path*, every one in the order pylint
    applies them; None if *path* is not a pylint configuration pylint would take."""
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
        return [(key, value) for key, value in pairs if key in ("disable", "enable")]
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
        if key in ("disable", "enable")
    ]

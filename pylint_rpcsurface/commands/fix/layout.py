"""The line length the project's formatter wraps at, for the registries ``fix`` writes.

ruff's ``line-length`` (``.ruff.toml``, ``ruff.toml``, then ``[tool.ruff]``, as ruff
looks), else black's (``[tool.black]``), else pylint's ``max-line-length`` (in any
``[tool.pylint.*]`` table), else 88, black's and ruff's default; read from the folder of
the project's configuration. A value that is not a positive integer is not one: the next
source is asked.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pylint_rpcsurface.sources import read_source

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - tomli is the dependency below 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

DEFAULT_LINE_LENGTH = 88


def line_length(folder: Path) -> int:
    """The line length for the project in *folder*."""
    for value in _candidates(folder):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def _candidates(folder: Path) -> Iterator[object]:
    for name in (".ruff.toml", "ruff.toml"):
        yield _document(folder / name).get("line-length")
    tool = _document(folder / "pyproject.toml").get("tool")
    tool = tool if isinstance(tool, dict) else {}
    for formatter in ("ruff", "black"):
        table = tool.get(formatter)
        yield table.get("line-length") if isinstance(table, dict) else None
    pylint = tool.get("pylint")
    if isinstance(pylint, dict):
        yield pylint.get("max-line-length")
        for section in pylint.values():
            yield section.get("max-line-length") if isinstance(section, dict) else None


def _document(path: Path) -> dict[str, Any]:
    """*path*'s TOML, or nothing when it is missing or can't be read: the layout is no
    reason to refuse a fix."""
    try:
        data, _ = read_source(str(path))
        document: dict[str, Any] = tomllib.loads(data.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return {}
    return document

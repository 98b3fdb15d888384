"""Finding and reading the ``[tool.rpcsurface]`` table that applies to a file.

The nearest ``pyproject.toml`` that declares the table, searched upward from the file,
applies to it; ``--rpcsurface-config``/``--config`` names one explicitly. Reading stays
cheap: a file without the word ``rpcsurface`` is never parsed, and every answer is
cached on the :class:`ConfigFinder` instance, keyed on the file's ``stat()`` so that an
edited ``pyproject.toml`` is read again. Nothing is cached at module level: one
long-lived process (an editor) runs pylint many times.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from pylint_rpcsurface.config.schema import TABLE, Config, ConfigError, parse_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    # tomli is a dependency only below 3.11, so mypy may run where it is not installed.
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

PYPROJECT = "pyproject.toml"
_TABLE_KEY = ".".join(TABLE)
# The text that must appear in a pyproject before we bother parsing it.
# Every TOML spelling of the table ([tool.rpcsurface], [tool."rpcsurface"], dotted keys
# under [tool]) contains this word; a file without it is not parsed at all.
_MARKER = b"rpcsurface"


def load_config(path: Path) -> Config:
    """Read a TOML file and validate its ``[tool.rpcsurface]`` table; raises ConfigError."""
    file = Path(os.path.abspath(path))
    table = _find_table(_read_toml(file))
    if table is None:
        raise ConfigError(file, _TABLE_KEY, "no [tool.rpcsurface] table")
    return parse_table(table, file)


def declares_rpcsurface(path: Path) -> bool:
    """True when the file is a pyproject whose text declares a ``[tool.rpcsurface...]`` table.

    Most pyproject files met on the way up from a linted file are not ours, so
    a cheap byte search comes first and only a file mentioning
    ``rpcsurface`` is parsed. A file that mentions it but cannot be
    parsed (or read) counts as declaring it: the load that follows then
    reports the real problem instead of the plugin silently doing nothing.
    """
    if not path.is_file():
        return False
    try:
        data = path.read_bytes()
    except OSError:
        return True
    if _MARKER not in data:
        return False
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return True
    return _find_table(document) is not None


def _read_toml(file: Path) -> dict[str, Any]:
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ConfigError(file, _TABLE_KEY, f"cannot read the file: {_reason(error)}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            file, _TABLE_KEY, f"the file is not UTF-8 ({error.reason} at byte {error.start})"
        ) from None
    try:
        # Annotated because on 3.10 without tomli installed mypy sees tomllib as Any.
        document: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(file, _TABLE_KEY, f"invalid TOML: {error}") from None
    except RecursionError:
        raise ConfigError(file, _TABLE_KEY, "invalid TOML: nested too deeply") from None
    return document


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def _find_table(document: dict[str, Any]) -> object | None:
    """The value at ``tool.rpcsurface``, or None. TOML has no null, so None means absent."""
    value: object = document
    for part in TABLE:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


# --------------------------------------------------------------------------
# Finding the configuration for a linted file
# --------------------------------------------------------------------------

# (st_dev, st_ino, st_mtime_ns, st_size): changes when a file is edited or replaced.
_Signature = tuple[int, int, int, int]


def _signature(path: Path) -> _Signature | None:
    """Identify a regular file's current version; None if there is no such file."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)


class ConfigFinder:  # pylint: disable=too-few-public-methods  # one question, many caches
    """Finds the configuration that applies to a linted file.

    ``explicit`` is the value of the pylint option ``--rpcsurface-config`` (a
    path, or None). With it set, every file gets ``load_config(explicit)``.
    Otherwise the search goes upward from the file's folder to the nearest
    ``pyproject.toml`` that :func:`declares_rpcsurface`; with none found,
    :meth:`config_for` returns None and the plugin stays silent.

    Results are cached on the instance, keyed on each file's stat signature,
    so an edited, created or deleted ``pyproject.toml`` is noticed at the cost
    of one ``stat()`` per ancestor folder per call. A ConfigError is cached
    too and raised again every time it is asked for. Not noticed: a source
    root directory created after its absence was reported (edit the
    pyproject, or start a new finder).
    """

    def __init__(self, explicit: Path | None = None) -> None:
        # Resolve now: a relative option value means relative to where pylint started.
        self._explicit = None if explicit is None else Path(os.path.abspath(explicit))
        self._declares: dict[Path, tuple[_Signature, bool]] = {}
        self._loaded: dict[Path, tuple[_Signature | None, Config | ConfigError]] = {}

    def config_for(self, file: Path) -> Config | None:
        """The configuration for ``file``, None if there is none; raises ConfigError."""
        if self._explicit is not None:
            return self._load(self._explicit, _signature(self._explicit))
        found = self._nearest(Path(os.path.abspath(file)).parent)
        if found is None:
            return None
        return self._load(*found)

    def _nearest(self, folder: Path) -> tuple[Path, _Signature] | None:
        for directory in (folder, *folder.parents):
            candidate = directory / PYPROJECT
            signature = _signature(candidate)
            if signature is not None and self._declares_cached(candidate, signature):
                return candidate, signature
        return None

    def _declares_cached(self, candidate: Path, signature: _Signature) -> bool:
        cached = self._declares.get(candidate)
        if cached is not None and cached[0] == signature:
            return cached[1]
        declares = declares_rpcsurface(candidate)
        self._declares[candidate] = (signature, declares)
        return declares

    def _load(self, path: Path, signature: _Signature | None) -> Config:
        cached = self._loaded.get(path)
        if cached is not None and cached[0] == signature:
            outcome = cached[1]
        else:
            try:
                outcome = load_config(path)
            except ConfigError as error:
                # Keep a traceback-free copy: the original's traceback would pin
                # the loader's frames (and the file's text) in the cache.
                outcome = ConfigError(error.file, error.key, error.problem)
            self._loaded[path] = (signature, outcome)
        if isinstance(outcome, ConfigError):
            # A fresh instance each time: re-raising one instance would grow its
            # traceback on every raise.
            raise ConfigError(outcome.file, outcome.key, outcome.problem)
        return outcome

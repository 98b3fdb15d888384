"""``rpcsurface check --format sarif``: the findings as a SARIF 2.1.0 log, for code scanning.

One rule per message (``id`` the message id, ``name`` its symbol, ``helpUri`` its docs
page) and one result per finding. Paths are relative to the project root, under the
``uriBaseId`` :data:`ROOT_ID`, which ``originalUriBaseIds`` maps to the root's file URI.
A file outside the root gets its absolute file URI.

URIs: each is percent-encoded as RFC 3986 asks (a relative one by :func:`urllib.parse.quote`
of its file name's bytes, ``/`` kept; an absolute one by ``pathlib``'s ``as_uri``), so
``ünï.py`` is ``%C3%BCn%C3%AF.py`` and a space, ``#``, ``%``, ``?`` or ``:`` in a name
can't end the path or start a query, a fragment or a scheme. The findings carry real
paths (symlinks resolved); a source root configured as a symlink (``src`` linking to a
folder elsewhere) is mapped back to the path as configured (:func:`root_aliases`), so its
files stay relative to the root.

Message texts are the ones pylint prints, names escaped by ``rules.text.safe_name``: a
viewer shows ``message.text`` as plain text. The exact names are in the source the
regions point to.

Columns: the findings carry pylint's columns, 0-based UTF-8 byte offsets. SARIF columns
are 1-based and, by default (``columnKind`` ``utf16CodeUnits``), count UTF-16 code
units. Each column is converted by reading its line from the file: the code units of the
text before it, plus one. ``endColumn`` is, in both conventions, just past the last
character. A line that can't be read (a file gone since the analysis) falls back to the
byte offset plus one.
"""

from __future__ import annotations

import io
import os
import re
import sys
import tokenize
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from urllib.parse import quote

from pylint_rpcsurface import __version__
from pylint_rpcsurface.config import Config
from pylint_rpcsurface.messages import MESSAGES, MessageSpec
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.sources import read_source, real

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

PROJECT_URL = "https://github.com/pylint-rpcsurface/pylint-rpcsurface"
DOCS_URL = f"{PROJECT_URL}/blob/main/docs/messages"
SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
ROOT_ID = "PROJECTROOT"
_LINE_END = re.compile(r"\r\n|\r|\n")
_LEVEL = {"E": "error", "W": "warning", "F": "error", "C": "note", "R": "note", "I": "note"}


def help_uri(spec: MessageSpec) -> str:
    return f"{DOCS_URL}/{spec.symbol}.md"


def _rule(spec: MessageSpec) -> dict[str, object]:
    return {
        "id": spec.msgid,
        "name": spec.symbol,
        "shortDescription": {"text": spec.description},
        "fullDescription": {"text": f"{spec.description} {spec.rationale}"},
        "helpUri": help_uri(spec),
        "defaultConfiguration": {"level": _LEVEL[spec.msgid[0]]},
    }


def sarif_log(
    findings: Iterable[tuple[Finding, str]],
    root: str,
    suppressed: Collection[Finding] = (),
    aliases: Iterable[tuple[str, str]] = (),
) -> dict[str, object]:
    """The log of *findings*, each with its message text; *root* is the base the log's
    relative URIs resolve against. A finding in *suppressed* (silenced by a pylint pragma
    or pylint's configuration) stays, with a ``suppressions`` entry of kind ``inSource``.
    *aliases* are (real path, path as configured) pairs, as :func:`root_aliases` gives."""
    artifacts = _Artifacts(root, aliases)
    index = {spec.symbol: position for position, spec in enumerate(MESSAGES)}
    lines = _LineReader()
    results = []
    for finding, text in findings:
        spec = MESSAGES[index[finding.symbol]]
        where = finding.location
        region: dict[str, int] = {
            "startLine": where.line,
            "startColumn": lines.column(where.path, where.line, where.col),
        }
        if where.end_line is not None and where.end_col is not None:
            region["endLine"] = where.end_line
            region["endColumn"] = lines.column(where.path, where.end_line, where.end_col)
        physical = {"artifactLocation": artifacts.location(where.path), "region": region}
        result: dict[str, object] = {
            "ruleId": spec.msgid,
            "ruleIndex": index[finding.symbol],
            "level": _LEVEL[spec.msgid[0]],
            "message": {"text": text},
            "locations": [{"physicalLocation": physical}],
        }
        if finding.surfaces:
            result["properties"] = {"surfaces": list(finding.surfaces)}
        if finding in suppressed:
            result["suppressions"] = [_suppression(finding)]
        results.append(result)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pylint-rpcsurface",
                        "version": __version__,
                        "informationUri": PROJECT_URL,
                        "rules": [_rule(spec) for spec in MESSAGES],
                    }
                },
                "originalUriBaseIds": {ROOT_ID: {"uri": Path(root).as_uri().rstrip("/") + "/"}},
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }


def _suppression(finding: Finding) -> dict[str, str]:
    """``inSource`` for a pylint pragma (or a skipped file); ``external`` for pylint's
    configuration file, or a message that is off by default."""
    if finding.pragma is False:
        return {"kind": "inSource", "justification": "a pylint pragma disables it"}
    return {"kind": "external", "justification": "pylint's configuration disables it"}


def root_aliases(config: Config) -> tuple[tuple[str, str], ...]:
    """(real path, path as configured) for the folder of *config* and each of its source
    roots whose configured path differs from its real one (a symlink on the way).

    The configuration keeps only the real paths, so the configured ones are read again
    from its file; a file that can no longer be read gives no alias (its files then get
    absolute URIs, which are still right).
    """
    folder = str(config.root)
    pairs = [(real(folder), folder)]
    try:
        document = tomllib.loads(config.path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        document = {}
    tool = document.get("tool")
    table = tool.get("rpcsurface") if isinstance(tool, dict) else None
    given = table.get("source-roots") if isinstance(table, dict) else None
    for value in given if isinstance(given, list) else []:
        if isinstance(value, str) and value:
            configured = os.path.normpath(os.path.join(folder, value))
            pairs.append((real(configured), configured))
    return tuple(pair for pair in pairs if pair[0] != pair[1])


class _Artifacts:
    """The ``artifactLocation`` of each file: relative to the root when under it."""

    def __init__(self, root: str, aliases: Iterable[tuple[str, str]]) -> None:
        self.root = root
        # The deepest real path first, so that a nested root wins over its parent.
        self.aliases: Sequence[tuple[str, str]] = sorted(
            set(aliases), key=lambda pair: pair[0].count(os.sep), reverse=True
        )

    def location(self, path: str) -> dict[str, str]:
        relative = self._relative(path)
        if relative is None:
            return {"uri": Path(path).as_uri()}
        return {"uri": uri_path(relative), "uriBaseId": ROOT_ID}

    def _relative(self, path: str) -> str | None:
        """*path* relative to the root, as walked: through an alias when it is under one."""
        candidates = [path]
        for real_path, configured in self.aliases:
            if path == real_path or path.startswith(real_path.rstrip(os.sep) + os.sep):
                candidates.append(os.path.join(configured, os.path.relpath(path, real_path)))
        for candidate in candidates:
            try:
                relative = os.path.relpath(candidate, self.root)
            except ValueError:  # on another drive (Windows)
                continue
            if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
                return relative
        return None


def uri_path(relative: str) -> str:
    """A relative file path as a relative URI reference: its bytes percent-encoded
    (RFC 3986: all but the unreserved characters and ``/``). A file name that isn't UTF-8
    keeps its own bytes (``os.fsencode`` undoes the surrogate escapes)."""
    return quote(os.fsencode(Path(relative).as_posix()), safe="/")


class _LineReader:
    """The lines of the files findings point into, each file read once."""

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}

    def column(self, path: str, line: int, byte_col: int) -> int:
        if path not in self._files:
            self._files[path] = _lines(path)
        lines = self._files[path]
        if lines is None or not 0 < line <= len(lines):
            return byte_col + 1
        # astroid's byte offsets count the line's UTF-8 encoding, whatever the file's own.
        prefix = lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="replace")
        return len(prefix.encode("utf-16-le")) // 2 + 1


def _lines(path: str) -> list[str] | None:
    try:
        data, _ = read_source(path)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return _LINE_END.split(data.decode(encoding))
    except (OSError, SyntaxError, LookupError, UnicodeDecodeError):
        return None

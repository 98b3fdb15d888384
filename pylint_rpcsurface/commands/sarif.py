"""``rpcsurface check --format sarif``: the findings as a SARIF 2.1.0 log, for code scanning.

One rule per message (``id`` the message id, ``name`` its symbol, ``helpUri`` its docs
page) and one result per finding. Paths are relative to the project root, under the
``uriBaseId`` :data:`ROOT_ID`, which ``originalUriBaseIds`` maps to the root's file URI.

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
import tokenize
from collections.abc import Collection, Iterable
from pathlib import Path

from pylint_rpcsurface import __version__
from pylint_rpcsurface.messages import MESSAGES, MessageSpec
from pylint_rpcsurface.model import Finding
from pylint_rpcsurface.sources import read_source

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
) -> dict[str, object]:
    """The log of *findings*, each with its message text; *root* is the base the log's
    relative URIs resolve against. A finding in *suppressed* (silenced by a pylint pragma
    or pylint's configuration) stays, with a ``suppressions`` entry of kind ``inSource``."""
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
        physical = {"artifactLocation": _artifact(where.path, root), "region": region}
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


def _artifact(path: str, root: str) -> dict[str, str]:
    relative = os.path.relpath(path, root)
    if relative.startswith(os.pardir):
        return {"uri": Path(path).as_uri()}
    return {"uri": Path(relative).as_posix(), "uriBaseId": ROOT_ID}


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

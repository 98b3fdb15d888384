"""Places between the analysis's convention and the protocol's.

The analysis counts lines from 1 and columns in UTF-8 bytes (:class:`Location`); the
protocol counts both from 0, columns in the code units the client and server agreed on
(UTF-16 unless told otherwise), which pygls's position codec converts from code points.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import PositionCodec
from pygls.workspace.position_codec import ServerTextPosition

from pylint_rpcsurface.model import Location


def _code_points(line: str, byte_col: int) -> int:
    """How many characters of *line* the first *byte_col* UTF-8 bytes hold."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _position(
    codec: PositionCodec, lines: Sequence[str], line: int, byte_col: int
) -> types.Position:
    index = line - 1
    text = lines[index] if 0 <= index < len(lines) else ""
    return codec.position_to_client_units(
        lines, ServerTextPosition(index, _code_points(text, byte_col))
    )


def to_range(codec: PositionCodec, lines: Sequence[str], at: Location) -> types.Range:
    """*at* as a protocol range in a document of *lines*; a place with no end is empty."""
    end_line = at.line if at.end_line is None else at.end_line
    end_col = at.col if at.end_col is None else at.end_col
    return types.Range(
        start=_position(codec, lines, at.line, at.col),
        end=_position(codec, lines, end_line, end_col),
    )


def from_position(
    codec: PositionCodec, lines: Sequence[str], position: types.Position
) -> tuple[int, int]:
    """The protocol's *position* as the analysis counts: (1-based line, UTF-8 byte column)."""
    server = codec.position_from_client_units(lines, position)
    text = lines[server.line] if server.line < len(lines) else ""
    return server.line + 1, len(text[: server.character].encode("utf-8"))

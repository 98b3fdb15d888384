"""Reading a registry's file and writing it back: same encoding, BOM, newlines and mode.

Writes are atomic: a temporary file in the same folder (named so that no tool takes it
for a module), then ``os.replace``.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass

from pylint_rpcsurface.commands.fix.edit import Refused


@dataclass(frozen=True)
class SourceFile:
    path: str
    data: bytes
    encoding: str
    text: str

    @classmethod
    def read(cls, path: str) -> SourceFile:
        with open(path, "rb") as stream:
            data = stream.read()
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError) as error:
            raise Refused(1, f"the file can't be decoded: {error}") from None
        return cls(path, data, encoding, text)

    def encode(self, text: str) -> bytes:
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as error:
            raise Refused(1, f"the new text can't be written in {self.encoding}: {error}") from None


def write_atomically(path: str, data: bytes) -> None:
    """Replace *path* with *data*: readers see the old file or the new one, never a mix.

    The temporary file lives in the same folder (so the rename is atomic) under a name
    that ends in ``.tmp``, so no tool takes a leftover for a module. A link (a registry
    module linked into the source roots) is written through: the file it points to is
    replaced, and the link stays.
    """
    path = os.path.realpath(path)
    folder, name = os.path.split(path)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".rpcsurface.tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def unified_diff(shown: str, old: str, new: str) -> str:
    """The change from *old* to *new* as a unified diff of the file *shown*."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)

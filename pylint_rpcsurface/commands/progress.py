"""Progress of a long step, on a terminal only: one line on standard error, rewritten in
place (the phase and the seconds it has taken), as pip and pre-commit show theirs, and
cleared when the step ends. When standard error is not a terminal (a pipe, a file, CI),
nothing at all is written: a log gets the command's own lines only.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from types import TracebackType
from typing import TextIO

_CLEAR = "\r\x1b[K"  # back to the line's start, and erase it


class Progress:
    """``with Progress(err, "rpcsurface init: ") as progress: progress.phase("...")``."""

    def __init__(self, stream: TextIO, prefix: str, interval: float = 0.5) -> None:
        self._stream = stream
        self._prefix = prefix
        self._interval = interval
        self.shown = _is_terminal(stream)
        self._lock = threading.Lock()
        self._text = ""
        self._since = time.monotonic()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self.shown:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._write(_CLEAR)

    def phase(self, text: str) -> None:
        """Show *text* as what is being done now."""
        with self._lock:
            self._text = text
            self._since = time.monotonic()
        self._show()

    def _tick(self) -> None:
        while not self._stop.wait(self._interval):
            self._show()

    def _show(self) -> None:
        if not self.shown or self._stop.is_set():
            return
        with self._lock:
            seconds = int(time.monotonic() - self._since)
            line = self._prefix + self._text + (f" ({seconds} s)" if seconds else "")
        # A line longer than the terminal would wrap, and the next one would not
        # overwrite it.
        width = shutil.get_terminal_size().columns - 1
        self._write(_CLEAR + line[: max(width, 1)])

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # a closed terminal: no progress
            self._stream.write(text)
            self._stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False

"""Progress of a long command on standard error, never on standard output.

On a terminal: one line, rewritten in place, as pip and pre-commit show theirs, and
cleared when the command ends: the phase, a bar with its fraction and the seconds the
phase has taken (``rpcsurface init: reading 627 Python files [#######.............]
231/627 (3 s)``). The bar counts what the phase has done of its work when the command
says (:meth:`Progress.count`: the files read), else the phases done of those the command
announced (:meth:`Progress.phases`: ``step 1/2``). Elsewhere (a pipe, a file, CI): one
plain line per phase with the seconds since the command started, but only
once the command has worked ``QUIET_SECONDS`` of processor time, so that a quick run
writes nothing and a CI log shows what a long one is doing
(``rpcsurface check: analysing 578 Python files in /src/engine (12 s)``), and a last
line when it is done. ``RPCSURFACE_PROGRESS`` chooses: ``auto`` (that), ``always``
(a pipe gets every phase at once) or ``never``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TextIO

from pylint_rpcsurface.commands.projects import UsageError
from pylint_rpcsurface.config import Config
from pylint_rpcsurface.sources import SourceTree

PROGRESS_ENV = "RPCSURFACE_PROGRESS"
_MODES = ("auto", "always", "never")
# Processor time, not the clock's: on a loaded machine a quick run takes long on the
# clock, and must stay quiet all the same.
QUIET_SECONDS = 2.0
_CLEAR = "\r\x1b[K"  # back to the line's start, and erase it
_BAR_CELLS = 20

# A phase's text, or what makes it: called once, when the phase is first written (a count
# that costs a walk of the tree is only made for a run that shows it).
PhaseText = str | Callable[[], str]


class Progress:
    """``with Progress(err, "rpcsurface init: ") as progress: progress.phase("...")``."""

    def __init__(self, stream: TextIO, prefix: str, interval: float = 0.5) -> None:
        mode = progress_mode()
        self._stream = stream
        self._prefix = prefix
        self._interval = interval
        self._terminal = mode != "never" and _is_terminal(stream)
        self._lines = mode != "never" and not self._terminal
        self._at_once = mode == "always"
        # Whether a phase may be written at all: a caller may skip what only names it.
        self.shown = self._terminal or self._lines
        self._lock = threading.Lock()
        self._text: PhaseText = ""
        self._step = 0  # the phase being shown, from 1
        self._steps = 0  # how many the command announced (0: not said)
        self._done: tuple[int, int] | None = None  # the phase's work: (done, of total)
        self._written = False  # the current phase's line, when not on a terminal
        self._any_line = False
        self._started = self._since = time.monotonic()
        self._worked = time.process_time()
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
        self.done(finished=kind is None)

    def done(self, *, finished: bool = True) -> None:
        """End the progress before the command's own output: the terminal's line
        cleared; when phases were written elsewhere, a last line with the time taken
        (unless the command did not *finish*). Again, it does nothing."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self._terminal:
            self._write(_CLEAR)
        elif self._any_line and finished:
            self._write(f"{self._prefix}done ({self._seconds(self._started)} s)\n")

    def phases(self, total: int) -> None:
        """The number of phases the command will show: the bar counts them."""
        with self._lock:
            self._steps = total

    def phase(self, text: PhaseText) -> None:
        """Show *text* as what is being done now."""
        with self._lock:
            self._text = text
            self._written = False
            self._since = time.monotonic()
            self._step += 1
            self._done = None
        self._show()

    def count(self, done: int, total: int) -> None:
        """*done* of the current phase's *total* units of work are done (files read):
        the bar counts them, redrawn on a terminal at once; a pipe's phase line says
        nothing of them."""
        if not self._terminal:
            return
        with self._lock:
            before = self._done
            self._done = (done, total)
        if before != self._done:
            self._show()

    def _tick(self) -> None:
        while not self._stop.wait(self._interval):
            self._show()

    def _show(self) -> None:
        if self._stop.is_set():
            return
        if self._terminal:
            with self._lock:
                seconds = self._seconds(self._since)
                head = self._prefix + self._current()
                tail = self._bar() + (f" ({seconds} s)" if seconds else "")
            # A line longer than the terminal would wrap, and the next one would not
            # overwrite it: the phase's text is cut, so that the bar stays in sight.
            width = max((terminal_columns(self._stream) or 80) - 1, 1)
            if len(head) + len(tail) > width:
                head = head[: max(width - len(tail) - 3, 0)] + "..."
            self._write(_CLEAR + (head + tail)[:width])
        elif self._lines:
            with self._lock:  # the ticker's and a new phase's lines in their order
                if self._written or not (self._at_once or self._worked_long()):
                    return
                self._written = self._any_line = True
                self._write(f"{self._prefix}{self._current()} ({self._seconds(self._started)} s)\n")

    def _bar(self) -> str:
        """A space, the bar and its fraction (under the lock): the phase's work done,
        else the phases done before this one; "" when neither is known."""
        if self._done is not None:
            done, total = self._done
            fraction = f"{done}/{total}"
        elif self._steps:
            done, total = self._step - 1, max(self._steps, self._step)
            fraction = f"step {self._step}/{total}"
        else:
            return ""
        filled = _BAR_CELLS * min(max(done, 0), total) // total if total > 0 else _BAR_CELLS
        return f" [{'#' * filled}{'.' * (_BAR_CELLS - filled)}] {fraction}"

    def _current(self) -> str:
        """The phase's text, made once (under the lock)."""
        if not isinstance(self._text, str):
            self._text = self._text()
        return self._text

    def _worked_long(self) -> bool:
        return time.process_time() - self._worked >= QUIET_SECONDS

    @staticmethod
    def _seconds(since: float) -> int:
        return int(time.monotonic() - since)

    def _write(self, text: str) -> None:
        # A closed stream: no progress. Python's sys.stderr is None when the process
        # was started with standard error closed (``2>&-``).
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self._stream.write(text)
            self._stream.flush()


def progress_mode() -> str:
    """``RPCSURFACE_PROGRESS``: auto (unset or empty), always or never; a usage error
    for anything else."""
    mode = os.environ.get(PROGRESS_ENV, "").strip().lower() or "auto"
    if mode not in _MODES:
        raise UsageError(
            f"{PROGRESS_ENV}={os.environ[PROGRESS_ENV]!r}: expected one of {', '.join(_MODES)}"
        )
    return mode


def python_files(roots: tuple[Path, ...]) -> str:
    """How many Python files *roots* hold, for a phase's text: a walk of the tree, so
    in a phase text made only when shown (``lambda: f"reading {python_files(roots)}"``)."""
    files = len(SourceTree(roots).python_files())
    return f"{files} Python file{'s' * (files != 1)}"


def analysing(config: Config) -> PhaseText:
    """The phase of analysing *config*'s project: its files counted when it is shown."""
    roots = config.source_roots
    return lambda: f"analysing {python_files(roots)} in {config.root}"


def terminal_columns(stream: TextIO) -> int | None:
    """The columns a line on *stream* may take: ``COLUMNS`` when set to a number, else
    the width of the terminal *stream* is on; None for a pipe, a file, or a terminal
    that has no width set (a fresh pseudo-terminal says 0)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return (os.get_terminal_size(stream.fileno()).columns or None) if stream.isatty() else None
    except (OSError, ValueError, AttributeError):  # not a file: as a pipe
        return None


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False

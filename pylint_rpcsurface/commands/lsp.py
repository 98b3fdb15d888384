"""``rpcsurface lsp``: the language server, over standard input and output.

It needs the ``lsp`` extra (pygls); without it, a one-line error naming the extra, exit
status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import threading
from pathlib import Path
from typing import TextIO

from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.commands.projects import EXIT_CLEAN, EXIT_ERROR, cache_option
from pylint_rpcsurface.config import ConfigError, ConfigFinder
from pylint_rpcsurface.config.discovery import PYPROJECT
from pylint_rpcsurface.store import analyse_with_cache, disabled_by_environment

HELP = "run a language server (LSP, over stdio) for editors: diagnostics, navigation, rename"
DESCRIPTION = (
    "Speak the Language Server Protocol on standard input and output, for an editor to "
    "start: the findings of `rpcsurface check` as diagnostics of each open file, its "
    "unsaved text included; go to definition from an RPC name to the handler methods "
    "that answer it; find references from a handler to the sites that send its name; "
    "hover for the name's row of `rpcsurface report`; rename an RPC name at every place "
    "that holds it; code actions (the registry edit `rpcsurface fix` makes, closest answered "
    "names, a pylint disable comment). Needs the lsp extra: "
    "pip install 'pylint-rpcsurface[lsp]'."
)
# The packages the extra installs: a server that can't import one of them lacks the extra.
_EXTRA_PACKAGES = frozenset({"pygls", "lsprotocol", "cattrs", "attrs"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``rpcsurface lsp`` takes."""
    cache_option(parser)


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Serve until the client says exit; without the extra, say so on *err*."""
    del out  # standard output is the protocol's channel, which pygls writes itself
    use_cache = not (arguments.no_cache or disabled_by_environment())
    ahead = _analyse_ahead() if use_cache else None
    try:
        return _serve(err, use_cache=use_cache, ahead=ahead is not None)
    finally:
        if ahead is not None:
            ahead.stop()


def _serve(err: TextIO, *, use_cache: bool, ahead: bool) -> int:
    # lsprotocol makes some 600 classes at import: without pausing, the collector walks
    # them again and again, a tenth of the server's start-up before it can read the
    # editor's first message. Paused, their garbage is freed only later, which leaves the
    # process 9 MB larger: worth it unless a child analyses ahead, which then sets when
    # the first diagnostics come, and whose memory adds to this process's meanwhile.
    pause = contextlib.nullcontext() if ahead else no_cyclic_collection()
    try:
        with pause:
            # pylint: disable-next=import-outside-toplevel
            from pylint_rpcsurface.server import serve  # noqa: PLC0415  # only with the extra
    except ImportError as missing:
        if (missing.name or "").partition(".")[0] not in _EXTRA_PACKAGES:
            raise
        err.write(
            f"rpcsurface: error: `rpcsurface lsp` needs {missing.name}, which the lsp extra "
            "installs: pip install 'pylint-rpcsurface[lsp]'\n"
        )
        return EXIT_ERROR
    serve(use_cache=use_cache)
    return EXIT_CLEAN


class _AnalysisAhead:
    """The child process analysing the project the server was started in, ended with it.

    The child's pid stays its own until it is reaped: the reaper first waits for the end
    without reaping, and says so under the lock :meth:`stop` takes before it signals."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._lock = threading.Lock()
        self._ended = False
        threading.Thread(target=self._reap, name="rpcsurface-ahead", daemon=True).start()

    def _reap(self) -> None:
        os.waitid(os.P_PID, self._pid, os.WEXITED | os.WNOWAIT)
        with self._lock:
            self._ended = True
            os.waitpid(self._pid, 0)

    def stop(self) -> None:
        """End the child if it still runs: the editor that wanted its store is gone."""
        with self._lock:
            if not self._ended:
                with contextlib.suppress(OSError):
                    os.kill(self._pid, signal.SIGTERM)


def _analyse_ahead() -> _AnalysisAhead | None:
    """Start analysing the project of the folder the server was started in, in a child
    process, while this one loads the protocol's library and greets the editor.

    A third of a second goes to loading pygls and lsprotocol before the first message can
    be read: the child spends it, on another processor, on what ``rpcsurface check``
    computes, and writes it to the store. The server's first analysis of that project
    waits for it (the store's lock says it is computing) and reads its findings instead
    of computing them again. Nothing else is shared: a child that fails, or a project
    the editor never opens, only cost the child's time. Not where processes can't fork
    (Windows), nor without the store, which is how the answer comes back."""
    if not hasattr(os, "fork") or not hasattr(os, "waitid"):
        return None
    try:
        config = ConfigFinder().config_for(Path(os.getcwd(), PYPROJECT))
    except (ConfigError, OSError):
        return None  # said by the server when a file of the project is opened
    if config is None:
        return None
    try:
        pid = os.fork()  # before any thread is started: the child has this one alone
    except OSError:
        return None  # no process to spare (EAGAIN, ENOMEM): the server computes it
    if pid == 0:
        status = 1
        try:
            # Never the protocol's channel, nor the editor's log: the server says it all.
            devnull = os.open(os.devnull, os.O_RDWR)
            for stream in (0, 1, 2):
                os.dup2(devnull, stream)
            analyse_with_cache(config, {})
            status = 0
        except BaseException:  # pylint: disable=broad-exception-caught  # the server computes it
            pass
        finally:
            os._exit(status)  # nothing of the server's to flush or tear down
    return _AnalysisAhead(pid)

"""``rpcsurface lsp``: a Language Server Protocol server over standard input and output.

pygls speaks the protocol; :mod:`.session` answers each message from the engine that
``rpcsurface check`` and ``report`` use. Importing this package needs the ``lsp`` extra.
"""

from __future__ import annotations

import contextlib
import os
import sys

from pygls.lsp.server import LanguageServer

from pylint_rpcsurface import __version__
from pylint_rpcsurface.server.session import SOURCE, Session

__all__ = ["serve"]


def serve(*, use_cache: bool) -> None:
    """Answer the client on standard input and output until it says exit (pygls then
    ends the process with ``SystemExit``: 0 after a shutdown request, else 1)."""
    server = LanguageServer(SOURCE, __version__)
    Session(server, use_cache=use_cache)
    # The protocol gets a descriptor of its own, which pygls closes at exit; anything
    # else printed meanwhile goes to standard error, never into the protocol's stream.
    with (
        os.fdopen(os.dup(sys.stdout.fileno()), "wb") as protocol,
        contextlib.redirect_stdout(sys.stderr),
    ):
        server.start_io(sys.stdin.buffer, protocol)

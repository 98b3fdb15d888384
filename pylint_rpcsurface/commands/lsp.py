"""``rpcsurface lsp``: the language server, over standard input and output.

It needs the ``lsp`` extra (pygls); without it, a one-line error naming the extra, exit
status 2.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.commands.projects import EXIT_CLEAN, EXIT_ERROR, cache_option
from pylint_rpcsurface.store import disabled_by_environment

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
    try:
        # lsprotocol makes some 600 classes at import: without pausing, the collector
        # walks them again and again, a tenth of the server's start-up before it can read
        # the editor's first message.
        with no_cyclic_collection():
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
    serve(use_cache=not (arguments.no_cache or disabled_by_environment()))
    return EXIT_CLEAN

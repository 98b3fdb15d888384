"""``rpcsurface explain SYMBOL|ID``: a message's page, from the installed package."""

from __future__ import annotations

import argparse
from typing import TextIO

from pylint_rpcsurface.commands.projects import EXIT_CLEAN, UsageError
from pylint_rpcsurface.messages import MESSAGES


def add_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    explain = commands.add_parser(
        "explain",
        help="print a message's page: what it does, why it is bad, an example, the fix",
        description="Print the page of a message, by symbol (rpc-unlisted) or id (W7701).",
    )
    explain.add_argument("message", metavar="SYMBOL|ID", help="a message symbol or id")
    return explain


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    del err
    wanted = arguments.message.strip()
    for spec in MESSAGES:
        if wanted in (spec.symbol, spec.msgid):
            out.write(f"{spec.msgid} {spec.symbol}\n\n{spec.description}\n\n{spec.rationale}\n")
            return EXIT_CLEAN
    raise UsageError(f"{wanted}: no such message (expected a symbol like rpc-unlisted or an id)")

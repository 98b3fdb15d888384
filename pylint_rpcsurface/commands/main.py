"""``rpcsurface``: the command line's parser, and the dispatch to each subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pylint_rpcsurface import __version__
from pylint_rpcsurface.commands import check, explain, fix, report
from pylint_rpcsurface.commands.projects import EXIT_ERROR, UsageError


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return int(arguments.run(arguments, sys.stdout, sys.stderr))
    except UsageError as error:
        print(f"rpcsurface: error: {error}", file=sys.stderr)
        return EXIT_ERROR


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rpcsurface",
        description="Check RPCs dispatched by name against their handlers and registry.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="command")
    for command in (check, report, fix, explain):
        command.add_parser(commands).set_defaults(run=command.run)
    return parser

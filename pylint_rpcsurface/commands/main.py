"""``rpcsurface``: the command line's parser, and the dispatch to each subcommand."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import NoReturn, Protocol, TextIO

from pylint_rpcsurface import __version__
from pylint_rpcsurface.commands import check, explain, fix, init, lsp, report
from pylint_rpcsurface.commands.projects import EXIT_ERROR, UsageError

# The status a shell reports for a program that SIGPIPE ended (128 + signal 13), as
# `cat`, `grep` or `git log` give when the reader of their output closes the pipe early.
# Not 1: that is check's "findings", and `rpcsurface check | head -1` must not say so.
EXIT_PIPE_CLOSED = 128 + 13


class _Command(Protocol):
    """What a subcommand's module declares: its one-line help, its description, its
    arguments and what it runs."""

    HELP: str
    DESCRIPTION: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int: ...


# Each subcommand's name and module, in the order --help lists them.
_COMMANDS: tuple[tuple[str, _Command], ...] = (
    ("check", check),
    ("report", report),
    ("fix", fix),
    ("explain", explain),
    ("init", init),
    ("lsp", lsp),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; on a closed pipe (``rpcsurface check | head -1``), stop quietly.

    Python ignores SIGPIPE, so a write to a pipe nobody reads raises BrokenPipeError,
    and the flush at exit would print a second error. As Python's documentation of
    signal recommends, the error is caught and stdout pointed at devnull; SIGPIPE's
    default action is not restored, since it would kill ``fix`` in the middle of its work.
    """
    try:
        try:
            status = _run(argv)
        finally:  # --help and --version end in SystemExit: their output is flushed too
            sys.stdout.flush()  # a closed pipe shows up here at the latest, not at exit
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
    return status


def console_main() -> NoReturn:
    """The ``rpcsurface`` console script: :func:`main`, then end the process at once.

    By then every file the command writes (the store, ``fix``'s and ``init``'s edits) is
    written and closed, and its output is flushed here. What is left is tearing down what
    the analysis built, astroid's trees above all: 40% of a cold run's CPU on LMDeploy 0.7.3,
    for a process about to end anyway. Only the console script does this: pylint's
    process, where other checkers run, and callers of :func:`main` keep their exit.
    """
    try:
        status = main()
    except SystemExit as stop:  # --help, --version and argparse's usage errors
        status = _exit_status(stop.code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to lose
            stream.flush()
    os._exit(status)


def _exit_status(code: object) -> int:
    """The status Python's own exit gives for ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _run(argv: Sequence[str] | None) -> int:
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
    for name, command in _COMMANDS:
        parser_of_command = commands.add_parser(
            name, help=command.HELP, description=command.DESCRIPTION
        )
        command.add_arguments(parser_of_command)
        parser_of_command.set_defaults(run=command.run)
    return parser

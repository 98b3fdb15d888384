"""``rpcsurface explain [SYMBOL|ID]``: a message's page, from the installed package.

Every message text ends with ``(rpcsurface explain <symbol>)``, so this is where a user
lands from a finding, in any project. The page is the one docs/gen_messages.py generated
into the package (``MessageSpec.page``), printed as it is. Without an argument, one line
per message: its id, its symbol and what it reports, like ``pylint --list-msgs``.

Nothing here imports astroid or pylint: reading a page costs a file read, not an analyser.
"""

from __future__ import annotations

import argparse
import difflib
import re
from typing import TextIO

from pylint_rpcsurface.commands.projects import EXIT_CLEAN, UsageError
from pylint_rpcsurface.messages import MESSAGES, MessageSpec

# The end of a description's first sentence: a full stop before a space.
_SENTENCE_END = re.compile(r"(?<=\.)\s")


HELP = "print a message's page: what it does, why it is bad, an example, the fix"
DESCRIPTION = (
    "Print the page of a message, by symbol (rpc-unlisted) or id (W7701, "
    "in any case). Without one, list every message: id, symbol and what it reports."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``rpcsurface explain`` takes."""
    parser.add_argument(
        "message",
        nargs="?",
        metavar="SYMBOL|ID",
        help="a message symbol or id; omit it to list every message",
    )


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    del err
    if arguments.message is None:
        out.write(listing())
    else:
        out.write(named(arguments.message).page.read_text("utf-8"))
    return EXIT_CLEAN


def named(given: str) -> MessageSpec:
    """The message *given* names, by symbol or id, in any case; a usage error that
    suggests the closest names otherwise."""
    wanted = given.strip().casefold()
    # Each name casefolded, to the message it names; the casefolded form is what
    # difflib compares, the original what the error shows.
    by_name = {
        name.casefold(): (name, spec) for spec in MESSAGES for name in (spec.symbol, spec.msgid)
    }
    if wanted in by_name:
        return by_name[wanted][1]
    close = [by_name[name][0] for name in difflib.get_close_matches(wanted, by_name, n=3)]
    hint = f"; did you mean {_alternatives(close)}?" if close else ""
    example = MESSAGES[0]
    raise UsageError(
        f"no message {given!r} (expected a symbol like {example.symbol} "
        f"or an id like {example.msgid}, as listed by rpcsurface explain{hint})"
    )


def _alternatives(names: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def listing() -> str:
    """One line per message: id, symbol, and the first sentence of its description."""
    width = max(len(spec.symbol) for spec in MESSAGES)
    lines = []
    for spec in MESSAGES:
        summary = summary_of(spec)
        if not spec.default_enabled:
            summary += " Off by default."
        lines.append(f"{spec.msgid}  {spec.symbol:<{width}}  {summary}\n")
    return "".join(lines)


def summary_of(spec: MessageSpec) -> str:
    """What *spec* reports, in one line: its description's first sentence."""
    return _SENTENCE_END.split(" ".join(spec.description.split()), maxsplit=1)[0]

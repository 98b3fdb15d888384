"""pylint's pragmas for our messages, read as pylint reads them, without importing pylint.

``rpcsurface check``, ``report`` and ``fix`` must silence exactly the findings pylint
silences, and the warm cache path may import neither pylint nor astroid, so the state is
computed here, with the analysis, and cached with each finding (``Finding.pragma``).

The semantics are pylint's (``pylint/utils/pragma_parser.py``, the ``process_tokens``
of ``pylint/lint/message_state_handler.py`` and ``pylint/utils/file_state.py``, pylint
4), re-expressed here on the same astroid tree pylint builds:

* a ``# pylint:`` comment holds ``disable=``, ``enable=``, ``disable-next=`` (each with
  symbols, ids, the checker name ``rpcsurface``, a category letter or ``all``), and
  ``skip-file`` (``disable-all``, and ``disable=all``, mean the same: pylint skips the file);
* ``disable``/``enable`` apply from their line to the end of the innermost block around
  it: a line of its own, or one that ends a statement; ``disable-next`` applies to the
  next line only. A late pragma in a ``def``, ``class`` or the module also re-enables the
  lines of that block before it, as pylint does.

tests/test_pragmas.py compares the result with real pylint on a table of placements.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator, Mapping

from astroid import nodes

from pylint_rpcsurface.messages import symbols_named

# The comment pylint takes for a pragma, and its tokens (as pylint/utils/pragma_parser.py).
_OPTION = re.compile(
    r"""(?:^\s*\#.*|\s*|\s*\#.*(?=\#.*?\bpylint:))(\#.*?\bpylint:\s*([^;#\n]+))[;#]{0,1}""",
)
_ATOMIC = frozenset({"disable-all", "skip-file"})
_WITH_MESSAGES = frozenset({"disable-next", "disable-msg", "enable-msg", "disable", "enable"})
_KEYWORDS = "|".join(sorted(_ATOMIC | _WITH_MESSAGES, key=len, reverse=True))
_TOKEN = re.compile(
    rf"(?P<KEYWORD>\b({_KEYWORDS})\b)|(?P<MESSAGE_STRING>[0-9A-Za-z\-\_]{{2,}})"
    r"|(?P<ASSIGN>=)|(?P<MESSAGE_NUMBER>[CREIWF]{1}\d*)"
)
Lines = dict[int, bool]


class _BadPragma(Exception):
    """pylint reports it (bad-inline-option, unrecognized-inline-option) and goes on."""


def _parse(text: str) -> Iterator[tuple[str, list[str]]]:
    """(action, names) for each pragma of *text*, until one is malformed."""
    action: str | None = None
    names: list[str] = []
    needs_assign = False
    previous = ""
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup, match.group()
        if kind == "ASSIGN":
            if not needs_assign:
                raise _BadPragma(value)
            needs_assign = False
        elif needs_assign:
            raise _BadPragma(value)
        elif kind == "KEYWORD":
            if action:
                yield _checked(action, names)
            action, names = value, []
            needs_assign = action in _WITH_MESSAGES
        else:
            names.append(value)
            needs_assign = False
        previous = value
    if not action:
        raise _BadPragma(previous)
    yield _checked(action, names)


def _checked(action: str, names: list[str]) -> tuple[str, list[str]]:
    if not names and action in _WITH_MESSAGES:
        raise _BadPragma(action)
    return action, names


class FileStates:
    """Each of our messages' state, line by line, after a module's pragmas."""

    def __init__(self, module: nodes.Module, text: str) -> None:
        self.module = module
        self.skipped = False
        self.states: dict[str, Lines] = {}
        self._read(text)

    def state(self, symbol: str, line: int) -> bool | None:
        """False silenced, True enabled by a pragma, None: no pragma decides here."""
        if self.skipped:
            return False
        return self.states.get(symbol, {}).get(line)

    def _read(self, text: str) -> None:
        if not may_hold_pragmas(text):
            return  # tokenizing is the costly part
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError):
            return  # pylint reports the syntax error and lints nothing else
        previous_line = None
        saw_newline = seen_newline = True
        for kind, content, start, _, _ in tokens:
            if previous_line and previous_line != start[0]:
                saw_newline, seen_newline = seen_newline, False
            previous_line = start[0]
            if kind in (tokenize.NL, tokenize.NEWLINE):
                seen_newline = True
            if kind != tokenize.COMMENT:
                continue
            match = _OPTION.search(content)
            if match is None:
                continue
            # After a backslash continuation the pragma belongs to the line before.
            line = start[0] if saw_newline else start[0] - 1
            try:
                for action, names in _parse(match.group(2)):
                    if action in _ATOMIC or (action == "disable" and "all" in names):
                        self.skipped = True  # pylint lints nothing of this file
                        return
                    self._apply(action, names, line)
            except _BadPragma:
                continue

    def _apply(self, action: str, names: list[str], line: int) -> None:
        enable = action in ("enable", "enable-msg")
        for name in names:
            for symbol in symbols_named(name):
                if action == "disable-next":
                    self._set_line(symbol, line + 1, False)
                else:
                    self._set_block(self.module, symbol, {line: enable})

    def _set_line(self, symbol: str, line: int, state: bool) -> None:
        self.states.setdefault(symbol, {})[line] = state

    def _set_block(self, node: nodes.NodeNG, symbol: str, lines: Lines) -> None:
        """Depth first: the innermost node holding a pragma's line takes it."""
        if node.lineno != node.end_lineno:
            for child in node.get_children():
                self._set_block(child, symbol, lines)
        if isinstance(node, (nodes.Module, nodes.ClassDef, nodes.FunctionDef)) and node.body:
            first_child = node.body[0].fromlineno
        else:
            first_child = node.tolineno
        self._set_in_block(node, symbol, lines, first_child)

    def _set_in_block(
        self, node: nodes.NodeNG, symbol: str, lines: Lines, first_child: int
    ) -> None:
        known = self.states.get(symbol, {})
        for pragma_line, given in list(lines.items()):
            if not node.fromlineno <= pragma_line <= node.tolineno:
                continue
            state = True if pragma_line > first_child else given
            first, last = node.block_range(pragma_line)
            if first == node.fromlineno and first >= first_child and node.fromlineno in known:
                first = pragma_line
            is_module = isinstance(node, nodes.Module)
            for line in range(first, last + 1):
                before = (
                    node.fromlineno <= line < pragma_line
                    if is_module
                    else node.fromlineno < line < pragma_line
                )
                if before and line in known:
                    continue
                if line in lines:
                    state = lines[line]
                self._set_line(symbol, line, state)
                known = self.states[symbol]
            del lines[pragma_line]


def may_hold_pragmas(text: str) -> bool:
    """Whether *text* may hold a pragma: every one has ``pylint:`` (see _OPTION). A text
    without it gives every message no state, whatever its module holds."""
    return "pylint:" in text


def pragma_states(
    module: nodes.Module, text: str, wanted: Mapping[str, frozenset[int]]
) -> dict[tuple[str, int], bool | None]:
    """The pragma state of each (symbol, line) in *wanted* (symbol -> lines)."""
    states = FileStates(module, text)
    return {
        (symbol, line): states.state(symbol, line)
        for symbol, lines in wanted.items()
        for line in lines
    }

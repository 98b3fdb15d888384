"""Whether a proxy reply handed back by ``return`` is read: settled over the project's
callers of the function that returns it (:class:`ReplyReads`).

The reply is read when a call of that function reads its value, or hands it back in
turn from a function whose callers read it, however deep (each function once, so a
cycle ends). Callers are searched for by the function's name in every file of the
project that holds it as a word (:mod:`.words_index`), and each file's calls are one
piece (:meth:`.queries.Queries.call_fates`), which an edit of that file alone recomputes.

A function with no caller in the project that reads the value hands it to nobody the
project shows: the reply is not read (a finding would rest on a reader nobody can see).
"""

from __future__ import annotations

from dataclasses import replace

from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.engine.queries import Queries
from pylint_rpcsurface.engine.words_index import WordSearch
from pylint_rpcsurface.model import Location, ProxyCall

__all__ = ["ReplyReads"]

# How many functions a reply is followed through before it counts as read, as it did
# before the callers were followed: a bound on the search, never reached by a real chain.
_MAX_FUNCTIONS = 64

Function = tuple[str, Location]


class ReplyReads:
    """The callers' verdicts of one run, each function's settled once."""

    def __init__(self, store: ModuleStore, queries: Queries, words: WordSearch) -> None:
        self.store = store
        self.queries = queries
        self.words = words
        self._read: dict[Function, tuple[bool, Location | None]] = {}

    def settled(self, call: ProxyCall) -> ProxyCall:
        """*call*, whose waited reply is read only if its returning function's callers
        read it, with the first place (by path and line) that does."""
        target = call.returned_by
        if target is None or call.waited is not True or not call.reply_used:
            return call
        read, where = self.read(target)
        return replace(call, reply_used=read, read_at=where)

    def read(self, target: Function) -> tuple[bool, Location | None]:
        """Whether some caller of *target*, or of a function that returns what *target*
        returns, reads the value, and the first call that does (None when the search
        stopped at its bound)."""
        if target not in self._read:
            self._read[target] = self._search(target)
        return self._read[target]

    def _search(self, target: Function) -> tuple[bool, Location | None]:
        readers: list[Location] = []
        pending = [target]
        seen = {target}
        while pending:
            function = pending.pop()
            for fate, where in self._fates(function):
                if fate is True:
                    if where is None:
                        return True, None
                    readers.append(where)
                elif isinstance(fate, tuple) and fate not in seen:
                    if len(seen) >= _MAX_FUNCTIONS:
                        return True, None
                    seen.add(fate)
                    pending.append(fate)
        return (True, min(readers)) if readers else (False, None)

    def _fates(self, function: Function) -> list[tuple[bool | Function, Location | None]]:
        """What becomes of the value of each call of *function* in the project, and
        where the call is."""
        name = function[0]
        found: list[tuple[bool | Function, Location | None]] = []
        for path in self.store.python_files():
            if self.store.unreadable(path) is not None:
                continue
            if name in self.words.searched(path, {name})[1]:
                found.extend(self.queries.call_fates(path, function))
        return found

"""The memo's word index: which of the searched words each file version holds.

The memo keeps the word search's records in one piece, the word index, rather than one
piece a file: a run asks for every file's record, and one piece is read, checked and
written once instead of five hundred times (and the words asked, the same for nearly
every file, are written once). Each file's record holds while the file's content hash is
the one recorded. Its value: the word sets asked (each space-separated: they are
identifiers), then for each file, sorted by path, (path, content hash, the index of the
words asked of it, the words it holds, space-separated, why it can't be decoded or None).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.analysis.subclass_search import Searched
from pylint_rpcsurface.analysis.subclasses import WordGroups, word_groups, words_held
from pylint_rpcsurface.engine.memo import Memo

__all__ = ["WORDS_KEY", "WordSearch", "WordsIndex", "WordsIndexShape", "words_index_value"]
WORDS_KEY = json.dumps(["words-index"])
WordsIndexShape = tuple[tuple[str, ...], tuple[tuple[str, str, int, str, str | None], ...]]


class WordsIndex:
    """The stored word index, by path; each record decoded when asked."""

    def __init__(self, stored: Any) -> None:
        asked_sets, records = stored
        self._asked = [frozenset(str(words).split()) for words in asked_sets]
        self._held: dict[str, frozenset[str]] = {"": frozenset()}
        self._raw = {
            str(path): (digest, index, held, why) for path, digest, index, held, why in records
        }

    def paths(self) -> set[str]:
        """The files the stored index has a record of."""
        return set(self._raw)

    def known(self, path: str, digest: str) -> Searched | None:
        """The record of *path*'s version whose content hash is *digest*, if stored."""
        stored = self.stored(path)
        if stored is None or stored[0] != digest:
            return None
        return stored[1]

    def stored(self, path: str) -> tuple[str, Searched] | None:
        """The stored record of *path*, with the content hash it holds for."""
        raw = self._raw.get(path)
        if raw is None or not 0 <= raw[1] < len(self._asked):
            return None
        digest, index, held, why = raw
        if held not in self._held:
            self._held[held] = frozenset(held.split())
        return digest, (self._asked[index], self._held[held], why)


def words_index_value(records: Mapping[str, tuple[str, Searched]]) -> Any:
    """The memo's value of the word index holding *records* (path: hash, record)."""
    asked_sets: dict[str, int] = {}
    rows = []
    for path in sorted(records):
        digest, (asked, held, why) = records[path]
        words = " ".join(sorted(asked))
        index = asked_sets.setdefault(words, len(asked_sets))
        rows.append((path, digest, index, " ".join(sorted(held)), why))
    return (tuple(asked_sets), tuple(rows))


class WordSearch:
    """The subclass search's word look-ups over one run, from the memo's word index.

    A file's record is kept for each file version, grown as rounds ask new words: a file
    unchanged since an earlier run that asked the same words is not read at all."""

    def __init__(self, store: ModuleStore, memo: Memo, buffers: frozenset[str]) -> None:
        self.store = store
        self.memo = memo
        self.buffers = buffers
        self._records: dict[str, Searched] = {}
        self._index: WordsIndex | None = None  # the memo's, read on first use
        self._changed = False
        self._groups: dict[frozenset[str], WordGroups] = {}  # each round's
        # The files whose text this run searched (no record held for their version).
        self.texts_searched: set[str] = set()

    def searched(self, path: str, words: set[str]) -> Searched:
        """What the word search knows of *path*'s text: the words asked of it, those of
        them it holds as whole words, and why it can't be decoded (or None)."""
        searched = self._records.get(path)
        if searched is None:
            searched = self._stored_index().known(path, self.store.digest(path))
            if searched is None:
                searched = self._search(path, frozenset(words))
                self._changed = True
        if not searched[0].issuperset(words):
            # Only the new words are looked for: the record already says which earlier
            # ones the text holds.
            asked, held, undecodable = searched
            grown = self._search(path, frozenset(words) - asked)
            searched = (asked | grown[0], held | grown[1], undecodable)
            self._changed = True
        # Asked again in each round of the search: kept for the run, decoded once.
        self._records[path] = searched
        return searched

    def _stored_index(self) -> WordsIndex:
        if self._index is None:
            stored = self.memo.get(WORDS_KEY, lambda: ((), ()), WordsIndexShape)
            self._index = WordsIndex(stored)
        return self._index

    def keep(self) -> None:
        """Put this run's word index in the memo, if a record changed: each file's
        record as searched, but an unsaved buffer's, whose saved file's record stays."""
        if self._index is None:
            return
        if not self._changed and self._index.paths() <= self._records.keys():
            return  # the stored index, as read (memo.get keeps it)
        records = {
            path: (self.store.digest(path), searched)
            for path, searched in self._records.items()
            if path not in self.buffers
        }
        for path in self.buffers:
            saved = self._index.stored(path)
            if saved is not None:
                records[path] = saved
        self.memo.put(WORDS_KEY, words_index_value(records))

    def _search(self, path: str, words: frozenset[str]) -> Searched:
        self.texts_searched.add(path)
        # A subclass may name its base in another spelling of the same name (fullwidth).
        text = self.store.names_text(path)
        if words not in self._groups:
            self._groups[words] = word_groups(words)
        held = words_held(text, self._groups[words])
        return (words, held, self.store.undecodable(path))

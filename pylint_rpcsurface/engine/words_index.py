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

__all__ = ["WORDS_KEY", "Searched", "WordsIndex", "WordsIndexShape", "words_index_value"]

# A file's record: the words asked of it, those it holds, why it can't be decoded.
Searched = tuple[frozenset[str], frozenset[str], str | None]
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

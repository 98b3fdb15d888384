"""Branches a caller never runs: a call under ``if not self.X:`` (or ``if self.X:``, or
after ``if self.X: return``) made by a class whose every binding of ``X`` is a constant
of the other truth.

verl's ``RayPPOTrainer`` sets ``self.async_rollout_mode = True`` and calls under ``if not
self.async_rollout_mode:``; two of its subclasses set it ``False``, and for them the
branch runs. So it is settled per caller class: the bindings of the code that class runs
as its own (:meth:`.queries.Queries.attribute_truths`), and nowhere in the project an
assignment of ``X`` on anything but ``self`` (``trainer.X = ...``, ``setattr``), which
could change it on that class's instances. A call in such a branch is not judged for
that caller, which is no claim: it is judged for every caller that may run it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.config.expressions import canonical
from pylint_rpcsurface.engine.queries import Queries, Ref
from pylint_rpcsurface.engine.words_index import WordSearch

__all__ = ["SettledBranches"]

# An attribute named in a condition's syntax tree (``ast.dump``'s ``attr='X'``).
_ATTRIBUTE = re.compile(r"attr='(?P<name>[A-Za-z_]\w*)'")
# What may change an attribute of any object, its name given as a string.
_DYNAMIC = ("setattr", "__dict__")
# Ends with ``self`` as a whole name: the receiver of the attribute that follows.
_SELF_BEFORE = re.compile(r"(?<![\w.])self\s*$")


class SettledBranches:
    """Whether a caller class never runs the calls under some conditions."""

    def __init__(
        self,
        queries: Queries,
        store: ModuleStore,
        words: WordSearch,
        family: Mapping[str, tuple[Ref, frozenset[str]]],
    ) -> None:
        self.queries = queries
        self.store = store
        self.words = words
        self.family = family
        self._elsewhere: dict[str, bool] = {}

    def never_runs(self, caller: str, conditions: Sequence[str]) -> bool:
        """Whether the class *caller* never runs a call made under *conditions*."""
        wanted: dict[str, bool] = {}  # each attribute tested, and the truth it must have
        for condition in conditions:
            for match in _ATTRIBUTE.finditer(condition):
                name = match["name"]
                if condition == canonical(f"self.{name}"):
                    wanted[name] = True
                elif condition == canonical(f"not self.{name}"):
                    wanted[name] = False
        ref, _ = self.family.get(caller, (None, frozenset()))
        if not wanted or ref is None:
            return False  # no such test, or a function caller
        return any(
            truth is not None and truth != wanted[name] and not self._assigned_elsewhere(name)
            for name, truth in self.queries.attribute_truths(ref, sorted(wanted))
        )

    def _assigned_elsewhere(self, name: str) -> bool:
        """Whether some file may assign the attribute *name* on something but ``self``
        (or can't be read to say)."""
        if name not in self._elsewhere:
            self._elsewhere[name] = any(
                self._file_assigns(path, name) for path in self.store.python_files()
            )
        return self._elsewhere[name]

    def _file_assigns(self, path: str, name: str) -> bool:
        if self.store.unreadable(path) is not None:
            return True
        _, held, undecodable = self.words.searched(path, {name})
        if undecodable is not None:
            return True
        if name not in held:
            return False
        text = self.store.text(path)
        if any(word in text for word in _DYNAMIC):
            return True
        # ``.X =``, ``.X += `` (any augmented operator), ``.X: T = ``.
        assignment = re.compile(
            rf"\.\s*{re.escape(name)}\s*"
            r"(?:=(?!=)|(?:<<|>>|\*\*|//|[-+*/%&|^@])=|:[^\n#]*[^=!<>]=(?!=))"
        )
        return any(
            _SELF_BEFORE.search(text[max(0, match.start() - 64) : match.start()]) is None
            for match in assignment.finditer(text)
        )

"""What each caller broadcasts: its own code's dispatch calls and its helpers', each
code read once however many callers run it."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import replace

from astroid import nodes

from pylint_rpcsurface.analysis.broadcasts import (
    Code,
    calls_in,
    dispatch_calls,
    not_a_named_rpc,
    own_code,
    read_broadcast,
)
from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.helper_calls import helper_calls, reached_helpers
from pylint_rpcsurface.analysis.inference import location_of
from pylint_rpcsurface.analysis.reads import ReadRecorder, Reads
from pylint_rpcsurface.config import DispatchForm
from pylint_rpcsurface.model import Broadcast, HelperStep, Location

__all__ = ["BroadcastCollector", "chain_order"]


class BroadcastCollector:
    """Reads each method's dispatch calls once, however many callers inherit it.

    A class caller runs its own methods (:func:`own_code`); a function caller runs its
    own body, and has no subclasses.

    A method's broadcasts include those of the helpers it calls (within ``depth``
    calls), each marked with the chain of helper calls that leads to it. Calls that pass
    the name through from a parameter, or send a callable, are not named RPCs: left out.
    """

    def __init__(
        self,
        forms: Mapping[str, DispatchForm],
        index: ClassIndex,
        depth: int,
        reads: ReadRecorder,
    ) -> None:
        self.forms = dict(forms)
        self.index = index
        self.depth = depth
        self.reads = reads
        # Each kept with what computing it read (ReadRecorder.cached): a piece that
        # reuses it read that too.
        self._direct: dict[Hashable, tuple[list[Broadcast], Reads]] = {}
        self._calls: dict[Hashable, tuple[list[tuple[nodes.FunctionDef, HelperStep]], Reads]] = {}
        self._supers: dict[Hashable, tuple[list[Code], Reads]] = {}
        # Each code's calls, walked once for its dispatch calls, helpers and super().
        self._call_nodes: dict[Hashable, tuple[list[nodes.Call], Reads]] = {}

    def of_caller(self, caller: nodes.ClassDef | nodes.FunctionDef) -> tuple[list[Broadcast], bool]:
        if isinstance(caller, nodes.FunctionDef):
            codes: list[Code] = [caller]
            complete = True
        else:
            order, complete = self.index.linearize(caller)
            codes = self.reads.cached(
                self._supers, tuple(map(id, order)), lambda: own_code(order, None, self._calls_in)
            )
        own = frozenset(id(code) for code in codes)
        found: list[Broadcast] = []
        for code in codes:
            found.extend(self._read(code))
            for helper, chain in reached_helpers(code, self.depth, self._helper_calls, own):
                found.extend(self._via(self._read(helper), chain))
        return found, complete

    def _read(self, code: Code) -> list[Broadcast]:
        def compute() -> list[Broadcast]:
            fallback = location_of(code) or Location(code.root().file or "", 1, 0, None, None)
            return [
                read_broadcast(call, form, fallback)
                for call, form in dispatch_calls(code, self.forms, self._calls_in(code))
                if not not_a_named_rpc(call, form)
            ]

        return self.reads.cached(self._direct, id(code), compute)

    def _helper_calls(self, code: Code) -> list[tuple[nodes.FunctionDef, HelperStep]]:
        """The helper calls of *code*, inferred once however many callers run it."""
        tree = self.index.store.tree
        return self.reads.cached(
            self._calls, id(code), lambda: list(helper_calls(code, tree, self._calls_in(code)))
        )

    def _calls_in(self, code: Code) -> list[nodes.Call]:
        # Read from the code's body, wherever it is.
        self.reads.node(code.body[0] if isinstance(code, nodes.FunctionDef) else code.body)
        return self.reads.cached(self._call_nodes, id(code), lambda: calls_in(code))

    @staticmethod
    def _via(broadcasts: list[Broadcast], chain: tuple[HelperStep, ...]) -> list[Broadcast]:
        return [replace(broadcast, via=chain) for broadcast in broadcasts]


def chain_order(chain: tuple[HelperStep, ...]) -> tuple[int, list[tuple[Location, str]]]:
    return len(chain), [(step.call, step.name) for step in chain]

"""What the discovery's parts read the project with, named here so that they import it
from below and :mod:`.core`, which builds them, imports them: never the other way.

:class:`~pylint_rpcsurface.discovery.core.Discovery` is each of these readers; a part
(:mod:`.callers`, :mod:`.table_surfaces`) is given it and names only what it asks of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

from astroid import nodes

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.discovery.evidence import Found, Receivers
from pylint_rpcsurface.discovery.reading import Group, Sender, Site, Worker
from pylint_rpcsurface.discovery.workers import WorkerSide

# name -> (function, its name parameter, the getattr) of each run_method-shaped helper.
RunMethodHelpers = dict[str, tuple[nodes.FunctionDef, str, nodes.Call]]
# What a dispatch reaches: the classes its own lookups do, and per worker loop linked to
# it, the loop's top (function or class) and the classes the loop's object is bound to.
ReceiveSide = tuple[Found, list[tuple[nodes.NodeNG, Found]]]


@dataclass
class CallerHierarchies:
    """The callers' hierarchies, each by the id of its root: the root, the names its
    sites send, its first site, and its sites by group index."""

    roots: dict[int, nodes.ClassDef | nodes.FunctionDef] = field(default_factory=dict)
    names_of: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    first_site: dict[int, Site] = field(default_factory=dict)
    groups_of: dict[int, dict[int, list[Site]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )


class ProjectReader(Protocol):
    """Where a node is, its name, and the notes the proposal carries."""

    @property
    def notes(self) -> list[str]:
        """What ``init`` shows beside the table: each thing it left out, and why."""

    def where(self, node: nodes.NodeNG) -> str:
        """``file:line`` of *node*, relative to the project."""

    def qualname(self, node: nodes.ClassDef | nodes.FunctionDef) -> str:
        """The dotted name the configuration writes *node* as."""


class CallerReader(ProjectReader, Protocol):
    """What :class:`~pylint_rpcsurface.discovery.callers.CallerSplit` reads a caller
    hierarchy's classes with, one class at a time."""

    @property
    def receivers(self) -> Receivers:
        """The classes an expression is bound to, as the current reading reads them."""

    def reading_as(self, exact: nodes.ClassDef, family: set[int]) -> AbstractContextManager[None]:
        """Every receiver read as in class *exact* alone (of the hierarchy *family*)
        until the block ends."""

    def receive_side(
        self,
        group: Group,
        workers: list[Worker],
        helpers: RunMethodHelpers,
        senders: list[Sender] | None = None,
    ) -> ReceiveSide:
        """The classes the group's dispatch (or its definitions *senders*) reaches."""

    def senders_for(
        self, caller: nodes.ClassDef | nodes.FunctionDef, group: Group, sites: list[Site]
    ) -> list[Sender]:
        """The definitions of the dispatch that *caller*'s call sites reach."""

    def proven(self, caller: nodes.ClassDef | nodes.FunctionDef, sides: list[ReceiveSide]) -> Found:
        """The classes the dispatches *caller* uses reach."""

    def among(self, proven: Found, names: set[str]) -> list[nodes.ClassDef]:
        """The handlers among the classes *proven* that answer some of *names*."""

    def admitted(self, chosen: list[nodes.ClassDef], proven: Found) -> list[nodes.ClassDef]:
        """The classes one annotation admits beside a chosen handler."""


class FlagReader(CallerReader, Protocol):
    """What :class:`~pylint_rpcsurface.discovery.flags.FlagSplits` reads a caller's
    receive side with, under each value of a flag."""

    def reading_with(self, receivers: Receivers) -> AbstractContextManager[None]:
        """Every receiver read by *receivers*, receive sides read afresh, until the
        block ends."""

    def answers(self, cls: nodes.ClassDef) -> frozenset[str]:
        """The names *cls* answers: the methods of its MRO."""


class TableReader(ProjectReader, Protocol):
    """What :class:`~pylint_rpcsurface.discovery.table_surfaces.TableSurfaces` reads the
    tables a dispatch answers from, and their callers, with."""

    @property
    def calls(self) -> Mapping[str, list[nodes.Call]]:
        """The project's calls, by the name called."""

    def names(self, code: nodes.NodeNG, target: nodes.NodeNG) -> bool:
        """Whether *code* names *target* (a module-level function or class)."""

    def caller_hierarchies(self, groups: list[Group]) -> CallerHierarchies:
        """The sites' owners by the root of their hierarchy among them."""


class PayloadReader(ProjectReader, Protocol):
    """What :class:`~pylint_rpcsurface.discovery.payload.PayloadKeys` reads the handlers
    and the worker loops' calls of them with."""

    @property
    def classes(self) -> list[nodes.ClassDef]:
        """The project's module-level classes."""

    @property
    def index(self) -> ClassIndex:
        """The classes' MROs."""

    @property
    def worker_side(self) -> WorkerSide:
        """The worker loops: what each function receives."""

    def names(self, code: nodes.NodeNG, target: nodes.NodeNG) -> bool:
        """Whether *code* names *target* (a module-level function or class)."""


class HandlerReader(ProjectReader, Protocol):
    """What :func:`~pylint_rpcsurface.discovery.unproven.forwarded` reads a handler that
    passes the names it lacks on (``__getattr__``) with."""

    @property
    def receivers(self) -> Receivers:
        """The classes an expression is bound to."""

    @property
    def index(self) -> ClassIndex:
        """The classes' MROs."""

    def answers(self, cls: nodes.ClassDef) -> frozenset[str]:
        """The names *cls* answers: the methods of its MRO."""


class ProxyReader(ProjectReader, Protocol):
    """What :class:`~pylint_rpcsurface.discovery.ray_proxies.RayProxies` reads the actor
    handles the classes keep with."""

    @property
    def calls(self) -> Mapping[str, list[nodes.Call]]:
        """The project's calls, by the name called."""

    @property
    def receivers(self) -> Receivers:
        """The classes an expression is bound to."""

    @property
    def index(self) -> ClassIndex:
        """The classes' MROs."""

    def answers(self, cls: nodes.ClassDef) -> frozenset[str]:
        """The names *cls* answers: the methods of its MRO."""

"""What ``rpcsurface init`` reads: the dispatch surface of a project, found in its code.

Nothing is imported: every fact comes from astroid's reading of the source under the roots.

* **Senders.** A function or method whose parameter *p* reaches a send: an argument of a
  queue, pipe or socket call (``put``, ``send``, ``enqueue`` ...), of ``getattr(x, p)
  .remote(...)`` (a Ray actor), of a call to a run_method-shaped helper (a function whose
  parameter is looked up with ``getattr`` and called), or of another sender, where *p*
  lands on that sender's parameter and the call is proven to call it (:mod:`.forwards`).
  Confirmed by its call sites: the string literals passed where *p* goes are mostly the
  method names of one class, or some are answered by a class its receive side reaches.
* **Handlers** only on structural evidence (:mod:`.evidence`): the object the received name
  is looked up on is bound to the class in the code (inferred, constructed, assigned,
  annotated, passed in, an actor made from it). A class that only defines names sent is a
  candidate (:mod:`.unproven`), which init writes commented out, never active.
* **Waits.** From the sender's body: the receive (``get()``, ``recv()``, ``dequeue()``,
  ``ray.get``) is unconditional (always), guarded by a keyword (``if wait_out:``) or by
  its negation (``if non_block: return``).
* **The worker side.** ``getattr(obj, name[, None])`` where *name* is received, or is the
  parameter of a run_method-shaped helper: what happens to an unknown name (a skip or a
  raise) and to the reply (sent only ``if out is not None``; on one queue with no request
  id).
* **Callers** are the classes (and module-level functions) whose code passes literal
  names, as the roots of their hierarchies; a **registry** is a module-level constant whose
  elements are mostly names the surface sends and that the code tests names against or
  iterates.

Each fact carries its evidence (``file:line: what``). Where the evidence is ambiguous the
candidates are kept and no value is chosen: :mod:`pylint_rpcsurface.commands.init` writes
nothing for that key.

Only that command imports this package, never the checker. Which module reads what, and
the one way their imports run, is in docs/how-it-works.md ("The layers").
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.analysis.modules import BuildFailure, ModuleStore
from pylint_rpcsurface.discovery.core import Discovery
from pylint_rpcsurface.discovery.reading import (
    Choice,
    DispatchProposal,
    Proposal,
    ProxyProposal,
    SurfaceProposal,
)
from pylint_rpcsurface.sources import TEST_FOLDERS, SourceTree, shown_path

__all__ = [
    "Choice",
    "DispatchProposal",
    "Proposal",
    "ProxyProposal",
    "SurfaceProposal",
    "discover",
]


class Told(Protocol):
    """What :func:`discover` tells of its progress (``commands.progress.Progress``)."""

    def phase(self, text: str) -> None: ...

    def count(self, done: int, total: int) -> None: ...


def discover(project: Path, roots: tuple[Path, ...], told: Told | None = None) -> Proposal:
    """The proposal for the project in *project* whose modules live under *roots*;
    *told* is told its two phases (reading the files, counted, then finding).

    A file that can't be read or parsed is named in a note, first, with why: what it
    holds is in none of the proposal's proofs (every one of which reads the whole
    project), as pylint names a module it can't lint."""
    store = ModuleStore(SourceTree(roots))
    # Every module of the project is built and kept: the collector, walking astroid's
    # growing trees again at each burst of allocations, would take about 40% of the run.
    # The installed packages are not read: what init proposes is the same wherever it
    # runs, and astroid does not build a dependency for every class that derives from it.
    # The standard library's modules are built lean as the project's are: their
    # transforms and attribute inference took a fifth of init on LMDeploy 0.18.0. No
    # class or function gets astroid's position of its name: init writes lines alone.
    with (
        no_cyclic_collection(),
        store.resolving_imports(
            installed_packages=False, lean_standard_library=True, positions=False
        ),
    ):
        modules = []
        unread: list[str] = []
        paths = store.python_files()
        if told is not None:
            told.phase(f"reading {len(paths)} Python file{'s' * (len(paths) != 1)}")
        for done, path in enumerate(paths, 1):
            if not _is_test(
                Path(path).relative_to(project)
                if Path(path).is_relative_to(project)
                else Path(path)
            ):
                module = store.module(path)
                if module is not None:
                    modules.append(module)
                else:
                    unread.append(_unread_note(path, store.failure(path), project))
            if told is not None:
                told.count(done, len(paths))
        if told is not None:
            told.phase("finding the dispatch surface")
        proposal = Discovery(project, modules, ClassIndex(store)).run()
    return replace(proposal, notes=(*unread, *proposal.notes)) if unread else proposal


# --------------------------------------------------------------------------
# Small readers
# --------------------------------------------------------------------------


def _unread_note(path: str, failure: BuildFailure | None, project: Path) -> str:
    """What init says of the file *path* it could not build as a module."""
    line = failure.line if failure is not None and failure.line else 1
    reason = failure.reason if failure is not None else "not built"
    return (
        f"{shown_path(path, project)}:{line}: {reason}; no proof of this proposal sees what "
        "it holds (its classes, its calls, the values it assigns)"
    )


def _is_test(path: Path) -> bool:
    """A test module: its callers and doubles are not the project's surface."""
    name = path.name
    return (
        any(part in TEST_FOLDERS for part in path.parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )

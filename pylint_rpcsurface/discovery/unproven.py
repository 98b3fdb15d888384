"""The surfaces whose handlers the code doesn't prove: why, the classes a person may
confirm with their evidence, and what to confirm. ``init`` writes them commented out,
never active."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from astroid import nodes

from pylint_rpcsurface.discovery.readers import ProjectReader
from pylint_rpcsurface.discovery.reading import Site, SurfaceProposal

# Call sites named as a refused caller's evidence; the rest are counted.
_SITES_SHOWN = 3


def sending(
    reader: ProjectReader, root: nodes.ClassDef | nodes.FunctionDef, sites: Iterable[Site]
) -> tuple[tuple[str, str], ...]:
    """*root* as a caller, its evidence the call sites that send its names."""
    shown = sorted({f"{reader.where(site.call)} sends {site.name!r}" for site in sites})
    more = len(shown) - _SITES_SHOWN
    evidence = "; ".join(shown[:_SITES_SHOWN]) + (f" (and {more} more)" if more > 0 else "")
    return ((reader.qualname(root), evidence),)


def admitted_by_annotation(
    reader: ProjectReader, root: nodes.ClassDef | nodes.FunctionDef, admitted: list[nodes.ClassDef]
) -> SurfaceProposal:
    """*root*'s names looked up on an object whose annotation admits each of *admitted*."""
    caller = reader.qualname(root)
    return SurfaceProposal(
        name=root.name,
        callers=((caller, reader.where(root)),),
        handlers=(),
        refused=f"the names {caller} sends are looked up on an object whose "
        "annotation admits each of these classes, and nothing says which the "
        "workers hold",
        candidates=tuple(f"{reader.qualname(c)} ({reader.where(c)})" for c in admitted),
        unproven=tuple(
            (reader.qualname(c), f"{reader.where(c)}: the annotation admits it") for c in admitted
        ),
        confirm="which of these classes the workers hold: keep only those",
    )


def by_overlap(
    reader: ProjectReader,
    root: nodes.ClassDef | nodes.FunctionDef,
    names: set[str],
    listed: list[nodes.ClassDef],
    answers: Callable[[nodes.ClassDef], frozenset[str]],
) -> SurfaceProposal:
    """*root*'s names answered by the classes *listed*, which only share names with them:
    no code binds the object they are looked up on to a class."""
    caller = reader.qualname(root)
    shares = [f"answers {len(answers(c) & names)} of {len(names)} names sent" for c in listed]
    return SurfaceProposal(
        name=root.name,
        callers=((caller, reader.where(root)),),
        handlers=(),
        refused=f"the names {caller} sends: no code binds the object the names are looked "
        "up on to a class: candidates by overlap only (not written)",
        overlap=tuple(
            f"{reader.qualname(c)} {share} ({reader.where(c)})"
            for c, share in zip(listed, shares, strict=True)
        ),
        unproven=tuple(
            (reader.qualname(c), f"{reader.where(c)}: {share}, by overlap only")
            for c, share in zip(listed, shares, strict=True)
        ),
        confirm=(
            "that the objects the names are looked up on hold these classes (no code binds them)"
            if len(listed) == 1
            else "which of these classes the objects the names are looked up on hold "
            "(no code binds them): keep only those"
        ),
    )

"""The surfaces whose handlers the code doesn't prove: why, the classes a person may
confirm with their evidence, and what to confirm. ``init`` writes them commented out,
never active.

Beside them, the surfaces whose worker the code proves holds one of several classes,
not which (an annotation admits each): written active with ``one-of``, under which the
checker gives a message only where it holds whichever class the worker holds."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from astroid import nodes

from pylint_rpcsurface.discovery.evidence import Found
from pylint_rpcsurface.discovery.qualnames import NOT_COVERED
from pylint_rpcsurface.discovery.readers import HandlerReader, ProjectReader
from pylint_rpcsurface.discovery.reading import Site, SurfaceProposal, is_getattr

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
    """*root*'s names looked up on an object whose annotation admits each of *admitted*:
    the worker holds one of them, and nothing in the code says which (``one-of``)."""
    return SurfaceProposal(
        name=root.name,
        callers=((reader.qualname(root), reader.where(root)),),
        handlers=tuple(
            (reader.qualname(c), f"{reader.where(c)}: the annotation admits it") for c in admitted
        ),
        one_of="the names are looked up on an object whose annotation admits each of "
        f"these classes, and nothing in the code says which it holds; {NOT_COVERED}",
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


def forwarded(
    reader: HandlerReader,
    root: nodes.ClassDef | nodes.FunctionDef,
    chosen: list[nodes.ClassDef],
    names: set[str],
) -> SurfaceProposal | None:
    """*root*'s surface when a handler lacking some of *names* has a ``__getattr__`` that
    passes them on (vLLM's ``WorkerWrapperBase``: ``return getattr(self.worker, attr)``):
    those names are the forwarded-to object's to answer, and the handler alone would leave
    them unanswered. Where only an annotation says what that object holds (the code
    proving which classes makes them handlers instead, :func:`forwarded_classes`), the
    handler and each class it admits, ``one-of``; where nothing binds it, refused, the
    handler a candidate. None when no chosen handler forwards."""
    for handler in chosen:
        lacking = names - reader.answers(handler)
        hook = _getattr_hook(reader, handler)
        if not lacking or hook is None or forwarded_classes(reader, handler):
            continue
        target = _forwarded_to(hook)
        held = [] if target is None else [c for c, _ in reader.receivers.instances(target).values()]
        caller = reader.qualname(root)
        onto = "an object" if target is None else target.as_string()
        forwarding = (reader.qualname(handler), f"{reader.where(hook)}: forwards what it lacks")
        if held:
            return SurfaceProposal(
                name=root.name,
                callers=((caller, reader.where(root)),),
                handlers=(
                    forwarding,
                    *(
                        (reader.qualname(c), f"{reader.where(c)}: {onto} may hold it")
                        for c in sorted(held, key=reader.qualname)
                    ),
                ),
                one_of=f"{reader.qualname(handler)}.__getattr__ ({reader.where(hook)}) passes "
                f"the {len(lacking)} names it lacks on to {onto}, whose annotation admits "
                f"each of the others, and nothing in the code says which it holds; {NOT_COVERED}",
            )
        return SurfaceProposal(
            name=root.name,
            callers=((caller, reader.where(root)),),
            handlers=(),
            refused=f"the names {caller} sends reach {reader.qualname(handler)}, whose "
            f"__getattr__ ({reader.where(hook)}) passes the {len(lacking)} it lacks on to "
            f"{onto}, and nothing says which class that holds",
            candidates=(f"{reader.qualname(handler)} ({reader.where(handler)})",),
            unproven=(forwarding,),
            confirm=f"which classes {onto} holds: add them beside {reader.qualname(handler)}",
        )
    return None


def with_forwarded(reader: HandlerReader, proven: Found) -> Found:
    """*proven* and, for each of its classes passing the names it lacks on to an object
    the code binds (vLLM's ``WorkerWrapperBase`` and its worker), that object's classes:
    they answer those names."""
    extended = dict(proven)
    for cls, _ in proven.values():
        for key, held in forwarded_classes(reader, cls).items():
            extended.setdefault(key, held)
    return extended


def forwarded_classes(reader: HandlerReader, cls: nodes.ClassDef) -> Found:
    """The classes *cls*'s ``__getattr__`` passes the names it lacks on to, when the
    code proves which (the object's bindings construct it, as ``self.worker =
    worker_class(**kwargs)`` from strings naming the project's workers), each with its
    evidence; none when it has no such hook, or when only an annotation says what the
    object holds (some subclass, not which)."""
    hook = _getattr_hook(reader, cls)
    target = None if hook is None else _forwarded_to(hook)
    if hook is None or target is None:
        return {}
    held = reader.receivers.instances(target)
    if any(": annotated " in evidence for _, evidence in held.values()):
        return {}
    onto = target.as_string()
    return {
        key: (
            held_cls,
            f"{reader.where(hook)}: {cls.name}.__getattr__ passes the names it lacks on "
            f"to {onto}, bound by {evidence}",
        )
        for key, (held_cls, evidence) in held.items()
    }


def _getattr_hook(reader: HandlerReader, cls: nodes.ClassDef) -> nodes.FunctionDef | None:
    """The ``__getattr__`` *cls* or a project base defines, or None."""
    for klass in reader.index.linearize(cls)[0]:
        for binding in klass.locals.get("__getattr__", []):
            if isinstance(binding, nodes.FunctionDef):
                return binding
    return None


def _forwarded_to(hook: nodes.FunctionDef) -> nodes.NodeNG | None:
    """X in the hook's ``return getattr(X, <its parameter>)``, or None."""
    params = [a.name for a in hook.args.args or []]
    for node in hook.nodes_of_class(nodes.Return):
        value = node.value
        if (
            is_getattr(value)
            and len(params) == 2
            and isinstance(value.args[1], nodes.Name)
            and value.args[1].name == params[1]
        ):
            return value.args[0]
    return None

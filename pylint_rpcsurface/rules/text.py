"""The words every rule's messages share: class lists, ``path:line``, who broadcasts;
and :func:`safe_name`, which every front end passes what it prints through."""

from __future__ import annotations

import os
from collections.abc import Iterable

from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.model import CallerBroadcast, Finding, Location, SurfaceFacts

# Who answers a name of the surface's answered-before-lookup, in messages and reports.
LOOP_ANSWERS = "the receiving loop itself (answered-before-lookup)"

# How rpc-waited-none-reply ends: what a None reply does to the caller that waits on it.
DROPPED = ", and None replies are dropped: the caller blocks forever"  # a dispatch's drops-none
READ_AS_NONE = ": the caller reads None as its reply"  # a proxy's reply always arrives


def safe_name(text: str) -> str:
    """*text* with every character that is not printable escaped as Python's ``repr``
    escapes it (``\\x1b``, ``\\n``, ``\\u202e``); everything else, ``ünï`` included, as it is.

    Not printable (``str.isprintable``): the C0 and C1 controls and DEL, the line and
    paragraph separators (U+2028, U+2029), the format characters, bidi overrides and
    isolates among them (U+202A-202E, U+2066-2069: Trojan Source), every space but
    U+0020, surrogates (an undecodable file name) and unassigned code points. Names come
    from the analysed code, its registry and its file names, which an attacker may write:
    so an RPC name can't move the cursor, retitle the terminal, split a finding over two
    lines or reorder what a reader sees. A backslash is kept, so that escaping twice
    changes nothing.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def safe_args(args: Iterable[str]) -> tuple[str, ...]:
    """A message's arguments as every text output shows them: each through :func:`safe_name`."""
    return tuple(safe_name(arg) for arg in args)


def finding(location: Location, symbol: str, args: tuple[str, ...]) -> Finding:
    return Finding(location, symbol, args, BY_SYMBOL[symbol].confidence)


def names_list(qualnames: Iterable[str]) -> str:
    """'A', 'A and B', 'A, B and C': short class names, qualified only where two clash."""
    qualnames = sorted(set(qualnames))
    shorts = [name.rsplit(".", 1)[-1] for name in qualnames]
    shown = [
        short if shorts.count(short) == 1 else full
        for short, full in zip(shorts, qualnames, strict=True)
    ]
    if len(shown) <= 1:
        return "".join(shown) or "no class"
    return ", ".join(shown[:-1]) + " and " + shown[-1]


# A message names at most this many callers; more are counted ("A, B, C and 4 more
# callers"). ``report`` and its JSON list them all.
MAX_CALLERS_SHOWN = 3


def callers_list(qualnames: Iterable[str]) -> str:
    """:func:`names_list` of a site's callers; past four, the first three by short name
    are named and the rest counted (by short name, so that moving a class to another
    module never changes which are named)."""
    qualnames = sorted(set(qualnames))
    if len(qualnames) <= MAX_CALLERS_SHOWN + 1:
        return names_list(qualnames)
    shorts = [name.rsplit(".", 1)[-1] for name in qualnames]
    shown = sorted(
        (short if shorts.count(short) == 1 else full, full)
        for short, full in zip(shorts, qualnames, strict=True)
    )
    named = ", ".join(text for text, _ in shown[:MAX_CALLERS_SHOWN])
    return f"{named} and {len(qualnames) - MAX_CALLERS_SHOWN} more callers"


def where(location: Location, root: str) -> str:
    """``path:line``, the path relative to the project folder *root*."""
    path = os.path.relpath(location.path, root) if root else location.path
    return f"{path.replace(os.sep, '/')}:{location.line}"


# A message names at most this many helper calls of the chain from a caller to its site;
# past one more, the chain is shown by its first steps, a count, and its last step (the
# call that reaches the site), as callers are capped by MAX_CALLERS_SHOWN.
MAX_STEPS_SHOWN = 4


def callers_text(site: CallerBroadcast, root: str) -> str:
    """The callers of a site, and the helper calls leading to it: ``A via _f() at x.py:3``.

    Past :data:`MAX_STEPS_SHOWN` + 1 calls, the first three and the last: ``A via _f() at
    x.py:3, _g() at x.py:7, _h() at x.py:9, 2996 more helper calls, then _z() at
    x.py:9001``. A chain of thousands of helpers gave a message line of tens of kilobytes.
    """
    text = callers_list(site.callers)
    steps = [f"{step.name}() at {where(step.call, root)}" for step in site.broadcast.via]
    if len(steps) > MAX_STEPS_SHOWN + 1:
        first = steps[: MAX_STEPS_SHOWN - 1]
        hidden = len(steps) - MAX_STEPS_SHOWN
        steps = [*first, f"{hidden} more helper calls, then {steps[-1]}"]
    if steps:
        text += " via " + ", ".join(steps)
    return text


def handlers_text(surface: SurfaceFacts) -> str:
    tables = {table.qualname for table in surface.tables}
    classes = [name for name in surface.handlers.classes if name not in tables]
    parts = []
    if classes:
        parts.append(f"handlers: {names_list(tuple(classes))}")
    if tables:
        parts.append(f"tables: {names_list(tuple(t.qualname for t in surface.tables))}")
    text = "; ".join(parts)
    if surface.base_handlers.classes:
        text += f"; base handlers: {names_list(surface.base_handlers.classes)}"
    return text

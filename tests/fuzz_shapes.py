"""The fuzz target over file and name shapes (odd files, encodings, hostile names,
starred and conditional bases): what it generates, how it writes it, and its oracles.

A generated project is engine-shaped: ``core.Core`` is the configured caller, dispatching
RPC names through ``self.mgr.call_func(name, wait_out=...)``; ``handlers.Runner`` and
``handlers.FastRunner`` answer some names; ``handlers.RPCS`` is the registry; ``subs.py``
holds subclasses of ``Core`` (chained at random) that broadcast names of their own;
``util.py`` is a module no surface names. On that project the generator lays *shapes*:

* odd files beside it (a FIFO, links to ``/dev/zero``, in a loop or to nothing, a folder
  named ``x.py``, an empty file, a big valid file, one over the size cap, NUL bytes,
  undecodable bytes, UTF-16, an unknown codec cookie);
* encodings and line endings of its own modules (the same, or ones that can't be built);
* hostile names: RPC names with control characters, bidi controls, newlines, quotes,
  backslashes, keywords, dunders, non-ASCII, 5,000 characters; class names that are
  non-ASCII, soft keywords, dunders, 300 characters; ``util.py`` renamed;
* base-class forms of the subclasses: ``class S(*BASES)``, ``class S(*[B])``, a base
  chosen under ``if``/``else`` or ``try``/``except``, a decorated class, a fullwidth
  spelling of ``Core`` (NFKC makes it ``Core``), and forms nothing can infer;
* a caller reached through a chain of aliases (``chain:``), in ``via_alias.py``, which
  names only the last alias;
* a cache folder that can't be used (``cache:``): the runs under it give what the others
  give, and say the folder once.

:func:`examine` runs the real ``rpcsurface`` console script and pylint on it and returns
every broken oracle (see docs/reliability.md, section 9, for the oracles and why each
metamorphic relation is sound). tests/test_fuzz.py runs a bounded, derandomized budget of
it in the default suite; scripts/fuzz.py runs long random campaigns.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import strategies as st
from support import CONSOLE_SCRIPT, Reported, _reported, clean_environment, fast_surface

from pylint_rpcsurface.commands.projects import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from pylint_rpcsurface.sources import MAX_SOURCE_BYTES

# ---------------------------------------------------------------------------
# Shapes whose fix is not on main yet: the generator never draws them, so the default
# suite stays green. Empty: every shape is drawn and must pass.
PENDING_FIXES: frozenset[str] = frozenset()

# ---------------------------------------------------------------------------
# The vocabulary

PLAIN_NAMES = ("alpha", "beta", "gamma")

# Hostile RPC names, by shape. A name that is a non-keyword identifier may be answered.
HOSTILE_NAMES: dict[str, tuple[str, ...]] = {
    "name:control": ("st\x1b[31mep", "bell\x07", "del\x7f", "c1\x9b2J", "nu\x00l", "car\rret"),
    "name:newline": ("line\nbreak", "sep\u2028arator", "next\x85line"),
    "name:bidi": ("ad\u202emin", "iso\u2066late\u2069", "mark\u200f"),
    "name:quotes": ("it's", 'say "hi"', "back\\slash", "\\x1b"),
    "name:long": ("r" * 5000,),
    # The last is fullwidth: as an identifier NFKC makes it "full", as a name it is not.
    "name:non-ascii": ("prefüll", "décode", "Ωmega", "🚀launch", "\uff46\uff55\uff4c\uff4c"),
    "name:keyword": ("class", "None", "match", "lambda"),
    "name:dunder": ("__init__", "__class__", "__getattr__"),
    "name:blank": ("", " ", "\t"),
}

# Hostile class names for the subclasses: all valid identifiers.
HOSTILE_CLASSES: dict[str, tuple[str, ...]] = {
    "class:non-ascii": ("Sübklasse", "Ωmega", "ǅemo", "\uff26ull"),
    "class:soft-keyword": ("match", "case", "type", "_"),
    "class:dunder": ("__Sub__", "__init__"),
    "class:long": ("K" * 300,),
}

# The forms of a subclass's base. Each header is exactly HEADER lines, so every form puts
# the class body on the same lines and the twin (plain) form has the same line numbers.
HEADER = 5
TWINNED_BASES = (
    "base:starred",
    "base:starred-list",
    "base:conditional-same",
    "base:try-same",
    "base:decorated",
    "base:fullwidth",
)
ROBUST_ONLY_BASES = ("base:starred-uninferable", "base:conditional-mixed", "base:starred-empty")
# A base that may or may not be the caller: judged against the two worlds it stands for.
MAYBE_BASES = ("base:starred-uninferable", "base:conditional-mixed")
BASE_FORMS = ("base:plain", *TWINNED_BASES, *ROBUST_ONLY_BASES)

# Module shapes, by their twin (the module the relation says is equivalent):
# - SAME_MODULE keep the module's meaning: the twin is the plain module;
# - BROKEN_TEXT make a regular file that can't be built: the twin is the same text with a
#   syntax error appended (a module that doesn't parse is what every mode already
#   handles, docs/reliability.md, section 7, and the subclass search still reads its words);
# - UNDECODABLE can't be decoded, so the subclass search can't read their words: the
#   twin is a syntax error that names the caller, as for UNREADABLE;
# - UNREADABLE are files never read: the twin is a syntax error that names the caller
#   (a file not read "may name any caller", as one that names it and doesn't parse);
# - GONE are links that lead to no file: the twin is no file at all.
SAME_MODULE = (
    "module:crlf",
    "module:cr",
    "module:formfeed",
    "module:latin1-cookie",
    "module:utf8-bom",
    "module:vim-cookie",
)
BROKEN_TEXT = ("module:nul",)
UNDECODABLE = ("module:undecodable", "module:utf16", "module:unknown-cookie")
UNREADABLE = ("module:fifo", "module:dev-zero", "module:over-cap")
GONE = ("module:dangling-link", "module:link-loop")
BROKEN_MODULE = (*BROKEN_TEXT, *UNDECODABLE, *UNREADABLE, *GONE)
MODULE_SHAPES = (*SAME_MODULE, *BROKEN_MODULE)
MODULES = ("core", "handlers", "subs", "util")

# Odd files beside the project, never named by the configuration, with the same twins as
# the module shapes of the same name; "absent" ones hold nothing a module could (twin: no
# file at all).
ABSENT_EXTRAS = ("extra:folder", "extra:empty", "extra:big", "extra:odd-filename")
EXTRA_SHAPES = (*(shape.replace("module:", "extra:") for shape in BROKEN_MODULE), *ABSENT_EXTRAS)

# A caller reached through aliases: the chain's modules, and how via_alias.py imports
# the last alias, B. The twin imports Core as B itself (the same lines), so the relation
# says the chain is followed to the end (docs/reliability.md, "Aliases of aliases").
ALIAS_CHAINS: dict[str, tuple[dict[str, str], str]] = {
    "chain:one-module": ({"aliases.py": "from core import Core\n\nA = Core\nB = A\n"}, "aliases"),
    "chain:across-modules": (
        {
            "alias_a.py": "from core import Core\n\nA = Core\n",
            "alias_b.py": "from alias_a import A\n\nB = A\n",
        },
        "alias_b",
    ),
    "chain:re-export": (
        {
            "alias_a.py": "from core import Core as A\n",
            "alias_b.py": "from alias_a import A as B\n",
        },
        "alias_b",
    ),
    "chain:cycle": ({"aliases.py": "from core import Core\n\nA = Core\nB = A\nA = B\n"}, "aliases"),
}
TWIN_CHAIN = "twin:core-as-b"
# ViaAlias waits on a name no handler answers: a finding exactly when it is seen.
VIA_ALIAS_CALLS: tuple[Call, ...] = (("alpha", True, False), ("via_alias_only", True, False))

# A module that adds methods to the handlers' classes, replaces the caller's method, or
# rebinds the handlers' names in their module (a monkeypatch, zpatch.py): none of it is
# seen (docs/how-it-works.md, "Handlers and the MRO"), whichever modules a mode built
# first. The twin has no such module; pylint builds it before the analysis, check only
# when it names a caller. (A handler's method replaced would show only in a signature or
# a reply, which these projects never judge: tests/test_monkeypatch.py has that case.)
PATCHES = ("patch:adds-method", "patch:replaces-caller", "patch:rebinds-handler")

# Runs in one process, as an editor's language server makes them: the handler derives
# from a class of a library outside the roots, which gains the names sent between two
# runs; the second run must give what a fresh process gives (tests/test_long_lived_library.py).
LIVED = ("lived:library-edit",)
LIVED_LIBRARY = "fuzz_library"

# A cache folder that can't be used: the environment of the runs that say so.
CACHE_SHAPES = (
    "cache:under-proc",
    "cache:xdg-under-proc",
    "cache:long-name",
    "cache:file-in-the-way",
)
CACHE_SAID = "rpcsurface: can't use the cache folder "

# The shapes a twin replaces (Spec.twin): each has a relation.
TWINNED_SHAPES = frozenset(
    {
        *TWINNED_BASES,
        *MODULE_SHAPES,
        *EXTRA_SHAPES,
        "rename:util",
        "decorated:method",
        *ALIAS_CHAINS,
        *PATCHES,
    }
)

RENAMES = ("util_renamed", "utilé", "Ütil", "util2")

SYNTAX_ERROR = "# a module that does not parse\nclass (:\n"


def drawable(shapes: Iterable[str]) -> list[str]:
    return [shape for shape in shapes if shape not in PENDING_FIXES]


# ---------------------------------------------------------------------------
# The generated project

Call = tuple[str, bool, bool]  # RPC name, waited, written raw in the literal


@dataclass(frozen=True)
class Sub:
    name: str
    base: int  # -1: Core, else the index of an earlier Sub
    form: str  # one of BASE_FORMS
    calls: tuple[Call, ...]


@dataclass(frozen=True)
class Extra:
    filename: str
    shape: str  # one of EXTRA_SHAPES
    holds_caller: bool  # its (unreadable) text derives from Core and broadcasts


@dataclass(frozen=True)
class Spec:
    base_answers: frozenset[str]
    fast_answers: frozenset[str]
    registry: tuple[str, ...]
    core_calls: tuple[Call, ...]
    core_decorated: bool
    subs: tuple[Sub, ...]
    util_name: str = "util"
    modules: tuple[tuple[str, str], ...] = ()  # (module, shape) laid on the project's modules
    extras: tuple[Extra, ...] = ()
    shapes: frozenset[str] = field(default_factory=frozenset)  # every shape drawn, for stats
    alias_chain: str = ""  # one of ALIAS_CHAINS (or TWIN_CHAIN): via_alias.py is written
    cache: str = ""  # one of CACHE_SHAPES: runs under an unusable cache folder too
    patch: str = ""  # one of PATCHES: zpatch.py is written
    lived: str = ""  # one of LIVED: runs in one process, beside the project

    def world(self, caller: bool) -> Spec:
        """The twin with every base that may be the caller made the caller (or *object*)."""
        form = "base:plain" if caller else "base:object"
        twin = self.twin()
        subs = tuple(replace(s, form=form) if s.form in MAYBE_BASES else s for s in twin.subs)
        return replace(twin, subs=subs)

    def twin(self) -> Spec:
        """The same project with every twinned shape replaced by its plain equivalent: the
        relation says the two give the same result (docs/reliability.md, section 9)."""
        subs = tuple(
            replace(s, form="base:plain") if s.form in TWINNED_BASES else s for s in self.subs
        )
        modules = tuple((m, twin_of(shape)) for m, shape in self.modules if shape in BROKEN_MODULE)
        extras = tuple(
            replace(e, shape=twin_of(e.shape))
            for e in self.extras
            if e.shape not in ABSENT_EXTRAS and twin_of(e.shape) != "gone"
        )
        return replace(
            self,
            subs=subs,
            core_decorated=False,
            util_name="util",
            modules=modules,
            extras=extras,
            alias_chain=TWIN_CHAIN if self.alias_chain else "",
            patch="",
        )


def twin_of(shape: str) -> str:
    """The module shape a broken *shape* (``module:`` or ``extra:``) is equivalent to."""
    kind = shape.replace("extra:", "module:")
    if kind in BROKEN_TEXT:
        return "twin:syntax-error-after-text"
    if kind in UNREADABLE or kind in UNDECODABLE:
        return "twin:syntax-error-naming-caller"
    if kind in GONE:
        return "gone"
    return shape


def is_answerable(name: str) -> bool:
    import keyword  # noqa: PLC0415

    return name.isidentifier() and not keyword.iskeyword(name)


@st.composite
def rpc_names(draw: st.DrawFn, pending: frozenset[str]) -> str:
    kinds = ["plain", *(k for k in HOSTILE_NAMES if k not in pending)]
    kind = draw(st.sampled_from(kinds))
    if kind == "plain":
        return draw(st.sampled_from(PLAIN_NAMES))
    return draw(st.sampled_from(HOSTILE_NAMES[kind]))


@st.composite
def specs(draw: st.DrawFn, pending: frozenset[str] = PENDING_FIXES) -> Spec:
    """A random project with random shapes, none of *pending*'s."""
    shapes: set[str] = set()
    pool = draw(st.lists(rpc_names(pending), min_size=1, max_size=4, unique=True))
    pool = sorted(set(pool) | {"alpha"})
    for name in pool:
        shapes.update(k for k, names in HOSTILE_NAMES.items() if name in names)

    def calls() -> tuple[Call, ...]:
        drawn = draw(
            st.lists(
                st.tuples(st.sampled_from(pool), st.booleans(), st.booleans()),
                max_size=3,
            )
        )
        return tuple((n, w, raw and _raw_ok(n)) for n, w, raw in drawn)

    answerable = [n for n in pool if is_answerable(n)]
    classes = ["plain", *(k for k in HOSTILE_CLASSES if k not in pending)]
    subs: list[Sub] = []
    used = {"Core", "Runner", "FastRunner", "keep", "keep_fn", "FLAG", "make_bases"}
    for index in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(classes))
        name = f"Sub{index}" if kind == "plain" else draw(st.sampled_from(HOSTILE_CLASSES[kind]))
        if name in used or unicodedata.normalize("NFKC", name) in used:
            name = f"Sub{index}"
        elif kind != "plain":
            shapes.add(kind)
        used.add(unicodedata.normalize("NFKC", name))
        base = draw(st.integers(-1, index - 1))
        forms = drawable(BASE_FORMS) if base == -1 else drawable(BASE_FORMS[:-1])
        form = draw(st.sampled_from([f for f in forms if f not in pending]))
        if form == "base:fullwidth" and base != -1:
            form = "base:plain"
        shapes.add(form)
        subs.append(Sub(name, base, form, calls()))

    modules: list[tuple[str, str]] = []
    module_shapes = [s for s in MODULE_SHAPES if s not in pending]
    for module in draw(st.lists(st.sampled_from(MODULES), unique=True, max_size=2)):
        shape = draw(st.sampled_from(module_shapes))
        modules.append((module, shape))
        shapes.add(shape)

    extras: list[Extra] = []
    extra_shapes = [s for s in EXTRA_SHAPES if s not in pending]
    for index in range(draw(st.integers(0, 2))):
        shape = draw(st.sampled_from(extra_shapes))
        filename = "x\x1b y.py" if shape == "extra:odd-filename" else f"x{index}.py"
        extras.append(Extra(filename, shape, draw(st.booleans())))
        shapes.add(shape)

    util_name = "util"
    if draw(st.booleans()):
        util_name = draw(st.sampled_from(RENAMES))
        shapes.add("rename:util")
    core_decorated = draw(st.booleans())
    if core_decorated:
        shapes.add("decorated:method")
    alias_chain = draw(st.sampled_from(["", *(c for c in ALIAS_CHAINS if c not in pending)]))
    cache = draw(st.sampled_from(["", *(c for c in CACHE_SHAPES if c not in pending)]))
    patch = draw(st.sampled_from(["", *(p for p in PATCHES if p not in pending)]))
    lived = draw(st.sampled_from(["", *(p for p in LIVED if p not in pending)]))
    shapes.update({alias_chain, cache, patch, lived} - {""})
    return Spec(
        base_answers=frozenset(draw(st.sets(st.sampled_from(answerable))))
        if answerable
        else frozenset(),
        fast_answers=frozenset(draw(st.sets(st.sampled_from(answerable))))
        if answerable
        else frozenset(),
        registry=tuple(draw(st.lists(st.sampled_from(pool), unique=True, max_size=3))),
        core_calls=calls(),
        core_decorated=core_decorated,
        subs=tuple(subs),
        util_name=util_name,
        modules=tuple(modules),
        extras=tuple(extras),
        shapes=frozenset(shapes),
        alias_chain=alias_chain,
        cache=cache,
        patch=patch,
        lived=lived,
    )


def covering(pending: frozenset[str] = PENDING_FIXES) -> list[Spec]:
    """A few fixed projects that lay every shape not in *pending* at least once.

    Broken module shapes go on subs.py and the renamed util module (on core.py or
    handlers.py every one is a configuration error, which would hide the other shapes);
    the random examples put them anywhere. Only the subclasses wait on "gamma", which
    the registry lists, so a subclass or a module lost or wrongly kept shows.
    """
    names = [n for kind, group in HOSTILE_NAMES.items() if kind not in pending for n in group]
    classes = [n for kind, group in HOSTILE_CLASSES.items() if kind not in pending for n in group]
    forms = [f for f in BASE_FORMS if f not in pending]
    same = [s for s in SAME_MODULE if s not in pending]
    broken = [s for s in BROKEN_MODULE if s not in pending]
    extras = [s for s in EXTRA_SHAPES if s not in pending]
    chains = [c for c in ALIAS_CHAINS if c not in pending]
    caches = [c for c in CACHE_SHAPES if c not in pending]
    patches = [p for p in PATCHES if p not in pending]
    liveds = [p for p in LIVED if p not in pending]
    count = max(len(broken) // 2 + 1, len(extras) // 3 + 1, len(forms) // 3 + 1, 5)
    count = max(count, len(chains), len(caches), len(patches))
    found: list[Spec] = []
    for index in range(count):
        pool = ["alpha", "beta", *names[index::count]]
        waited = [(n, i % 2 == 0, _raw_ok(n) and i % 3 == 0) for i, n in enumerate(pool)]
        subs: list[Sub] = []
        mine = forms[index::count]
        own = classes[index::count]
        mine += ["base:plain"] * (len(own) - len(mine))
        for slot, form in enumerate(mine):
            cls = own[slot] if slot < len(own) else ""
            base = -1 if form == "base:fullwidth" or slot == 0 else slot - 1
            # Only the subclasses wait on "gamma": whether they are seen decides whether
            # the registry's "gamma" is called unwaited.
            calls = (("gamma", True, False), *waited[slot::3])
            subs.append(Sub(cls or f"Sub{slot}", base, form, calls))
        modules = [("core", same[index % len(same)]), ("handlers", same[(index + 1) % len(same)])]
        modules += [
            (m, b)
            for m, b in zip(("subs", "util"), broken[index * 2 : index * 2 + 2], strict=False)
        ]
        picked = extras[index * 3 : index * 3 + 3]
        files = tuple(
            Extra("x\x1b y.py" if e == "extra:odd-filename" else f"x{i}.py", e, i % 2 == 0)
            for i, e in enumerate(picked)
        )
        answerable = sorted(n for n in pool if is_answerable(n))
        shapes = {k for k, group in HOSTILE_NAMES.items() for n in pool if n in group}
        shapes |= {k for k, group in HOSTILE_CLASSES.items() for s in subs if s.name in group}
        shapes |= {s.form for s in subs} | {m[1] for m in modules} | set(picked)
        shapes |= {"rename:util", "decorated:method"}
        chain = chains[index] if index < len(chains) else ""
        cache = caches[index] if index < len(caches) else ""
        patch = patches[index] if index < len(patches) else ""
        lived = liveds[index] if index < len(liveds) else ""
        shapes |= {chain, cache, patch, lived} - {""}
        found.append(
            Spec(
                base_answers=frozenset(answerable[::2]),
                fast_answers=frozenset({"gamma", *answerable[1::2]}),
                registry=("gamma", *pool[index % 2 :: 2]),
                core_calls=tuple(waited),
                core_decorated=True,
                subs=tuple(subs),
                util_name=RENAMES[index % len(RENAMES)],
                modules=tuple(modules),
                extras=files,
                shapes=frozenset(shapes),
                alias_chain=chain,
                cache=cache,
                patch=patch,
                lived=lived,
            )
        )
    return found


def _raw_ok(name: str) -> bool:
    """Whether *name* can be written as is between double quotes (else repr() is used)."""
    return not any(c in name for c in '"\\\n\r\x00\x85\u2028\u2029')


def literal(name: str, raw: bool) -> str:
    return f'"{name}"' if raw else repr(name)


# ---------------------------------------------------------------------------
# Rendering


@dataclass(frozen=True)
class Fifo:
    pass


@dataclass(frozen=True)
class Link:
    target: str  # relative to the link's folder, or absolute


@dataclass(frozen=True)
class Folder:
    pass


@dataclass(frozen=True)
class OverCap:
    pass


Content = str | bytes | Fifo | Link | Folder | OverCap

PYPROJECT = fast_surface("core.Core", "handlers.FastRunner", "handlers.Runner", "handlers.RPCS")

# Every module starts with this line (a cookie may take its place) and ends with the
# tail comment (where an encoding shape puts its non-ASCII text), so shapes move no line.
FIRST = "# {module}: written by the fuzzer\n"
TAIL = "# end of {module}: cafe\n"


def _methods(cls: str, answers: frozenset[str]) -> str:
    body = "".join(f"    def {name}(self):\n        return 1\n\n" for name in sorted(answers))
    return f"class {cls}:\n" + (body or "    pass\n")


def _broadcasts(method: str, calls: tuple[Call, ...], indent: str = "    ") -> str:
    if not calls:
        return f"{indent}pass\n"
    lines = [f"{indent}def {method}(self):\n"]
    lines += [
        f"{indent}    self.mgr.call_func({literal(n, raw)}, wait_out={w})\n" for n, w, raw in calls
    ]
    return "".join(lines)


def _core(spec: Spec) -> str:
    decorator = "    @keep_fn\n" if spec.core_decorated else "    #\n"
    body = "    pass\n" if not spec.core_calls else decorator + _broadcasts("run", spec.core_calls)
    return (
        FIRST.format(module="core")
        + "def keep_fn(function):\n    return function\n\n\n"
        + "class Core:\n    def __init__(self, mgr):\n        self.mgr = mgr\n\n"
        + body
        + "\n\n"
        + TAIL.format(module="core")
    )


def _handlers(spec: Spec) -> str:
    registry = "".join(literal(n, False) + ", " for n in spec.registry)
    return (
        FIRST.format(module="handlers")
        + f"RPCS = ({registry})\n\n\n"
        + _methods("Runner", spec.base_answers)
        + "\n\n"
        + _methods("FastRunner(Runner)", spec.fast_answers)
        + "\n\n"
        + TAIL.format(module="handlers")
    )


def _header(sub: Sub, base: str) -> list[str]:
    """The HEADER lines that end in the class statement of *sub* on *base*."""
    var = f"{sub.name}_BASE"
    form = sub.form
    if form == "base:plain":
        lines = [f"class {sub.name}({base}):"]
    elif form == "base:starred":
        lines = [f"{var}S = ({base},)", f"class {sub.name}(*{var}S):"]
    elif form == "base:starred-list":
        lines = [f"class {sub.name}(*[{base}]):"]
    elif form == "base:conditional-same":
        lines = ["if FLAG:", f"    {var} = {base}", "else:", f"    {var} = {base}"]
        lines.append(f"class {sub.name}({var}):")
    elif form == "base:try-same":
        lines = ["try:", f"    {var} = {base}", "except ImportError:", f"    {var} = {base}"]
        lines.append(f"class {sub.name}({var}):")
    elif form == "base:decorated":
        lines = ["@keep", f"class {sub.name}({base}):"]
    elif form == "base:fullwidth":
        lines = [f"class {sub.name}(\uff23ore):"]  # fullwidth C: NFKC makes it "Core"
    elif form == "base:object":
        lines = [f"class {sub.name}(object):"]
    elif form == "base:starred-uninferable":
        lines = [f"class {sub.name}(*make_bases()):"]
    elif form == "base:starred-empty":
        lines = [f"class {sub.name}(*()):"]
    elif form == "base:conditional-mixed":
        lines = ["if FLAG:", f"    {var} = {base}", "else:", f"    {var} = object"]
        lines.append(f"class {sub.name}({var}):")
    else:  # pragma: no cover - a form without a header is a bug in this file
        raise ValueError(form)
    return ["#"] * (HEADER - len(lines)) + lines


def _subs(spec: Spec) -> str:
    text = FIRST.format(module="subs") + (
        "import os\n\nfrom core import Core\n\nFLAG = os.environ.get('FLAG')\n\n\n"
        "def keep(cls):\n    return cls\n\n\n"
        "def make_bases():\n    return tuple(os.environ.get('BASES', ()))\n\n\n"
    )
    for sub in spec.subs:
        base = "Core" if sub.base == -1 else spec.subs[sub.base].name
        text += "\n".join(_header(sub, base)) + "\n"
        text += _broadcasts(f"run_{index_of(spec, sub)}", sub.calls) + "\n\n"
    return text + TAIL.format(module="subs")


def index_of(spec: Spec, sub: Sub) -> int:
    return spec.subs.index(sub)


def _util() -> str:
    return (
        FIRST.format(module="util")
        + "def helper(mgr):\n    return mgr.call_func('alpha', wait_out=True)\n\n\n"
        + "class Other:\n    def run(self):\n"
        + "        self.mgr.call_func('beta', wait_out=False)\n\n\n"
        + TAIL.format(module="util")
    )


_HOLDS_CALLER = (
    "from core import Core\n\n\nclass Hidden(Core):\n"
    "    def go(self):\n        self.mgr.call_func('alpha', wait_out=True)\n"
)


def _shaped(module: str, text: str, shape: str) -> Content:
    """*text* of *module* laid out in *shape*."""
    first, tail = FIRST.format(module=module), TAIL.format(module=module)
    assert text.startswith(first), text[:80]
    assert text.endswith(tail), text[-80:]
    if shape == "module:crlf":
        return text.replace("\n", "\r\n").encode("utf-8")
    if shape == "module:cr":
        return text.replace("\n", "\r").encode("utf-8")
    if shape == "module:formfeed":
        # A form feed starts a blank line and a top-level statement: Python ignores it there.
        shaped = re.sub(r"\n\n", "\n\f\n", text)
        return re.sub(r"\n(class|def) ", lambda m: f"\n\f{m[1]} ", shaped)
    if shape == "module:latin1-cookie":
        body = text[len(first) : -len(tail)] + "# end: café, naïve, ñ\n"
        try:
            return b"# -*- coding: latin-1 -*-\n" + body.encode("latin-1")
        except UnicodeEncodeError:  # a non-Latin-1 name in it: the cookie says UTF-8
            return b"# -*- coding: utf-8 -*-\n" + body.encode("utf-8")
    if shape == "module:vim-cookie":
        shaped = "# vim: set fileencoding=utf-8 :\n" + text[len(first) :]
        return shaped[: -len(tail)] + "# end:\tcafé\t\n"
    if shape == "module:utf8-bom":
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    if shape == "module:nul":
        return text[: -len(tail)].encode("utf-8") + b"# end \x00 of it\n"
    if shape == "module:undecodable":
        return text[: -len(tail)].encode("utf-8") + b"# end: caf\xe9 \xff\xfe\n"
    if shape == "module:utf16":
        return text.encode("utf-16")
    if shape == "module:unknown-cookie":
        return "# -*- coding: klingon -*-\n" + text[len(first) :]
    if shape == "module:fifo":
        return Fifo()
    if shape == "module:dev-zero":
        return Link("/dev/zero")
    if shape == "module:dangling-link":
        return Link("nowhere/gone.py")
    if shape == "module:link-loop":
        return Link(f"{module}.py")  # a link to itself
    if shape == "module:over-cap":
        return OverCap()
    if shape == "twin:syntax-error-after-text":
        return text + SYNTAX_ERROR
    if shape == "twin:syntax-error-naming-caller":
        return "# Core\n" + SYNTAX_ERROR
    raise ValueError(shape)


def _extra(extra: Extra, index: int) -> dict[str, Content]:
    text = FIRST.format(module="extra") + (_HOLDS_CALLER if extra.holds_caller else "X = 1\n")
    text += TAIL.format(module="extra")
    shape = extra.shape
    name = extra.filename
    if shape == "extra:link-loop":
        return {name: Link(f"loop{index}b.py"), f"loop{index}b.py": Link(name)}
    if shape == "extra:folder":
        return {name: Folder(), f"{name}/inner.txt": "not a module\n"}
    if shape == "extra:empty":
        return {name: ""}
    if shape == "extra:big":
        # About 2 MB of valid code nothing refers to: well under the size cap.
        return {name: "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(60_000))}
    if shape == "extra:odd-filename":
        return {name: text}  # not an identifier: never a module, whatever it holds
    return {name: _shaped("extra", text, shape.replace("extra:", "module:"))}


def render(spec: Spec) -> dict[str, Content]:
    """Every file of *spec*'s project, by path relative to its folder."""
    texts = {
        "core": _core(spec),
        "handlers": _handlers(spec),
        "subs": _subs(spec),
        "util": _util(),
    }
    files: dict[str, Content] = {"pyproject.toml": PYPROJECT}
    shaped = dict(spec.modules)
    for module, text in texts.items():
        filename = f"{spec.util_name if module == 'util' else module}.py"
        if shaped.get(module) == "gone":
            continue
        files[filename] = _shaped(module, text, shaped[module]) if module in shaped else text
    for index, extra in enumerate(spec.extras):
        files.update(_extra(extra, index))
    if spec.alias_chain:
        files.update(_alias_chain(spec.alias_chain))
    if spec.patch:
        files["zpatch.py"] = _patch(spec)
    return files


def _patch(spec: Spec) -> str:
    """zpatch.py: *spec.patch*'s assignments to the handlers' or the caller's classes,
    each of which would change the findings if it were seen."""
    calls = (*spec.core_calls, *(call for sub in spec.subs for call in sub.calls))
    sent = sorted({name for name, _, _ in calls if is_answerable(name)})
    if spec.patch == "patch:adds-method":
        assigned = [f"{cls}.{name} = _added\n" for cls in ("Runner", "FastRunner") for name in sent]
        return (
            "from handlers import FastRunner, Runner\n\n\ndef _added(self, *args):\n"
            "    return None\n\n\n" + "".join(assigned)
        )
    if spec.patch == "patch:replaces-caller":
        return "from core import Core\n\n\ndef _run(self):\n    pass\n\n\nCore.run = _run\n"
    return (  # patch:rebinds-handler
        "import handlers\n\n\n"
        + _methods("Other", frozenset(sent))
        + "\n\nhandlers.Runner = Other\nhandlers.FastRunner = Other\n"
    )


def _alias_chain(chain: str) -> dict[str, Content]:
    """The chain's modules and via_alias.py, whose ViaAlias derives from the chain's end
    (the twin's: Core imported as B)."""
    modules, last = ({}, "") if chain == TWIN_CHAIN else ALIAS_CHAINS[chain]
    header = "from core import Core as B" if chain == TWIN_CHAIN else f"from {last} import B"
    body = _broadcasts("go", VIA_ALIAS_CALLS)
    return {**modules, "via_alias.py": f"{header}\n\n\nclass ViaAlias(B):\n{body}"}


def write(root: Path, files: dict[str, Content]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for relpath, content in sorted(files.items(), key=lambda item: isinstance(item[1], Link)):
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_bytes(content.encode("utf-8"))
        elif isinstance(content, bytes):
            target.write_bytes(content)
        elif isinstance(content, Fifo):
            os.mkfifo(target)
        elif isinstance(content, Link):
            target.symlink_to(content.target)
        elif isinstance(content, Folder):
            target.mkdir(exist_ok=True)
        else:  # OverCap: a valid module one byte over the cap
            with target.open("w", encoding="utf-8") as stream:
                stream.write("# " + "x" * (MAX_SOURCE_BYTES - 1) + "\n")
    return root


def readable_modules(spec: Spec) -> list[str]:
    """The project's own modules that are regular files that build: pylint lints these."""
    shaped = dict(spec.modules)
    own = [
        f"{spec.util_name if m == 'util' else m}.py"
        for m in MODULES
        if shaped.get(m, "module:none") not in BROKEN_MODULE
    ]
    chained = sorted(_alias_chain(spec.alias_chain)) if spec.alias_chain else []
    patched = ["zpatch.py"] if spec.patch else []
    return own + chained + patched


# ---------------------------------------------------------------------------
# Running the real console script and pylint

TIMEOUT = 60.0
_SLOW = float(os.environ.get("RPCSURFACE_FUZZ_TIMEOUT", TIMEOUT))


@dataclass(frozen=True)
class Ran:
    command: str  # as a user would type it, for the reproducer
    returncode: int | None  # None: timed out
    stdout: str
    stderr: str
    seconds: float


def _run(root: Path, argv: list[str], shown: str, env: dict[str, str] | None = None) -> Ran:
    started = time.monotonic()
    try:
        completed = subprocess.run(
            argv,
            cwd=root,
            capture_output=True,
            timeout=_SLOW,
            env=clean_environment() if env is None else env,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout or b""
        err = expired.stderr or b""
        return Ran(shown, None, _text(out), _text(err), time.monotonic() - started)
    return Ran(
        shown,
        completed.returncode,
        _text(completed.stdout),
        _text(completed.stderr),
        time.monotonic() - started,
    )


def _text(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="surrogateescape")


def rpcsurface(root: Path, *args: str, env: dict[str, str] | None = None) -> Ran:
    return _run(root, [*CONSOLE_SCRIPT, *args], "rpcsurface " + " ".join(args), env)


def pylint(root: Path, files: list[str], json_path: Path, env: dict[str, str] | None = None) -> Ran:
    options = [
        "--load-plugins=pylint_rpcsurface",
        "--disable=all",
        "--enable=rpcsurface",
        "--persistent=n",
        "--score=n",
        f"--output-format=json2:{json_path},text",
    ]
    return _run(
        root,
        [sys.executable, "-m", "pylint", *options, *files],
        "pylint " + " ".join([*options[:5], "--output-format=json2:OUT.json,text", *files]),
        env,
    )


# pylint twice in one interpreter: argv is the library's file, its text after the edit,
# the two json2 reports, then the modules to lint.
_LIVED_DRIVER = """
import sys
from pathlib import Path
from pylint.lint import Run

library, edited, first, second, *modules = sys.argv[1:]
options = ["--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface",
           "--persistent=n", "--score=n"]
Run([*options, "--output-format=json2:" + first, *modules], exit=False)
Path(library).write_text(edited, encoding="utf-8")
Run([*options, "--output-format=json2:" + second, *modules], exit=False)
"""


def unusable_cache(shape: str, root: Path) -> tuple[dict[str, str], str]:
    """The environment of a run whose cache folder is *shape*, and the folder it names
    (a file in the way is made beside *root*)."""
    env = clean_environment()
    if shape == "cache:under-proc":
        env["RPCSURFACE_CACHE_DIR"] = folder = "/proc"
    elif shape == "cache:xdg-under-proc":
        env.pop("RPCSURFACE_CACHE_DIR", None)
        env["XDG_CACHE_HOME"] = "/proc/nope"
        folder = "/proc/nope/pylint-rpcsurface"
    elif shape == "cache:long-name":
        env["RPCSURFACE_CACHE_DIR"] = folder = str(root.parent / ("c" * 300))
    elif shape == "cache:file-in-the-way":
        blocker = root.parent / f"{root.name}.not-a-folder"
        blocker.write_text("a file where the cache folder goes\n", encoding="utf-8")
        env["RPCSURFACE_CACHE_DIR"] = folder = str(blocker / "cache")
    else:  # pragma: no cover - a shape without an environment is a bug in this file
        raise ValueError(shape)
    return env, folder


# ---------------------------------------------------------------------------
# The oracles

# Bidi controls (Trojan Source, CVE-2021-42574) and Unicode line breaks: a terminal or an
# editor shows the text around them otherwise than it is.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_BREAKS = frozenset("\u2028\u2029\x85")
_CHECK_LINE = re.compile(
    r"^[^\s:][^:]*:\d+:\d+: [a-z][a-z-]*: .+ \(rpcsurface explain [a-z0-9-]+\)$"
)
_PYLINT_LINE = re.compile(
    r"^(\*{13} Module .+|[^\s:][^:]*:\d+:\d+: [A-Z]\d{4}: .+ \([a-z][a-z-]*\))$"
)


def raw_controls(text: str) -> list[str]:
    """The characters of *text* no text output may hold raw: control characters other
    than newline and tab, bidi controls and Unicode line breaks."""
    found = {c for c in text if (unicodedata.category(c) == "Cc" and c not in "\n\t") or c in _BIDI}
    found |= {c for c in text if c in _BREAKS}
    return sorted(repr(c) for c in found)


@dataclass(frozen=True)
class Problem:
    kind: str  # short, stable: the campaign script groups failures by it
    detail: str


@dataclass
class Examined:
    problems: list[Problem]
    runs: list[Ran]


def _crashed(ran: Ran) -> str | None:
    if ran.returncode is None:
        return f"timed out after {_SLOW:.0f} s"
    for stream in (ran.stdout, ran.stderr):
        if "Traceback (most recent call last)" in stream:
            return "printed a traceback"
    return None


_CALLERS_UNKNOWN = "so the callers are not all known"


def _key(m: Reported) -> tuple[object, ...]:
    if m.symbol == "rpcsurface-config-error" and _CALLERS_UNKNOWN in m.text:
        # A module that may hold callers: where and why it can't be read differ from its
        # twin's by design (a NUL byte on line 1, a syntax error on line 10).
        return (m.symbol, m.path, _CALLERS_UNKNOWN)
    return (m.symbol, m.path, m.line, m.column, m.end_line, m.end_column, m.text, m.page)


def _parse_check_json(root: Path, ran: Ran) -> tuple[Reported, ...] | str:
    try:
        items = json.loads(ran.stdout)
    except json.JSONDecodeError as error:
        return f"invalid JSON ({error})"
    if not isinstance(items, list):
        return "JSON is not a list"
    try:
        return _reported(items, root)
    except (KeyError, TypeError) as error:
        return f"JSON finding without {error}"


def examine(spec: Spec, root: Path, *, twin_root: Path | None = None) -> Examined:
    """Write *spec* under *root*, run every oracle, return what broke. With *twin_root*,
    the relations run too (their projects go beside it)."""
    write(root, render(spec))
    examination = _Examination(spec, root)
    examination.check()
    examination.determinism()
    examination.text()
    examination.sarif()
    examination.report()
    examination.pylint_parity()
    if spec.cache:
        examination.cache_folder()
    if spec.lived:
        examination.lived()
    if twin_root is not None:
        examination.twin(twin_root)
        if any(s.form in MAYBE_BASES for s in spec.subs):
            examination.worlds(twin_root)
    return Examined(examination.problems, examination.runs)


_DOCUMENTED = (EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR)
_CLEAN_OR_FINDINGS = (EXIT_CLEAN, EXIT_FINDINGS)
# A claim about every caller: made only if it holds whichever the callers are.
_ALL_CALLERS = ("rpc-listed-unwaited",)


class _Examination:
    """The oracles of one project, in order: the first run (check's JSON) is what the
    later ones compare with."""

    def __init__(self, spec: Spec, root: Path) -> None:
        self.spec = spec
        self.root = root
        self.problems: list[Problem] = []
        self.runs: list[Ran] = []
        self.cold = Ran("", None, "", "", 0.0)
        self.findings: tuple[Reported, ...] = ()
        self.reported = self.cold  # report's run
        self.linted: list[Reported] | None = None  # pylint's findings, ours only

    def problem(self, kind: str, detail: str, ran: Ran | None = None) -> None:
        if ran is not None:
            detail += (
                f"\n  $ {ran.command}\n  exit {ran.returncode}"
                f"\n  stdout: {ran.stdout[-1500:]!r}\n  stderr: {ran.stderr[-1500:]!r}"
            )
        self.problems.append(Problem(kind, detail))

    def ran(self, result: Ran, statuses: tuple[int, ...] = _DOCUMENTED) -> Ran:
        self.runs.append(result)
        crash = _crashed(result)
        if crash:
            self.problem(f"crash: {result.command.split(' --')[0]}", crash, result)
        elif statuses and result.returncode not in statuses:
            self.problem("undocumented exit status", result.command, result)
        return result

    def controls(self, what: str, ran: Ran, text: str) -> bool:
        found = raw_controls(text)
        if found:
            self.problem("raw control character in text", f"{what}: {found}", ran)
        return bool(found)

    def check(self) -> None:
        cold = self.cold = self.ran(rpcsurface(self.root, "check", "--format", "json"))
        if cold.returncode in _CLEAN_OR_FINDINGS:
            parsed = _parse_check_json(self.root, cold)
            if isinstance(parsed, str):
                self.problem("check json: not valid", parsed, cold)
                return
            self.findings = parsed
            if (cold.returncode == EXIT_FINDINGS) != bool(parsed):
                self.problem("check json: exit status disagrees with findings", "", cold)
        elif cold.returncode == EXIT_ERROR and cold.stdout.strip():
            # A registry that can't be used at all is a configuration error printed as a
            # finding: exit 2 with the findings, that one among them.
            parsed = _parse_check_json(self.root, cold)
            if isinstance(parsed, str):
                self.problem("check json: not valid", parsed, cold)
                return
            self.findings = parsed
            if "rpc-registry-invalid" not in {m.symbol for m in parsed}:
                self.problem("check: findings with exit 2 but no rpc-registry-invalid", "", cold)
        elif cold.returncode == EXIT_ERROR and not cold.stderr.startswith("rpcsurface: error: "):
            self.problem("check: exit 2 without an error message", "", cold)
        self.controls("check stderr", cold, cold.stderr)

    def determinism(self) -> None:
        cold = self.cold
        warm = self.ran(rpcsurface(self.root, "check", "--format", "json"))
        if (warm.returncode, warm.stdout, warm.stderr) != (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        ):
            self.problem("not deterministic: warm cache differs from cold", "", warm)
        fresh = self.ran(rpcsurface(self.root, "check", "--format", "json", "--no-cache"))
        if (fresh.returncode, fresh.stdout) != (cold.returncode, cold.stdout):
            self.problem("not deterministic: --no-cache differs from the cache", "", fresh)

    def text(self) -> None:
        text = self.ran(rpcsurface(self.root, "check", "--no-cache"))
        if text.returncode != self.cold.returncode:
            self.problem("check text: exit status differs from json", "", text)
        if self.controls("check", text, text.stdout + text.stderr):
            return
        if text.returncode in _CLEAN_OR_FINDINGS:
            lines = text.stdout.splitlines()
            bad = [line for line in lines if not _CHECK_LINE.match(line)]
            if bad or len(lines) != len(self.findings):
                self.problem(
                    "check text: not one well-formed line per finding", repr(bad[:3]), text
                )

    def sarif(self) -> None:
        sarif = self.ran(rpcsurface(self.root, "check", "--format", "sarif", "--no-cache"))
        if sarif.returncode != self.cold.returncode:
            self.problem("check sarif: exit status differs from json", "", sarif)
        elif sarif.returncode in _CLEAN_OR_FINDINGS:
            try:
                results = json.loads(sarif.stdout)["runs"][0]["results"]
            except (json.JSONDecodeError, KeyError, IndexError, TypeError) as error:
                self.problem("check sarif: not valid", repr(error), sarif)
                return
            if len(results) != len(self.findings):
                self.problem("check sarif: not one result per finding", "", sarif)

    def report(self) -> None:
        report = self.reported = self.ran(rpcsurface(self.root, "report"), statuses=())
        if report.returncode not in (EXIT_CLEAN, EXIT_ERROR):
            self.problem("report: undocumented exit status", "", report)
        elif (report.returncode == EXIT_ERROR) != (self.cold.returncode == EXIT_ERROR):
            self.problem("report: exit 2 differs from check's", "", report)
        self.controls("report", report, report.stdout + report.stderr)

    def lint(self, env: dict[str, str] | None = None) -> tuple[Ran, list[Reported] | None]:
        """pylint on the project's modules that build, and our findings in its json2
        report (None, said as a problem, when it wrote none)."""
        json_path = self.root.parent / f"{self.root.name}.pylint.json"
        lint = self.ran(pylint(self.root, readable_modules(self.spec), json_path, env), ())
        try:
            reported = json.loads(json_path.read_text(encoding="utf-8"))["messages"]
        except (OSError, json.JSONDecodeError, KeyError) as error:
            self.problem("pylint: no json2 report", repr(error), lint)
            return lint, None
        finally:
            json_path.unlink(missing_ok=True)
        return lint, [m for m in _reported(reported, self.root) if m.symbol.startswith("rpc")]

    def pylint_parity(self) -> None:
        linted = readable_modules(self.spec)
        lint, ours = self.lint()
        self.linted = ours
        if lint.returncode is not None and lint.returncode & 1:
            self.problem("pylint: fatal message", "", lint)
        if not self.controls("pylint", lint, lint.stdout):
            lines = lint.stdout.splitlines()
            bad = [line for line in lines if line and not _PYLINT_LINE.match(line)]
            if bad:
                self.problem("pylint text: a line that is no message", repr(bad[:3]), lint)
        if ours is None:
            return
        if self.cold.returncode == EXIT_ERROR:
            if not any(m.symbol == "rpcsurface-config-error" for m in ours):
                self.problem(
                    "parity: check exits 2, pylint reports no rpcsurface-config-error", "", lint
                )
        elif self.cold.returncode in _CLEAN_OR_FINDINGS:
            mine = sorted(_key(m) for m in self.findings if m.path in linted)
            theirs = sorted(_key(m) for m in ours)
            if mine != theirs:
                self.problem(
                    "parity: pylint and check differ",
                    f"check only: {sorted(set(mine) - set(theirs))}\n"
                    f"pylint only: {sorted(set(theirs) - set(mine))}",
                    lint,
                )

    def cache_folder(self) -> None:
        """check, report and pylint under a cache folder that can't be used: what they
        print with the store, and one line on stderr naming the folder."""
        env, folder = unusable_cache(self.spec.cache, self.root)
        check = self.ran(rpcsurface(self.root, "check", "--format", "json", env=env))
        report = self.ran(rpcsurface(self.root, "report", env=env), statuses=())
        lint, ours = self.lint(env)
        runs = [(self.cold, check), (self.reported, report), (None, lint)]
        for before, ran in runs:
            lines = ran.stderr.splitlines(keepends=True)
            said = [line for line in lines if line.startswith(f"{CACHE_SAID}{folder} (")]
            if len(said) != 1:
                self.problem("unusable cache folder: not said once", f"{len(said)} lines", ran)
            rest = "".join(line for line in lines if line not in said)
            if before is not None and (ran.returncode, ran.stdout, rest) != (
                before.returncode,
                before.stdout,
                before.stderr,
            ):
                self.problem("unusable cache folder: output differs from the store's", "", ran)
        theirs = self.linted
        if (
            ours is not None
            and theirs is not None
            and sorted(map(_key, ours)) != sorted(map(_key, theirs))
        ):
            self.problem("unusable cache folder: pylint's findings differ", "", lint)

    def lived(self) -> None:
        """Two pylint runs in one process with the library edited between them: the
        second gives what a fresh process gives (:data:`LIVED`). On a copy of the
        project beside it, whose handler is ``lived.LivedRunner``, deriving from the
        library's class, and whose base handler answers nothing: every name the library
        gains is then answered by it alone."""
        side = self.root.parent / f"{self.root.name}-lived"
        library = self.root.parent / f"{self.root.name}-library"
        files = render(self.spec)
        files["pyproject.toml"] = fast_surface(
            "core.Core", "lived.LivedRunner", "lived.LivedBase", "handlers.RPCS"
        )
        files["lived.py"] = (
            f"from {LIVED_LIBRARY} import LibraryBase\n\n\nclass LivedBase:\n    pass\n\n\n"
            "class LivedRunner(LibraryBase):\n    pass\n"
        )
        write(side, files)
        write(library, {f"{LIVED_LIBRARY}.py": _methods("LibraryBase", frozenset())})
        calls = (*self.spec.core_calls, *(call for sub in self.spec.subs for call in sub.calls))
        edited = _methods("LibraryBase", frozenset(n for n, _, _ in calls if is_answerable(n)))
        env = {**clean_environment(), "PYTHONPATH": str(library)}
        modules = [*readable_modules(self.spec), "lived.py"]
        outputs = [side.parent / f"{side.name}.{n}.json" for n in ("first", "second", "fresh")]
        driver = self.ran(
            _run(
                side,
                [sys.executable, "-c", _LIVED_DRIVER, str(library / f"{LIVED_LIBRARY}.py"), edited]
                + [str(path) for path in outputs[:2]]
                + modules,
                "python -c LIVED_DRIVER (pylint twice in one process, the library edited between)",
                env,
            ),
            (),
        )
        # Without the store, which the runs in one process wrote: nothing remembered.
        fresh = self.ran(pylint(side, modules, outputs[2], {**env, "RPCSURFACE_NO_CACHE": "1"}), ())
        try:
            second, alone = (
                sorted(
                    _key(m)
                    for m in _reported(json.loads(path.read_text("utf-8"))["messages"], side)
                    if m.symbol.startswith("rpc")
                )
                for path in outputs[1:]
            )
        except (OSError, json.JSONDecodeError, KeyError) as error:
            self.problem("long-lived: no json2 report", repr(error), driver)
            return
        finally:
            for path in outputs:
                path.unlink(missing_ok=True)
        if second != alone:
            self.problem(
                "long-lived: a library edit between runs differs from a fresh process",
                f"in one process only: {sorted(set(second) - set(alone))}\n"
                f"fresh only: {sorted(set(alone) - set(second))}",
                fresh,
            )

    def twin(self, twin_root: Path) -> None:
        """The relation: the project gives what its twin gives."""
        twin = self.spec.twin()
        if twin == self.spec:
            return
        write(twin_root, render(twin))
        other = self.ran(rpcsurface(twin_root, "check", "--format", "json", "--no-cache"))
        relation = sorted(self.spec.shapes & TWINNED_SHAPES)
        cold = self.cold
        if other.returncode != cold.returncode:
            self.problem(
                "relation: exit status differs from the twin's",
                f"shapes {relation}: {cold.returncode} here, {other.returncode} for the twin",
                other,
            )
            return
        if cold.returncode not in _CLEAN_OR_FINDINGS:
            return  # both configuration errors: their reasons differ by design
        theirs = _parse_check_json(twin_root, other)
        if isinstance(theirs, str):
            return  # the twin's own run is judged when it is drawn itself
        # The renamed module is util.py in the twin: a finding at it is there by its name.
        renamed = {f"{self.spec.util_name}.py": "util.py"}
        here = sorted(_key(replace(m, path=renamed.get(m.path, m.path))) for m in self.findings)
        there = sorted(_key(m) for m in theirs)
        if here != there:
            self.problem(
                "relation: findings differ from the twin's",
                f"shapes {relation}\nhere only: {sorted(set(here) - set(there))}\n"
                f"twin only: {sorted(set(there) - set(here))}",
                other,
            )

    def worlds(self, folder: Path) -> None:
        """A base that may be the caller stands for two worlds, one where the class is a
        caller and one where it is not: a claim about every caller holds in both, or is
        a guess."""
        if self.cold.returncode not in _CLEAN_OR_FINDINGS:
            return
        keys: list[set[tuple[object, ...]]] = []
        for caller in (True, False):
            root = folder.parent / f"{folder.name}-world-{'caller' if caller else 'object'}"
            write(root, render(self.spec.world(caller)))
            other = self.ran(rpcsurface(root, "check", "--format", "json", "--no-cache"))
            parsed = _parse_check_json(root, other)
            if isinstance(parsed, str) or other.returncode not in _CLEAN_OR_FINDINGS:
                return
            keys.append({(m.symbol, m.path, m.line, m.column) for m in parsed})
        shapes = sorted(s.form for s in self.spec.subs if s.form in MAYBE_BASES)
        for m in self.findings:
            key = (m.symbol, m.path, m.line, m.column)
            if m.symbol in _ALL_CALLERS and not all(key in world for world in keys):
                self.problem(
                    "relation: a claim about every caller that one world refutes",
                    f"shapes {shapes}: {key} is not in the world where the class is a caller",
                    self.cold,
                )


# ---------------------------------------------------------------------------
# Reproducers


def reproducer(spec: Spec, problems: list[Problem], folder: Path) -> Path:
    """Write *spec*'s project (and its twin) under *folder*, with a README.txt holding the
    spec, the commands and what broke; returns the README."""
    if folder.exists():
        shutil.rmtree(folder)
    write(folder / "project", render(spec))
    if spec.twin() != spec:
        write(folder / "twin", render(spec.twin()))
    lines = [
        "A failing example of tests/fuzz_shapes.py (scripts/fuzz.py).",
        "",
        f"spec = {spec!r}",
        "",
        "Files of project/ (special files: FIFO, links, folders):",
    ]
    for relpath, content in sorted(render(spec).items()):
        shown = content if isinstance(content, str) else repr(content)
        if isinstance(shown, str) and len(shown) > 2000:
            shown = shown[:2000] + f"... ({len(shown)} characters)"
        lines += [f"--- {relpath!r}", str(shown)]
    lines += ["", "Commands (run in project/; the relation ones in twin/ too):"]
    lines += [
        "  rpcsurface check --format json",
        "  rpcsurface check --no-cache",
        "  rpcsurface report",
        f"  pylint --load-plugins=pylint_rpcsurface --disable=all --enable=rpcsurface "
        f"{' '.join(readable_modules(spec))}",
        "",
        "Problems:",
    ]
    lines += [f"* {p.kind}: {p.detail}" for p in problems]
    if spec.cache:
        lines += ["", f"The runs under {spec.cache} have the environment unusable_cache() makes."]
    readme = folder / "README.txt"
    readme.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="backslashreplace")
    return readme


Hook = Callable[[Spec, Examined], None]

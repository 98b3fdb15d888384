"""How much of a released engine an ``init`` that reads the text first would still build.

    python bench/init_reach.py [--engines vllm,lmdeploy,vllm-0.11] \\
        [--cache ~/.cache/rpcsurface-init-engines]
    python bench/init_reach.py --tree FOLDER [--tree FOLDER ...]

``init`` builds every module with astroid; astroid's tree of every file alone already
takes more than twice a cold ``check`` on most engines (bench/init_speed.py's floors).
An ``init`` that finds from the text (the words of each file, or Python's own tree) which
files its readers can need, and builds only those, is bounded by the files its search
for senders must read. This script runs ``init``'s discovery on the tree, in process, as
``rpcsurface init`` does (every module built, test modules left out), and gives the share
of the tree's bytes (of its ``.py`` files, tests left out) held by the files:

1. **a send or a lookup**: whose Python tree has a call of a send (``x.put(...)``,
   ``x.send(...)``, ... the discovery's ``SEND_CALLS``), a ``getattr`` whose name is no
   constant, or a call of a run_method helper's name: where the search's first round can
   find a sender;
2. **any sender's name**: holding, as a word, the name of a sender the search finds:
   every file a search led by words reads to find what calls them (a forward or a call
   site), since a word does not tell which of them call the sender;
3. **a sender leading to a call site**: calling (the word, then ``(``, not after ``def``
   or ``class``) the name of a sender whose call sites pass literal names, or that one of
   those forwards to, through any number of layers: what a words-led search would read
   were it told up front which senders matter;
4. the files of 1 and 3: the least such an ``init`` builds before it reads any class,
   worker loop or registry.

Nothing is timed: the shares say whether building only those files can fit the target
(bench/init_speed.py gives the time of astroid's tree of every file). ``--files`` prints
the files of columns 1 and 3 instead, one a line, relative to the tree: given to
bench/floors.py's ``CITED_ONLY`` (in ``CITED``, run in the tree), they time an ``init``
that builds up front only those files, any other module only when an inference reaches it.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

# Run as `python bench/init_reach.py`: its folder is first on sys.path.
import init_engines

from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.collection import no_cyclic_collection
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.discovery import _is_test
from pylint_rpcsurface.discovery.core import Discovery
from pylint_rpcsurface.discovery.reading import SEND_CALLS, Sender
from pylint_rpcsurface.sources import SourceTree

DEFAULT_ENGINES = ("lmdeploy", "vllm", "vllm-0.11")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CALLED = re.compile(r"(?<!def )(?<!class )\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
FORWARDED = re.compile(r"is forwarded to (\w+)\(\)")
HEADER = (
    "| Tree | .py files (tests left out) | senders | leading to a call site "
    "| a send or a lookup | any sender's name | a sender leading to a call site "
    "| 1 and 3 |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def sends_or_looks_up(text: str, helpers: set[str]) -> bool:
    """Whether *text*'s Python tree calls a send, a getattr of no constant name, or a
    run_method helper by one of the names *helpers* (a file that won't parse counts)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if isinstance(func, ast.Attribute) and called in SEND_CALLS:
            return True
        if (
            called == "getattr"
            and len(node.args) > 1
            and not isinstance(node.args[1], ast.Constant)
        ):
            return True
        if called in helpers:
            return True
    return False


def leading(senders: list[Sender], with_sites: set[str]) -> set[str]:
    """The names of the senders whose call sites pass literal names (*with_sites*), and of
    those they forward to, through every layer."""
    forwarded_to: dict[str, set[str]] = defaultdict(set)
    for sender in senders:
        found = FORWARDED.search(sender.reach)
        if found:
            forwarded_to[sender.function.name].add(found.group(1))
    names: set[str] = set()
    todo = list(with_sites)
    while todo:
        name = todo.pop()
        if name not in names:
            names.add(name)
            todo.extend(forwarded_to.get(name, ()))
    return names


@dataclass
class Columns:
    """What a tree's row is made of: each file's size, the senders and the files of each
    column (absolute paths)."""

    sizes: dict[str, int]
    senders: int
    leading: int
    first: set[str]
    any_name: set[str]
    calling: set[str]


def columns(tree: Path) -> Columns:
    """``init``'s discovery on *tree*, and the files of each column."""
    project = tree.resolve()
    store = ModuleStore(SourceTree((project,)))
    with no_cyclic_collection(), store.resolving_imports(installed_packages=False):
        paths = [p for p in store.python_files() if not _is_test(Path(p).relative_to(project))]
        modules = [m for p in paths if (m := store.module(p)) is not None]
        discovery = Discovery(project, modules, ClassIndex(store))
        helpers = dict(discovery.run_method_helpers())
        senders = discovery.senders(helpers)
        with_sites = {g.method for g in discovery.groups(senders) if g.sites}
    texts = {p: Path(p).read_bytes().decode("utf-8", "replace") for p in paths}
    names = {s.function.name for s in senders}
    wanted = leading(senders, with_sites)
    return Columns(
        {p: len(t) for p, t in texts.items()},
        len(senders),
        sum(s.function.name in wanted for s in senders),
        {p for p, t in texts.items() if sends_or_looks_up(t, set(helpers))},
        {p for p, t in texts.items() if names & set(WORD.findall(t))},
        {p for p, t in texts.items() if wanted & set(CALLED.findall(t))},
    )


def reach(label: str, tree: Path) -> str:
    """The row of *tree*, named *label*."""
    found = columns(tree)
    total = sum(found.sizes.values())

    def share(files: set[str]) -> str:
        return f"{100 * sum(found.sizes[p] for p in files) / total:.0f}%"

    return (
        f"| {label} | {len(found.sizes)} | {found.senders} | {found.leading} "
        f"| {share(found.first)} | {share(found.any_name)} | {share(found.calling)} "
        f"| {share(found.first | found.calling)} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    init_engines.add_engine_options(parser, DEFAULT_ENGINES)
    parser.add_argument(
        "--tree", type=Path, action="append", help="measure this unpacked tree instead"
    )
    parser.add_argument(
        "--files",
        action="store_true",
        help="print, instead of the table, the files of columns 1 and 3, relative to the "
        "tree, one a line: what bench/floors.py's CITED_ONLY builds up front (CITED)",
    )
    args = parser.parse_args(argv)
    if args.tree:
        # bench/init_engines.py's layout, <key>/src-<version>, or any folder by its name
        trees = [
            (f"{t.parent.name} {t.name[4:]}" if t.name.startswith("src-") else t.name, t)
            for t in args.tree
        ]
    else:
        trees = [(f"{e.name} {e.version}", t) for e, t in init_engines.chosen_trees(parser, args)]
    if args.files:
        for _, tree in trees:
            found = columns(tree)
            for path in sorted(found.first | found.calling):
                print(os.path.relpath(path, tree.resolve()))
        return 0
    print(HEADER, flush=True)
    for label, tree in trees:
        print(reach(label, tree), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

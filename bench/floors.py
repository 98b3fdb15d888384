"""What any run that builds with astroid costs on a tree, against the rows' baselines.

    python bench/floors.py TREE --caller REL/PATH.py [--repeat 5]

TREE holds a ``pyproject.toml`` with a ``[tool.rpcsurface]`` table (bench/trees.py writes
one beside each released engine it unpacks). Each command below is its own process, run
``--repeat`` times, interleaved; the table gives each median and its ratio to the two
baselines of bench/run.py's rows: ``ast.parse`` of every file (the ``check`` rows) and
pylint alone on the caller module from stdin (the editor rows).

- ``python -c pass``, ``import astroid``, ``import pylint_rpcsurface.commands.main``: the
  start-up of any run, and of ``rpcsurface check``;
- astroid's bootstrap (a one-line module built, which builds ``builtins``);
- the caller module built with astroid: what a run costs that must read that module
  again after it was saved, before the analysis reads anything;
- the modules of every class and function the configuration names (callers, handlers,
  base handlers, tables, registries, proxies) built with astroid in one process: what a
  truly cold run costs at the least, before it follows a subclass, an import or a call.

Nothing is imported from the tree: astroid builds its modules from their text.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PARSE_ALL = (
    "import ast, pathlib\n"
    'for p in sorted(pathlib.Path(".").rglob("*.py")):\n'
    "    ast.parse(p.read_bytes(), str(p))"
)
# Python's own tree of every file and one walk of it, keeping each call by the name it
# calls and each function and class by its name: the least a first pass that finds
# senders and call sites by name costs, read without astroid (the collector off).
INDEX_ALL = (
    "import ast, gc, pathlib\n"
    "gc.disable()\n"
    "calls, defined = {}, {}\n"
    "Call, Attribute, Name = ast.Call, ast.Attribute, ast.Name\n"
    "DEFINED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)\n"
    'for p in sorted(pathlib.Path(".").rglob("*.py")):\n'
    "    try:\n"
    "        tree = ast.parse(p.read_bytes(), str(p))\n"
    "    except SyntaxError:\n"
    "        continue\n"
    "    for node in ast.walk(tree):\n"
    "        kind = type(node)\n"
    "        if kind is Call:\n"
    "            func = node.func\n"
    "            name = func.attr if type(func) is Attribute else getattr(func, 'id', None)\n"
    "            calls.setdefault(name, []).append(node)\n"
    "        elif kind in DEFINED:\n"
    "            defined.setdefault(node.name, []).append(node)\n"
)
# Every file's text read once and each word in it (an identifier, a keyword, a name in a
# string) indexed to the files holding it: the least a first pass that finds where a
# name can occur costs, from the text alone, without parsing anything.
WORDS_ALL = (
    "import gc, pathlib, re\n"
    "gc.disable()\n"
    'word = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")\n'
    "holding = {}\n"
    'for p in sorted(pathlib.Path(".").rglob("*.py")):\n'
    "    for found in set(word.findall(p.read_bytes())):\n"
    "        holding.setdefault(found, []).append(p)\n"
)
# ``rpcsurface init`` that builds up front, as the project's modules, only the files the
# environment's CITED lists (one path a line, relative to the tree): those init's own
# table and notes cite (file:line). Any other module is built only when an inference
# reaches it, as astroid imports it. The least an init that builds with astroid only the
# files its proposal cites costs with today's readers. The first listing of the files is
# discover()'s, the only one narrowed.
CITED_ONLY = (
    "import os, sys\n"
    "sys.path[:] = [p for p in sys.path if p]  # as the console script: not the tree\n"
    "from pylint_rpcsurface.analysis.modules import ModuleStore\n"
    "cited = set(os.environ['CITED'].splitlines())\n"
    "every = ModuleStore.python_files\n"
    "def cited_only(store):\n"
    "    ModuleStore.python_files = every\n"
    "    return tuple(p for p in every(store) if os.path.relpath(p) in cited)\n"
    "ModuleStore.python_files = cited_only\n"
    "from pylint_rpcsurface.commands.main import console_main\n"
    "sys.argv[1:] = ['init']\n"
    "console_main()  # as the console script: no teardown of astroid's trees\n"
)
# astroid's tree of every file: the parse and astroid's rebuild of it into its nodes, and
# nothing after (no transform, no inference; the private step its builder takes first),
# the cyclic collector off and no class or function given its position, as in init.
TREES_ALL = (
    "import gc, pathlib, sys, astroid\n"
    "from astroid.builder import AstroidBuilder\n"
    "from astroid.rebuilder import TreeRebuilder\n"
    "sys.setrecursionlimit(10000)\n"
    "gc.disable()  # as init reads: the collector would walk the trees again and again\n"
    "TreeRebuilder._get_position_info = lambda self, node, parent: None  # as init builds\n"
    "builder = AstroidBuilder(astroid.MANAGER, apply_transforms=False)\n"
    'for p in sorted(pathlib.Path(".").rglob("*.py")):\n'
    '    text = p.read_bytes().decode("utf-8", "replace")\n'
    "    try:\n"
    "        builder._data_build(text, p.stem, str(p))\n"
    "    except astroid.AstroidSyntaxError:\n"
    "        pass  # a file astroid can't parse: init skips it too\n"
)
# The baseline of the editor rows; it exits non-zero when it finds unused imports.
PYLINT_ALONE = "pylint alone"
NAMED_KEYS = ("callers", "handlers", "base-handlers", "tables", "registry", "own-members")


def configured_modules(tree: Path) -> list[str]:
    """The files of the modules the tree's ``[tool.rpcsurface]`` table names, relative."""
    table = tomllib.loads((tree / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    roots = [tree / root for root in table.get("source-roots", ["."])]
    names: set[str] = set()
    for entry in [*table.get("surface", []), *table.get("proxy", [])]:
        for key in NAMED_KEYS:
            value = entry.get(key, [])
            names.update([value] if isinstance(value, str) else value)
    found = {_module_file(name, roots, tree) for name in names}
    return sorted(path for path in found if path is not None)


def _module_file(name: str, roots: list[Path], tree: Path) -> str | None:
    """The file of the longest prefix of dotted *name* that is a module (the rest are
    attributes), relative to *tree*."""
    parts = name.split(".")
    while parts:
        for root in roots:
            for candidate in (root.joinpath(*parts).with_suffix(".py"),
                              root.joinpath(*parts, "__init__.py")):  # fmt: skip
                if candidate.is_file():
                    return str(candidate.relative_to(tree))
        parts.pop()
    return None


def commands(tree: Path, caller: str, configured: list[str]) -> dict[str, list[str]]:
    python = sys.executable
    build = "import sys, astroid\nsys.setrecursionlimit(10000)\nfor f in {!r}:\n"
    build += "    astroid.MANAGER.ast_from_file(f)\n"
    return {
        "parse": [python, "-c", PARSE_ALL],
        PYLINT_ALONE: [
            *(python, "-m", "pylint", "--persistent=n", "--score=n", "--disable=all"),
            *("--enable=unused-import", "--from-stdin", str(tree / caller)),
        ],
        "python -c pass": [python, "-c", "pass"],
        "import astroid": [python, "-c", "import astroid"],
        "import pylint_rpcsurface.commands.main": [
            python,
            "-c",
            "import pylint_rpcsurface.commands.main",
        ],
        "astroid's bootstrap (a one-line module built)": [
            python,
            "-c",
            "import astroid; astroid.parse('x = 1')",
        ],
        "the caller module built with astroid": [python, "-c", build.format([caller])],
        "the configured modules built with astroid": [
            python,
            "-c",
            build.format(configured),
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--caller", required=True, help="the caller module, relative")
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args(argv)
    tree = arguments.tree.resolve()
    configured = configured_modules(tree)
    runs = commands(tree, arguments.caller, configured)
    buffer = (tree / arguments.caller).read_bytes()
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(arguments.repeat):
        for label, argv_of in runs.items():
            given = buffer if label == PYLINT_ALONE else None
            start = time.perf_counter()
            done = subprocess.run(argv_of, cwd=tree, input=given, capture_output=True, check=False)
            times[label].append(time.perf_counter() - start)
            if label != PYLINT_ALONE and done.returncode != 0:
                print(f"{label} failed: {done.stderr.decode(errors='replace')[-2000:]}")
                return 1
    medians = {label: statistics.median(values) for label, values in times.items()}
    print(f"configured modules: {', '.join(configured)}\n")
    print("| run | median | ÷ parse | ÷ pylint alone |")
    print("|---|---:|---:|---:|")
    for label, median in medians.items():
        by_parse = median / medians["parse"]
        by_pylint = median / medians[PYLINT_ALONE]
        print(f"| {label} | {median:.3f} s | {by_parse:.2f} | {by_pylint:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The layers you can see in the folder, held by tests.

* configuration and the model of facts at the bottom (``config/``, ``model.py``,
  ``messages/``, ``sources.py``);
* ``analysis/``: the astroid readers, the only place astroid is used besides the pylint
  adapter (``pylint_plugin.py``) and the engine that wires analysis to rules;
* ``rules/``: pure functions from facts to findings; ``rules.findings`` is the one entry
  point, so no front end derives a finding of its own;
* the front ends: ``pylint_plugin.py`` and ``commands/``;
* ``discovery/``, beside them: what ``rpcsurface init`` reads, with the analysis's
  readers. The checker never imports it, not even for the type checker: only the ``init``
  command does; and its own modules import each other one way, never in a circle.

The imports are read with :mod:`ast`, lazy ones inside functions included, and checked
against those rules; a fresh interpreter then shows that importing the bottom layers
and the rules really loads neither astroid nor pylint, and neither does a ``rpcsurface
check`` that a warm cache answers (the point of its fast path).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import (
    APP_PLANTED,
    PLANTED_LINE,
    PYPROJECT,
    ROOT,
    clean_environment,
    project,
    run_check,
)

PACKAGE = ROOT / "pylint_rpcsurface"
NAME = PACKAGE.name
# Twelve, and init's discovery: a package of its own so the checker's analysis/ holds
# only what the checker runs; and the language server's server/, which only `rpcsurface
# lsp` imports (it needs pygls, the lsp extra).
MAX_TOP_LEVEL_ENTRIES = 14

# Where astroid may be imported, and where pylint may.
MAY_IMPORT_ASTROID = ("analysis.", "engine", "engine.", "pylint_plugin", "discovery", "discovery.")
# Where the language server's libraries (the lsp extra) and the server itself may be
# imported: a plugin or a command without the extra must never reach them.
MAY_IMPORT_SERVER = ("server", "server.", "commands.lsp")
MAY_IMPORT_PYLINT = ("pylint_plugin",)
# The layers that must stay free of astroid and pylint, even through what they import.
PURE = ("rules", "rules.", "model", "config", "messages", "sources")
# The rules' entry points; their modules inside are the rules' own business.
RULES_API = ("rules", "rules.text")
# init's discovery, the one front end that imports it, and what it may read code with.
DISCOVERY = ("discovery", "discovery.")
INIT_COMMAND = "commands.init"
DISCOVERY_READS = (*DISCOVERY, "analysis", "analysis.", "model", "sources", "config", "config.")


def module_name(path: Path) -> str:
    """``analysis.classes`` for pylint_rpcsurface/analysis/classes.py, ``rules`` for its
    __init__.py: the name inside the package."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST, typing_too: bool = False) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that can run: everything but the body of ``if TYPE_CHECKING:``, unless
    *typing_too*."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif _is_type_checking(child) and not typing_too:
            assert isinstance(child, ast.If)
            for other in child.orelse:
                yield from _import_nodes(other)
        else:
            yield from _import_nodes(child, typing_too)


def imports_of(path: Path, own_name: str, typing_too: bool = False) -> Iterator[tuple[int, str]]:
    """Every module *path* imports when it runs, anywhere in it (lazy imports too), fully
    qualified: ``(line, "astroid.nodes")`` or ``(line, "pylint_rpcsurface.rules.text")``.
    Imports only for the type checker don't run, so they count only with *typing_too*."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in _import_nodes(tree, typing_too):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
            continue
        base = node.module or ""
        if node.level:
            anchor = f"{NAME}.{own_name}".split(".") if own_name else [NAME]
            anchor = anchor if is_package else anchor[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        yield node.lineno, base
        for alias in node.names:  # ``from pkg import module`` imports pkg.module too
            yield node.lineno, f"{base}.{alias.name}"


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name == p or (p.endswith(".") and name.startswith(p)) for p in patterns)


def _top(name: str) -> str:
    return name.split(".", 1)[0]


def internal(imported: str, modules: dict[str, Path]) -> str | None:
    """The package module *imported* names, or None for anything else."""
    if _top(imported) != NAME:
        return None
    inside = imported[len(NAME) + 1 :] if imported != NAME else ""
    while inside and inside not in modules:  # ``pkg.module.Name`` -> ``pkg.module``
        inside = inside.rpartition(".")[0]
    return inside if inside in modules else ""


def violations(modules: dict[str, Path]) -> list[str]:
    """Every import statement that breaks the layering, once, as ``file:line: why``."""
    found: list[str] = []
    for name, path in modules.items():
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        for line, imported in imports_of(path, name):
            top = _top(imported)
            if top == "astroid" and not _matches(name, MAY_IMPORT_ASTROID):
                found.append(f"{where}:{line}: imports {imported} outside analysis/ and engine")
            if top == "pylint" and not _matches(name, MAY_IMPORT_PYLINT):
                found.append(f"{where}:{line}: imports {imported}; only the adapter may")
            target = internal(imported, modules)
            if (
                top in ("pygls", "lsprotocol") or _matches(target or "", ("server", "server."))
            ) and (not _matches(name, MAY_IMPORT_SERVER)):
                found.append(f"{where}:{line}: imports {imported}; only server/ and `lsp` may")
            if (
                target
                and _matches(target, ("rules.",))
                and not _matches(name, ("rules", "rules."))
                and target not in RULES_API
            ):
                found.append(
                    f"{where}:{line}: imports {imported}; front ends use rules.findings "
                    "(or rules.text), never a rule module itself"
                )
        # What only the type checker reads counts here: a layer named for the type
        # checker is still a layer the code leans on.
        for line, imported in imports_of(path, name, typing_too=True):
            target = internal(imported, modules)
            if not target:
                continue
            if _matches(target, DISCOVERY) and not _matches(name, (*DISCOVERY, INIT_COMMAND)):
                found.append(
                    f"{where}:{line}: imports {imported}; the checker never imports init's "
                    "discovery (only the init command does)"
                )
            if _matches(name, DISCOVERY) and not _matches(target, DISCOVERY_READS):
                found.append(
                    f"{where}:{line}: imports {imported}; init's discovery reads code with "
                    "analysis/ and the facts below it, nothing of the checker's above"
                )
    # ``from astroid import nodes`` names astroid and astroid.nodes: one breach, not two.
    once: dict[tuple[str, str], str] = {}
    for breach in found:
        place, _, why = breach.partition(": imports ")
        once.setdefault((place, why.split(" ", 1)[1] if " " in why else why), breach)
    return list(once.values())


def reached(start: str, modules: dict[str, Path]) -> dict[str, str]:
    """Every module the package module *start* imports, directly or through other
    package modules, each with the chain that reaches it."""
    chains = {start: start}
    frontier = [start]
    while frontier:
        current = frontier.pop()
        for _, imported in imports_of(modules[current], current):
            target = internal(imported, modules)
            key = imported if target is None else target
            if key in chains or target == "":
                continue
            chains[key] = f"{chains[current]} -> {key}"
            if target is not None:
                frontier.append(target)
    return chains


def import_cycle(modules: dict[str, Path], package: tuple[str, ...]) -> list[str]:
    """A circle of imports among the modules of *package*, those only for the type
    checker included (``[a, b, a]``: a imports b, which imports a), or ``[]``.

    ``from pkg import module`` imports the package first, but a module importing a sibling
    that way does not lean on the package's own code: only the sibling counts."""
    inside = {name: path for name, path in modules.items() if _matches(name, package)}
    edges: dict[str, set[str]] = {}
    for name, path in inside.items():
        by_line: dict[int, set[str]] = {}
        for line, imported in imports_of(path, name, typing_too=True):
            target = internal(imported, modules)
            if target in inside and target != name:
                by_line.setdefault(line, set()).add(target)
        edges[name] = {
            target
            for targets in by_line.values()
            for target in targets
            if not any(other.startswith(f"{target}.") for other in targets)
        }
    done: set[str] = set()

    def walk(name: str, trail: list[str]) -> list[str]:
        if name in trail:
            return [*trail[trail.index(name) :], name]
        if name in done:
            return []
        for target in sorted(edges[name]):
            cycle = walk(target, [*trail, name])
            if cycle:
                return cycle
        done.add(name)
        return []

    for start in sorted(inside):
        cycle = walk(start, [])
        if cycle:
            return cycle
    return []


def test_the_package_has_few_top_level_entries() -> None:
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert {"analysis", "rules", "commands", "discovery"} <= set(entries), entries
    assert len(entries) <= MAX_TOP_LEVEL_ENTRIES, entries


def test_every_import_respects_the_layers() -> None:
    modules = package_modules()
    assert {"engine", "rules", "analysis.classes", "commands.main"} <= modules.keys()
    assert violations(modules) == []


@pytest.mark.parametrize("layer", ["rules", "rules.text", "model", "config", "messages"])
def test_the_pure_layers_reach_neither_astroid_nor_pylint(layer: str) -> None:
    modules = package_modules()
    chains = reached(layer, modules)
    bad = {
        name: chain
        for name, chain in chains.items()
        if _top(name) in ("astroid", "pylint")
        or _matches(
            name, ("analysis", "analysis.", "engine", "pylint_plugin", "commands.", *DISCOVERY)
        )
    }
    assert bad == {}


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        ("rules.text", "import astroid\n", "outside analysis/"),
        ("model", "from pylint import interfaces\n", "only the adapter"),
        ("commands.report", "from ..rules.registry_rules import registry_findings\n", "never a"),
        ("store", "from astroid import nodes\n", "outside analysis/"),
        ("engine", "from pylint_rpcsurface.discovery import discover\n", "never imports init"),
        (
            "analysis.classes",
            "def lazily():\n    from pylint_rpcsurface.discovery.reading import Proposal\n",
            "never imports init",
        ),
        (
            "commands.report",
            "if TYPE_CHECKING:\n    from pylint_rpcsurface.discovery import Proposal\n",
            "never imports init",
        ),
        ("discovery.keys", "from pylint_rpcsurface.engine import Analysis\n", "nothing of the"),
        ("discovery.core", "from pylint_rpcsurface.commands import init\n", "nothing of the"),
    ],
)
def test_the_layer_check_sees_each_kind_of_breach(
    tmp_path: Path, module: str, source: str, why: str
) -> None:
    """The checks above can fail: plant one bad import in a copy of a module."""
    modules = package_modules()
    planted = tmp_path / modules[module].name
    planted.write_text(modules[module].read_text(encoding="utf-8") + source, encoding="utf-8")
    found = violations({**modules, module: planted})
    (breach,) = found
    assert why in breach


def test_init_lives_in_a_package_of_its_own_beside_the_analysis() -> None:
    modules = package_modules()
    assert {"discovery", "discovery.core", "discovery.callers", "discovery.table_surfaces"} <= (
        modules.keys()
    )
    assert not any(name.startswith("analysis.discovery") for name in modules)
    readers = {
        name
        for name, path in modules.items()
        for _, imported in imports_of(path, name, typing_too=True)
        if _matches(internal(imported, modules) or "", DISCOVERY) and not _matches(name, DISCOVERY)
    }
    assert readers == {INIT_COMMAND}


def test_the_discovery_modules_import_each_other_one_way() -> None:
    modules = package_modules()
    assert {"discovery.core", "discovery.callers", "discovery.table_surfaces"} <= modules.keys()
    assert import_cycle(modules, DISCOVERY) == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        # what a lower module names for the type checker only is still a circle
        (
            "discovery.reading",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from pylint_rpcsurface.discovery.core import Discovery\n",
        ),
        # the package's own names, from a module the package imports
        ("discovery.core", "from pylint_rpcsurface.discovery import discover\n"),
        ("discovery.workers", "def lazily():\n    from . import keys\n"),
    ],
)
def test_the_cycle_check_sees_a_circle(tmp_path: Path, module: str, source: str) -> None:
    modules = package_modules()
    planted = tmp_path / modules[module].name
    planted.write_text(modules[module].read_text(encoding="utf-8") + source, encoding="utf-8")
    cycle = import_cycle({**modules, module: planted}, DISCOVERY)
    assert module in cycle, cycle
    assert cycle[0] == cycle[-1], cycle


def test_a_sibling_imported_through_its_package_is_not_a_circle(tmp_path: Path) -> None:
    """``from pkg import module``: the sibling is imported, not the package's code."""
    modules = package_modules()
    planted = tmp_path / "core.py"
    planted.write_text(
        modules["discovery.core"].read_text(encoding="utf-8")
        + "from pylint_rpcsurface.discovery import reading\n",
        encoding="utf-8",
    )
    assert import_cycle({**modules, "discovery.core": planted}, DISCOVERY) == []


def test_a_pure_layer_reaching_astroid_through_another_module_is_seen(tmp_path: Path) -> None:
    modules = package_modules()
    planted = tmp_path / "model.py"
    planted.write_text(
        modules["model"].read_text(encoding="utf-8") + "from pylint_rpcsurface import engine\n",
        encoding="utf-8",
    )
    chains = reached("rules", {**modules, "model": planted})
    assert "astroid" in chains, sorted(chains)
    assert "engine" in chains["astroid"]


def test_importing_the_rules_loads_neither_astroid_nor_pylint() -> None:
    probe = (
        "import sys\n"
        "import pylint_rpcsurface.rules, pylint_rpcsurface.model, pylint_rpcsurface.config\n"
        "import pylint_rpcsurface.commands.main\n"
        "print(sorted(m for m in ('astroid', 'pylint') if m in sys.modules))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        env=clean_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout.strip()) == (0, "[]"), run.stderr


def test_neither_pylint_nor_a_cold_check_loads_init_s_discovery(tmp_path: Path) -> None:
    """The checker runs the analysis, the engine and the rules, never init's discovery."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    probe = (
        "import sys\n"
        "from pylint.lint import Run\n"
        "from pylint_rpcsurface.commands.main import main\n"
        "Run(['--load-plugins=pylint_rpcsurface', '--disable=all', '--enable=rpcsurface',"
        " 'app.py'], exit=False)\n"
        "code = main(['check', '--no-cache'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('pylint_rpcsurface.discovery')))\n"
        "sys.exit(code)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root,
        env=clean_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert run.stdout.count(f":{PLANTED_LINE}:") == 2, run.stdout  # pylint's, then check's
    assert run.stdout.splitlines()[-1] == "[]"


def test_a_warm_check_does_not_import_astroid_or_pylint(tmp_path: Path) -> None:
    """The point of the fast path: a hit is a stat of every module and nothing else."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    assert run_check(root).returncode == 1  # cold: fills the cache
    probe = (
        "import sys\n"
        "from pylint_rpcsurface.commands.main import main\n"
        "code = main(['check'])\n"
        "print(sorted(m for m in ('astroid', 'pylint') if m in sys.modules))\n"
        "sys.exit(code)\n"
    )
    warm = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root,
        env=clean_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert warm.returncode == 1, warm.stderr
    assert warm.stdout.splitlines()[-1] == "[]"
    assert f":{PLANTED_LINE}:" in warm.stdout

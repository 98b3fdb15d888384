"""The layers you can see in the folder, held by tests.

* configuration and the model of facts at the bottom (``config/``, ``model.py``,
  ``messages/``, ``sources.py``);
* ``analysis/``: the astroid readers, the only place astroid is used besides the pylint
  adapter (``pylint_plugin.py``) and the engine that wires analysis to rules;
* ``rules/``: pure functions from facts to findings; ``rules.findings`` is the one entry
  point, so no front end derives a finding of its own;
* the front ends: ``pylint_plugin.py`` and ``commands/``.

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
MAX_TOP_LEVEL_ENTRIES = 12

# Where astroid may be imported, and where pylint may.
MAY_IMPORT_ASTROID = ("analysis.", "engine", "engine.", "pylint_plugin")
MAY_IMPORT_PYLINT = ("pylint_plugin",)
# The layers that must stay free of astroid and pylint, even through what they import.
PURE = ("rules", "rules.", "model", "config", "messages", "sources")
# The rules' entry points; their modules inside are the rules' own business.
RULES_API = ("rules", "rules.text")


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


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that can run: everything but the body of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif _is_type_checking(child):
            assert isinstance(child, ast.If)
            for other in child.orelse:
                yield from _import_nodes(other)
        else:
            yield from _import_nodes(child)


def imports_of(path: Path, own_name: str) -> Iterator[tuple[int, str]]:
    """Every module *path* imports when it runs, anywhere in it (lazy imports too), fully
    qualified: ``(line, "astroid.nodes")`` or ``(line, "pylint_rpcsurface.rules.text")``.
    Imports only for the type checker don't run, so they don't count."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in _import_nodes(tree):
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
                target
                and _matches(target, ("rules.",))
                and not _matches(name, ("rules", "rules."))
                and target not in RULES_API
            ):
                found.append(
                    f"{where}:{line}: imports {imported}; front ends use rules.findings "
                    "(or rules.text), never a rule module itself"
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


def test_the_package_has_at_most_twelve_top_level_entries() -> None:
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert {"analysis", "rules", "commands"} <= set(entries), entries
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
        or _matches(name, ("analysis", "analysis.", "engine", "pylint_plugin", "commands."))
    }
    assert bad == {}


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        ("rules.text", "import astroid\n", "outside analysis/"),
        ("model", "from pylint import interfaces\n", "only the adapter"),
        ("commands.report", "from ..rules.registry_rules import registry_findings\n", "never a"),
        ("store", "from astroid import nodes\n", "outside analysis/"),
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

"""Copy what it takes to build and install this package into a fresh folder.

Tests that build the package (a wheel, pre-commit's hook environment) work on such a copy,
never on the checkout itself: a build writes build/ and *.egg-info next to pyproject.toml,
and the checkout may be a plain copy without .git (as in CI) or hold uncommitted changes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "pylint_rpcsurface"
# pyproject.toml names README.md (readme) and LICENSE (license-files).
FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")


def package_sources() -> list[Path]:
    """The package's files, relative to the checkout, without caches."""
    return sorted(
        path.relative_to(ROOT)
        for path in (ROOT / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def copy_checkout(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in FILES:
        shutil.copy2(ROOT / name, dest / name)
    for relative in package_sources():
        (dest / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, dest / relative)
    return dest

"""Pathological trees: deep package nesting and a dense import graph, with and without the memo.

    python bench/scale_shapes.py [--depth 400] [--modules 2000] [--imports 5] [--workdir DIR]

Each shape is generated into a temporary folder (or --workdir), then timed with
``rpcsurface check --format json``, as fresh processes: with ``--no-cache``; with the
cache, cold (no cache folder); and with the cache after a one-line edit of one module.
The bound: no run with the cache is slower than 2x the ``--no-cache`` run plus 2 s. Every
run's findings must equal the ``--no-cache`` run's, or the script stops.

- *deep*: a caller class in ``p0/p1/.../pN/core.py`` (every folder a package), and a
  handler at the top; the edit adds a statement to the caller's method.
- *dense*: N modules ``m0 .. mN-1``, each importing 5 others at random (a seed) and the
  caller module; one in twenty defines a subclass of the caller. The edit adds a
  statement to one module's method.

This is a script, not a test: a run takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SURFACE = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.surface]]
name = "scale"
callers = ["{caller}"]
handlers = ["runner.Runner"]
"""
RUNNER = "class Runner:\n    def alpha(self):\n        return 1\n"
CORE = (
    "class Core:\n    def step(self):\n"
    "        self.mgr.call_func('alpha', wait_out=True)\n"
    "        self.mgr.call_func('beta', wait_out=True)\n"
)


def deep(root: Path, depth: int) -> tuple[Path, str]:
    """The deep shape under *root*: the edited file, and what the edit inserts after."""
    folder = root
    parts = [f"p{level}" for level in range(depth)]
    for part in parts:
        folder = folder / part
        folder.mkdir()
        (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "core.py").write_text(CORE, encoding="utf-8")
    (root / "runner.py").write_text(RUNNER, encoding="utf-8")
    caller = ".".join([*parts, "core", "Core"])
    (root / "pyproject.toml").write_text(SURFACE.format(caller=caller), encoding="utf-8")
    return folder / "core.py", "    def step(self):\n"


def dense(root: Path, modules: int, imports: int, seed: int = 0) -> tuple[Path, str]:
    rng = random.Random(seed)
    (root / "core.py").write_text(CORE, encoding="utf-8")
    (root / "runner.py").write_text(RUNNER, encoding="utf-8")
    for index in range(modules):
        lines = [f"import m{rng.randrange(modules)}" for _ in range(imports)]
        base = "(Core)" if index % 20 == 0 else ""
        lines += [
            "",
            "from core import Core",
            "",
            "",
            f"class C{index}{base}:",
            "    def go(self):",
            f"        return {index}",
            "",
        ]
        (root / f"m{index}.py").write_text("\n".join(lines), encoding="utf-8")
    (root / "pyproject.toml").write_text(SURFACE.format(caller="core.Core"), encoding="utf-8")
    return root / f"m{modules // 2}.py", "    def go(self):\n"


def check(root: Path, cache: Path, *extra: str) -> tuple[float, list[object]]:
    script = Path(sys.executable).parent / "rpcsurface"
    command = (
        [str(script)] if script.exists() else [sys.executable, "-m", "pylint_rpcsurface.commands"]
    )
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "check", "--format", "json", *extra],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "RPCSURFACE_CACHE_DIR": str(cache)},
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{root}: rpcsurface check exited {done.returncode}: {done.stderr}")
    found = json.loads(done.stdout or "[]")
    return seconds, sorted((f["symbol"], f["path"], f["line"]) for f in found)


def measure(name: str, root: Path, edited: Path, after: str) -> bool:
    cache = root.with_name(root.name + ".cache")
    shutil.rmtree(cache, ignore_errors=True)
    plain, expected = check(root, cache, "--no-cache")
    cold, found = check(root, cache)
    if found != expected:
        raise SystemExit(f"{name}: the cold run's findings differ from --no-cache's")
    text = edited.read_text(encoding="utf-8")
    edited.write_text(text.replace(after, after + "        edited = 1\n", 1), encoding="utf-8")
    plain_edit, expected = check(root, cache, "--no-cache")
    warm_edit, found = check(root, cache)
    if found != expected:
        raise SystemExit(f"{name}: the run after the edit differs from --no-cache's")
    bound = 2 * max(plain, plain_edit) + 2
    met = cold <= bound and warm_edit <= bound
    print(
        f"| {name} | {plain:.2f} s | {cold:.2f} s | {warm_edit:.2f} s | ≤ {bound:.2f} s "
        f"| {'yes' if met else '**no**'} |",
        flush=True,
    )
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--depth", type=int, default=400)
    parser.add_argument("--modules", type=int, default=2000)
    parser.add_argument("--imports", type=int, default=5)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rpcsurface-scale-") as temporary:
        work = args.workdir or Path(temporary)
        print(
            "| shape | `--no-cache` | cold, with the cache | after a one-line edit | bound | met? |"
        )
        print("|---|---:|---:|---:|---:|---|")
        results = []
        for name, make in (
            (f"deep nesting ({args.depth} packages)", lambda r: deep(r, args.depth)),
            (
                f"dense imports ({args.modules} modules, {args.imports} imports each)",
                lambda r: dense(r, args.modules, args.imports),
            ),
        ):
            root = work / name.split(" ", 1)[0]
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            edited, after = make(root)
            results.append(measure(name, root, edited, after))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Prepare the real trees bench/run.py --tree measures: released engines, as source only.

    python bench/trees.py OUT [--engines vllm,lmdeploy]

For each engine (vLLM 0.7.3 and LMDeploy 0.7.3), bench/engines.py's code fetches the wheel
with ``pip download --no-deps --only-binary :all: NAME==VERSION`` into ``OUT/<name>/wheel``
(a wheel already there is reused) and unpacks only its ``.py`` files into
``OUT/<name>/src``, made again each time. Nothing is installed or imported. The engine's
committed configuration, ``bench/engines/<name>.toml``, is written there as the tree's
pyproject.toml, and the bench/run.py command that measures the tree is printed:

    python bench/run.py --tree OUT/vllm/src --caller vllm/v1/executor/multiproc_executor.py \\
        --handler vllm/v1/worker/gpu_worker.py

The caller module is the engine's executor (vLLM's V1 MultiprocExecutor; LMDeploy's
MPExecutor, whose collective_rpc reaches the workers' WorkerWrapperBase), the handler
module the one the workers' methods are answered from (vLLM's V1 gpu_worker.Worker;
LMDeploy's base_worker.WorkerWrapperBase, the base of both worker wrappers).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import engines  # noqa: E402  (a sibling script, not a package)


@dataclass(frozen=True)
class Tree:
    engine: engines.Engine
    caller: str  # the caller module, relative to the tree: the stdin file, edited
    handler: str  # the handler module, edited and saved


def _engine(name: str) -> engines.Engine:
    return next(e for e in engines.ENGINES if e.name == name)


TREES = {
    "vllm": Tree(
        _engine("vllm"),
        "vllm/v1/executor/multiproc_executor.py",
        "vllm/v1/worker/gpu_worker.py",
    ),
    "lmdeploy": Tree(
        _engine("lmdeploy"),
        "lmdeploy/pytorch/engine/executor/mp_executor.py",
        "lmdeploy/pytorch/engine/executor/base_worker.py",
    ),
}


def prepare(tree: Tree, out: Path) -> Path:
    """The unpacked tree of *tree*'s engine under *out*, configured; its root folder."""
    folder = out / tree.engine.name
    wheels = folder / "wheel"
    wheels.mkdir(parents=True, exist_ok=True)
    found = sorted(wheels.glob("*.whl"))
    wheel = found[0] if len(found) == 1 else engines.download(tree.engine, wheels)
    source = folder / "src"
    shutil.rmtree(source, ignore_errors=True)
    count = engines.extract_python(wheel, source)
    root = engines.package_root(source, tree.engine.package)
    engines.write_config(root, engines.CONFIGS / f"{tree.engine.name}.toml")
    for role, path in (("caller", tree.caller), ("handler", tree.handler)):
        if not (root / path).is_file():
            raise FileNotFoundError(f"{tree.engine.name}: no {role} module {path} in {root}")
    print(f"{tree.engine.name} {tree.engine.version}: {count} .py files in {root}", flush=True)
    return root


def command(tree: Tree, root: Path) -> str:
    """The bench/run.py command that measures the prepared tree at *root*."""
    return shlex.join(
        [
            "python", "bench/run.py", "--tree", str(root), "--caller", tree.caller,
            "--handler", tree.handler,
        ]
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("out", type=Path, help="folder for the wheels and the unpacked trees")
    parser.add_argument(
        "--engines", default=",".join(TREES), help=f"comma-separated ({', '.join(TREES)})"
    )
    options = parser.parse_args(argv)
    names = [n for n in options.engines.split(",") if n]
    unknown = sorted(set(names) - set(TREES))
    if unknown or not names:
        parser.error(f"--engines: expected some of {', '.join(TREES)}, got {options.engines!r}")
    commands = [command(TREES[n], prepare(TREES[n], options.out.resolve())) for n in names]
    print("\n".join(commands))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

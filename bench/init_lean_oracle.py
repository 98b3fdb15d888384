"""Whether ``rpcsurface init`` proposes on a released engine what it proposes when astroid
builds every module in full: the lean build's promise, held on real trees.

    python bench/init_lean_oracle.py [--engines vllm,lmdeploy,vllm-0.11] \\
        [--cache ~/.cache/rpcsurface-init-engines]
    python bench/init_lean_oracle.py --tree FOLDER [--tree FOLDER ...]

A lean build defers astroid's transforms and some attribute inference until a reader
needs them (pylint_rpcsurface/analysis/lean_build.py); the tests hold it to the full build
(``RPCSURFACE_BUILD=full``) on fixtures. Deferred work runs in another order, inside
other inferences, and astroid's inference cache keeps what each inference gave: a change
to what is built lean can change an answer on a real tree that no fixture shows. Run this
before and after such a change. For each tree, ``rpcsurface init --diff .`` runs twice,
lean and full; the diff and the notes on stderr (progress lines left out) must be the
same. It prints one row a tree (the processor time of each run, for scale) and exits 1
when any differs, with the first lines that do.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

# Run as `python bench/init_lean_oracle.py`: its folder is first on sys.path.
import init_engines

DEFAULT_ENGINES = ("lmdeploy", "vllm", "vllm-0.11")
FULL = {"RPCSURFACE_BUILD": "full"}
# init's progress lines on stderr: their elapsed times differ from run to run.
PROGRESS = re.compile(r"^rpcsurface init: (reading|finding|checking|done)\b")
HEADER = "| Tree | lean | full | the same |\n| --- | ---: | ---: | --- |"


def answer(stdout: str, stderr: str) -> list[str]:
    """What a run of ``init --diff`` says, its progress lines left out."""
    notes = [line for line in stderr.splitlines() if not PROGRESS.match(line)]
    return [*stdout.splitlines(), "--- stderr", *notes]


def differences(lean: list[str], full: list[str], limit: int = 12) -> list[str]:
    """The first *limit* lines of a diff of the two answers; [] when they are the same."""
    diff = difflib.unified_diff(full, lean, "full", "lean", lineterm="", n=0)
    return list(diff)[:limit]


def run_init(tree: Path, env: dict[str, str]) -> tuple[list[str], float, int]:
    """The answer of ``rpcsurface init --diff .`` in *tree*, its processor time and its
    exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(
        [*init_engines.rpcsurface_command(), "init", "--diff", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k != "RPCSURFACE_BUILD"}, **env},
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return answer(completed.stdout, completed.stderr), seconds, completed.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    init_engines.add_engine_options(parser, DEFAULT_ENGINES)
    parser.add_argument("--tree", type=Path, action="append", help="an unpacked tree")
    args = parser.parse_args(argv)
    trees = (
        [(tree.resolve().name, tree.resolve()) for tree in args.tree]
        if args.tree
        else [(e.key, tree) for e, tree in init_engines.chosen_trees(parser, args)]
    )
    print(HEADER)
    failed: list[str] = []
    for name, tree in trees:
        lean, lean_seconds, lean_status = run_init(tree, {})
        full, full_seconds, full_status = run_init(tree, FULL)
        found = differences(lean, full)
        if lean_status != full_status:
            found.insert(0, f"exit status: lean {lean_status}, full {full_status}")
        print(
            f"| {name} | {lean_seconds:.1f} s | {full_seconds:.1f} s | {'no' if found else 'yes'} |"
        )
        if found:
            failed.append(f"{name}:\n" + "\n".join(found))
    for text in failed:
        print(f"\n{text}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

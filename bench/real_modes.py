"""Every mode's findings on a real tree, held to each other: a check, not a benchmark.

    python bench/real_modes.py TREE --caller RELATIVE_PATH [--jobs 2]

TREE is a folder with the engine's configuration as its pyproject.toml (bench/trees.py
and bench/engines.py lay one out). Each mode runs as a user runs it, with its own fresh
cache folder where the mode keeps one:

* ``rpcsurface check --no-cache``, the oracle;
* ``rpcsurface check`` cold, then warm;
* pylint on the whole tree, at ``-j 1`` and at ``-j N``, each with a cold cache;
* pylint on each file the oracle reports in, one run a file, after the whole tree (warm);
* pylint ``--from-stdin`` on the caller module with a statement appended to its last
  method's body, against ``--no-cache`` on the same buffer;
* ``rpcsurface report --format json``, which must run and exit as check does.

It prints one line a mode and every difference, and exits 1 when any mode disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

Finding = tuple[str, int, str]  # (path relative to the tree, line, symbol)
BIN = Path(sys.executable).parent
OURS = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface")


def _run(
    tree: Path, command: list[str], env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=tree, env=env, input=stdin, capture_output=True, text=True, check=False
    )


def _environment(cache: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPCSURFACE_")}
    env.pop("PYTHONPATH", None)
    if cache is None:
        env["RPCSURFACE_NO_CACHE"] = "1"
    else:
        env["RPCSURFACE_CACHE_DIR"] = str(cache)
    return env


def _check(tree: Path, env: dict[str, str], *extra: str) -> set[Finding]:
    done = _run(tree, [str(BIN / "rpcsurface"), "check", "--format", "json", *extra], env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"rpcsurface check exited {done.returncode}: {done.stderr}")
    return {(item["path"], item["line"], item["symbol"]) for item in json.loads(done.stdout)}


def _pylint(tree: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> set[Finding]:
    command = [str(BIN / "pylint"), *OURS, "--persistent=n", "--output-format=json2", *args]
    done = _run(tree, command, env, stdin)
    if "Traceback" in done.stderr:
        raise SystemExit(f"pylint {' '.join(args)}: {done.stderr}")
    messages = json.loads(done.stdout)["messages"]
    return {(os.path.relpath(m["absolutePath"], tree), m["line"], m["symbol"]) for m in messages}


def _edited(text: str) -> str:
    """*text* with one statement appended to the body of its last ``def``."""
    lines = text.splitlines()
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    indent = len(lines[last]) - len(lines[last].lstrip()) + 4
    return text.rstrip("\n") + "\n" + " " * indent + "_edited_by_bench = 1\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--caller", required=True, help="the module edited on stdin")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    caches = Path(tempfile.mkdtemp(prefix="rpcsurface-modes-"))
    oracle = _check(tree, _environment(None), "--no-cache")
    results: dict[str, set[Finding]] = {}
    cold = _environment(caches / "check")
    results["check, cold"] = _check(tree, cold)
    results["check, warm"] = _check(tree, cold)
    whole = _environment(caches / "whole")
    results["pylint whole tree"] = _pylint(tree, whole, "--recursive=y", ".")
    results[f"pylint whole tree -j {args.jobs}"] = _pylint(
        tree, _environment(caches / "jobs"), f"-j{args.jobs}", "--recursive=y", "."
    )
    files = sorted({path for path, _, _ in oracle})
    results["pylint one file at a time"] = set().union(
        *(_pylint(tree, whole, path) for path in files)
    )
    buffer = _edited((tree / args.caller).read_text(encoding="utf-8"))
    stdin_oracle = _pylint(tree, _environment(None), "--from-stdin", args.caller, stdin=buffer)
    stdin_cached = _pylint(tree, whole, "--from-stdin", args.caller, stdin=buffer)
    report = _run(tree, [str(BIN / "rpcsurface"), "report", "--format", "json"], cold)
    failed = False
    print(f"oracle (check --no-cache): {len(oracle)} findings in {len(files)} files")
    for mode, found in results.items():
        wanted = oracle
        if mode == "pylint one file at a time":
            wanted = {f for f in oracle if f[0] in files}
        same = found == wanted
        failed |= not same
        print(f"{mode}: {len(found)} findings, {'same' if same else 'DIFFERENT'}")
        for finding in sorted(found ^ wanted):
            print(f"    {'only here' if finding in found else 'missing'}: {finding}")
    same = stdin_cached == stdin_oracle
    failed |= not same
    print(
        f"pylint --from-stdin, edited {args.caller}: {len(stdin_cached)} findings, "
        f"{'same as --no-cache' if same else 'DIFFERENT from --no-cache'}"
    )
    report_ok = report.returncode in (0, 1) and "Traceback" not in report.stderr
    failed |= not report_ok
    print(f"report --format json: exit {report.returncode}{'' if report_ok else ' FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""What each editor edit recomputes on a real tree, from ``RPCSURFACE_STATS``, with the
oracle held on every edit.

    python bench/recompute.py TREE --caller REL/PATH.py --handler REL/PATH.py [--edits 3]

TREE holds a ``pyproject.toml`` with a ``[tool.rpcsurface]`` table (bench/trees.py writes
one beside each released engine it unpacks); it is copied, never edited. After a warm
``rpcsurface check`` in a fresh store, each edit of bench/run.py's editor rows (a comment
appended, a statement added in a dispatching method, a method added to a caller class, an
RPC name changed to another answered name, the name mistyped, a body edit saved in the
handler module) is linted as an editor lints it: ``pylint --from-stdin`` on the caller
module, each edit a new buffer over the saved tree, ``--edits`` times with a new text
each. The table gives, per edit, the median of what the runs built (the project's modules,
the others) and computed (the memo's pieces computed and reused), and how many runs gave
another answer than ``--no-cache`` on the same buffer (the oracle: 0).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

# Run as `python bench/recompute.py`: its folder is first on sys.path.
from edits import comment_text, edit_text, interface_text, name_send, name_text
from sites import callers_of, dispatches_of

PYLINT = (sys.executable, "-m", "pylint", "--persistent=n", "--score=n", "--output-format=json2")
PLUGIN = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface")


def _script() -> list[str]:
    script = Path(sys.executable).parent / "rpcsurface"
    return (
        [str(script)] if script.exists() else [sys.executable, "-m", "pylint_rpcsurface.commands"]
    )


def _messages(stdout: str) -> list[tuple[str, str, int, int, str]]:
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        return [("unreadable", stdout[:200], 0, 0, "")]
    return sorted(
        (m["symbol"], m["path"], m["line"], m["column"], m["message"]) for m in report["messages"]
    )


class Tree:
    """A copy of the tree with a store and a stats file of its own."""

    def __init__(self, source: Path, folder: Path, caller: str) -> None:
        self.root = folder / "tree"
        shutil.copytree(source, self.root)
        self.caller = caller
        self.stats = folder / "stats.jsonl"
        self.env = {
            **os.environ,
            "RPCSURFACE_CACHE_DIR": str(folder / "store"),
            "RPCSURFACE_STATS": str(self.stats),
            "RPCSURFACE_PROGRESS": "never",
        }
        self.env.pop("RPCSURFACE_NO_CACHE", None)
        self.env.pop("RPCSURFACE_BUILD", None)

    def check(self) -> None:
        subprocess.run(
            [*_script(), "check"], cwd=self.root, env=self.env, capture_output=True, check=False
        )

    def lint(self, buffer: str, *, cached: bool = True) -> tuple[list[object], dict[str, object]]:
        env = dict(self.env) if cached else {**self.env, "RPCSURFACE_NO_CACHE": "1"}
        self.stats.unlink(missing_ok=True)  # this run's record alone
        done = subprocess.run(
            [*PYLINT, *PLUGIN, "--from-stdin", self.caller],
            cwd=self.root,
            env=env,
            input=buffer,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        lines = self.stats.read_text("utf-8").splitlines() if self.stats.exists() else []
        record = json.loads(lines[-1]) if lines else {"no record": done.stderr[-300:]}
        return list(_messages(done.stdout)), record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--caller", required=True)
    parser.add_argument("--handler", required=True)
    parser.add_argument("--edits", type=int, default=3, help="runs per edit, each a new text")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rpcsurface-recompute-") as folder:
        tree = Tree(args.tree.resolve(), Path(folder), args.caller)
        pyproject = tree.root / "pyproject.toml"
        dispatch, callers = dispatches_of(pyproject), callers_of(pyproject)
        saved = (tree.root / args.caller).read_text("utf-8")
        handler_path = tree.root / args.handler
        handler_saved = handler_path.read_text("utf-8")
        send = name_send(saved, dispatch, callers, frozenset(), handler_saved)
        edits: dict[str, Callable[[int], str]] = {
            "a comment appended": lambda n: comment_text(saved, n)[0],
            "a statement added in a dispatching method": lambda n: edit_text(saved, n, dispatch)[0],
            "a method added to a caller class (interface)": lambda n: interface_text(
                saved, n, dispatch, callers
            )[0],
            "an RPC name changed to another answered name": lambda n: name_text(
                saved, send, n, mistyped=False
            )[0],
            "the RPC name mistyped (a new name each keystroke)": lambda n: name_text(
                saved, send, n, mistyped=True
            )[0],
        }
        print(f"name edits at {send.where}: {send.name!r}", file=sys.stderr)
        rows = []
        for label, make in [*edits.items(), ("a body edit saved in the handler module", None)]:
            tree.check()  # the saved tree, warm
            figures: list[dict[str, object]] = []
            differed = 0
            for number in range(1, args.edits + 1):
                if make is None:
                    handler_path.write_text(edit_text(handler_saved, number, dispatch)[0], "utf-8")
                    buffer = saved
                else:
                    buffer = make(number)
                found, record = tree.lint(buffer)
                oracle, _ = tree.lint(buffer, cached=False)
                differed += found != oracle
                figures.append(record)
            handler_path.write_text(handler_saved, "utf-8")

            def median(key: str, runs: list[dict[str, object]] = figures) -> float:
                values = [r[key] for r in runs]
                counts = [len(v) if isinstance(v, list) else v for v in values]
                return statistics.median(float(c) for c in counts)  # type: ignore[arg-type]

            built = sorted({str(p) for r in figures for p in r["modules_built"]})  # type: ignore[attr-defined]
            rows.append(
                f"| {label} | {median('modules_built'):g} | {median('other_modules_built'):g} "
                f"| {median('pieces_computed'):g} | {median('pieces_reused'):g} | {differed} "
                f"| {', '.join(f'`{b}`' for b in built) or 'none'} |"
            )
        print(
            "| edit (pylint --from-stdin on the caller) | project modules built | other modules "
            "built | pieces computed | pieces reused | runs ≠ --no-cache | project modules |"
        )
        print("|---|---:|---:|---:|---:|---:|---|")
        print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

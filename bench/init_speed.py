"""How long ``rpcsurface init`` takes on a released engine, against a cold ``check``.

    python bench/init_speed.py [--engines vllm,lmdeploy,vllm-0.11] [--repeat 3] \\
        [--cache ~/.cache/rpcsurface-init-engines]
    python bench/init_speed.py --tree FOLDER  # any unpacked tree instead
    python bench/init_speed.py --engines vllm --packages transformers,pydantic,fastapi

Each engine is fetched and unpacked as bench/init_engines.py does (its wheel from the
package index into ``--cache``, only its ``.py`` files unpacked; nothing installed or
imported), then copied to a temporary folder, where each round runs, each its own
process, one after the other:

1. ``rpcsurface init`` without a pyproject.toml: it writes one;
2. ``rpcsurface check --no-cache`` with the configuration init wrote (the issue's
   baseline: init should take at most twice as long);
3. ``rpcsurface check --no-cache`` with the engine's hand configuration
   (bench/init_engines.py's), where it has one: on an engine whose surfaces init leaves
   commented out, the written configuration checks next to nothing;
4. ``ast.parse`` of every ``.py`` file (bench/floors.py's ``parse``): reading each file
   once, the least any tool that reads them all does;
5. Python's tree of every ``.py`` file and one walk of it, keeping the calls by the name
   they call and the functions and classes by theirs (bench/floors.py's ``INDEX_ALL``):
   the least a first pass that finds senders and call sites by name costs, without
   astroid;
6. astroid's tree of every ``.py`` file (bench/floors.py's ``TREES_ALL``: the parse and
   astroid's rebuild of it, no transform, no inference, no position of a class or a
   function, as ``init`` builds them): the least an ``init`` that builds every module with
   astroid costs, before it reads anything;
7. every ``.py`` file's text read and each word in it indexed to the files holding it
   (bench/floors.py's ``WORDS_ALL``): the least a first pass that finds where a name may
   occur costs, from the text, without parsing;
8. ``rpcsurface init`` building up front only the files the table init wrote and its
   notes cite (``path.py:line``), any other module built only when an inference reaches
   it (bench/floors.py's ``CITED_ONLY``, with init's file taken away): the least an
   ``init`` that builds with astroid only what its proposal cites costs with today's
   readers. Its column says whether it wrote the same table ("same") or not ("another":
   it is then a floor only, the files cited not being all the table depends on).

With ``--packages``, the packages named are installed without their dependencies
(``pip install --no-deps --target``, once, under ``--cache``) and every command runs with
that folder on ``PYTHONPATH``: the engine's own environment, where its dependencies are
installed and astroid finds what the code imports from them, as a user runs ``init``.

Time is the processor time of the process (user + system, from ``wait4``'s resource
usage), not the wall clock: the machine is shared. The table gives the median of
``--repeat`` rounds of each and init's ratio to each baseline. Every round's written
configuration must be the first round's, byte for byte, and every command must exit as
it should, or the run stops (exit 1); a ``check`` whose configuration can't be used
(exit 2) gives no baseline, and its column says so.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# Run as `python bench/init_speed.py`: its folder is first on sys.path.
import init_engines
from floors import CITED_ONLY, INDEX_ALL, PARSE_ALL, TREES_ALL, WORDS_ALL
from runs import compile_bytecode

BIN = Path(sys.executable).parent
DEFAULT_ENGINES = ("lmdeploy", "vllm", "vllm-0.11")


class Failed(Exception):
    """A command exited as it should not have, or init wrote another table."""


@dataclass
class Times:
    """Processor seconds of each round, by column."""

    init: list[float]
    check: list[float | None]  # None: the configuration can't be used (check exits 2)
    hand: list[float | None]
    parse: list[float]
    index: list[float]
    trees: list[float]
    words: list[float] = field(default_factory=list)
    cited: list[float] = field(default_factory=list)
    # Whether each round's cited-files-only init proposed the table init wrote.
    cited_same: list[bool] = field(default_factory=list)


def _environment(packages: Path | None = None) -> dict[str, str]:
    """The user's environment without what would change a run: no cache folder, no
    settings of the tool, nothing put before the installed packages but *packages*'
    folder (:func:`installed`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPCSURFACE_")}
    env.pop("PYTHONPATH", None)
    if packages is not None:
        env["PYTHONPATH"] = str(packages)
    return env


def installed(specs: list[str], cache: Path) -> Path:
    """A folder holding the packages *specs* name (``transformers==5.25.0``), installed
    without their dependencies, made once under *cache* and reused."""
    key = hashlib.sha256("\n".join(sorted(specs)).encode()).hexdigest()[:16]
    folder = cache / "packages" / key
    done = folder / ".installed"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
        subprocess.run([*command, "--target", str(folder), *specs], check=True)
        done.write_text("\n".join(sorted(specs)) + "\n", encoding="utf-8")
    return folder


def cpu_seconds(
    argv: list[str],
    cwd: Path,
    allowed: tuple[int, ...],
    packages: Path | None = None,
    told: dict[str, str] | None = None,
) -> tuple[float, int]:
    """The processor time of *argv* run in *cwd* (with *packages* installed, and the
    variables *told* set), and its exit status; :class:`Failed` when the status is not in
    *allowed*."""
    return _run(argv, cwd, allowed, packages, told)[:2]


def _run(
    argv: list[str],
    cwd: Path,
    allowed: tuple[int, ...],
    packages: Path | None = None,
    told: dict[str, str] | None = None,
) -> tuple[float, int, str]:
    """:func:`cpu_seconds`, and what the command wrote on stderr."""
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**_environment(packages), **(told or {})},
        )
        _, status, usage = os.wait4(process.pid, 0)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in allowed or "Traceback (most recent call last)" in stderr:
        tail = stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        raise Failed(f"{' '.join(argv[-3:])} in {cwd} exited {code}: {tail[0]}")
    return usage.ru_utime + usage.ru_stime, code, stderr


# A place init cites in its table's comments and in its notes: ``path.py:line``.
CITED = re.compile(r"([\w./-]+\.py):\d+")


def cited_files(table: bytes, notes: str) -> list[str]:
    """The files *table* (as init wrote it) and *notes* (init's stderr) cite."""
    text = table.decode("utf-8", "replace") + "\n" + notes
    return sorted(set(CITED.findall(text)))


# check's exit status when the configuration can't be used: its time is no baseline.
UNUSABLE = 2


def measure(
    tree: Path, hand: Path | None, repeat: int, packages: Path | None = None
) -> tuple[Times, bytes]:
    """*repeat* interleaved rounds on a copy of *tree* (with the folder *packages* holds
    installed); the configuration init wrote.

    A check whose configuration can't be used (exit 2) gives no time: its column says so.
    """
    rpcsurface = str(BIN / "rpcsurface")
    check = [rpcsurface, "check", "--no-cache"]
    times = Times([], [], [], [], [], [])
    written: bytes | None = None
    with tempfile.TemporaryDirectory(prefix="init-speed-") as scratch:
        copy = Path(scratch) / tree.name
        shutil.copytree(tree, copy, ignore=shutil.ignore_patterns("pyproject.toml", "*.pyc"))
        pyproject = copy / "pyproject.toml"
        for _ in range(repeat):
            pyproject.unlink(missing_ok=True)
            seconds, _, notes = _run([rpcsurface, "init"], copy, (0,), packages)
            times.init.append(seconds)
            table = pyproject.read_bytes()
            if written is not None and table != written:
                raise Failed(f"{tree}: init wrote another table in a later round")
            written = table
            seconds, code = cpu_seconds(check, copy, (0, 1, UNUSABLE), packages)
            times.check.append(None if code == UNUSABLE else seconds)
            if hand is not None:
                shutil.copyfile(hand, pyproject)
                seconds, code = cpu_seconds(check, copy, (0, 1, UNUSABLE), packages)
                times.hand.append(None if code == UNUSABLE else seconds)
            parse = [sys.executable, "-c", PARSE_ALL]
            times.parse.append(cpu_seconds(parse, copy, (0,), packages)[0])
            index = [sys.executable, "-c", INDEX_ALL]
            times.index.append(cpu_seconds(index, copy, (0,), packages)[0])
            trees = [sys.executable, "-c", TREES_ALL]
            times.trees.append(cpu_seconds(trees, copy, (0,), packages)[0])
            words = [sys.executable, "-c", WORDS_ALL]
            times.words.append(cpu_seconds(words, copy, (0,), packages)[0])
            pyproject.unlink(missing_ok=True)
            cited = [sys.executable, "-c", CITED_ONLY]
            told = {"CITED": "\n".join(cited_files(table, notes))}
            # Exit 2: it found nothing to write, another table than init's too.
            times.cited.append(cpu_seconds(cited, copy, (0, 2), packages, told)[0])
            times.cited_same.append(pyproject.is_file() and pyproject.read_bytes() == table)
    assert written is not None
    return times, written


def row(label: str, files: int, times: Times) -> str:
    init = statistics.median(times.init)

    def cell(values: list[float | None]) -> str:
        if not values:
            return "n/a | n/a"
        if any(value is None for value in values):
            return f"exit {UNUSABLE}: the configuration can't be used | n/a"
        median = statistics.median(v for v in values if v is not None)
        return f"{median:.2f} s | {init / median:.1f}"

    same = "n/a" if not times.cited_same else "same" if all(times.cited_same) else "another"

    return (
        f"| {label} | {files} | {init:.2f} s | {cell(times.check)} | {cell(times.hand)} "
        f"| {cell(list(times.parse))} | {cell(list(times.index))} "
        f"| {cell(list(times.trees))} | {cell(list(times.words))} "
        f"| {cell(list(times.cited))} | {same} |"
    )


HEADER = (
    "| Tree | .py files | init | check, init's table | init ÷ | check, hand table | init ÷ "
    "| ast.parse of every file | init ÷ | ast index of every file | init ÷ "
    "| astroid's tree of every file | init ÷ | words of every file | init ÷ "
    "| init building only the files it cites | init ÷ | its table |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
    "| ---: | ---: | ---: | ---: | --- |"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    init_engines.add_engine_options(parser, DEFAULT_ENGINES)
    parser.add_argument("--tree", type=Path, help="measure this unpacked tree instead")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (at least 3 for a median)")
    parser.add_argument(
        "--packages",
        default="",
        help="comma-separated packages to run with installed (pip requirement specifiers, "
        "installed without their dependencies): the engine's own environment",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat: at least 1")
    specs = [spec.strip() for spec in args.packages.split(",") if spec.strip()]
    packages = installed(specs, args.cache.expanduser()) if specs else None
    trees: list[tuple[str, Path, Path | None]] = []
    if args.tree is not None:
        trees.append((args.tree.name, args.tree.resolve(), None))
    else:
        for engine, tree in init_engines.chosen_trees(parser, args):
            trees.append((f"{engine.name} {engine.version}", tree, engine.hand))
    compiled = compile_bytecode()
    if compiled:
        print(f"compiled the bytecode of {', '.join(compiled)} first", file=sys.stderr)
    with_packages = f", with {', '.join(specs)} installed" if specs else ""
    print(
        f"medians of {args.repeat} interleaved rounds, processor time (user + system)"
        f"{with_packages}\n"
    )
    print(HEADER, flush=True)
    for label, tree, hand in trees:
        files = sum(1 for _ in tree.rglob("*.py"))
        try:
            times, _ = measure(tree, hand, args.repeat, packages)
        except Failed as failed:
            print(f"init_speed: {failed}", file=sys.stderr)
            return 1
        print(row(label, files, times), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

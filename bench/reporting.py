"""bench/run.py's report: the Targets table, the cache's size, the growth curve, the
machine and the projects, as markdown lines."""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import math
import os
import platform
import statistics
import subprocess
from pathlib import Path

import generate_project as gen
from rows import Pair
from sites import CACHE_DIR_ENV, NO_CLI, Site, lines_of

REPO = Path(__file__).resolve().parent.parent


def median(values: list[float]) -> float:
    return statistics.median(values) if values else math.nan


def table(pairs: list[Pair], rss: Pair | None) -> list[str]:
    lines = [
        "| measure | numerator (median) | denominator (median) | ratio | target | met? |",
        "|---|---|---|---|---|---|",
    ]
    rows: list[tuple[Pair, str]] = [(p, "s") for p in pairs]
    if rss is not None:
        rows.append((rss, "MiB"))
    for pair, unit in rows:
        if pair.numerator is None:
            lines.append(f"| {pair.measure} | {NO_CLI} | | | ≤ {pair.target:g} | n/a |")
            continue
        a, b = median(pair.values(pair.a)), median(pair.values(pair.b))
        ratio = a / b if b else math.inf
        over = ratio / pair.target - 1
        # A ratio just over its target rounds to it: the miss is shown to a tenth of a
        # percent then, never as "by 0%".
        met = "yes" if ratio <= pair.target else f"**no** (by {over:.0%})"
        if 0 < over < 0.01:
            met = f"**no** (by {over:.1%})"
        lines.append(
            f"| {pair.measure} | {a:.2f} {unit} | {b:.2f} {unit} | {ratio:.2f} "
            f"| ≤ {pair.target:g} | {met} |"
        )
    return lines


def size_rows(site: Site, pairs: list[Pair]) -> list[str]:
    """The cache's size on disk against the source's, as rows of the Targets table.

    After a cold ``rpcsurface check`` (one analysis of the project), if that row ran, and
    the largest it was after any run (edits and buffers may each leave an entry)."""
    every = [s for p in pairs for s in (*p.a, *p.b)]
    cold = next((p for p in pairs if p.measure.startswith("rpcsurface check, cold")), None)
    rows = []
    mib = 1024 * 1024
    if cold is not None and cold.a:
        rows.append(("cache on disk after a cold `rpcsurface check`",
                     median([float(s.cache_bytes) for s in cold.a])))  # fmt: skip
    if every:
        rows.append(("cache on disk, the largest after any run", max(s.cache_bytes for s in every)))
    return [
        f"| {name} ÷ source (the `.py` files under the roots) | {size / mib:.2f} MiB "
        f"| {site.source / mib:.2f} MiB | {size / site.source if site.source else math.inf:.2f} "
        "| (none set) | n/a |"
        for name, size in rows
    ]


def growth(curve: list[Pair], *, by_check: bool = False) -> tuple[list[str], str]:
    """The overhead at each scale, and whether it grows linearly or better in modules.

    The overhead is the whole-tree rpcsurface run minus the unused-import run; with
    *by_check*, it is the cold ``rpcsurface check`` run itself (the engine's whole work
    without pylint around it), next to ``ast.parse`` of every file for scale.
    """
    if by_check:
        header = "| scale | modules | lines | rpcsurface check, cold (s) | ast.parse (s) "
    else:
        header = "| scale | modules | lines | rpcsurface (s) | unused-import (s) "
    lines = [
        header + "| overhead (s) | overhead per module (ms) |",
        "|---|---|---|---|---|---|---|",
    ]
    points = []
    for pair in curve:
        a, b = median(pair.values(pair.a)), median(pair.values(pair.b))
        overhead, modules = (a if by_check else a - b), pair.site.modules
        points.append((modules, overhead))
        lines.append(
            f"| {pair.site.scale:g}x | {modules} | {pair.site.manifest['lines']} | {a:.2f} "
            f"| {b:.2f} | {overhead:+.2f} | {1000 * overhead / modules:+.2f} |"
        )
    # "Linear or better in modules": the log-log slope of the overhead against the number
    # of modules, from the smallest to the largest scale, is at most 1.
    if len(points) < 2:
        verdict = "n/a (one scale only)"
    else:
        (m0, o0), (m1, o1) = min(points), max(points)
        if o1 <= 0:
            verdict = "yes (no overhead at the largest scale)"
        elif o0 <= 0:
            verdict = "n/a (no overhead at the smallest scale to grow from)"
        else:
            slope = math.log(o1 / o0) / math.log(m1 / m0)
            met = "yes" if slope <= 1 else "**no**"
            verdict = f"{met}: overhead grows as modules^{slope:.2f} (target: exponent ≤ 1)"
    return lines, verdict


def load() -> str:
    """The load average over 1, 5 and 15 minutes (the machine may be shared)."""
    try:
        return " / ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def machine() -> list[str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
        check=False,
    ).stdout.strip()  # fmt: skip
    return [
        f"- CPU: {cpu}, {os.cpu_count()} cores",
        f"- OS: {platform.platform()}",
        f"- Python {platform.python_version()}, pylint {version('pylint')}, "
        f"astroid {version('astroid')}, pylint-rpcsurface {version('pylint-rpcsurface')}"
        + (f" (commit {commit})" if commit else ""),
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
    ]


def projects(options: argparse.Namespace, sites: list[Site]) -> list[str]:
    """The report's section on what was measured: the generated projects, or the tree."""
    site = sites[0]
    if site.tree is not None:
        config = getattr(options, "config", None)
        return [
            "## Tree",
            "",
            f"A copy of `{site.tree}`"
            + (f", with `{config}` as its pyproject.toml" if config else "")
            + f"; {len(site.oracle_at_start)} findings by `rpcsurface check --no-cache` "
            "before any edit.",
            "",
            "| modules | lines | caller module (the stdin file) | its lines | handler module "
            "| its lines |",
            "|---|---|---|---|---|---|",
            f"| {site.modules} | {site.manifest['lines']} | `{site.manifest['caller_module']}` "
            f"| {lines_of(site, 'caller_module')} | `{site.manifest['handler_module']}` "
            f"| {lines_of(site, 'handler_module')} |",
            "",
        ]
    return [
        "## Projects",
        "",
        "Generated by `bench/generate_project.py` (generator version "
        f"{gen.GENERATOR_VERSION}, seed {options.seed}); the Targets are measured at "
        f"{site.scale:g}x.",
        "",
        f"Shape `{options.shape}`: the handler class's module and the caller class's module "
        "are the lengths below (a real engine's: 4,897 and 1,233 lines).",
        "",
        "| scale | modules | lines | largest caller module (the stdin file) | its lines "
        "| handler module | its lines |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {s.scale:g}x | {s.modules} | {s.manifest['lines']} "
            f"| `{s.manifest['largest_caller_module']}` | {lines_of(s, 'largest_caller_module')} "
            f"| `{s.manifest['handler_module']}` | {lines_of(s, 'handler_module')} |"
            for s in sites
        ),
        "",
    ]


def report(
    *,
    command: str,
    seconds: float,
    options: argparse.Namespace,
    sites: list[Site],
    pairs: list[Pair],
    curve: list[Pair],
    load_at_start: str = "unknown",
) -> list[str]:
    """The markdown report: machine, command, projects, the Targets table, the growth curve."""
    tree = pairs[0]
    rss = (
        Pair("peak RSS, whole tree: rpcsurface ÷ unused-import", sites[0], tree.numerator,
             tree.denominator, 1.2, "rss", tree.a, tree.b)
        if tree.measure.startswith("whole tree")
        else None
    )  # fmt: skip
    results = table(pairs, rss) + size_rows(sites[0], pairs)
    edits = sites[0].where_edited
    by_check = options.growth == "check"
    curve_lines, verdict = growth(curve, by_check=by_check)
    measured = [c for p in pairs for c in (p.numerator, p.denominator) if c is not None]
    every_command = {
        c.label: c for c in [*measured, *(c.before for c in measured if c.before is not None)]
    }
    used = [f"- {label}: {c.shown(sites[0].path)}" for label, c in every_command.items()]
    site = sites[0]
    where = f"the tree `{site.tree}`" if site.tree is not None else f"{site.scale:g}x"
    compared = (
        "the oracle's findings: `rpcsurface check --no-cache --format json` on the tree as "
        "saved, run at the start and again after each saved edit, and for a buffer, a "
        "pylint run on that buffer under `RPCSURFACE_NO_CACHE=1`"
        if site.tree is not None
        else "the planted findings (in an edited file or buffer, the markers' new lines)"
    )
    return [
        "# Performance",
        "",
        "<!-- Written by bench/run.py --out; to measure again, run the command below. -->",
        "",
        "To measure again, from the repository's root in its virtualenv: "
        "`python bench/run.py --out docs/performance.md` (every row, and the growth curve "
        "at 1x, 2x, 4x and 7x; medians of 3). Only the editor's and pre-commit's rows, in "
        "a few minutes: `python bench/run.py --rows editor --scales 1 --out "
        "docs/performance.md`. The same rows on a real tree: `python bench/trees.py "
        "/tmp/trees`, then the `python bench/run.py --tree ... --caller ... --handler ...` "
        "command it prints for each engine (see bench/run.py's docstring).",
        "",
        f"Measured with `{command}` in {seconds:.0f} s, from the repository's root in its "
        "virtualenv (the one the package is installed in).",
        "",
        "## Machine",
        "",
        *machine(),
        f"- load average (1 / 5 / 15 min): {load_at_start} at the start, {load()} at the end "
        "(ratios measured in the same run, interleaved, are what count)",
        "",
        *projects(options, sites),
        f"## Targets ({where}, median of {options.repeat}, interleaved)",
        "",
        *results,
        "",
        "Every run is a fresh process with the project as its working folder and "
        f"`{CACHE_DIR_ENV}` set to a folder the benchmark owns; each repetition runs every "
        "pair once, numerator first. Before the first run the bytecode of the plugin, "
        "pylint and astroid is compiled where it is missing or stale, as pip does when it "
        "installs them: no run compiles a module at start-up (a checkout's editable "
        "install under `PYTHONDONTWRITEBYTECODE=1` would compile the plugin in every run, "
        "and not pylint). Cold runs delete that folder and `.rpcsurface_cache/` "
        "in the project first (no cache at all). Warm runs follow an unmeasured run whenever "
        'the cache was deleted or a file was edited since. A row "after an edit" makes, '
        "every repetition, an unmeasured run of the same command on what is saved (which "
        "fills the cache), then the edit, then the measured run, with a new N every time. "
        "A body edit inserts one statement, `edited_<N> = <N>`, as the first line of the "
        "body of a method: the first at or after the middle of the file that contains a "
        "dispatch call (a call of a configured dispatch method), else the first such method "
        "anywhere, else the first method at or after the middle. A comment edit appends "
        "`# a bench comment <N>`. An interface edit adds a method, `bench_interface_<N>`, at "
        "the end of a caller class, returning a copy of one of its waited dispatch calls "
        "whose RPC name is already sent in the file (one of a configured caller class if "
        "there is one). A name edit changes the RPC name, a string, of one send: in a "
        "class every caller class of the file is or derives from (the one most classes "
        "derive from), in its `__init__` if it sends there, else its first send, on no "
        "line with an expected finding; to another name the file's judged sends give with "
        "the same arguments (failing any, for a send with no payload, a method of the "
        "handler module that needs no argument), the next one each time, or to the name "
        "followed by a new letter sequence each time (mistyped: `namea`, `nameb`, ...); "
        "after it, the file's expected findings are a pylint run on that buffer under "
        "`RPCSURFACE_NO_CACHE=1` on every tree, and an answered name must have none on "
        "its line. The buffer rows send the saved caller module with their edit as a "
        "new buffer on stdin (the file on disk unchanged) and their baseline gets the same "
        "buffer; the saved edits (body edits of the handler or the caller module) add one "
        "more statement each time, and every file is put back after the run. The whole-tree "
        "rows name every `.py` file of the tree on the command line. The row after a "
        "warm `check` runs `rpcsurface check` unmeasured first whenever the cache was "
        "deleted or a file edited since; the row after a cold whole-tree `-j 2` run makes "
        "that run (cache deleted first) unmeasured before each measured run. "
        + ("Peak RSS is the whole-tree run's own `ru_maxrss` (cold). " if rss else "")
        + "The cache's size is every file "
        f"under `.rpcsurface_cache/` and `${CACHE_DIR_ENV}`. Every run reported exactly "
        f"{compared}; every mode must report the same set, or the run aborts.",
        "",
        *(
            ["Where the edits went (the last one of each kind):", ""]
            + [f"- {kind}: {where}" for kind, where in sorted(edits.items())]
            + [""]
            if edits
            else []
        ),
        "Commands (`python` is the interpreter running the benchmark, `$PROJECT` the "
        "folder of the generated project or of the copy of the tree, which is the working "
        "folder of every run):",
        "",
        *used,
        "",
        "## Growth",
        "",
        (
            "The overhead at each scale is a cold `rpcsurface check`: the same engine the "
            "checker runs, reading the same modules, without pylint around it. (The "
            "difference of two whole-tree pylint runs, `--growth tree`, measures the same "
            "work but takes about 9 minutes a run at 7x, and the noise of two such runs is "
            "larger than the overhead.) `ast.parse` of every file is shown for scale."
            if by_check
            else "Whole tree, cold, rpcsurface only minus unused-import only, at each scale:"
        ),
        "",
        *curve_lines,
        "",
        f"Linear or better in modules: {verdict}",
        "",
    ]

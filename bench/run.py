"""Measure the Targets of issue 3 side by side, on generated projects, and print the ratios.

    python bench/run.py [--scales 1,2,4,7] [--repeat 3] [--seed 0] [--workdir DIR]
                        [--out docs/performance.md]

It generates one project per scale with bench/generate_project.py (into a temporary folder,
or into --workdir, where a project generated earlier with the same scale and seed is reused),
then runs every measurement as a fresh subprocess, INTERLEAVED per repetition: each
repetition runs every pair once, numerator then denominator (A, B, A, B, ...), so drift on a
shared machine hits both sides alike. Each figure is the median of --repeat runs (>= 3 for
figures that count). The first scale is the one the Targets table is measured at (1x by
default); at every scale the whole-tree pair is measured again for the growth curve.

"Cold" deletes the project's .rpcsurface_cache/ before the run; "warm" runs the command once,
unmeasured, whenever the cache was deleted since its last run. Every run's exit status is
checked (pylint: only the findings bits 2 and 4, never 1 fatal or 32 usage; `rpcsurface
check`: 0 or 1) and its findings are compared with the generator's planted ones: every mode
must report exactly the same set. A failing run aborts with a clear message.

This is a script, not a test: never run it at full settings on a shared machine.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import generate_project as gen  # noqa: E402  (a sibling script, not a package)

CACHE = ".rpcsurface_cache"
PYLINT = (sys.executable, "-m", "pylint", "--persistent=n", "--score=n", "--output-format=json2")
OURS = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface")
BASELINE = ("--disable=all", "--enable=unused-import")
TREE = ("--recursive=y", ".")
# Each tree is dropped as soon as it is parsed: keeping them all alive (a list
# comprehension) makes the garbage collector rescan a growing heap and tripled the time.
PARSE_ALL = (
    "import ast, pathlib\n"
    'for p in sorted(pathlib.Path(".").rglob("*.py")):\n'
    "    ast.parse(p.read_bytes(), str(p))"
)
CHECK_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<symbol>[a-z][a-z0-9-]*): ")
NO_CLI = "n/a (rpcsurface CLI not installed)"
PYLINT_FINDINGS_BITS = 2 | 4  # error, warning; 1 fatal and 32 usage error must never be set

Finding = tuple[str, str, int]  # symbol, path relative to the project, line


class Abort(Exception):
    """A run failed or disagreed: the benchmark stops with this one-line message."""


@dataclass(frozen=True)
class Command:
    """One measured command. *kind* says how its exit status and output are checked."""

    label: str
    argv: tuple[str, ...]
    kind: str  # "ours" (pylint, findings compared), "baseline" (pylint), "check", "parse"
    cold: bool = False  # delete the cache before each run
    warm: bool = False  # run once unmeasured if the cache was deleted since its last run
    stdin: Path | None = None  # a file fed on standard input
    only: str | None = None  # findings compared only in this file (relative path)

    def shown(self, project: Path) -> str:
        """The command as a markdown line, with the project folder written as $PROJECT."""
        argv = ["python" if i == 0 and a == sys.executable else a for i, a in enumerate(self.argv)]
        argv = [a.replace(str(project), "$PROJECT") for a in argv]
        argv[0] = Path(argv[0]).name
        text = " ".join(f'"{a}"' if "$PROJECT" in a else shlex.quote(a) for a in argv)
        if self.stdin is not None:
            text += f" < {shlex.quote(self.stdin.relative_to(project).as_posix())}"
        note = " (cold: `.rpcsurface_cache/` deleted first)" if self.cold else ""
        return f"`{text}`" + note + (" (warm)" if self.warm else "")


@dataclass
class Sample:
    seconds: float
    rss_kib: int
    returncode: int
    stdout: str
    stderr: str


@dataclass
class Site:
    """One generated project and the state of its cache."""

    scale: float
    path: Path
    manifest: dict[str, object]
    deletions: int = 0  # how many times its cache was deleted
    warmed: dict[str, int] = field(default_factory=dict)  # command label -> deletions then

    @property
    def expected(self) -> set[Finding]:
        found = self.manifest["expected_findings"]
        assert isinstance(found, list)
        return {(str(s), str(p), int(n)) for s, p, n in found}

    @property
    def modules(self) -> int:
        value = self.manifest["modules"]
        assert isinstance(value, int)
        return value


@dataclass
class Pair:
    """A measured ratio: numerator over denominator, the median of each."""

    measure: str
    site: Site
    numerator: Command | None  # None when the command can't run here (CLI not installed)
    denominator: Command
    target: float
    metric: str = "seconds"  # or "rss"
    a: list[Sample] = field(default_factory=list)
    b: list[Sample] = field(default_factory=list)

    def values(self, samples: list[Sample]) -> list[float]:
        if self.metric == "rss":
            return [s.rss_kib / 1024 for s in samples]
        return [s.seconds for s in samples]


def run_once(site: Site, command: Command) -> Sample:
    if command.cold:
        shutil.rmtree(site.path / CACHE, ignore_errors=True)
        site.deletions += 1
    env = dict(os.environ)
    for name in ("PYTHONPATH", "RPCSURFACE_NO_CACHE"):
        env.pop(name, None)
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        (command.stdin or Path(os.devnull)).open("rb") as source,
    ):
        start = time.perf_counter()
        process = subprocess.Popen(
            command.argv, cwd=site.path, stdin=source, stdout=out, stderr=err, env=env
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    sample = Sample(seconds, rss, process.returncode, stdout, stderr)
    validate(site, command, sample)
    if command.warm or not command.cold:
        site.warmed[command.label] = site.deletions
    return sample


def relative(site: Site, path: str) -> str:
    absolute = Path(path) if Path(path).is_absolute() else site.path / path
    try:
        return absolute.resolve().relative_to(site.path.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def pylint_findings(site: Site, command: Command, sample: Sample) -> set[Finding]:
    try:
        report = json.loads(sample.stdout)
        messages = report["messages"]
        return {(m["symbol"], relative(site, m["absolutePath"]), int(m["line"])) for m in messages}
    except (ValueError, KeyError, TypeError) as error:
        raise Abort(
            f"{command.label}: pylint's output is not a json2 report ({error}): "
            f"{sample.stdout[:200]!r}"
        ) from None


def check_findings(site: Site, sample: Sample) -> set[Finding]:
    found = set()
    for line in sample.stdout.splitlines():
        match = CHECK_LINE.match(line)
        if match:
            found.add((match["symbol"], relative(site, match["path"]), int(match["line"])))
    return found


def validate(site: Site, command: Command, sample: Sample) -> None:
    """Abort unless the run exited as it should and reported exactly the planted findings."""
    where = f"{command.label} at scale {site.scale:g} ({site.path})"
    tail = sample.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
    if "Traceback (most recent call last)" in sample.stderr:
        raise Abort(f"{where}: crashed (exit {sample.returncode}): {tail[0]}")
    code = sample.returncode
    if command.kind in ("ours", "baseline"):
        if code < 0 or code & ~PYLINT_FINDINGS_BITS:
            raise Abort(
                f"{where}: pylint exited {code}; expected 0 or the findings bits 2/4 "
                f"(1 = fatal, 32 = usage error): {tail[0]}"
            )
    elif command.kind == "check":
        if code not in (0, 1):
            raise Abort(f"{where}: rpcsurface check exited {code}; expected 0 or 1: {tail[0]}")
    elif code != 0:
        raise Abort(f"{where}: exited {code}; expected 0: {tail[0]}")
    if command.kind not in ("ours", "check"):
        return
    if command.kind == "ours":
        found = pylint_findings(site, command, sample)
    else:
        found = check_findings(site, sample)
    expected = {f for f in site.expected if command.only in (None, f[1])}
    if found != expected:
        missing = sorted(expected - found)
        extra = sorted(found - expected)
        raise Abort(
            f"{where}: findings differ from the planted ones: missing {missing}, extra {extra}"
        )
    if command.kind == "check" and bool(code) != bool(expected):
        raise Abort(f"{where}: exited {code} with {len(found)} findings")


def measure(site: Site, command: Command) -> Sample:
    if command.warm and site.warmed.get(command.label) != site.deletions:
        run_once(site, command)  # unmeasured: fills the cache
    return run_once(site, command)


def commands(site: Site, cli: str | None) -> dict[str, Command | None]:
    caller = site.manifest["largest_caller_module"]
    assert isinstance(caller, str)
    stdin_file = site.path / caller
    stdin = ("--from-stdin", str(stdin_file))
    check = None if cli is None else (cli, "check")
    return {
        "ours tree cold": Command("ours tree cold", (*PYLINT, *OURS, *TREE), "ours", cold=True),
        "ours tree warm": Command("ours tree warm", (*PYLINT, *OURS, *TREE), "ours", warm=True),
        "base tree": Command("base tree", (*PYLINT, *BASELINE, *TREE), "baseline"),
        "ours tree -j 2": Command(
            "ours tree -j 2", (*PYLINT, *OURS, "-j", "2", *TREE), "ours", cold=True
        ),
        "ours stdin warm": Command(
            "ours stdin warm",
            (*PYLINT, *OURS, *stdin),
            "ours",
            warm=True,
            stdin=stdin_file,
            only=caller,
        ),
        "ours stdin cold": Command(
            "ours stdin cold",
            (*PYLINT, *OURS, *stdin),
            "ours",
            cold=True,
            stdin=stdin_file,
            only=caller,
        ),
        "base stdin": Command(
            "base stdin", (*PYLINT, *BASELINE, *stdin), "baseline", stdin=stdin_file
        ),
        "check cold": None if check is None else Command("check cold", check, "check", cold=True),
        "check warm": None if check is None else Command("check warm", check, "check", warm=True),
        "parse": Command("parse", (sys.executable, "-c", PARSE_ALL), "parse"),
    }


def growth_pair(pairs: list[Pair], by_check: bool) -> Pair:
    """The pair of *pairs* the growth curve reads: whole tree, or the cold check."""
    wanted = "rpcsurface check, cold" if by_check else "whole tree, cold"
    return next(p for p in pairs if p.measure.startswith(wanted))


def pairs_at(site: Site, cli: str | None, primary: bool, *, by_check: bool = False) -> list[Pair]:
    c = commands(site, cli)

    def cmd(name: str) -> Command:
        found = c[name]
        assert found is not None
        return found

    tree = Pair("whole tree, cold: rpcsurface ÷ unused-import", site, c["ours tree cold"],
                cmd("base tree"), 1.10)  # fmt: skip
    cold_check = Pair("rpcsurface check, cold ÷ ast.parse of every file", site, c["check cold"],
                      cmd("parse"), 2.0)  # fmt: skip
    if not primary:
        return [cold_check if by_check else tree]
    return [
        tree,
        Pair("whole tree, warm: rpcsurface ÷ unused-import", site, c["ours tree warm"],
             cmd("base tree"), 1.10),
        Pair("stdin (IDE), warm: rpcsurface ÷ unused-import", site, c["ours stdin warm"],
             cmd("base stdin"), 1.25),
        Pair("stdin (IDE), cold: rpcsurface ÷ unused-import", site, c["ours stdin cold"],
             cmd("base stdin"), 2.0),
        Pair("whole tree, rpcsurface: -j 2 ÷ -j 1 (cold)", site, c["ours tree -j 2"],
             cmd("ours tree cold"), 0.65),
        cold_check,
        Pair("rpcsurface check, warm ÷ ast.parse of every file", site, c["check warm"],
             cmd("parse"), 0.5),
    ]  # fmt: skip


def prepare(workdir: Path, scale: float, seed: int) -> Site:
    folder = workdir / f"scale-{scale:g}-seed-{seed}"
    manifest = gen.read_manifest(folder)
    fresh = manifest is not None and (
        manifest.get("generator_version") == gen.GENERATOR_VERSION
        and manifest.get("scale") == scale
        and manifest.get("seed") == seed
    )
    if manifest is None or not fresh:
        if folder.exists():
            if manifest is None and any(folder.iterdir()):
                raise Abort(f"{folder}: exists and holds no generated project; remove it")
            shutil.rmtree(folder)
        manifest = gen.write(folder, scale, seed)
        action = "generated"
    else:
        action = "reused"
    site = Site(scale, folder, manifest)
    if not site.expected:
        raise Abort(f"{folder}: the generated project has no planted findings to compare")
    print(
        f"{action} scale {scale:g}: {site.modules} modules, {manifest['lines']} lines, "
        f"largest caller module {manifest['largest_caller_module']}, "
        f"{len(site.expected)} expected findings ({folder})",
        flush=True,
    )
    return site


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
        met = "yes" if ratio <= pair.target else f"**no** (by {ratio / pair.target - 1:.0%})"
        lines.append(
            f"| {pair.measure} | {a:.2f} {unit} | {b:.2f} {unit} | {ratio:.2f} "
            f"| ≤ {pair.target:g} | {met} |"
        )
    return lines


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


def report(
    *,
    command: str,
    seconds: float,
    options: argparse.Namespace,
    sites: list[Site],
    pairs: list[Pair],
    curve: list[Pair],
) -> list[str]:
    """The markdown report: machine, command, projects, the Targets table, the growth curve."""
    tree = pairs[0]
    rss = (
        Pair("peak RSS, whole tree: rpcsurface ÷ unused-import", sites[0], tree.numerator,
             tree.denominator, 1.2, "rss", tree.a, tree.b)
        if tree.measure.startswith("whole tree")
        else None
    )  # fmt: skip
    results = table(pairs, rss)
    by_check = options.growth == "check"
    curve_lines, verdict = growth(curve, by_check=by_check)
    every_command = {
        c.label: c for p in pairs for c in (p.numerator, p.denominator) if c is not None
    }
    used = [f"- {label}: {c.shown(sites[0].path)}" for label, c in every_command.items()]
    site = sites[0]
    return [
        "# Performance",
        "",
        f"Measured with `{command}` in {seconds:.0f} s.",
        "",
        "## Machine",
        "",
        *machine(),
        "",
        "## Projects",
        "",
        "Generated by `bench/generate_project.py` (seed "
        f"{options.seed}); the Targets are measured at {site.scale:g}x.",
        "",
        "| scale | modules | lines | largest caller module (the stdin file) |",
        "|---|---|---|---|",
        *(
            f"| {s.scale:g}x | {s.modules} | {s.manifest['lines']} "
            f"| `{s.manifest['largest_caller_module']}` |"
            for s in sites
        ),
        "",
        f"## Targets ({site.scale:g}x, median of {options.repeat}, interleaved)",
        "",
        *results,
        "",
        "Every run is a fresh process with the project as its working folder; each "
        "repetition runs every pair once, numerator first. Cold runs delete "
        "`.rpcsurface_cache/` first; warm runs follow an unmeasured run whenever the cache "
        "was deleted since. Peak RSS is the whole-tree run's own `ru_maxrss` (cold). Every "
        "run reported exactly the planted findings.",
        "",
        "Commands (`python` is the interpreter running the benchmark, `$PROJECT` the "
        "generated project's folder, which is the working folder of every run):",
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


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,2,4,7", help="first one is the Targets scale")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (>= 3 to count)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="generate (or reuse) projects here")
    parser.add_argument("--out", type=Path, help="write the report here (docs/performance.md)")
    parser.add_argument(
        "--rows",
        choices=("all", "check"),
        default="all",
        help="all Targets, or only the rpcsurface check rows and the growth curve (check)",
    )
    parser.add_argument(
        "--growth",
        choices=("check", "tree"),
        default="check",
        help="the growth curve's overhead: a cold `rpcsurface check` (the engine's work, "
        "default) or whole-tree pylint minus its unused-import baseline (tree: slow, "
        "about 9 min a run at 7x on 2 cores)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _arguments()
    options = parser.parse_args(argv)
    try:
        scales = [float(s) for s in options.scales.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--scales: expected numbers separated by commas, got {options.scales!r}")
    if not scales or any(not math.isfinite(s) or s <= 0 for s in scales):
        parser.error(f"--scales: expected positive numbers, got {options.scales!r}")
    if options.repeat < 1:
        parser.error("--repeat: expected at least 1")
    if options.repeat < 3:
        print(f"warning: medians of {options.repeat} run(s): a smoke test, not figures that count")
    cli = shutil.which("rpcsurface", path=str(Path(sys.executable).parent))
    if cli is None:
        print(f"rpcsurface check: {NO_CLI}")
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="rpcsurface-bench-") as temporary:
            workdir = options.workdir or Path(temporary)
            workdir.mkdir(parents=True, exist_ok=True)
            sites = [prepare(workdir.resolve(), s, options.seed) for s in dict.fromkeys(scales)]
            by_check = options.growth == "check"
            if by_check and cli is None:
                raise Abort(f"--growth check: {NO_CLI}")
            pairs = pairs_at(sites[0], cli, primary=True)
            if options.rows == "check":
                pairs = [p for p in pairs if p.measure.startswith("rpcsurface check")]
            curve = [
                growth_pair(pairs, by_check),
                *(pairs_at(site, cli, primary=False, by_check=by_check)[0] for site in sites[1:]),
            ]
            curve.sort(key=lambda p: p.site.scale)
            every = pairs + [p for p in curve if all(p is not q for q in pairs)]
            for repetition in range(options.repeat):
                print(f"repetition {repetition + 1}/{options.repeat}", flush=True)
                for pair in every:
                    if pair.numerator is None:
                        continue
                    pair.a.append(measure(pair.site, pair.numerator))
                    pair.b.append(measure(pair.site, pair.denominator))
    except Abort as error:
        print(f"benchmark aborted: {error}", file=sys.stderr)
        return 2
    command = "python bench/run.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    text = report(
        command=command,
        seconds=time.monotonic() - started,
        options=options,
        sites=sites,
        pairs=pairs,
        curve=curve,
    )
    print("\n".join(text))
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text("\n".join(text), encoding="utf-8")
        print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

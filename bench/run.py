"""Measure the Targets of issues 3, 14 and 24 side by side, on generated projects or on a
real tree, and print the ratios.

    python bench/run.py [--scales 1,2,4,7] [--repeat 3] [--seed 0] [--workdir DIR]
                        [--rows all|check|editor|tree|server] [--shape real|classic]
                        [--handler-lines N] [--caller-lines N] [--out docs/performance.md]
    python bench/run.py --tree DIR --caller REL/PATH.py --handler REL/PATH.py
                        [--config FILE] [--repeat 3] [--workdir DIR] [--rows ...] [--out ...]

It generates one project per scale with bench/generate_project.py (into a temporary folder,
or into --workdir, where a project generated earlier with the same scale, seed and shape is
reused), then runs every measurement as a fresh subprocess, INTERLEAVED per repetition: each
repetition runs every pair once, numerator then denominator (A, B, A, B, ...), so drift on a
shared machine hits both sides alike. Each figure is the median of --repeat runs (>= 3 for
figures that count, 5 for figures to publish). The first scale is the one the Targets table
is measured at (1x by default); at every scale the growth pair is measured again for the
growth curve. The shape (--shape, default ``real``) sets the length of the handler and
caller modules, as the generator's option does.

With --tree, the same rows run on a copy of a real tree instead (made in --workdir or a
temporary folder, again each run: the tree itself is never edited). The tree holds its own
pyproject.toml with a [tool.rpcsurface] table, or --config FILE is copied in as the copy's
pyproject.toml. --caller is the caller module (the stdin file, and the module the caller
edits are saved in) and --handler the handler module, both relative to the tree. A real
tree has no planted markers: its expected findings are the oracle's, ``rpcsurface check
--no-cache --format json`` on the copy as saved, run at the start and again after each
saved edit; after a buffer edit, the edited file's expected findings are a pylint run on
that same buffer under ``RPCSURFACE_NO_CACHE=1``. bench/trees.py fetches the two engines
measured so far (wheels only, the .py files unpacked; never installed or imported), writes
each one's bench/engines/<name>.toml in as its pyproject.toml and prints these commands:

    python bench/trees.py /tmp/trees
    python bench/run.py --tree /tmp/trees/vllm/src \
        --caller vllm/v1/executor/multiproc_executor.py \
        --handler vllm/v1/worker/gpu_worker.py --repeat 5
    python bench/run.py --tree /tmp/trees/lmdeploy/src \
        --caller lmdeploy/pytorch/engine/executor/mp_executor.py \
        --handler lmdeploy/pytorch/engine/executor/base_worker.py --repeat 5

A tree unpacked some other way, without the configuration: add ``--config
bench/engines/vllm.toml`` (or the engine's own file).

Every run gets ``RPCSURFACE_CACHE_DIR`` set to a folder next to the project, which the
benchmark owns. "Cold" deletes that folder and the project's .rpcsurface_cache/ before the
run (no cache at all); "warm" runs the command once, unmeasured, whenever the cache was
deleted or a file edited since its last run. A row "after an edit" runs its command once,
unmeasured, on what is saved, then makes its edit (a new stdin buffer: a comment appended,
a statement added in a method that sends, a new caller method waiting on a name the
file already sends, or the RPC name of a send every caller class inherits changed to
another answered name or mistyped, a new name each time; or a statement saved in the
handler or the caller module; see bench/edits.py), then measures; the files are put
back after the run. A row measured right after another run (`pylint -j 2` on two files
after a warm `rpcsurface check`; one file after a cold whole-tree `-j 2` run) makes that
run first, unmeasured. The whole-tree rows name every .py file of the tree. Every run's
exit status is checked (pylint: only the findings bits 2 and 4, never 1 fatal or 32
usage; `rpcsurface check`: 0 or 1) and its findings are compared with the expected ones
(the generator's planted ones, in an edited file or buffer its markers' lines; on a real
tree, and after a name edit on every tree, the oracle's): every mode must report exactly
the same set. A failing run aborts with a clear message.

``--rows server`` measures the language server's rows instead, at the first scale's
project or on the tree: bench/server.py's sessions of ``rpcsurface lsp`` (--repeat
sessions, --edits keystrokes, body edits and requests each), against a bare parse of
every file and a cold ``rpcsurface check`` (it needs the lsp extra).

The script is split by what it does: bench/sites.py (the project or tree measured on,
its commands and expected findings), bench/edits.py (the edits), bench/runs.py (one
measured run, checked), bench/rows.py (the rows, and which --rows selects) and
bench/reporting.py (the report).

This is a script, not a test: never run it at full settings on a shared machine.
"""

from __future__ import annotations

import argparse
import math
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# Sibling scripts, not a package: what is measured on (sites), the edits (edits), one
# measured run (runs), the rows (rows) and the report (reporting).
import generate_project as gen  # noqa: E402
from edits import comment_text, edit_text, interface_text, name_send, name_text  # noqa: E402
from reporting import growth, load, machine, report, size_rows, table  # noqa: E402
from rows import Pair, growth_pair, pairs_at, select  # noqa: E402
from runs import _needs_bytecode, compile_bytecode, measure, run_once, validate  # noqa: E402
from sites import (  # noqa: E402
    CACHE,
    CACHE_DIR_ENV,
    EDITED,
    NO_CLI,
    Abort,
    Command,
    Dispatch,
    Sample,
    Site,
    callers_of,
    dispatches_of,
    markers,
    prepare,
    prepare_tree,
    tree_folder,
)

# What the tests and other scripts read from bench/run.py, wherever it is defined.
__all__ = [
    "CACHE",
    "CACHE_DIR_ENV",
    "EDITED",
    "NO_CLI",
    "Abort",
    "Command",
    "Dispatch",
    "Pair",
    "Sample",
    "Site",
    "_needs_bytecode",
    "callers_of",
    "comment_text",
    "compile_bytecode",
    "dispatches_of",
    "edit_text",
    "gen",
    "growth",
    "interface_text",
    "main",
    "markers",
    "measure",
    "name_send",
    "name_text",
    "pairs_at",
    "prepare",
    "prepare_tree",
    "report",
    "run_all",
    "run_once",
    "select",
    "size_rows",
    "table",
    "tree_folder",
    "validate",
]


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scales", help="generated projects' scales, the first the Targets' (1,2,4,7)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per figure, the median of as many interleaved pairs (>= 3 to count; 5 "
        "for figures to publish)",
    )
    tree = parser.add_argument_group(
        "a real tree", "measure the same rows on a copy of a real tree instead of generated "
        "projects (its expected findings: rpcsurface check --no-cache on it)"
    )  # fmt: skip
    tree.add_argument("--tree", type=Path, metavar="DIR", help="the tree (never edited)")
    tree.add_argument(
        "--caller", metavar="REL/PATH.py", help="the caller module: the stdin file, edited"
    )
    tree.add_argument(
        "--handler", metavar="REL/PATH.py", help="the handler module, edited and saved"
    )
    tree.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="copied in as the tree's pyproject.toml (e.g. bench/engines/vllm.toml); "
        "without it, the tree's own pyproject.toml holds the [tool.rpcsurface] table",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="generate (or reuse) projects here")
    parser.add_argument("--out", type=Path, help="write the report here (docs/performance.md)")
    parser.add_argument(
        "--rows",
        choices=("all", "check", "editor", "tree", "server"),
        default="all",
        help="all Targets; only the rpcsurface check rows and the growth curve (check); "
        "or every row but the whole-tree pylint runs: stdin, check, pre-commit, cache size "
        "(editor, a few minutes); or only the whole-tree rows and peak RSS (tree); or the "
        "language server's rows, bench/server.py's (server)",
    )
    parser.add_argument(
        "--edits",
        type=int,
        default=5,
        help="with --rows server: keystrokes, body edits and requests of each kind a session",
    )
    gen.add_shape_arguments(parser)
    parser.add_argument(
        "--growth",
        choices=("check", "tree"),
        default="check",
        help="the growth curve's overhead: a cold `rpcsurface check` (the engine's work, "
        "default) or whole-tree pylint minus its unused-import baseline (tree: slow, "
        "about 9 min a run at 7x on 2 cores)",
    )
    return parser


def run_all(
    sites: list[Site], cli: str | None, options: argparse.Namespace
) -> tuple[list[Pair], list[Pair]]:
    """Measure the selected rows at the first site and the growth curve at every site."""
    by_check = options.growth == "check"
    if by_check and cli is None:
        raise Abort(f"--growth check: {NO_CLI}")
    pairs = select(pairs_at(sites[0], cli, primary=True), options.rows)
    first = growth_pair(pairs, by_check)
    curve = []
    if first is not None:  # the rows asked for include the one the curve starts from
        curve = [
            first,
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
    return pairs, curve


def scales_of(parser: argparse.ArgumentParser, options: argparse.Namespace) -> list[float]:
    """The scales to generate (one with --tree, unused); a usage error for bad options."""
    if options.tree is not None:
        if options.caller is None or options.handler is None:
            parser.error("--tree: --caller and --handler name its caller and handler modules")
        if options.scales is not None:
            parser.error("--scales: for generated projects, not with --tree")
    elif any(getattr(options, name) is not None for name in ("caller", "handler", "config")):
        parser.error("--caller, --handler and --config: only with --tree DIR")
    scales_text = options.scales or "1,2,4,7"
    try:
        scales = [float(s) for s in scales_text.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--scales: expected numbers separated by commas, got {scales_text!r}")
    if not scales or any(not math.isfinite(s) or s <= 0 for s in scales):
        parser.error(f"--scales: expected positive numbers, got {scales_text!r}")
    if options.repeat < 1:
        parser.error("--repeat: expected at least 1")
    if options.repeat < 3:
        print(f"warning: medians of {options.repeat} run(s): a smoke test, not figures that count")
    return scales


def main(argv: list[str] | None = None) -> int:
    parser = _arguments()
    options = parser.parse_args(argv)
    scales = scales_of(parser, options)
    cli = shutil.which("rpcsurface", path=str(Path(sys.executable).parent))
    if cli is None:
        print(f"rpcsurface check: {NO_CLI}")
    shape = gen.shape_of(parser, options)
    compiled = compile_bytecode()
    if compiled:
        print(f"compiled the bytecode of {', '.join(compiled)} first, as pip does at install")
    started = time.monotonic()
    load_at_start = load()
    command = "python bench/run.py " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    try:
        with tempfile.TemporaryDirectory(prefix="rpcsurface-bench-") as temporary:
            workdir = options.workdir or Path(temporary)
            workdir.mkdir(parents=True, exist_ok=True)
            if options.tree is not None:
                sites = [
                    prepare_tree(
                        workdir.resolve(),
                        options.tree,
                        options.caller,
                        options.handler,
                        config=options.config,
                        cli=cli,
                    )
                ]
            else:
                # The server's rows are the first scale's alone.
                wanted = scales[:1] if options.rows == "server" else scales
                sites = [
                    prepare(workdir.resolve(), s, options.seed, shape)
                    for s in dict.fromkeys(wanted)
                ]
            if options.rows == "server":
                return _server_rows(sites[0], cli, options, command)
            try:
                pairs, curve = run_all(sites, cli, options)
            finally:
                for site in sites:
                    site.restore()
                    shutil.rmtree(site.path.with_name(site.path.name + ".buffers"), True)
            text = report(
                command=command,
                seconds=time.monotonic() - started,
                options=options,
                sites=sites,
                pairs=pairs,
                curve=curve,
                load_at_start=load_at_start,
            )
    except Abort as error:
        print(f"benchmark aborted: {error}", file=sys.stderr)
        return 2
    print("\n".join(text))
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text("\n".join(text), encoding="utf-8")
        print(f"wrote {options.out}")
    return 0


def _server_rows(site: Site, cli: str | None, options: argparse.Namespace, command: str) -> int:
    """The language server's rows at *site* (bench/server.py's), printed as it prints them."""
    import server  # noqa: PLC0415  # pygls, the lsp extra: only for these rows

    if cli is None:
        raise Abort(f"--rows server: {NO_CLI}")
    site.cli = cli
    samples = server.measure(site, cli, options.repeat, options.edits)
    label = (
        f"{options.tree} (caller {options.caller})"
        if options.tree is not None
        else f"generated scale {site.scale:g} seed {options.seed}"
    )
    print("\n".join([f"`{command}`", "", *machine(), "", *server.report(site, samples, label)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

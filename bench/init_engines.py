"""`rpcsurface init` on released engines, compared with configurations written by hand.

For each engine below, its wheel is fetched with ``pip download --no-deps --only-binary
:all: NAME==VERSION`` into a cache folder outside the repository (``--cache``, by default
``~/.cache/rpcsurface-init-engines``), and only its ``.py`` files are unpacked (as
bench/engines.py does: nothing is installed or imported). Then, in the unpacked tree:

1. ``rpcsurface init --diff`` proposes the table (the ``+`` lines of its diff);
2. the analysis runs with the generated table and with the hand-written one,
   ``bench/init_engines/<name>.toml`` (or the corpus's), and ``rpcsurface check --format
   json --no-cache`` with each.

The table: **coverage**, the share of the hand configuration's RPC names whose every call
site the generated surfaces also see; **config errors** of the generated table (``check``
exiting 2); **extra findings**, those the generated table gives that the hand one doesn't.

Every finding the generated table gives is looked up in ``bench/init_engines/verdicts.toml``,
where each is classified by hand, after reading the engine's code at that line, as true or
false with the reason; so is every finding ``check`` adds once each table init wrote
commented out is uncommented as its comment says (the ``# `` that starts each line below
the instruction removed, nothing else edited). A finding without a verdict, or a verdict
whose finding is gone, makes the run exit 1. vLLM and LMDeploy use the real-engine
corpus's hand configurations, ``bench/engines/<name>.toml``.

    python bench/init_engines.py                    # print the table
    python bench/init_engines.py --out docs/init.md # rewrite the table in the page
    python bench/init_engines.py --reuse --out docs/init.md  # after tracing: no new run
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is the package's dependency below 3.11
    import tomli as tomllib

# Run as `python bench/init_engines.py`: its folder is first on sys.path.
from engines import extract_python  # the corpus script's unpacker: only .py files, no escape

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "init_engines"
BEGIN = "<!-- init-engines:begin (python bench/init_engines.py --out docs/init.md) -->"
END = "<!-- init-engines:end -->"
TARGET = 0.9
# The line of init's comment above a table it wrote commented out: what follows, each
# line starting with "# ", is the table a user confirms by removing that prefix.
UNCOMMENT_AFTER = "# then remove the '# ' that starts each line below."


# Every finding the generated tables give, traced to the engine's code by hand.
VERDICTS = CONFIGS / "verdicts.toml"
# The real-engine corpus's hand configurations, reused for the engines both measure.
CORPUS_CONFIGS = HERE / "engines"


@dataclass(frozen=True)
class Engine:
    name: str  # the distribution's name, and the hand configuration's file name
    version: str
    package: str  # the top-level import package
    corpus: bool = False  # its hand configuration is the corpus's, bench/engines/NAME.toml
    label: str = ""  # a second release of one distribution: its files' and verdicts' name

    @property
    def key(self) -> str:
        """The hand configuration's file name, the cache folder and the verdicts' table."""
        return self.label or self.name

    @property
    def hand(self) -> Path:
        return (CORPUS_CONFIGS if self.corpus else CONFIGS) / f"{self.key}.toml"


ENGINES = (
    Engine("nano-vllm-fork", "20260210", "nanovllm"),
    Engine("nano-vllm-npu", "0.0.2", "nanovllmnpu"),
    Engine("nano-vllm-voxcpm", "2.0.5", "nanovllm_voxcpm"),
    # Two unrelated code bases, not nano-vllm ports (bench/engines.py measures them too).
    Engine("vllm", "0.7.3", "vllm", corpus=True),
    Engine("lmdeploy", "0.7.3", "lmdeploy", corpus=True),
    # The V1 engine only (V0 is gone): bench/init_engines/vllm-0.11.toml.
    Engine("vllm", "0.11.2", "vllm", label="vllm-0.11"),
)


# Where the wheels are kept and unpacked, outside the repository.
CACHE = Path.home() / ".cache" / "rpcsurface-init-engines"


def add_engine_options(parser: argparse.ArgumentParser, default: tuple[str, ...]) -> None:
    """``--engines`` (keys of :data:`ENGINES`, *default* when not given) and ``--cache``,
    as the scripts that measure these engines take them."""
    parser.add_argument(
        "--engines",
        default=",".join(default),
        help=f"comma-separated keys of init_engines.py's engines (default: {','.join(default)})",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=CACHE,
        help="where the wheels are kept and unpacked, as init_engines.py's --cache",
    )


def chosen_trees(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> list[tuple[Engine, Path]]:
    """The engines ``--engines`` names, each with its unpacked tree (fetched into
    ``--cache`` when not there yet); a usage error when it names none."""
    chosen = [e for e in ENGINES if e.key in args.engines.split(",")]
    if not chosen:
        parser.error(f"--engines: none of {args.engines!r} is an engine of init_engines.py")
    return [(engine, fetch(engine, args.cache.expanduser())) for engine in chosen]


@dataclass(frozen=True)
class Result:
    engine: Engine
    files: int
    hand_names: frozenset[str]
    covered: frozenset[str]
    init_status: int
    config_error: str
    extra: tuple[str, ...]
    missing: tuple[str, ...]  # hand findings the generated table doesn't give
    found: tuple[str, ...] = ()  # every finding of the generated table, path:line:symbol
    # The findings the generated table gives once its commented-out tables are
    # uncommented, beyond ``found``; or why that table can't be used.
    uncommented: tuple[str, ...] = ()
    uncommented_error: str = ""


def rpcsurface_command() -> list[str]:
    """The ``rpcsurface`` console script of this Python, or its module where none is."""
    script = Path(sys.executable).parent / "rpcsurface"
    return (
        [str(script)] if script.exists() else [sys.executable, "-m", "pylint_rpcsurface.commands"]
    )


def fetch(engine: Engine, cache: Path) -> Path:
    """The unpacked tree of *engine*: the folder holding its package."""
    folder = cache / engine.key
    wheels = sorted(folder.glob("*.whl"))
    if not wheels:
        folder.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        command += ["--only-binary", ":all:", "--dest", str(folder)]
        subprocess.run([*command, f"{engine.name}=={engine.version}"], check=True)
        wheels = sorted(folder.glob("*.whl"))
    tree = folder / f"src-{engine.version}"
    if not tree.is_dir():
        extract_python(wheels[0], tree)
    return tree


def generated_table(tree: Path) -> tuple[int, str]:
    """``rpcsurface init --diff`` in *tree* (no pyproject.toml): its status and table."""
    (tree / "pyproject.toml").unlink(missing_ok=True)
    done = subprocess.run(
        [*rpcsurface_command(), "init", "--diff"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    added = [
        line[1:]
        for line in done.stdout.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return done.returncode, "\n".join(added) + "\n"


def uncommented(table: str) -> str:
    """*table* with every table init wrote commented out made active, as its comment asks:
    the ``# `` that starts each line below :data:`UNCOMMENT_AFTER` removed."""
    lines, inside = [], False
    for line in table.splitlines():
        if inside and line.startswith("# "):
            lines.append(line[2:])
            continue
        inside = line == UNCOMMENT_AFTER
        lines.append(line)
    return "\n".join(lines) + "\n"


def sites(tree: Path, table: str) -> tuple[dict[str, set[tuple[str, int]]], str]:
    """Each RPC name the configured surfaces see, with its call sites; or the error."""
    from pylint_rpcsurface.config import ConfigError, load_config  # noqa: PLC0415
    from pylint_rpcsurface.engine import surface_facts  # noqa: PLC0415

    (tree / "pyproject.toml").write_text(table, encoding="utf-8")
    try:
        facts = surface_facts(load_config(tree / "pyproject.toml"))
    except ConfigError as error:
        return {}, str(error)
    if facts.config_errors:
        return {}, "; ".join(str(e) for e in facts.config_errors)
    seen: dict[str, set[tuple[str, int]]] = {}
    for surface in facts.surfaces:
        for site in surface.broadcasts:
            if site.broadcast.rpc is not None:
                where = (site.broadcast.call.path, site.broadcast.call.line)
                seen.setdefault(site.broadcast.rpc, set()).add(where)
    return seen, ""


def findings(tree: Path, table: str) -> tuple[int, set[str], str]:
    (tree / "pyproject.toml").write_text(table, encoding="utf-8")
    done = subprocess.run(
        [*rpcsurface_command(), "check", "--format", "json", "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    # 2 prints the findings too when a registry can't be used at all
    found = json.loads(done.stdout) if done.stdout.startswith("[") else []
    keys = {f"{f['path']}:{f['line']}:{f['symbol']}" for f in found}
    return done.returncode, keys, done.stderr.strip()


def run_engine(engine: Engine, cache: Path) -> Result:
    tree = fetch(engine, cache)
    files = sum(1 for _ in tree.rglob("*.py"))
    status, generated = generated_table(tree)
    hand = engine.hand.read_text("utf-8")
    hand_sites, hand_error = sites(tree, hand)
    if hand_error:
        raise SystemExit(f"{engine.name}: the hand configuration is wrong: {hand_error}")
    generated_sites, error = sites(tree, generated)
    covered = frozenset(
        name for name, where in hand_sites.items() if where <= generated_sites.get(name, set())
    )
    _, hand_found, _ = findings(tree, hand)
    code, generated_found, stderr = findings(tree, generated)
    if code == 2:
        error = error or stderr
    waiting = uncommented(generated)
    confirmed_code, confirmed_found, confirmed_stderr = findings(tree, waiting)
    (tree / "pyproject.toml").unlink(missing_ok=True)
    return Result(
        engine,
        files,
        frozenset(hand_sites),
        covered,
        status,
        error,
        tuple(sorted(generated_found - hand_found)),
        tuple(sorted(hand_found - generated_found)),
        tuple(sorted(generated_found)),
        tuple(sorted(confirmed_found - generated_found)),
        confirmed_stderr if confirmed_code == 2 else "",
    )


def load_verdicts(path: Path = VERDICTS) -> dict[str, dict[str, dict[str, str]]]:
    """engine -> finding key -> {"verdict": "true" | "false", "why": ...}"""
    if not path.is_file():
        return {}
    with path.open("rb") as stream:
        return tomllib.load(stream)


def traced(result: Result, verdicts: dict[str, dict[str, dict[str, str]]]) -> tuple[str, list[str]]:
    """The table's cell for *result*'s findings, and what is wrong: a finding nobody
    traced (of the written table, or added once its commented-out tables are
    uncommented), or a verdict whose finding is gone."""
    mine = verdicts.get(result.engine.key, {})
    every = (*result.found, *result.uncommented)
    problems = [f"{result.engine.key}: no verdict for {key}" for key in every if key not in mine]
    problems += [
        f"{result.engine.key}: a verdict for {key}, which is no longer found"
        for key in mine
        if key not in every
    ]
    return _counted(result.found, mine), problems


def _counted(keys: tuple[str, ...], mine: dict[str, dict[str, str]]) -> str:
    """How many of *keys* there are, and how many of them each verdict has."""
    if not keys:
        return "none"
    kinds = [mine.get(key, {}).get("verdict", "not traced") for key in keys]
    cell = f"{len(kinds)}: {kinds.count('true')} true, {kinds.count('false')} false"
    if kinds.count("not traced"):
        cell += f", {kinds.count('not traced')} NOT TRACED"
    return cell


def render_verdicts(results: list[Result], verdicts: dict[str, dict[str, dict[str, str]]]) -> str:
    """Every finding of the generated tables, written or uncommented, with its verdict and
    the reason."""
    rows = ["| Engine | Table | Finding | Verdict | Why |", "| --- | --- | --- | --- | --- |"]
    for r in results:
        for table, keys in (("written", r.found), ("uncommented", r.uncommented)):
            for key in keys:
                verdict = verdicts.get(r.engine.key, {}).get(key, {})
                why = verdict.get("why", "").replace("|", "/")
                rows.append(
                    f"| {r.engine.key} | {table} | `{key}` "
                    f"| {verdict.get('verdict', 'NOT TRACED')} | {why} |"
                )
    return "\n".join(rows) + "\n" if len(rows) > 2 else ""


def render(
    results: list[Result], verdicts: dict[str, dict[str, dict[str, str]]] | None = None
) -> str:
    rows = [
        "| Engine | .py files | init exit | Coverage of the hand RPC names | Config errors "
        "| Extra findings | Hand findings not given "
        "| Findings from the written configuration, each traced "
        "| Findings the commented-out tables add once uncommented, each traced |",
        "| --- | ---: | ---: | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        share = len(r.covered) / len(r.hand_names) if r.hand_names else 1.0
        mark = "" if share >= TARGET else f" (target {TARGET:.0%}: {TARGET - share:.0%} short)"
        missing = sorted(r.hand_names - r.covered)
        coverage = f"{share:.0%} ({len(r.covered)}/{len(r.hand_names)}){mark}"
        if missing:
            coverage += ", not seen: " + ", ".join(f"`{m}`" for m in missing)
        extra = ", ".join(f"`{e}`" for e in r.extra) or "none"
        lost = ", ".join(f"`{e}`" for e in r.missing) or "none"
        cell, _ = traced(r, verdicts or {})
        mine = (verdicts or {}).get(r.engine.key, {})
        added = _counted(r.uncommented, mine)
        if r.uncommented_error:
            added = f"configuration error: {r.uncommented_error.replace('|', '/')}"
        rows.append(
            f"| {r.engine.name} {r.engine.version} | {r.files} | {r.init_status} | {coverage} "
            f"| {r.config_error.replace('|', '/') or 'none'} | {extra} | {lost} | {cell} "
            f"| {added} |"
        )
    table = "\n".join(rows) + "\n"
    listed = render_verdicts(results, verdicts or {})
    return table + ("\n" + listed if listed else "")


def _dumped(result: Result) -> dict[str, object]:
    return {
        "files": result.files,
        "hand_names": sorted(result.hand_names),
        "covered": sorted(result.covered),
        "init_status": result.init_status,
        "config_error": result.config_error,
        "extra": list(result.extra),
        "missing": list(result.missing),
        "found": list(result.found),
        "uncommented": list(result.uncommented),
        "uncommented_error": result.uncommented_error,
    }


def _loaded(engine: Engine, path: Path) -> Result:
    data = json.loads(path.read_text("utf-8"))
    return Result(
        engine,
        int(data["files"]),
        frozenset(data["hand_names"]),
        frozenset(data["covered"]),
        int(data["init_status"]),
        str(data["config_error"]),
        tuple(data["extra"]),
        tuple(data["missing"]),
        tuple(data["found"]),
        tuple(data.get("uncommented", ())),
        str(data.get("uncommented_error", "")),
    )


def write_table(page: Path, table: str) -> None:
    text = page.read_text("utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    page.write_text(text[:start] + "\n\n" + table + "\n" + text[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--engines", help="comma-separated names or labels (default: every engine)")
    parser.add_argument("--out", type=Path, help="rewrite the table in this Markdown page")
    parser.add_argument(
        "--cache",
        type=Path,
        default=CACHE,
        help="where the wheels are kept and unpacked (outside the repository)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="render the measurements the last run kept in the cache folder (after tracing "
        "its findings in verdicts.toml) instead of measuring again",
    )
    args = parser.parse_args(argv)
    chosen = ENGINES
    if args.engines:
        chosen = tuple(e for e in ENGINES if e.key in set(args.engines.split(",")))
    results = []
    for engine in chosen:
        kept = args.cache / engine.key / f"result-{engine.version}.json"
        if args.reuse and kept.is_file():
            result = _loaded(engine, kept)
        else:
            result = run_engine(engine, args.cache)
            kept.write_text(json.dumps(_dumped(result)), encoding="utf-8")
        print(f"{engine.key}: done", file=sys.stderr)
        results.append(result)
    verdicts = load_verdicts()
    table = render(results, verdicts)
    print(table)
    problems = [p for r in results for p in traced(r, verdicts)[1]]
    for problem in problems:
        print(f"init_engines: {problem}", file=sys.stderr)
    if args.out is not None:
        write_table(args.out, table)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

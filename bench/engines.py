"""The real-engine corpus: released engines from the package index, checked as a user would.

For each engine below, ``pip download --no-deps --only-binary :all: NAME==VERSION`` fetches
its wheel into a temporary folder (a wheel only: building an sdist would run its code), and
only the ``.py`` files are unpacked from it. Nothing is installed or imported: the analysis
reads the source with astroid. The engine's configuration, committed as
``bench/engines/<name>.toml``, is written next to the unpacked package as its
``pyproject.toml``, and ``rpcsurface check --format json --no-cache`` runs there.

Proxy tables (``[[tool.rpcsurface.proxy]]``, issue 25) are kept apart, in
``bench/engines/<name>.proxy.toml``, until the checker that reads them lands: the current
checker rejects the ``proxy`` key. With ``--proxy`` that file is appended to the engine's
table (both are plain TOML, so appending keeps every table), and the engines whose whole
configuration is proxy tables (``proxy_only``) are run too; without it they are skipped.
The hand-traced call sites each proxy surface must find are in
``bench/engines/proxy_expected/<name>.toml``; with ``--proxy``, those expected as findings
serve as their verdicts (verdicts.toml, where it has the key, wins), so the run fails on a
proxy finding nobody traced and on a traced one that is not found.

Every finding is looked up in ``bench/engines/verdicts.toml``, where each one is classified
by hand, after tracing it to the engine's code, as a true or a false positive with the
reason. A finding without a verdict, or a verdict whose finding is gone, fails the run: the
table in docs/real-engines.md is always the one this command makes.

    python bench/engines.py                          # every engine; print the table
    python bench/engines.py --engines vllm,sglang    # some of them
    python bench/engines.py --out docs/real-engines.md   # rewrite the page's table
    python bench/engines.py --proxy                  # with the proxy tables (issue 25)
    python bench/engines.py --cache /tmp/engines     # keep the wheels there between runs
    python bench/engines.py --oracle     # and: full build = lean = store cold = store warm

Downloads: vLLM's wheel is about 260 MB, LMDeploy's about 110 MB (each release), the others a few MB
(verl 0.4.1 0.75 MB, AReaL 1.0.4 1.1 MB, Trinity-RFT 0.3.0 0.3 MB, OpenRLHF 0.7.0 0.15 MB),
SGLang 0.5.23's 39 MB, verl 0.9.1's and 0.7.1's 1.7 MB, OpenRLHF 0.11.2's 0.2 MB. With
``--cache DIR`` each wheel is kept in ``DIR/<name>-<version>/`` and fetched only when it is
not there yet; the sources are unpacked afresh on every run.
Exit status 1 if a check crashed, exited with 2, or a finding has no verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is the package's dependency below 3.11
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "engines"
VERDICTS = CONFIGS / "verdicts.toml"
BEGIN = "<!-- engines:begin (python bench/engines.py --out docs/real-engines.md) -->"
END = "<!-- engines:end -->"
PROXY_SUFFIX = ":rpc-proxy-unanswered"  # the symbol of issue 25's message
NAMED_REASON = "named reason"  # the verdict of a traced site's expected named reason


@dataclass(frozen=True)
class Engine:
    name: str  # the distribution's name on the package index, and the config's file name
    version: str
    package: str  # the top-level import package the configuration names
    proxy_only: bool = False  # its configuration is proxy tables alone: run with --proxy only
    label: str = ""  # for a second release of one distribution: its config's and verdicts' name

    @property
    def key(self) -> str:
        """The configuration's file name and the verdicts' table: the label, or the name."""
        return self.label or self.name


ENGINES = (
    Engine("vllm", "0.7.3", "vllm"),
    Engine("lmdeploy", "0.7.3", "lmdeploy"),
    Engine("sglang", "0.4.6", "sglang"),
    # The release before TypeBasedDispatcher: the scheduler answers by an isinstance chain.
    Engine("sglang", "0.4.0", "sglang", label="sglang-0.4.0"),
    # A string-keyed command table, filled at run time (issue 28's third engine).
    Engine("lmdeploy", "0.18.0", "lmdeploy", label="lmdeploy-0.18.0"),
    Engine("openrlhf", "0.7.0", "openrlhf"),
    # Ray-based RL frameworks for the proxy surfaces of issue 25
    Engine("verl", "0.4.1", "verl", proxy_only=True),
    Engine("areal", "1.0.4", "areal", proxy_only=True),
    Engine("trinity-rft", "0.3.0", "trinity", proxy_only=True),
    # Issue 46's real trees, their proxy tables in <name>.toml itself (the checker reads them).
    # The newest verl: experimental trainers (subclasses of RayPPOTrainer) with their own workers.
    Engine("verl", "0.9.1", "verl", label="verl-0.9.1"),
    # The newest verl whose trainer picks its workers by trainer.use_legacy_worker_impl.
    Engine("verl", "0.7.1", "verl", label="verl-0.7.1"),
    # The scheduler and the data-parallel controller both dispatch by type.
    Engine("sglang", "0.5.23", "sglang", label="sglang-0.5.23"),
    Engine("openrlhf", "0.11.2", "openrlhf", label="openrlhf-0.11.2"),
)


@dataclass(frozen=True)
class Found:
    engine: str
    path: str
    line: int
    symbol: str
    message: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.symbol}"


def download(engine: Engine, into: Path) -> Path:
    """The engine's wheel, fetched with pip into *into* unless it is there; never installed."""
    kept = sorted(into.glob("*.whl"))
    if len(kept) == 1:
        return kept[0]
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--dest",
        str(into),
        f"{engine.name}=={engine.version}",
    ]
    subprocess.run(command, check=True)
    (wheel,) = into.glob("*.whl")
    return wheel


def extract_python(wheel: Path, into: Path) -> int:
    """Unpack only the ``.py`` files of *wheel* into *into*; refuse paths that leave it."""
    count = 0
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            name = PurePosixPath(member.filename)
            if member.is_dir() or name.suffix != ".py":
                continue
            if name.is_absolute() or ".." in name.parts:
                raise ValueError(f"{wheel.name}: refusing to unpack {member.filename!r}")
            target = into.joinpath(*name.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(member))
            count += 1
    return count


def package_root(tree: Path, package: str) -> Path:
    """The folder holding ``<package>/__init__.py`` (a wheel may put it under .data/purelib)."""
    found = sorted(tree.rglob(f"{package}/__init__.py"), key=lambda p: len(p.parts))
    if not found:
        raise FileNotFoundError(f"no {package}/__init__.py under {tree}")
    return found[0].parent.parent


def config_text(name: str, proxy: bool) -> str:
    """The engine's table: ``<name>.toml``, then ``<name>.proxy.toml`` when *proxy* is set."""
    text = (CONFIGS / f"{name}.toml").read_text("utf-8")
    extra = CONFIGS / f"{name}.proxy.toml"
    if proxy and extra.is_file():
        text = text.rstrip("\n") + "\n\n" + extra.read_text("utf-8")
    return text


def write_config(root: Path, config: Path | str) -> Path:
    """Write *config* (an engine's committed table: its file, or its text as config_text
    makes it) as *root*'s pyproject.toml."""
    text = config.read_text("utf-8") if isinstance(config, Path) else config
    target = root / "pyproject.toml"
    target.write_text(text, encoding="utf-8")
    return target


def check(
    root: Path, config: str, env: dict[str, str] | None = None, cached: bool = False
) -> tuple[int, list[dict[str, object]], str]:
    """``rpcsurface check --format json --no-cache`` in *root* with *config* as its table
    (*env* added to the environment; with *cached*, the store is used)."""
    write_config(root, config)
    script = Path(sys.executable).parent / "rpcsurface"
    command = (
        [str(script)] if script.exists() else [sys.executable, "-m", "pylint_rpcsurface.commands"]
    )
    completed = subprocess.run(
        [*command, "check", "--format", "json", *(() if cached else ("--no-cache",))],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        env={**os.environ, **(env or {})},
    )
    try:
        findings = json.loads(completed.stdout) if completed.stdout.strip() else []
    except json.JSONDecodeError:
        findings = []
    return completed.returncode, findings, completed.stderr


def _oracle(
    engine: Engine, root: Path, config: str, lean: tuple[int, list[dict[str, object]]]
) -> list[str]:
    """The answer of a cold check (the project's modules built lean) against astroid's
    full build's (``RPCSURFACE_BUILD=full``), and a store's cold and warm answers (in a
    fresh store folder): each difference is a problem."""
    answers = {"full build": check(root, config, {"RPCSURFACE_BUILD": "full"})[:2]}
    with tempfile.TemporaryDirectory(prefix="rpcsurface-oracle-") as folder:
        store = {"RPCSURFACE_CACHE_DIR": folder}
        answers["store, cold"] = check(root, config, store, cached=True)[:2]
        answers["store, warm"] = check(root, config, store, cached=True)[:2]
    problems = [
        f"{engine.key}: {name} gives another answer than a lean --no-cache check"
        for name, answer in answers.items()
        if answer != lean
    ]
    print(f"{engine.key}: oracle {'differs' if problems else 'holds'} ({', '.join(answers)})",
          file=sys.stderr)  # fmt: skip
    return problems


def run_engine(
    engine: Engine,
    workdir: Path,
    proxy: bool = False,
    cache: Path | None = None,
    oracle: bool = False,
) -> tuple[list[Found], list[str]]:
    folder = workdir / engine.key
    wheels = folder / "wheel" if cache is None else cache / f"{engine.name}-{engine.version}"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = download(engine, wheels)
    count = extract_python(wheel, folder / "src")
    root = package_root(folder / "src", engine.package)
    code, findings, stderr = check(root, config_text(engine.key, proxy))
    problems = []
    if code not in (0, 1):
        problems.append(f"{engine.key}: rpcsurface check exited {code}: {stderr.strip()}")
    if oracle:
        problems += _oracle(engine, root, config_text(engine.key, proxy), (code, findings))
    print(
        f"{engine.key} {engine.version}: {count} .py files, exit {code}, {len(findings)} findings",
        file=sys.stderr,
    )
    found = [
        Found(
            engine.key,
            str(item["path"]),
            int(str(item["line"])),
            str(item["symbol"]),
            str(item["message"]),
        )
        for item in findings
    ]
    return found, problems


def load_verdicts(path: Path = VERDICTS) -> dict[str, dict[str, dict[str, str]]]:
    """engine -> finding key -> {"verdict": "true positive" | "false positive", "why": ...}"""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return {engine: dict(table) for engine, table in data.items()}


def expected_proxy_verdicts(
    directory: Path = CONFIGS / "proxy_expected",
) -> dict[str, dict[str, dict[str, str]]]:
    """The hand-traced proxy sites that must be findings, as verdicts: engine -> key -> verdict.

    ``proxy_expected/<name>.toml`` lists every site of the engine's proxy surfaces; those
    whose verdict is "true positive" or "false positive" are the findings the contract
    gives. With ``--proxy`` they stand in for verdicts.toml entries, so a run reports any
    proxy finding that was not traced by hand, and any traced finding that is missing. A
    site's ``named-at`` are where the message ``named`` (a named reason, such as
    ``rpc-proxy-handler-unknown``) must be, with the verdict "named reason" and
    ``named-why``, whatever the site's own verdict.
    """
    verdicts: dict[str, dict[str, dict[str, str]]] = {}
    for path in sorted(directory.glob("*.toml")):
        with path.open("rb") as handle:
            sites = tomllib.load(handle).get("site", [])
        table = verdicts.setdefault(path.stem, {})
        for site in sites:
            if site["verdict"] in ("true positive", "false positive"):
                # A handler-param surface's finding is at the instance calls (found-at).
                for at in site.get("found-at", [site["at"]]):
                    where = str(at).rsplit(":", 1)[0]  # path:line, the column dropped
                    table[where + PROXY_SUFFIX] = {"verdict": site["verdict"], "why": site["why"]}
        for site in sites:
            # A named reason the contract gives (rpc-proxy-handler-unknown): a message,
            # neither a finding about the handlers nor a pass, at each of named-at.
            for at in site.get("named-at", []):
                where = str(at).rsplit(":", 1)[0]
                reason = {"verdict": NAMED_REASON, "why": site["named-why"]}
                table[f"{where}:{site['named']}"] = reason
    return verdicts


def without_unread_proxy_verdicts(
    verdicts: dict[str, dict[str, dict[str, str]]], configs: Path = CONFIGS
) -> dict[str, dict[str, dict[str, str]]]:
    """*verdicts* less the proxy findings' of each engine whose proxy tables are kept in
    ``<name>.proxy.toml``: a run without ``--proxy`` doesn't append them, so those findings
    can't be found. An engine whose proxy tables are in ``<name>.toml`` keeps them."""
    return {
        engine: {
            key: verdict
            for key, verdict in table.items()
            if not (key.endswith(PROXY_SUFFIX) and (configs / f"{engine}.proxy.toml").is_file())
        }
        for engine, table in verdicts.items()
    }


def render(
    engines: tuple[Engine, ...],
    found: list[Found],
    verdicts: dict[str, dict[str, dict[str, str]]],
) -> tuple[str, list[str]]:
    """The Markdown table of every finding with its verdict, and what is wrong with it."""
    problems = []
    rows = [
        "| Engine | Finding | Message | Verdict | Why |",
        "| --- | --- | --- | --- | --- |",
    ]
    names = {engine.key for engine in engines}
    for engine in engines:
        mine = sorted((f for f in found if f.engine == engine.key), key=lambda f: f.key)
        if not mine:
            rows.append(f"| {engine.name} {engine.version} | none | | | |")
        for item in mine:
            verdict = verdicts.get(engine.key, {}).get(item.key)
            if verdict is None:
                problems.append(f"{engine.key}: no verdict for {item.key}")
                verdict = {"verdict": "UNCLASSIFIED", "why": ""}
            message = item.message.split(" (rpcsurface explain", 1)[0].replace("|", "\\|")
            rows.append(
                f"| {engine.name} {engine.version} | `{item.path}:{item.line}` "
                f"`{item.symbol}` | {message} | {verdict['verdict']} | {verdict['why']} |"
            )
    keys = {(f.engine, f.key) for f in found}
    for engine, table in verdicts.items():
        if engine not in names:
            continue
        problems.extend(
            f"{engine}: a verdict for {key}, which is no longer found"
            for key in table
            if (engine, key) not in keys
        )
    return "\n".join(rows) + "\n", problems


def write_table(page: Path, table: str) -> None:
    text = page.read_text("utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    page.write_text(text[:start] + "\n\n" + table + "\n" + text[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--engines", help="comma-separated names (default: every engine)")
    parser.add_argument("--out", type=Path, help="rewrite the table in this Markdown page")
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="append <name>.proxy.toml and run the proxy-only engines (needs issue 25's checker)",
    )
    parser.add_argument(
        "--cache", type=Path, help="keep each wheel in this folder and fetch it only once"
    )
    parser.add_argument(
        "--oracle",
        action="store_true",
        help="also check that astroid's full build, a cold and a warm store answer the same",
    )
    args = parser.parse_args(argv)
    chosen = ENGINES
    if args.engines:
        wanted = set(args.engines.split(","))
        chosen = tuple(engine for engine in ENGINES if engine.key in wanted)
    if not args.proxy:
        for engine in chosen:
            if engine.proxy_only:
                print(f"{engine.name}: proxy tables only; skipped without --proxy", file=sys.stderr)
        chosen = tuple(engine for engine in chosen if not engine.proxy_only)
    found: list[Found] = []
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="rpcsurface-engines-") as workdir:
        for engine in chosen:
            engine_found, engine_problems = run_engine(
                engine, Path(workdir), args.proxy, args.cache, args.oracle
            )
            found += engine_found
            problems += engine_problems
    verdicts = load_verdicts()
    if args.proxy:  # the hand-traced findings, unless verdicts.toml already classifies them
        for engine, table in expected_proxy_verdicts().items():
            verdicts[engine] = {**table, **verdicts.get(engine, {})}
    else:
        verdicts = without_unread_proxy_verdicts(verdicts)
    table, table_problems = render(chosen, found, verdicts)
    problems += table_problems
    print(table)
    if args.out is not None:
        write_table(args.out, table)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

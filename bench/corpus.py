"""Corpus runs: pylint with only this plugin's checker over large real code on this machine.

Targets: the standard library of the running Python, and the installed sources of pylint,
astroid, pytest and hypothesis. Each target's tree is copied into a temporary folder (the
installed trees are never written to) next to a pyproject.toml with one of three configs:

- ``exists``: classes that exist there as callers and handlers, with method-name
  dispatch that occurs in that code, and a real module-level list as the registry;
- ``missing``: classes that don't exist (every module gets rpcsurface-config-error);
- ``call``: a registry that is a module-level function call.

Pass: zero tracebacks, zero ``astroid-error`` (F0002), zero ``fatal`` (F0001). pylint's
own reports on files it can't read (``syntax-error``, ``parse-error``) are counted, not
failures: the standard library ships such files on purpose.

``rpcsurface check --format json`` is run too (pass: no traceback, exit 0, 1 or 2). When
both tools ran, their findings are compared as (path, line, column, symbol): every mode
must give the same findings, so a difference fails the run.

    python bench/corpus.py                        # every target, every config kind
    python bench/corpus.py --targets pylint --kinds exists --jobs 2
    python bench/corpus.py --targets stdlib --tools check
    python bench/corpus.py --slice                # stdlib's json package: what the suite runs

It prints one JSON object per run and a Markdown table; exit status 1 if any run failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

DISPATCH = """
[[tool.rpcsurface.dispatch]]
method = "{method}"
waits = {waits}
"""

SURFACE = """
[[tool.rpcsurface.surface]]
name = "{name}"
callers = {callers}
handlers = {handlers}
{registry}"""


@dataclass(frozen=True)
class Target:
    name: str
    packages: tuple[str, ...]  # top-level packages to copy; () means the whole stdlib
    dispatch: tuple[tuple[str, str], ...]  # (method, waits as TOML)
    callers: tuple[str, ...]
    handlers: tuple[str, ...]
    registry: str
    call_registry: str  # a module-level constant assigned from a function call
    only: str | None = None  # one folder of the standard library instead of all of it


TARGETS = {
    "stdlib": Target(
        "stdlib",
        (),
        (("_callmethod", "true"), ("start", "false"), ("join", '"timeout"')),
        ("threading.Thread", "multiprocessing.managers.BaseProxy"),
        ("socketserver.BaseServer",),
        "threading.__all__",
        "types.FunctionType",
    ),
    "pylint": Target(
        "pylint",
        ("pylint",),
        (("add_message", '"confidence"'), ("is_message_enabled", "true")),
        ("pylint.checkers.base_checker.BaseChecker",),
        ("pylint.lint.pylinter.PyLinter",),
        "pylint.__all__",
        "pylint.__pkginfo__.numversion",
    ),
    "astroid": Target(
        "astroid",
        ("astroid",),
        (("getattr", "true"), ("igetattr", "true")),
        ("astroid.nodes.node_ng.NodeNG",),
        ("astroid.nodes.scoped_nodes.scoped_nodes.ClassDef",),
        "astroid.__all__",
        "astroid.brain.brain_attrs.ATTRIB_NAMES",
    ),
    "pytest": Target(
        "pytest",
        ("pytest", "_pytest"),
        (("getoption", "true"), ("getini", "true")),
        ("_pytest.nodes.Node",),
        ("_pytest.config.Config",),
        "pytest.__all__",
        "_pytest.scope._ALL_SCOPES",
    ),
    "hypothesis": Target(
        "hypothesis",
        ("hypothesis",),
        (("draw", "true"), ("note", "false")),
        ("hypothesis.strategies._internal.strategies.SearchStrategy",),
        ("hypothesis.internal.conjecture.data.ConjectureData",),
        "hypothesis.__all__",
        "hypothesis.provisional.URL_SAFE_CHARACTERS",
    ),
}
# The always-on CI slice: one small package folder of the standard library.
TARGETS["stdlib-json"] = Target(
    "stdlib-json",
    (),
    (("encode", "true"), ("raw_decode", "true"), ("iterencode", "false")),
    ("json.decoder.JSONDecoder", "json.encoder.JSONEncoder"),
    ("json.encoder.JSONEncoder",),
    "json.__all__",
    "json.decoder.NaN",
    only="json",
)
KINDS = ("exists", "missing", "call")
SLICE = "stdlib-json"


def config_text(target: Target, kind: str) -> str:
    text = "[tool.rpcsurface]\n"
    for method, waits in target.dispatch:
        text += DISPATCH.format(method=method, waits=waits)
    callers, handlers, registry = target.callers, target.handlers, target.registry
    if kind == "missing":
        callers, handlers = ("nowhere.MissingCaller",), ("nowhere.MissingHandler",)
        registry = "nowhere.MISSING_RPCS"
    elif kind == "call":
        registry = target.call_registry
    return text + SURFACE.format(
        name=target.name,
        callers=json.dumps(list(callers)),
        handlers=json.dumps(list(handlers)),
        registry=f'registry = "{registry}"\n',
    )


def source_of(package: str) -> Path:
    """The installed folder of *package*, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"corpus: package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def copy_target(target: Target, dest: Path) -> list[str]:
    """Copy the target's tree(s) under *dest*; the folders to lint, relative to *dest*."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "site-packages")
    if target.packages:
        for package in target.packages:
            shutil.copytree(source_of(package), dest / package, ignore=ignore)
        return list(target.packages)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    if target.only:
        shutil.copytree(stdlib / target.only, dest / target.only, ignore=ignore)
        return [target.only]
    shutil.copytree(stdlib, dest, ignore=ignore, dirs_exist_ok=True)
    return sorted(
        entry.name
        for entry in dest.iterdir()
        if entry.name != "pyproject.toml"
        and (entry.is_dir() or entry.suffix == ".py")
        and entry.name.replace(".py", "").isidentifier()
    )


def count_lines(root: Path, folders: list[str]) -> tuple[int, int]:
    files = lines = 0
    for folder in folders:
        path = root / folder
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            files += 1
            with file.open("rb") as handle:
                lines += sum(1 for _ in handle)
    return files, lines


@dataclass
class Result:
    target: str
    kind: str
    tool: str
    files: int
    lines: int
    seconds: float
    exit_code: int
    findings: int  # messages of this plugin's checker
    config_errors: int
    by_symbol: dict[str, int]
    tracebacks: int
    astroid_errors: int
    fatals: int
    # this plugin's findings as (absolute path, line, column, symbol), config errors
    # excepted: what the two tools are compared on
    keys: frozenset[tuple[str, int, int, str]] = field(default=frozenset(), repr=False)
    disagreements: int = 0  # findings only one of the two tools gave (set by compare())

    @property
    def passed(self) -> bool:
        return (
            not (self.tracebacks or self.astroid_errors or self.fatals or self.disagreements)
            and self.exit_code >= 0
        )

    def summary(self) -> dict[str, object]:
        """What is printed for a run: everything but the compared keys."""
        shown = asdict(self)
        del shown["keys"]
        return shown | {"passed": self.passed}


def compare(pylint: Result, check: Result) -> list[tuple[str, int, int, str]]:
    """Findings only one tool gave; both results record how many."""
    differ = sorted(pylint.keys ^ check.keys)
    pylint.disagreements = check.disagreements = len(differ)
    return differ


# Our messages only, all of them: given to pylint and to check alike.
ONLY_OURS = ("--disable=all", "--enable=rpcsurface")


def run_pylint(root: Path, folders: list[str], jobs: int, timeout: float) -> tuple:
    # -P: the copied trees sit in the working folder; the copy of pylint or astroid must
    # never be the one that runs (nor any copied module be imported).
    command = [
        sys.executable,
        "-P",
        "-m",
        "pylint",
        "--load-plugins=pylint_rpcsurface",
        *ONLY_OURS,
        "--recursive=y",
        "--output-format=json2",
        "--persistent=n",
        "--score=n",
        f"--jobs={jobs}",
        *folders,
    ]
    return run(command, root, timeout)


def run(command: list[str], root: Path, timeout: float) -> tuple[int, str, str, float]:
    """Exit status (-1: timed out), stdout, stderr and seconds of *command* run in *root*."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    start = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=root,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {timeout}s", time.monotonic() - start
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


def judge_pylint(
    target: str, kind: str, root: Path, folders: list[str], *, jobs: int, timeout: float
):
    files, lines = count_lines(root, folders)
    code, out, err, seconds = run_pylint(root, folders, jobs, timeout)
    try:
        messages = json.loads(out)["messages"]
    except (json.JSONDecodeError, KeyError, TypeError):
        messages = []
    by_symbol: dict[str, int] = {}
    for message in messages:
        by_symbol[message["symbol"]] = by_symbol.get(message["symbol"], 0) + 1
    ours = sum(n for s, n in by_symbol.items() if s.startswith(("rpc-", "rpcsurface-")))
    keys = frozenset(
        (m["absolutePath"], m["line"], m["column"], m["symbol"])
        for m in messages
        if m["symbol"].startswith("rpc-")
    )
    return Result(
        target,
        kind,
        "pylint",
        files,
        lines,
        round(seconds, 1),
        code,
        ours,
        by_symbol.get("rpcsurface-config-error", 0),
        dict(sorted(by_symbol.items())),
        out.count("Traceback") + err.count("Traceback") + (0 if messages or out else 1),
        by_symbol.get("astroid-error", 0),
        by_symbol.get("fatal", 0),
        keys,
    )


def judge_cli(target: str, kind: str, root: Path, folders: list[str], timeout: float):
    files, lines = count_lines(root, folders)
    script = Path(sys.executable).parent / "rpcsurface"
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-P", "-m", "pylint_rpcsurface.commands"]
    )
    # --no-cache: the pylint run before this one filled the cache for this config, and the
    # comparison is worth something only if this run derives its findings itself. The
    # same --disable/--enable as the pylint run: check applies them as pylint does.
    code, out, err, seconds = run(
        [*command, "check", *folders, "--format", "json", "--no-cache", *ONLY_OURS],
        root,
        timeout,
    )
    tracebacks = out.count("Traceback") + err.count("Traceback")
    try:
        # 2 prints the findings too when a registry can't be used at all
        findings = json.loads(out) if code in (0, 1) or out.startswith("[") else []
    except json.JSONDecodeError:
        findings, tracebacks = [], tracebacks + 1  # unreadable output fails the run
    by_symbol: dict[str, int] = {}
    for finding in findings:
        by_symbol[finding["symbol"]] = by_symbol.get(finding["symbol"], 0) + 1
    # exit 2 is a usage or configuration error: one line on stderr, the errors joined by
    # "; " (none there when the error is a registry that can't be used, a finding above)
    config_errors = err.count("; ") + 1 if code == 2 and err.strip() else 0
    return Result(
        target,
        kind,
        "rpcsurface check",
        files,
        lines,
        round(seconds, 1),
        code,
        len(findings) + config_errors,
        config_errors,
        dict(sorted(by_symbol.items())),
        tracebacks + (code not in (0, 1, 2)),
        0,
        0,
        frozenset((f["absolutePath"], f["line"], f["column"], f["symbol"]) for f in findings),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--targets", nargs="*", default=[t for t in TARGETS if t != SLICE], choices=list(TARGETS)
    )
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=list(KINDS))
    parser.add_argument(
        "--tools", nargs="*", default=["pylint", "check"], choices=["pylint", "check"]
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=7200)
    parser.add_argument("--slice", action="store_true", help="only stdlib/json, every kind")
    args = parser.parse_args(argv)
    results: list[Result] = []
    targets = [SLICE] if args.slice else args.targets
    for name in targets:
        target = TARGETS[name]
        with tempfile.TemporaryDirectory(prefix=f"corpus-{name}-") as folder:
            root = Path(folder)
            folders = copy_target(target, root)
            for kind in args.kinds:
                (root / "pyproject.toml").write_text(config_text(target, kind), encoding="utf-8")
                ran: list[Result] = []
                if "pylint" in args.tools:
                    ran.append(
                        judge_pylint(
                            name, kind, root, folders, jobs=args.jobs, timeout=args.timeout
                        )
                    )
                if "check" in args.tools:
                    ran.append(judge_cli(name, kind, root, folders, args.timeout))
                if len(ran) == 2:
                    for key in compare(*ran)[:20]:
                        print(f"only one tool gave {key}", file=sys.stderr)
                for result in ran:
                    print(json.dumps(result.summary()), flush=True)
                results.extend(ran)
    print()
    print(
        "| target | config | tool | files | lines | findings | config errors | time (s) "
        "| disagreements | result |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        verdict = "pass" if r.passed else "FAIL"
        print(
            f"| {r.target} | {r.kind} | {r.tool} | {r.files} | {r.lines} | {r.findings} "
            f"| {r.config_errors} | {r.seconds} | {r.disagreements} | {verdict} |"
        )
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

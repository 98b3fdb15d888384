"""What the tests share: running pylint and the ``rpcsurface`` command as a user does,
the tiny projects they run on, a copy of this checkout, and the benchmark scripts.

Sections, in order:

* running pylint with the plugin in a subprocess and reading its json2 report, and
  running the installed ``rpcsurface`` script (every end-to-end test goes through here);
* a tiny valid project, and the checks every such run shares;
* copying what it takes to build and install this package into a fresh folder;
* loading the benchmark scripts in bench/ (plain scripts, not a package).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from pylint_rpcsurface import discovery
from pylint_rpcsurface.analysis.classes import ClassIndex
from pylint_rpcsurface.analysis.modules import ModuleStore
from pylint_rpcsurface.discovery.core import Discovery
from pylint_rpcsurface.sources import SourceTree
from pylint_rpcsurface.store import CACHE_DIR_ENV, STATS_ENV

# --- Run real pylint with the plugin in a subprocess and read its json2 report.

ONLY_OUR_CHECKER = ("--disable=all", "--enable=rpcsurface")

# The `rpcsurface` command as the package installs it; without an installed script, the
# same entry point with the working folder taken off sys.path again, as the script has it.
_SCRIPT = Path(sys.executable).parent / ("rpcsurface.exe" if os.name == "nt" else "rpcsurface")
CONSOLE_SCRIPT: tuple[str, ...] = (
    (str(_SCRIPT),)
    if _SCRIPT.exists()
    else (
        sys.executable,
        "-c",
        "import sys; del sys.path[0]; "
        "from pylint_rpcsurface.commands.main import console_main; console_main()",
    )
)
# Each of our texts ends with " (rpcsurface explain <symbol>)"; tests compare the text
# before it, and tests/test_message_examples.py checks the pointer itself.
_POINTER = re.compile(r" \((rpcsurface explain [a-z0-9-]+)\)$")


@dataclass(frozen=True)
class Reported:
    """One message as pylint reported it, reduced to what tests compare."""

    symbol: str
    path: str  # relative to the project folder, with forward slashes
    line: int
    column: int
    end_line: int | None
    end_column: int | None
    text: str  # without the trailing pointer to the docs page, which is in `page`
    confidence: str
    page: str = ""  # the docs page the text points to, "" when it points to none


def _split_pointer(message: str) -> tuple[str, str]:
    match = _POINTER.search(message)
    if match is None:
        return message, ""
    return message[: match.start()], match.group(1)


@dataclass(frozen=True)
class PylintRun:
    returncode: int
    messages: tuple[Reported, ...]
    stdout: str
    stderr: str

    def keys(self) -> set[tuple[str, str, int]]:
        """The (symbol, path, line) of every message, the acceptance table's unit."""
        return {(m.symbol, m.path, m.line) for m in self.messages}


def _relative(absolute: str, project: Path) -> str:
    """*absolute* relative to *project*: as written first (a file linked into the roots is
    known by the link's path), else with links resolved."""
    for candidate in (Path(absolute), Path(absolute).resolve()):
        try:
            return candidate.relative_to(project.resolve()).as_posix()
        except ValueError:
            continue
    return Path(absolute).as_posix()


# pylint's console script, which puts its own folder first on sys.path, as `python -m`
# does not: a user's editor and pre-commit run this one.
PYLINT_SCRIPT = Path(sys.executable).parent / ("pylint.exe" if os.name == "nt" else "pylint")


def pylint_argv(*args: str, only_ours: bool = True, script: bool = False) -> list[str]:
    """``python -m pylint`` (with *script*, the ``pylint`` console script) with the plugin
    loaded, no stats kept, no score, and (with *only_ours*) only our checker, then
    *args*."""
    return [
        *((str(PYLINT_SCRIPT),) if script else (sys.executable, "-m", "pylint")),
        "--load-plugins=pylint_rpcsurface",
        "--persistent=n",
        "--score=n",
        *(ONLY_OUR_CHECKER if only_ours else ()),
        *args,
    ]


def run_pylint(
    project: Path,
    *args: str,
    stdin: str | None = None,
    only_ours: bool = True,
    timeout: float = 300,
    env: dict[str, str] | None = None,
    script: bool = False,
) -> PylintRun:
    """Run ``python -m pylint`` (with *script*, the ``pylint`` console script) in
    *project* with the plugin loaded.

    *args* are the files or extra options. json2 output is parsed; if pylint
    printed something that is not json2 (a crash), the test sees it in
    ``stdout``/``stderr`` and ``messages`` is empty.
    """
    command = pylint_argv("--output-format=json2", *args, only_ours=only_ours, script=script)
    environment = clean_environment(env)
    completed = subprocess.run(
        command,
        cwd=project,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=environment,
        check=False,
    )
    messages: tuple[Reported, ...] = ()
    try:
        report = json.loads(completed.stdout)
    except json.JSONDecodeError:
        report = None
    if isinstance(report, dict):
        messages = _reported(report["messages"], project)
    return PylintRun(completed.returncode, messages, completed.stdout, completed.stderr)


def clean_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """The test process's environment, without what would change how the plugin runs."""
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    environment.pop("RPCSURFACE_NO_CACHE", None)
    environment.pop("RPCSURFACE_BUILD", None)  # the lean build unless a test asks
    environment.update(env or {})
    return environment


def probe_json(script: str, *argv: str, env: dict[str, str] | None = None) -> Any:
    """What *script* prints as JSON, run by this Python in a process of its own (so
    astroid's caches hold only what it builds) with *argv*, in the clean environment
    updated with *env*; the test fails with its stderr if it does not exit 0."""
    completed = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        env=clean_environment(env),
        check=False,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def _reported(items: list[dict[str, Any]], project: Path) -> tuple[Reported, ...]:
    """pylint's json2 messages, or ``rpcsurface check --format json``'s (same keys)."""
    found = []
    for m in items:
        text, page = _split_pointer(m["message"])
        found.append(
            Reported(
                symbol=m["symbol"],
                path=_relative(m["absolutePath"], project),
                line=m["line"],
                column=m["column"],
                end_line=m.get("endLine"),
                end_column=m.get("endColumn"),
                text=text,
                confidence=m["confidence"],
                page=page,
            )
        )
    return tuple(sorted(found, key=lambda r: (r.path, r.line, r.column, r.symbol, r.text)))


@dataclass(frozen=True)
class CheckRun:
    """One run of the ``rpcsurface check`` command line."""

    returncode: int
    messages: tuple[Reported, ...]  # from --format json; empty for text output
    stdout: str
    stderr: str


def run_cli(
    project: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``rpcsurface ARGS`` in *project*, as a user does.

    The installed console script is what runs: ``python -m`` would put the working folder
    first on sys.path, which the command a user types does not, and imports would then
    resolve as they never do for the user.
    """
    return subprocess.run(
        [*CONSOLE_SCRIPT, *args],
        cwd=project,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=clean_environment(env),
        check=False,
    )


def run_check(
    project: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> CheckRun:
    """Run ``rpcsurface check ARGS`` in *project* (see :func:`run_cli`).

    With ``--format json`` among *args*, the findings are parsed into the same
    :class:`Reported` records as pylint's, so the two can be compared directly.
    """
    completed = run_cli(project, "check", *args, env=env, timeout=timeout)
    messages: tuple[Reported, ...] = ()
    # 2 with findings too: a registry that can't be read is a configuration error.
    if "json" in args and completed.returncode in (0, 1, 2) and completed.stdout.startswith("["):
        messages = _reported(json.loads(completed.stdout), project)
    return CheckRun(completed.returncode, messages, completed.stdout, completed.stderr)


# --- A tiny valid project for end-to-end tests, and the checks every such run shares

ERROR_BIT = 2


def fast_surface(caller: str, handler: str, base_handler: str, registry: str) -> str:
    """The [tool.rpcsurface] table of one "fast" surface, dispatched by
    ``call_func(name, wait_out=...)``; the arguments are the configured dotted names."""
    return f"""\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.surface]]
name = "fast"
callers = ["{caller}"]
handlers = ["{handler}"]
base-handlers = ["{base_handler}"]
registry = "{registry}"
"""


PYPROJECT = fast_surface("app.Core", "app.FastRunner", "app.Runner", "app.FAST_RPCS")

# A package whose pkg.core.Core (pkg/core.py, the caller, for the test to write) is the
# caller of one fast surface: FastRunner(Runner) answers prefill alone, and the registry
# pkg.runners.RPCS lists nothing.
FAST_PACKAGE: dict[str, str | bytes] = {
    "pkg/__init__.py": "",
    "pkg/runners.py": (
        "RPCS = ()\n\n\nclass Runner:\n    def prefill(self):\n        return 1\n\n\n"
        "class FastRunner(Runner):\n    pass\n"
    ),
    "pyproject.toml": fast_surface(
        "pkg.core.Core", "pkg.runners.FastRunner", "pkg.runners.Runner", "pkg.runners.RPCS"
    ),
}


# A three-module project as an editor lints it: core.py (the caller, clean), runners.py
# (the handlers) and registry.py, which lists the one RPC only FastRunner answers.
EDITOR_CORE = """
class Core:
    def step(self):
        return self.mgr.call_func("prefill", wait_out=True)
"""
EDITOR_RUNNERS = """
class Runner:
    def forward(self):
        return 1


class FastRunner(Runner):
    def prefill(self):
        return 1
"""
EDITOR_FILES = {
    "pyproject.toml": fast_surface(
        "core.Core", "runners.FastRunner", "runners.Runner", "registry.FAST_RPCS"
    ),
    "core.py": EDITOR_CORE,
    "runners.py": EDITOR_RUNNERS,
    "registry.py": 'FAST_RPCS = ("prefill",)\n',
}

# The registry and the handlers. 'step' is answered by the base handler; 'fast_step' only
# by FastRunner, so it belongs in the registry.
HANDLERS = """\
FAST_RPCS = ("fast_step",)


class Runner:
    def step(self):
        return "step"


class FastRunner(Runner):
    def fast_step(self):
        return "fast"
"""

# The configured caller; with HANDLERS it is silent: 'fast_step' is waited on and listed.
CORE = """\


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    def run(self):
        self.mgr.call_func("step", wait_out=True)
        self.mgr.call_func("fast_step", wait_out=True)
"""

APP = HANDLERS + CORE

# Appended to APP (inside Core.run): a waited RPC that no handler answers.
PLANTED = '        self.mgr.call_func("no_such_rpc", wait_out=True)\n'
APP_PLANTED = APP + PLANTED
PLANTED_LINE = APP.count("\n") + 1

# A registry entry only a subclass waits on: FastRunner answers 'sub_rpc', the registry
# lists it, and Core never broadcasts it. With the subclass seen, the project is silent;
# with it unseen, 'sub_rpc' would be rpc-listed-unwaited and `fix` would delete it.
ONLY_A_SUBCLASS_WAITS = APP.replace(
    'FAST_RPCS = ("fast_step",)', 'FAST_RPCS = ("fast_step", "sub_rpc")'
).replace(
    '    def fast_step(self):\n        return "fast"\n',
    '    def fast_step(self):\n        return "fast"\n\n    def sub_rpc(self):\n        return 1\n',
)


def line_of(text: str, fragment: str) -> int:
    """The 1-based number of the one line of *text* that contains *fragment*."""
    lines = [n for n, line in enumerate(text.splitlines(), 1) if fragment in line]
    assert len(lines) == 1, f"{fragment!r} is on lines {lines}"
    return lines[0]


def only(run: PylintRun, symbol: str) -> list[str]:
    """The texts of *run*'s messages of *symbol*."""
    return [m.text for m in run.messages if m.symbol == symbol]


def project(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write *files* (relative path -> text, dedented, or raw bytes) under *root*."""
    for relpath, content in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(textwrap.dedent(content), encoding="utf-8")
    return root


def edited_copy(
    source: Path, dest: Path, edits: dict[str, list[tuple[str, str]]], pyproject: str | None = None
) -> Path:
    """A copy of the fixture *source* at *dest*, each file in *edits* with its text
    replaced (old, new: each must be there), its pyproject.toml replaced by *pyproject*
    when given (a fixture's hand-written table moved aside)."""
    folder = Path(shutil.copytree(source, dest))
    if pyproject is not None:
        (folder / "pyproject.toml").write_text(pyproject, "utf-8")
    for relative, replacements in edits.items():
        path = folder / relative
        text = path.read_text("utf-8")
        for old, new in replacements:
            assert old in text, (relative, old)
            text = text.replace(old, new)
        path.write_text(text, "utf-8")
    return folder


def describe_run(run: PylintRun) -> str:
    listed = "\n".join(f"  {m.path}:{m.line}:{m.column} {m.symbol}: {m.text}" for m in run.messages)
    return (
        f"exit {run.returncode}\nmessages:\n{listed or '  (none)'}\n"
        f"stdout:\n{run.stdout[-3000:]}\nstderr:\n{run.stderr[-3000:]}"
    )


def assert_no_crash(run: PylintRun) -> None:
    """No traceback, no pylint crash message (F0001 fatal, F0002 astroid-error)."""
    for stream in (run.stdout, run.stderr):
        assert "Traceback" not in stream, describe_run(run)
        assert "F0002" not in stream, describe_run(run)
    assert "Exception" not in run.stderr, describe_run(run)
    assert run.stdout.lstrip().startswith("{"), describe_run(run)  # the json2 report, nothing else
    assert not any(m.symbol in ("fatal", "astroid-error") for m in run.messages), describe_run(run)
    assert not run.returncode & 1, describe_run(run)  # pylint's "fatal message issued" bit


# A line of a fixture ending in "# [symbol]" or "# [symbol, symbol]" plants those findings
# on that line: what a test expects is read from the source, never from a run.
MARKER = re.compile(r"#\s*\[([a-z-]+(?:\s*,\s*[a-z-]+)*)\]\s*$")


def marked_findings(source: str) -> set[tuple[str, int]]:
    """The (symbol, line) pairs the ``# [symbol]`` markers of *source* plant."""
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found.update((symbol.strip(), number) for symbol in match.group(1).split(","))
    return found


def marked_in(files: dict[str, str]) -> set[tuple[str, str, int]]:
    """The (symbol, path, line) the markers of a project's *files* (path -> text) plant,
    as :meth:`PylintRun.keys` gives them."""
    return {
        (symbol, path, line)
        for path, text in files.items()
        if path.endswith(".py")
        for symbol, line in marked_findings(text)
    }


# --- Copy what it takes to build and install this package into a fresh folder.

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "pylint_rpcsurface"
# pyproject.toml names README.md (readme) and LICENSE (license-files).
FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")


def package_sources() -> list[Path]:
    """The package's files, relative to the checkout, without caches."""
    return sorted(
        path.relative_to(ROOT)
        for path in (ROOT / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def copy_checkout(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in FILES:
        shutil.copy2(ROOT / name, dest / name)
    for relative in package_sources():
        (dest / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, dest / relative)
    return dest


# --- Loading the benchmark scripts in bench/ (plain scripts, not a package)

BENCH = ROOT / "bench"


def load_bench_script(name: str) -> ModuleType:
    """bench/<name>.py as the module ``bench_<name>``, loaded once."""
    key = f"bench_{name}"
    if key in sys.modules:
        return sys.modules[key]
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # run.py imports its sibling generate_project
    spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


def read_terminal(descriptor: int) -> str:
    """Everything a pseudo-terminal's main side gives until its process closes it."""
    chunks = []
    while True:
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:  # the other side closed: Linux says EIO
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class TerminalRun:
    """One run of the ``rpcsurface`` command with standard error on a terminal."""

    returncode: int
    stdout: str
    shown: str  # everything the terminal showed

    @property
    def writes(self) -> list[str]:
        """Each text the progress line showed: what lies between its erasures."""
        return self.shown.split("\r\x1b[K")


def run_on_a_terminal(
    folder: Path, *args: str, columns: int = 1000, env: dict[str, str] | None = None
) -> TerminalRun:
    """Run ``rpcsurface ARGS`` in *folder* as a user at a terminal *columns* wide does:
    standard error on a pseudo-terminal (``RPCSURFACE_PROGRESS=auto``), standard output
    kept apart. POSIX only: a test using it skips on Windows."""
    import fcntl  # noqa: PLC0415
    import pty  # noqa: PLC0415
    import struct  # noqa: PLC0415
    import tempfile  # noqa: PLC0415
    import termios  # noqa: PLC0415

    main, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    environment = clean_environment({"TERM": "xterm", "RPCSURFACE_PROGRESS": "auto", **(env or {})})
    environment.pop("COLUMNS", None)  # the terminal's own width
    # A file, not a pipe: a pipe nobody reads while the terminal is read could fill up.
    with tempfile.TemporaryFile() as out:
        with subprocess.Popen(
            [*CONSOLE_SCRIPT, *args], cwd=folder, stdout=out, stderr=secondary, env=environment
        ) as process:
            os.close(secondary)
            shown = read_terminal(main)
            status = process.wait(timeout=300)
        os.close(main)
        out.seek(0)
        return TerminalRun(status, out.read().decode("utf-8"), shown)


# --- The real_layout fixture, copied, and what each run there says it did


REAL_LAYOUT = Path(__file__).parent / "fixtures" / "real_layout"


def real_layout_copy(tmp_path: Path) -> Path:
    """A copy of the real_layout fixture (an engine's layout) at ``tmp_path/proj``, by
    its real path (the paths the runs report)."""
    root = tmp_path / "proj"
    shutil.copytree(REAL_LAYOUT, root)
    return Path(os.path.realpath(root))


def stats_env(tree: Path) -> dict[str, str]:
    """The environment of a run in *tree* with a cache folder and a stats file of its own
    beside it (``RPCSURFACE_CACHE_DIR``, ``RPCSURFACE_STATS``)."""
    return {
        CACHE_DIR_ENV: str(tree.parent / "cache"),
        STATS_ENV: str(tree.parent / "stats.jsonl"),
    }


def stats_records(tree: Path) -> list[dict[str, Any]]:
    """Every record the runs with :func:`stats_env` appended so far, oldest first."""
    path = tree.parent / "stats.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# astroid's full build of every module, the reference the lean build is held to.
FULL_BUILD = {"RPCSURFACE_BUILD": "full"}


def lean_as_full(root: Path) -> CheckRun:
    """A cold ``check --format json`` of *root* with the lean build, held to astroid's
    full build's answer (the same stdout)."""
    lean = run_check(root, "--format", "json", "--no-cache")
    full = run_check(root, "--format", "json", "--no-cache", env=FULL_BUILD)
    assert lean.stdout == full.stdout, (lean.stderr, full.stderr)
    return lean


def init_diff_as_full(root: Path) -> str:
    """``rpcsurface init --diff`` of *root* with the lean build (its stdout), held to
    astroid's full build's: the same diff, and both exit 1 (the diff is not empty)."""
    lean = run_cli(root, "init", "--diff")
    full = run_cli(root, "init", "--diff", env=FULL_BUILD)
    assert lean.returncode == full.returncode == 1, (lean.stderr, full.stderr)
    assert lean.stdout == full.stdout
    return lean.stdout


def found_and_built(root: Path, files: dict[str, str | bytes]) -> tuple[set[Any], int]:
    """The findings (symbol, path, line) of a cold ``check`` of the project *files* make
    in *root*, held to astroid's full build's, and how many modules other than the
    project's that run built."""
    project(root, files)
    lean = run_check(root, "--format", "json", env=stats_env(root))
    assert lean.stdout == run_check(root, "--format", "json", "--no-cache", env=FULL_BUILD).stdout
    found = {(m.symbol, m.path, m.line) for m in lean.messages}
    return found, int(stats_records(root)[-1]["other_modules_built"])


@contextlib.contextmanager
def discovered(root: Path) -> Iterator[Discovery]:
    """``init``'s discovery (``discovery.core.Discovery``) of every module under *root*,
    their imports resolved as ``init`` resolves them while the block runs."""
    store = ModuleStore(SourceTree((root,)))
    with store.resolving_imports():
        modules = [m for p in store.python_files() if (m := store.module(p)) is not None]
        yield Discovery(root, modules, ClassIndex(store))


def asked_of(
    monkeypatch: Any,
    owner: object,
    name: str,
    told: Callable[..., str] = lambda node, *_: str(node.as_string()),
) -> list[str]:
    """What *owner*.*name* is asked while the test runs, each call as *told* says (by
    default the source of its first argument, a node); the function still answers."""
    asked: list[str] = []
    original = getattr(owner, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        asked.append(told(*args, **kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return asked


def racing_discover(monkeypatch: Any, write: Callable[[], None]) -> None:
    """``init``'s analysis (``discovery.discover``), with *write* run by another program
    once it has read the project, before init writes."""
    real = discovery.discover

    def racing(*args: Any, **kwargs: Any) -> discovery.Proposal:
        proposal = real(*args, **kwargs)
        write()
        return proposal

    monkeypatch.setattr(discovery, "discover", racing)


def init_engine(dest: Path, files: dict[str, str] | None = None) -> Path:
    """A copy of the fixture ``init_engine`` at *dest* without its hand-written table, as
    ``init`` meets a project, with *files* (relative path: text) added."""
    folder = Path(shutil.copytree(ROOT / "tests" / "fixtures" / "init_engine", dest))
    (folder / "pyproject.toml").unlink()
    for relative, text in (files or {}).items():
        (folder / relative).write_text(text, encoding="utf-8")
    return folder

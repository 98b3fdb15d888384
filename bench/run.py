"""Measure the Targets of issues 3, 14 and 24 side by side, on generated projects or on a
real tree, and print the ratios.

    python bench/run.py [--scales 1,2,4,7] [--repeat 3] [--seed 0] [--workdir DIR]
                        [--rows all|check|editor] [--shape real|classic]
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
a statement added in a method that sends, or a new caller method waiting on a name the
file already sends; or a statement saved in the handler or the caller module; see
edit_text, comment_text and interface_text), then measures; the files are put back after
the run. The whole-tree rows name every .py file of the tree. Every run's exit status is
checked (pylint: only the findings bits 2 and 4, never 1 fatal or 32 usage; `rpcsurface
check`: 0 or 1) and its findings are compared with the expected ones (the generator's
planted ones, in an edited file or buffer its markers' lines; on a real tree the
oracle's): every mode must report exactly the same set. A failing run aborts with a clear
message.

This is a script, not a test: never run it at full settings on a shared machine.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import contextlib
import dataclasses
import datetime
import importlib.metadata
import importlib.util
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

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is the package's dependency below 3.11
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import generate_project as gen  # noqa: E402  (a sibling script, not a package)

CACHE = ".rpcsurface_cache"  # the in-project cache folder (before the per-user one)
CACHE_DIR_ENV = "RPCSURFACE_CACHE_DIR"  # where the cache goes: a folder the benchmark owns
EDITED = ".bench-edited"  # in a project whose files an interrupted run left edited
BUFFER_EDITS = ("buffer", "comment", "interface")  # a new buffer on stdin, nothing saved
EDITS = (*BUFFER_EDITS, "handler", "caller")
PYLINT = (sys.executable, "-m", "pylint", "--persistent=n", "--score=n", "--output-format=json2")
OURS = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface")
BASELINE = ("--disable=all", "--enable=unused-import")
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
    # An edit made before the measured run, after an unmeasured run of the same command
    # (which fills the cache): "buffer" sends a new buffer on stdin (the stdin file's text
    # with a statement inserted, the file unchanged), "handler" / "caller" save that edit
    # to the handler / caller module on disk. Every edit inserts a different statement.
    edit: str | None = None
    same_buffer: bool = False  # stdin: the buffer the last buffer edit sent
    files: int = 0  # the argv ends with this many files: every .py file of the tree

    def shown(self, project: Path) -> str:
        """The command as a markdown line, with the project folder written as $PROJECT."""
        argv = ["python" if i == 0 and a == sys.executable else a for i, a in enumerate(self.argv)]
        argv = [a.replace(str(project), "$PROJECT") for a in argv]
        argv[0] = Path(argv[0]).name
        if self.files:
            argv[-self.files :] = [f"EVERY_FILE ({self.files} .py files)"]
        text = " ".join(f'"{a}"' if "$PROJECT" in a else shlex.quote(a) for a in argv)
        if self.edit in BUFFER_EDITS or self.same_buffer:
            text += " < BUFFER"
        elif self.stdin is not None:
            text += f" < {shlex.quote(self.stdin.relative_to(project).as_posix())}"
        note = (
            f" (cold: `.rpcsurface_cache/` and `${CACHE_DIR_ENV}` deleted first)"
            if self.cold
            else ""
        )
        edits = {
            "buffer": " (after an unmeasured run on the saved file: BUFFER is a new buffer, "
            "the caller module with one statement inserted in a method that sends)",
            "comment": " (after an unmeasured run on the saved file: BUFFER is a new buffer, "
            "the caller module with a comment appended)",
            "interface": " (after an unmeasured run on the saved file: BUFFER is a new "
            "buffer, the caller module with a new method in the caller class, a copy of a "
            "waited dispatch call)",
            "handler": " (after an unmeasured run: one statement inserted in the handler "
            "module, saved)",
            "caller": " (after an unmeasured run: one statement inserted in the caller "
            "module, saved)",
        }
        note += edits.get(self.edit or "", "")
        if self.same_buffer:
            note += " (BUFFER: the one the numerator was just sent)"
        return f"`{text}`" + note + (" (warm)" if self.warm else "")


@dataclass
class Sample:
    seconds: float
    rss_kib: int
    returncode: int
    stdout: str
    stderr: str
    cache_bytes: int = 0  # the cache's size on disk right after the run


@dataclass
class Site:
    """One generated project and the state of its cache."""

    scale: float
    path: Path
    manifest: dict[str, object]
    deletions: int = 0  # how many times its cache was deleted
    warmed: dict[str, int] = field(default_factory=dict)  # command label -> state then
    edits: int = 0  # statements inserted so far, in buffers or saved files
    saved_edits: int = 0  # how many of them were saved to disk
    edited: dict[str, str] = field(default_factory=dict)  # path -> its text as edited
    originals: dict[str, bytes] = field(default_factory=dict)  # path -> its bytes before
    buffer: tuple[Path, str] | None = None  # the last buffer sent: its file and text
    source: int = 0  # bytes of the project's .py files, as generated
    where_edited: dict[str, str] = field(default_factory=dict)  # edit kind -> where
    dispatch: tuple[Dispatch, ...] = ()  # the tree's dispatch tables (where edits go)
    callers: frozenset[str] = frozenset()  # the configured callers' class names
    # A real tree has no markers: what `rpcsurface check --no-cache` reports on it as
    # saved now (None on a generated project, whose markers say what is expected).
    oracle: set[Finding] | None = None
    oracle_at_start: set[Finding] = field(default_factory=set)  # before any edit
    buffer_expected: set[Finding] = field(default_factory=set)  # the oracle of the buffer
    cli: str | None = None  # the rpcsurface script, for the oracle
    tree: Path | None = None  # the real tree this is a copy of

    @property
    def cache_dir(self) -> Path:
        """The folder ``RPCSURFACE_CACHE_DIR`` names in every run: next to the project."""
        return self.path.with_name(self.path.name + ".cache")

    @property
    def state(self) -> int:
        """Changes since which a warm command must run again: cache deletions, saved edits."""
        return self.deletions + self.saved_edits

    @property
    def expected(self) -> set[Finding]:
        """The planted findings, read again from the markers of every edited file; on a
        real tree, the oracle's."""
        if self.oracle is not None:
            return set(self.oracle)
        found = self.manifest["expected_findings"]
        assert isinstance(found, list)
        planted = {(str(s), str(p), int(n)) for s, p, n in found if p not in self.edited}
        for path, text in self.edited.items():
            planted |= markers(path, text)
        return planted

    def restore(self) -> None:
        """Put back every file an edit changed."""
        for path, data in self.originals.items():
            (self.path / path).write_bytes(data)
        self.originals.clear()
        self.edited.clear()
        (self.path / EDITED).unlink(missing_ok=True)
        if self.oracle is not None:
            self.oracle = set(self.oracle_at_start)

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


def markers(path: str, text: str) -> set[Finding]:
    """The (symbol, path, line) of every ``# expect: symbol`` marker in *text*."""
    return {
        (line.split(gen.EXPECT_MARK, 1)[1].strip(), path, number)
        for number, line in enumerate(text.splitlines(), start=1)
        if gen.EXPECT_MARK in line
    }


@dataclass(frozen=True)
class Dispatch:
    """One ``[[tool.rpcsurface.dispatch]]`` table, as far as the edits need it."""

    method: str
    waits: bool | str = False  # True, False, or the keyword whose true value waits
    waits_unless: str | None = None  # the keyword whose true value means not waited
    waits_when_absent: bool = False
    function: bool = False  # called-as = "function": a plain call is a dispatch too

    def matches(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute):
            return func.attr == self.method
        return self.function and isinstance(func, ast.Name) and func.id == self.method

    def waited(self, call: ast.Call) -> bool:
        """Whether *call* (a dispatch of this table) waits for the reply, by its keywords."""
        given = {k.arg: k.value for k in call.keywords if k.arg is not None}

        def true(name: str) -> bool | None:
            value = given.get(name)
            if value is None:
                return None
            return bool(value.value) if isinstance(value, ast.Constant) else True

        if self.waits_unless is not None:
            unless = true(self.waits_unless)
            return not unless if unless is not None else True
        if isinstance(self.waits, str):
            said = true(self.waits)
            return said if said is not None else self.waits_when_absent
        return self.waits


def dispatches_of(pyproject: Path) -> tuple[Dispatch, ...]:
    """The dispatch tables of *pyproject*'s ``[tool.rpcsurface]`` (none if it has none)."""
    try:
        with pyproject.open("rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("rpcsurface", {})
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise Abort(f"{pyproject}: cannot read its [tool.rpcsurface] table: {error}") from None
    found = []
    for entry in table.get("dispatch", []):
        if "method" not in entry:
            continue  # an instance-of table: its calls name no method to look for
        waits = entry.get("waits", False)
        found.append(
            Dispatch(
                str(entry["method"]),
                waits if isinstance(waits, (bool, str)) else False,
                entry.get("waits-unless"),
                bool(entry.get("waits-when-absent", False)),
                entry.get("called-as") == "function",
            )
        )
    return tuple(found)


def callers_of(pyproject: Path) -> frozenset[str]:
    """The class names (last part) of every surface's configured callers."""
    with pyproject.open("rb") as handle:
        table = tomllib.load(handle).get("tool", {}).get("rpcsurface", {})
    return frozenset(
        str(name).rsplit(".", 1)[-1]
        for surface in table.get("surface", [])
        for name in surface.get("callers", [])
    )


def parsed(text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as error:
        raise Abort(f"the text to edit does not parse: {error}") from None


def dispatch_calls(node: ast.AST, dispatch: tuple[Dispatch, ...]) -> list[ast.Call]:
    """The dispatch calls under *node*, in the order of the text."""
    calls = [
        n for n in ast.walk(node) if isinstance(n, ast.Call) and any(d.matches(n) for d in dispatch)
    ]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


Method = ast.FunctionDef | ast.AsyncFunctionDef


def methods_of(tree: ast.Module) -> list[tuple[ast.ClassDef, Method]]:
    """Every method of every class of *tree* whose body starts on a line of its own."""
    found = [
        (cls, node)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body[0].lineno > node.lineno
    ]
    return sorted(found, key=lambda pair: pair[1].lineno)


def indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def edit_text(text: str, number: int, dispatch: tuple[Dispatch, ...] = ()) -> tuple[str, str]:
    """*text* with one statement inserted as the first line of a method's body, and where.

    The method is the first one whose ``def`` line is at or after the middle of the text
    that contains a dispatch call (of *dispatch*'s tables); failing that, the first
    method anywhere that contains one; failing that, the first method at or after the
    middle. The statement, ``edited_<number> = <number>``, differs with *number*. An edit
    a user makes while typing: inside a method that sends an RPC, not at the end.
    """
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    methods = [m for _, m in methods_of(parsed(text))]
    after = [m for m in methods if m.lineno - 1 >= middle]
    sending = [m for m in methods if dispatch_calls(m, dispatch)]
    sending_after = [m for m in sending if m.lineno - 1 >= middle]
    chosen = (sending_after or sending or after or [None])[0]
    if chosen is None:
        raise Abort(f"no method after the middle of the text to edit ({len(lines)} lines)")
    index = chosen.body[0].lineno - 1
    indent = indentation(lines[index])
    lines.insert(index, f"{indent}edited_{number} = {number}  # a bench edit\n")
    return "".join(lines), f"line {index + 1}, in method `{chosen.name}`"


def comment_text(text: str, number: int) -> tuple[str, str]:
    """*text* with a comment line appended, ``# a bench comment <number>``, and where."""
    if text and not text.endswith("\n"):
        text += "\n"
    line = text.count("\n") + 1
    return text + f"# a bench comment {number}\n", f"line {line}, a comment appended"


def interface_text(
    text: str, number: int, dispatch: tuple[Dispatch, ...], callers: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """*text* with a new method added at the end of a caller class, and where.

    The method, ``bench_interface_<number>``, returns a copy of a waited dispatch call of
    that class whose RPC name (a string, or a name or attribute: a constant) is already
    sent in the file: the class's interface changes, the RPCs it sends don't. The call
    is one of a class the configuration names as a caller if there is one, on ``self``
    if there is one, then the first in the text; a line with an ``# expect:`` marker is
    never copied (its finding would be reported twice).
    """
    tree = parsed(text)
    lines = text.splitlines(keepends=True)
    candidates = []
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        inner = {id(n) for c in ast.walk(cls) if c is not cls and isinstance(c, ast.ClassDef)
                 for n in ast.walk(c)}  # fmt: skip
        for call in dispatch_calls(cls, dispatch):
            if id(call) in inner or not call.args:
                continue
            if not isinstance(call.args[0], (ast.Constant, ast.Name, ast.Attribute)):
                continue
            if isinstance(call.args[0], ast.Constant) and not isinstance(call.args[0].value, str):
                continue
            if not any(d.matches(call) and d.waited(call) for d in dispatch):
                continue
            if any(
                gen.EXPECT_MARK in lines[n - 1]
                for n in range(call.lineno, (call.end_lineno or 0) + 1)
            ):
                continue  # its finding would be reported twice
            segment = ast.get_source_segment(text, call)
            if segment is None:
                continue
            first_seen = (call.lineno, call.col_offset, len(candidates))
            key = (cls.name not in callers, not segment.startswith("self."), *first_seen)
            candidates.append((key, cls, call, segment))
    if not candidates:
        raise Abort("no waited dispatch call with a constant RPC name in a class to copy")
    _, cls, call, segment = min(candidates, key=lambda c: c[0])
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    first = methods[0] if methods else cls.body[0]
    indent = indentation(lines[first.lineno - 1])
    end = cls.end_lineno or cls.lineno
    name = f"bench_interface_{number}"
    # A call's continuation lines are inside its parentheses: any indentation will do.
    added = ["\n", f"{indent}def {name}(self):\n", f"{indent}    return {segment}\n"]
    if end == len(lines) and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines[end:end] = added
    where = (
        f"line {end + 2}, method `{name}` added to class `{cls.name}`, a copy of the call "
        f"at line {call.lineno}"
    )
    return "".join(lines), where


def apply_edit(site: Site, command: Command) -> None:
    """Make *command*'s edit: a new buffer for stdin, or a statement saved in a module.

    On a real tree (no markers) the findings expected after it are computed again: a
    ``--no-cache`` pylint run on the new buffer, or ``rpcsurface check --no-cache`` on
    the tree as saved now.
    """
    assert command.edit in EDITS, command.edit
    site.edits += 1
    if command.edit in BUFFER_EDITS:
        assert command.stdin is not None
        assert command.only is not None
        saved = command.stdin.read_text("utf-8")
        if command.edit == "comment":
            text, where = comment_text(saved, site.edits)
        elif command.edit == "interface":
            text, where = interface_text(saved, site.edits, site.dispatch, site.callers)
        else:
            text, where = edit_text(saved, site.edits, site.dispatch)
        folder = site.path.with_name(site.path.name + ".buffers")
        folder.mkdir(exist_ok=True)
        buffer = folder / f"buffer-{site.edits}.py"
        buffer.write_text(text, encoding="utf-8")
        site.buffer = (buffer, text)
        site.where_edited[command.edit] = f"`{command.only}`, {where}"
        if site.oracle is not None:
            site.buffer_expected = buffer_oracle(site, command, buffer)
        return
    # The caller edit goes to the stdin file, the largest caller module.
    path = site.manifest["handler_module" if command.edit == "handler" else "largest_caller_module"]
    assert isinstance(path, str)
    target = site.path / path
    (site.path / EDITED).write_text("an edit is saved; rerun to regenerate\n", "utf-8")
    site.originals.setdefault(path, target.read_bytes())
    text, where = edit_text(target.read_text("utf-8"), site.edits, site.dispatch)
    target.write_text(text, encoding="utf-8")
    site.edited[path] = text
    site.saved_edits += 1
    site.where_edited[command.edit] = f"`{path}`, {where}"
    if site.oracle is not None:
        site.oracle = tree_oracle(site)


def oracle_env(site: Site) -> dict[str, str]:
    """The environment of an oracle run: no cache read or written, none of the measured."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["RPCSURFACE_NO_CACHE"] = "1"
    env[CACHE_DIR_ENV] = str(site.path.with_name(site.path.name + ".oracle-cache"))
    return env


def tree_oracle(site: Site) -> set[Finding]:
    """``rpcsurface check --no-cache --format json`` on the tree as it is saved now."""
    if site.cli is None:
        raise Abort(f"a real tree's expected findings are rpcsurface check's: {NO_CLI}")
    argv = (site.cli, "check", "--no-cache", "--format", "json")
    done = subprocess.run(
        argv, cwd=site.path, capture_output=True, text=True, env=oracle_env(site), check=False
    )
    tail = done.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
    if done.returncode not in (0, 1) or "Traceback (most recent call last)" in done.stderr:
        raise Abort(f"the oracle ({shlex.join(argv)}) exited {done.returncode}: {tail[0]}")
    try:
        items = json.loads(done.stdout) if done.stdout.strip() else []
        found = {
            (str(i["symbol"]), relative(site, str(i["absolutePath"])), int(i["line"]))
            for i in items
        }
    except (ValueError, KeyError, TypeError) as error:
        raise Abort(f"the oracle's output is not rpcsurface's json ({error})") from None
    if bool(done.returncode) != bool(found):
        raise Abort(f"the oracle exited {done.returncode} with {len(found)} findings")
    return found


def buffer_oracle(site: Site, command: Command, buffer: Path) -> set[Finding]:
    """The findings of *command* (a pylint stdin run) on *buffer*, without any cache."""
    with buffer.open("rb") as source:
        done = subprocess.run(
            command.argv, cwd=site.path, stdin=source, capture_output=True,
            env=oracle_env(site), check=False,
        )  # fmt: skip
    sample = Sample(0.0, 0, done.returncode, done.stdout.decode("utf-8", "replace"),
                    done.stderr.decode("utf-8", "replace"))  # fmt: skip
    oracle = dataclasses.replace(command, label=f"the oracle of {command.label}", edit=None)
    validate(site, dataclasses.replace(oracle, kind="baseline"), sample)  # its exit status
    return {f for f in pylint_findings(site, oracle, sample) if f[1] == command.only}


def folder_bytes(folder: Path) -> int:
    """The bytes of every file under *folder* (0 if there is none)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def cache_bytes(site: Site) -> int:
    """The cache's size on disk: the in-project folder and the one the environment names."""
    return folder_bytes(site.path / CACHE) + folder_bytes(site.cache_dir)


def source_bytes(site: Site) -> int:
    """The bytes of every ``.py`` file under the project (its one source root, ``.``)."""
    return sum(p.stat().st_size for p in site.path.rglob("*.py") if CACHE not in p.parts)


def run_once(site: Site, command: Command) -> Sample:
    if command.cold:
        shutil.rmtree(site.path / CACHE, ignore_errors=True)
        shutil.rmtree(site.cache_dir, ignore_errors=True)
        site.deletions += 1
    env = dict(os.environ)
    for name in ("PYTHONPATH", "RPCSURFACE_NO_CACHE"):
        env.pop(name, None)
    env[CACHE_DIR_ENV] = str(site.cache_dir)
    stdin = command.stdin
    buffer = None
    if command.edit in BUFFER_EDITS or command.same_buffer:
        if site.buffer is None:
            raise Abort(f"{command.label}: no buffer was sent before it")
        stdin, buffer = site.buffer
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        (stdin or Path(os.devnull)).open("rb") as source,
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
    sample = Sample(seconds, rss, process.returncode, stdout, stderr, cache_bytes(site))
    validate(site, command, sample, buffer)
    if command.warm or not command.cold:
        site.warmed[command.label] = site.state
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


def validate(site: Site, command: Command, sample: Sample, buffer: str | None = None) -> None:
    """Abort unless the run exited as it should and reported exactly the planted findings.

    With *buffer* (the text sent on stdin for the file ``command.only``), that file's
    findings are the markers of the buffer.
    """
    where = (
        f"{command.label} at scale {site.scale:g} ({site.path})"
        if site.tree is None
        else f"{command.label} on the copy of {site.tree} ({site.path})"
    )
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
    if buffer is not None and command.only is not None:
        expected = (
            site.buffer_expected if site.oracle is not None else markers(command.only, buffer)
        )
    if found != expected:
        missing = sorted(expected - found)
        extra = sorted(found - expected)
        if site.oracle is None:
            whose = "the planted ones"
        elif buffer is not None:
            whose = "the oracle's (a pylint run on the same buffer, RPCSURFACE_NO_CACHE=1)"
        else:
            whose = "the oracle's (rpcsurface check --no-cache on the tree as saved)"
        raise Abort(f"{where}: findings differ from {whose}: missing {missing}, extra {extra}")
    if command.kind == "check" and bool(code) != bool(expected):
        raise Abort(f"{where}: exited {code} with {len(found)} findings")


def measure(site: Site, command: Command) -> Sample:
    if command.edit is not None:
        # Unmeasured, on what is saved now: fills the cache; then the edit.
        run_once(site, dataclasses.replace(command, edit=None, label=f"{command.label} (before)"))
        apply_edit(site, command)
    elif command.warm and site.warmed.get(command.label) != site.state:
        run_once(site, command)  # unmeasured: fills the cache
    return run_once(site, command)


def python_files(site: Site) -> tuple[str, ...]:
    """Every ``.py`` file of the tree, relative, sorted: what the whole-tree rows name."""
    return tuple(
        sorted(
            p.relative_to(site.path).as_posix()
            for p in site.path.rglob("*.py")
            if CACHE not in p.relative_to(site.path).parts
        )
    )


def commands(site: Site, cli: str | None) -> dict[str, Command | None]:
    caller = site.manifest["largest_caller_module"]
    assert isinstance(caller, str)
    stdin_file = site.path / caller
    stdin = ("--from-stdin", str(stdin_file))
    check = None if cli is None else (cli, "check")
    # What the pylint-rpcsurface pre-commit hook runs (.pre-commit-hooks.yaml), on the file.
    hook = (*PYLINT, *OURS, caller)
    # The whole tree: every file named, so that pylint lints each one whatever folder it
    # is in (--recursive=y skips a folder without __init__.py inside a regular package).
    every = python_files(site)
    n = len(every)

    def stdin_row(label: str, **options: object) -> Command:
        return Command(label, (*PYLINT, *OURS, *stdin), "ours", stdin=stdin_file, only=caller,
                       **options)  # type: ignore[arg-type]  # fmt: skip

    return {
        "ours tree cold": Command(
            "ours tree cold", (*PYLINT, *OURS, *every), "ours", cold=True, files=n
        ),
        "ours tree warm": Command(
            "ours tree warm", (*PYLINT, *OURS, *every), "ours", warm=True, files=n
        ),
        "base tree": Command("base tree", (*PYLINT, *BASELINE, *every), "baseline", files=n),
        "ours tree -j 2": Command(
            "ours tree -j 2", (*PYLINT, *OURS, "-j", "2", *every), "ours", cold=True, files=n
        ),
        "ours stdin warm": stdin_row("ours stdin warm", warm=True),
        "ours stdin comment": stdin_row("ours stdin comment", edit="comment"),
        "ours stdin buffer edit": stdin_row("ours stdin buffer edit", edit="buffer"),
        "ours stdin interface": stdin_row("ours stdin interface", edit="interface"),
        "base stdin same buffer": Command(
            "base stdin same buffer",
            (*PYLINT, *BASELINE, *stdin),
            "baseline",
            stdin=stdin_file,
            same_buffer=True,
        ),
        "ours stdin handler saved": stdin_row("ours stdin handler saved", edit="handler"),
        "ours stdin cold": stdin_row("ours stdin cold", cold=True),
        "base stdin": Command(
            "base stdin", (*PYLINT, *BASELINE, *stdin), "baseline", stdin=stdin_file
        ),
        "check cold": None if check is None else Command("check cold", check, "check", cold=True),
        "check warm": None if check is None else Command("check warm", check, "check", warm=True),
        "check caller saved": (
            None if check is None else Command("check caller saved", check, "check", edit="caller")
        ),
        "hook caller saved": Command("hook caller saved", hook, "ours", only=caller, edit="caller"),
        "base file": Command("base file", (*PYLINT, *BASELINE, caller), "baseline"),
        "parse": Command("parse", (sys.executable, "-c", PARSE_ALL), "parse"),
    }


def growth_pair(pairs: list[Pair], by_check: bool) -> Pair | None:
    """The pair of *pairs* the growth curve reads: whole tree, or the cold check."""
    wanted = "rpcsurface check, cold" if by_check else "whole tree (every file named), cold"
    return next((p for p in pairs if p.measure.startswith(wanted)), None)


def whole_tree(pair: Pair) -> bool:
    """Whether the pair runs pylint over the whole tree (the slow rows)."""
    return any(c is not None and " tree" in c.label for c in (pair.numerator, pair.denominator))


def select(pairs: list[Pair], rows: str) -> list[Pair]:
    """The rows --rows asks for: all, the rpcsurface check rows, an editor's and
    pre-commit's (every row but the whole-tree pylint runs), or only the whole-tree runs
    (and so the peak RSS row they give)."""
    if rows == "check":
        return [p for p in pairs if p.measure.startswith("rpcsurface check")]
    if rows == "editor":
        return [p for p in pairs if not whole_tree(p)]
    if rows == "tree":
        return [p for p in pairs if whole_tree(p)]
    return pairs


def pairs_at(site: Site, cli: str | None, primary: bool, *, by_check: bool = False) -> list[Pair]:
    c = commands(site, cli)

    def cmd(name: str) -> Command:
        found = c[name]
        assert found is not None
        return found

    tree = Pair("whole tree (every file named), cold: rpcsurface ÷ unused-import", site,
                c["ours tree cold"], cmd("base tree"), 1.10)  # fmt: skip
    cold_check = Pair("rpcsurface check, cold ÷ ast.parse of every file", site, c["check cold"],
                      cmd("parse"), 1.0)  # fmt: skip
    if not primary:
        return [cold_check if by_check else tree]
    return [
        tree,
        Pair("whole tree (every file named), warm: rpcsurface ÷ unused-import", site,
             c["ours tree warm"], cmd("base tree"), 1.10),
        Pair("stdin (IDE), unchanged, warm: rpcsurface ÷ unused-import", site,
             c["ours stdin warm"], cmd("base stdin"), 1.25),
        Pair("stdin (IDE), after a comment appended to the buffer: rpcsurface ÷ "
             "unused-import", site, c["ours stdin comment"], cmd("base stdin same buffer"),
             1.2),
        Pair("stdin (IDE), after a body edit of the buffer (in a method that sends): "
             "rpcsurface ÷ unused-import", site, c["ours stdin buffer edit"],
             cmd("base stdin same buffer"), 1.2),
        Pair("stdin (IDE), after an interface edit of the buffer (a new method of the caller "
             "class waiting on a name it sends): rpcsurface ÷ unused-import", site,
             c["ours stdin interface"], cmd("base stdin same buffer"), 1.5),
        Pair("stdin (IDE) on the caller, after a body edit saved in the handler module: "
             "rpcsurface ÷ unused-import", site, c["ours stdin handler saved"],
             cmd("base stdin"), 1.5),
        Pair("stdin (IDE), truly cold (no cache): rpcsurface ÷ unused-import", site,
             c["ours stdin cold"], cmd("base stdin"), 2.0),
        Pair("whole tree, rpcsurface: -j 2 ÷ -j 1 (cold)", site, c["ours tree -j 2"],
             cmd("ours tree cold"), 0.65),
        cold_check,
        Pair("rpcsurface check, warm ÷ ast.parse of every file", site, c["check warm"],
             cmd("parse"), 0.5),
        Pair("rpcsurface check, after a one-file body edit (saved) ÷ ast.parse of every file",
             site, c["check caller saved"], cmd("parse"), 0.3),
        Pair("pre-commit hook (pylint-rpcsurface) on a commit touching one caller file ÷ "
             "pylint with unused-import on that file", site, c["hook caller saved"],
             cmd("base file"), 1.25),
    ]  # fmt: skip


def shape_name(shape: gen.Shape) -> str:
    """A folder-name part for *shape*: its name in gen.SHAPES, or its two lengths."""
    named = [name for name, known in sorted(gen.SHAPES.items()) if known == shape]
    return named[0] if named else f"h{shape.handler_lines}-c{shape.caller_lines}"


def prepare(workdir: Path, scale: float, seed: int, shape: gen.Shape | None = None) -> Site:
    shape = shape or gen.SHAPES[gen.DEFAULT_SHAPE]
    folder = workdir / f"scale-{scale:g}-seed-{seed}-{shape_name(shape)}"
    manifest = gen.read_manifest(folder)
    wanted = {"handler_lines": shape.handler_lines, "caller_lines": shape.caller_lines}
    fresh = manifest is not None and (
        manifest.get("generator_version") == gen.GENERATOR_VERSION
        and manifest.get("scale") == scale
        and manifest.get("seed") == seed
        and manifest.get("shape") == wanted
        and not (folder / EDITED).exists()  # an interrupted run left a file edited
    )
    if manifest is None or not fresh:
        if folder.exists():
            if manifest is None and any(folder.iterdir()):
                raise Abort(f"{folder}: exists and holds no generated project; remove it")
            shutil.rmtree(folder)
        manifest = gen.write(folder, scale, seed, shape)
        action = "generated"
    else:
        action = "reused"
    site = Site(scale, folder, manifest)
    site.dispatch = dispatches_of(folder / "pyproject.toml")
    site.callers = callers_of(folder / "pyproject.toml")
    site.source = source_bytes(site)
    if not site.expected:
        raise Abort(f"{folder}: the generated project has no planted findings to compare")
    print(
        f"{action} scale {scale:g}: {site.modules} modules, {manifest['lines']} lines, "
        f"largest caller module {manifest['largest_caller_module']} "
        f"({lines_of(site, 'largest_caller_module')} lines), handler module "
        f"{manifest['handler_module']} ({lines_of(site, 'handler_module')} lines), "
        f"{len(site.expected)} expected findings ({folder})",
        flush=True,
    )
    return site


TREE_MARK = ".bench-tree"  # in a copy of a real tree the benchmark made (and may replace)


def tree_folder(workdir: Path, tree: Path) -> Path:
    """Where the copy of *tree* goes: named by its last two folders (``vllm-src``)."""
    name = "-".join(part for part in tree.parts[-2:] if part not in ("/", ""))
    return workdir / f"tree-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}"


def prepare_tree(
    workdir: Path,
    tree: Path,
    caller: str,
    handler: str,
    *,
    config: Path | None = None,
    cli: str | None = None,
) -> Site:
    """A copy of the real *tree* in *workdir*, and its expected findings: the oracle's.

    The tree is never edited in place: every run and edit is on the copy, made again each
    time (without any cache folder in it). With *config*, that file is the copy's
    pyproject.toml; without, the tree's own must have a ``[tool.rpcsurface]`` table.
    """
    tree = tree.resolve()
    if not tree.is_dir():
        raise Abort(f"--tree {tree}: not a folder")
    folder = tree_folder(workdir, tree)
    if folder.exists():
        if not (folder / TREE_MARK).exists():
            raise Abort(f"{folder}: exists and is no copy the benchmark made; remove it")
        shutil.rmtree(folder)
    for suffix in (".cache", ".buffers", ".oracle-cache"):
        shutil.rmtree(folder.with_name(folder.name + suffix), ignore_errors=True)
    ignore = shutil.ignore_patterns(CACHE, "__pycache__", ".git", TREE_MARK, EDITED)
    shutil.copytree(tree, folder, symlinks=True, ignore=ignore)
    (folder / TREE_MARK).write_text(f"a copy of {tree}\n", encoding="utf-8")
    pyproject = folder / "pyproject.toml"
    if config is not None:
        try:
            pyproject.write_text(config.read_text("utf-8"), encoding="utf-8")
        except OSError as error:
            raise Abort(f"--config {config}: {error}") from None
    if not pyproject.is_file():
        raise Abort(f"--tree {tree}: no pyproject.toml (give one with --config FILE)")
    with pyproject.open("rb") as handle:
        if "rpcsurface" not in tomllib.load(handle).get("tool", {}):
            raise Abort(f"{pyproject}: no [tool.rpcsurface] table (give one with --config)")
    for role, path in (("caller", caller), ("handler", handler)):
        if not (folder / path).is_file():
            raise Abort(f"--{role} {path}: no such file in {tree}")
    files = [folder / f for f in python_files(Site(1.0, folder, {}))]
    manifest: dict[str, object] = {
        "modules": len(files),
        "lines": sum(f.read_bytes().count(b"\n") for f in files),
        "largest_caller_module": caller,  # the stdin file and the saved caller edits
        "caller_module": caller,
        "handler_module": handler,
        "expected_findings": [],
    }
    site = Site(1.0, folder, manifest, cli=cli, tree=tree)
    site.dispatch = dispatches_of(pyproject)
    site.callers = callers_of(pyproject)
    site.source = source_bytes(site)
    site.oracle = tree_oracle(site)
    site.oracle_at_start = set(site.oracle)
    print(
        f"copied {tree} to {folder}: {site.modules} modules, {manifest['lines']} lines, "
        f"caller module {caller} ({lines_of(site, 'caller_module')} lines), handler module "
        f"{handler} ({lines_of(site, 'handler_module')} lines), {len(site.oracle)} expected "
        "findings (rpcsurface check --no-cache)",
        flush=True,
    )
    return site


def lines_of(site: Site, key: str) -> int:
    """The number of lines of the manifest's module *key* (as generated, before any edit)."""
    path = site.manifest[key]
    assert isinstance(path, str)
    return (site.path / path).read_text("utf-8").count("\n")


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


MEASURED_PACKAGES = ("pylint_rpcsurface", "pylint", "astroid")


def compile_bytecode(packages: tuple[str, ...] = MEASURED_PACKAGES) -> list[str]:
    """Compile the measured packages' bytecode, as pip does when it installs them; the
    packages whose files needed it, by name.

    A run is meant to start as it does for a user: pip writes every module's ``.pyc`` at
    install, so an installed plugin is never compiled at start-up. An editable install
    under ``PYTHONDONTWRITEBYTECODE=1`` (a checkout's virtualenv) would otherwise compile
    the plugin's ~12k lines in every measured run (about 37 ms on the reference machine)
    and not pylint's, which its installer compiled: a cost no user's run has.
    """
    compiled: list[str] = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        stale = [f for f in folders if _needs_bytecode(Path(f))]
        for folder in stale:
            if not compileall.compile_dir(folder, quiet=1):
                raise Abort(f"could not compile {name}'s bytecode in {folder}")
        if stale:
            compiled.append(name)
    return compiled


def _needs_bytecode(folder: Path) -> bool:
    """Whether a module under *folder* has no ``.pyc`` Python would load for it: none,
    another interpreter's, or one whose header records another mtime or size."""
    for source in folder.rglob("*.py"):
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            header = cached.read_bytes()[:16]
            stat = source.stat()
        except OSError:
            return True
        if header[:4] != importlib.util.MAGIC_NUMBER:
            return True
        if int.from_bytes(header[4:8], "little"):
            continue  # checked by the source's hash, not its mtime: Python checks it
        recorded = (int.from_bytes(header[8:12], "little"), int.from_bytes(header[12:16], "little"))
        if recorded != (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF):
            return True
    return False


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
    every_command = {
        c.label: c for p in pairs for c in (p.numerator, p.denominator) if c is not None
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
        "there is one). The buffer rows send the saved caller module with their edit as a "
        "new buffer on stdin (the file on disk unchanged) and their baseline gets the same "
        "buffer; the saved edits (body edits of the handler or the caller module) add one "
        "more statement each time, and every file is put back after the run. The whole-tree "
        "rows name every `.py` file of the tree on the command line. "
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
        choices=("all", "check", "editor", "tree"),
        default="all",
        help="all Targets; only the rpcsurface check rows and the growth curve (check); "
        "or every row but the whole-tree pylint runs: stdin, check, pre-commit, cache size "
        "(editor, a few minutes); or only the whole-tree rows and peak RSS (tree)",
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
                sites = [
                    prepare(workdir.resolve(), s, options.seed, shape)
                    for s in dict.fromkeys(scales)
                ]
            try:
                pairs, curve = run_all(sites, cli, options)
            finally:
                for site in sites:
                    site.restore()
                    shutil.rmtree(site.path.with_name(site.path.name + ".buffers"), True)
            command = "python bench/run.py " + " ".join(
                shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
            )
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


if __name__ == "__main__":
    raise SystemExit(main())

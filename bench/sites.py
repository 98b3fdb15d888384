"""What bench/run.py measures on: a generated project or a copy of a real tree (a Site),
the commands it runs there (Command), what one run gave (Sample), and the findings every
run is held to (the planted markers, or on a real tree the oracle's)."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is the package's dependency below 3.11
    import tomli as tomllib

import generate_project as gen

CACHE = ".rpcsurface_cache"  # the in-project cache folder (before the per-user one)
CACHE_DIR_ENV = "RPCSURFACE_CACHE_DIR"  # where the cache goes: a folder the benchmark owns
EDITED = ".bench-edited"  # in a project whose files an interrupted run left edited
# The RPC name edits: at one send, another answered name, or a new mistyped one each time.
NAME_EDITS = ("name", "mistyped")
BUFFER_EDITS = ("buffer", "comment", "interface", *NAME_EDITS)  # new stdin buffers, unsaved
EDITS = (*BUFFER_EDITS, "handler", "caller")
NO_CLI = "n/a (rpcsurface CLI not installed)"
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
    within: tuple[str, ...] = ()  # findings compared only in these files (relative paths)
    # Run unmeasured before each measured run: every time, or, if it is warm, whenever
    # the cache was deleted or a file edited since its last run.
    before: Command | None = None

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
            "name": " (after an unmeasured run on the saved file: BUFFER is a new buffer, "
            "the caller module with the RPC name of a send every caller class inherits "
            "changed to another name answered from it, the next one each time)",
            "mistyped": " (after an unmeasured run on the saved file: BUFFER is a new "
            "buffer, the caller module with the RPC name of that send mistyped, a new "
            "name each time)",
        }
        note += edits.get(self.edit or "", "")
        if self.before is not None:
            every = "whenever the cache was deleted or a file edited since"
            if not self.before.warm:
                every = "each time"
            note += f" (right after an unmeasured `{self.before.label}` run, {every})"
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
    edits_of: dict[str, int] = field(default_factory=dict)  # edit kind -> how many so far
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
    payload: tuple[str, ...] = ()  # the keywords args-from and kwargs-from name

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
                tuple(
                    str(entry[key])
                    for key in ("args-from", "kwargs-from")
                    if isinstance(entry.get(key), str)
                ),
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


def relative(site: Site, path: str) -> str:
    absolute = Path(path) if Path(path).is_absolute() else site.path / path
    try:
        return absolute.resolve().relative_to(site.path.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


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


def python_files(site: Site) -> tuple[str, ...]:
    """Every ``.py`` file of the tree, relative, sorted: what the whole-tree rows name."""
    return tuple(
        sorted(
            p.relative_to(site.path).as_posix()
            for p in site.path.rglob("*.py")
            if CACHE not in p.relative_to(site.path).parts
        )
    )


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

"""Measure the language server's Targets (issue 48) on a real tree or a generated project.

    python bench/server.py --tree DIR --caller REL/PATH.py --handler REL/PATH.py
                           [--config FILE] [--repeat 5] [--edits 5] [--workdir DIR]
    python bench/server.py [--scale 1] [--seed 0] [--workdir DIR] [--repeat 5]

The tree is copied (bench/sites.py, as bench/run.py copies it: never edited in place) or
the project generated. Each repetition runs, interleaved, the two baselines and one editor
session, each in a fresh process:

- ``parse``: a bare ``ast.parse`` of every file (bench/floors.py's), wall time;
- ``check cold``: ``rpcsurface check`` with no store, wall time and peak RSS;
- a session of ``rpcsurface lsp`` (its own empty store), driven over stdio by pygls's
  client as an editor drives it: the caller module opened (the time from the server's
  start to its first diagnostics), then ``--edits`` keystrokes that mistype the RPC name
  of a send every caller class inherits (a new name each keystroke, bench/edits.py's
  ``name_text``), then as many body edits (a statement added in a method that sends,
  ``edit_text``), each a new version of the whole buffer: the time from the change sent
  to the diagnostics of that version received; then ``--edits`` each of go to
  definition, find references and hover on the name; then the server's peak RSS
  (``VmHWM``; until the first diagnostics, sampled every 10 ms, its resident set plus
  the peak so far of each child it started, the analysis ahead of ``rpcsurface lsp``
  run in the project, less what the child shares at that moment, the server's pages
  since the fork among them, which the server's resident set counts: the larger counts),
  and shutdown.

Each row is the median of its samples over every repetition; its ratio is to the median
of its baseline in the same run: a bare parse for the keystrokes, body edits and
navigation, a cold ``check`` for the first diagnostics and the peak RSS. Every session is
held to the oracle: the first diagnostics are ``rpcsurface check --no-cache``'s findings
in the caller module, and those of the last mistyped and the last body-edited buffer are
a pylint run on the same text under ``RPCSURFACE_NO_CACHE=1`` (the ``check`` = pylint
oracle); definition must reach a handler ``def``. A difference aborts the run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import generate_project as gen
from edits import edit_text, name_send, name_text
from floors import PARSE_ALL
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from reporting import load, machine
from rows import commands
from runs import buffer_oracle
from sites import CACHE_DIR_ENV, Abort, Finding, Site, prepare, prepare_tree

ROWS = (
    ("first diagnostics after start", "check cold", "≤ 1.2"),
    ("a keystroke mistyping an RPC name, republished", "parse", "≤ 0.2"),
    ("a body edit, republished", "parse", "≤ 0.2"),
    ("go to definition", "parse", "≤ 0.05"),
    ("find references", "parse", "≤ 0.05"),
    ("hover", "parse", "≤ 0.05"),
    ("server peak RSS", "check cold peak RSS", "≤ 1.5"),
)


@dataclass
class Samples:
    """Every sample of every row and baseline, by name."""

    by_row: dict[str, list[float]] = field(default_factory=dict)

    def add(self, row: str, value: float) -> None:
        self.by_row.setdefault(row, []).append(value)

    def median(self, row: str) -> float:
        return statistics.median(self.by_row[row])


def _env(site: Site, store: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RPCSURFACE_NO_CACHE")}
    env[CACHE_DIR_ENV] = str(store)
    return env


def _timed(argv: list[str], site: Site, env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KiB) and stdout of *argv* run in the project."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(
            argv, cwd=site.path, stdout=out, stderr=subprocess.DEVNULL, env=env
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        stdout = out.read().decode("utf-8", "replace")
    if code not in (0, 1):
        raise Abort(f"{' '.join(argv)} exited {code}")
    return seconds, usage.ru_maxrss, stdout


def _peak_rss(pid: int) -> int:
    """The process's peak resident set (KiB), from /proc."""
    peak = _status_kib(pid, "VmHWM")
    if peak is None:
        raise Abort(f"no VmHWM for process {pid}")
    return peak


def _status_kib(pid: int, field: str) -> int | None:
    """*field* of the process's /proc status (KiB); None once it has ended."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def _shared_kib(pid: int) -> int:
    """What of the process's resident set it shares (its parent's pages since the fork
    among them); 0 when /proc can't say, which counts all of it."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return 0
    return sum(int(line.split()[1]) for line in lines if line.startswith("Shared_"))


def _children(pid: int) -> list[int]:
    """The processes each thread of *pid* started (the server's analysis ahead)."""
    found = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for thread in threads:
        try:
            found += [
                int(c) for c in Path(f"/proc/{pid}/task/{thread}/children").read_text().split()
            ]
        except OSError:
            continue
    return found


class Session:
    """One ``rpcsurface lsp`` process and the caller module open in it."""

    def __init__(self, site: Site, cli: str, store: Path) -> None:
        self.site = site
        self.cli = cli
        self.store = store
        caller = site.manifest["largest_caller_module"]
        assert isinstance(caller, str)
        self.caller = caller
        self.path = site.path / caller
        self.uri = self.path.as_uri()
        self.client = LanguageClient("bench-server", "1")
        self.published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
        self.stderr: list[str] = []  # what the server wrote on its standard error
        self._drain: asyncio.Future[None] | None = None
        # The server's resident set plus its children's peaks so far, at its largest while
        # the server started: a child it forks is memory the user's machine spends too.
        self.with_children = 0

        def diagnostics(params: types.PublishDiagnosticsParams) -> None:
            if params.uri == self.uri:
                self.published.put_nowait(params)

        # A function of its own: pygls marks each function it registers.
        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(diagnostics)

    async def start(self, text: str) -> tuple[float, list[types.Diagnostic]]:
        """Start the server and open the caller: the seconds to its first diagnostics."""
        start = time.perf_counter()
        await self.client.start_io(
            self.cli, "lsp", cwd=str(self.site.path), env=_env(self.site, self.store)
        )
        # pygls's client pipes the server's standard error and never reads it: read here,
        # lest a full pipe stop the server, and kept to say why it stopped if it does.
        self._drain = asyncio.ensure_future(self._read_stderr())
        try:
            await asyncio.wait_for(
                self.client.initialize_async(
                    types.InitializeParams(
                        capabilities=types.ClientCapabilities(),
                        root_uri=self.site.path.as_uri(),
                    )
                ),
                timeout=120,
            )
        except asyncio.TimeoutError:
            raise Abort(f"the server did not answer initialize: {self._said()}") from None
        self.client.initialized(types.InitializedParams())
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(self.uri, "python", 1, text))
        )
        sampling = asyncio.ensure_future(self._sample_memory())
        try:
            published = await self._version(1)
        finally:
            sampling.cancel()
        return time.perf_counter() - start, published

    async def _sample_memory(self) -> None:
        """Every 10 ms: the server's resident set plus each child's peak so far, less what
        the child shares now (the pages it still shares with the server since the fork,
        which the server's resident set counts already: counted once)."""
        server = getattr(self.client, "_server", None)
        while server is not None:
            total = _status_kib(server.pid, "VmRSS") or 0
            for child in _children(server.pid):
                peak, shared = _status_kib(child, "VmHWM"), _shared_kib(child)
                total += max(0, (peak or 0) - shared)
            self.with_children = max(self.with_children, total)
            await asyncio.sleep(0.01)

    async def _read_stderr(self) -> None:
        server = getattr(self.client, "_server", None)
        if server is None or server.stderr is None:
            return
        while line := await server.stderr.readline():
            self.stderr.append(line.decode("utf-8", "replace"))

    def _said(self) -> str:
        server = getattr(self.client, "_server", None)
        status = None if server is None else server.returncode
        return f"exit status {status}, standard error: {''.join(self.stderr)[-2000:]!r}"

    async def _version(self, version: int) -> list[types.Diagnostic]:
        while True:
            try:
                params = await asyncio.wait_for(self.published.get(), timeout=600)
            except asyncio.TimeoutError:
                raise Abort(f"no diagnostics of version {version}: {self._said()}") from None
            if params.version == version:
                return list(params.diagnostics)

    async def change(self, version: int, text: str) -> tuple[float, list[types.Diagnostic]]:
        """Send the whole new buffer: the seconds until its diagnostics arrive."""
        start = time.perf_counter()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=self.uri),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        published = await self._version(version)
        return time.perf_counter() - start, published

    async def ask(self, what: str, line: int, column: int) -> tuple[float, object]:
        document = types.TextDocumentIdentifier(self.uri)
        at = types.Position(line, column)
        start = time.perf_counter()
        if what == "go to definition":
            asked = self.client.text_document_definition_async(
                types.DefinitionParams(text_document=document, position=at)
            )
        elif what == "find references":
            asked = self.client.text_document_references_async(
                types.ReferenceParams(
                    text_document=document,
                    position=at,
                    context=types.ReferenceContext(include_declaration=True),
                )
            )
        else:
            asked = self.client.text_document_hover_async(
                types.HoverParams(text_document=document, position=at)
            )
        answer: object = await asyncio.wait_for(asked, timeout=600)
        return time.perf_counter() - start, answer

    def peak_rss(self) -> int:
        """The server's peak resident set, or more while a child of its start-up ran."""
        server = getattr(self.client, "_server", None)
        if server is None:
            raise Abort("the client holds no server process")
        return max(_peak_rss(server.pid), self.with_children)

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()
        if self._drain is not None:
            self._drain.cancel()


def _found(site: Site, caller: str, diagnostics: list[types.Diagnostic]) -> set[Finding]:
    return {(str(d.code), caller, d.range.start.line + 1) for d in diagnostics}


def _oracle_of(site: Site, cli: str, caller: str, text: str) -> set[Finding]:
    """A pylint run on *text* as the caller's stdin buffer, with no cache."""
    command = commands(site, cli)["ours stdin mistyped"]
    assert command is not None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as handle:
        handle.write(text)
    try:
        return buffer_oracle(site, command, Path(handle.name))
    finally:
        os.unlink(handle.name)


def _same(what: str, got: set[Finding], want: set[Finding]) -> None:
    if got != want:
        raise Abort(
            f"{what}: the server's diagnostics differ from the oracle's: "
            f"only the server's {sorted(got - want)}, only the oracle's {sorted(want - got)}"
        )


async def _session(site: Site, cli: str, samples: Samples, edits: int, validate: bool) -> None:
    store = site.path.with_name(site.path.name + ".server-store")
    shutil.rmtree(store, ignore_errors=True)
    session = Session(site, cli, store)
    text = session.path.read_text("utf-8")
    caller = session.caller
    seconds, published = await session.start(text)
    samples.add(ROWS[0][0], seconds)
    if validate:
        want = {f for f in site.expected if f[1] == caller}
        _same("first diagnostics", _found(site, caller, published), want)
    handler = site.manifest.get("handler_module")
    handler_text = (site.path / handler).read_text("utf-8") if isinstance(handler, str) else ""
    flagged = frozenset(n for _, path, n in site.expected if path == caller)
    send = name_send(text, site.dispatch, site.callers, flagged, handler_text)
    version = 1
    for kind, row in (("mistyped", ROWS[1][0]), ("body", ROWS[2][0])):
        buffer = text
        for number in range(1, edits + 1):
            if kind == "mistyped":
                buffer, _ = name_text(text, send, number, mistyped=True)
            else:
                buffer, _ = edit_text(text, number, site.dispatch)
            version += 1
            seconds, published = await session.change(version, buffer)
            samples.add(row, seconds)
        if validate:
            _same(f"the last {kind} buffer", _found(site, caller, published),
                  _oracle_of(site, cli, caller, buffer))  # fmt: skip
    version += 1
    await session.change(version, text)  # back to the saved text: the name's site is there
    literal = send.literal
    line, column = literal.lineno - 1, literal.col_offset + 2
    for row in (ROWS[3][0], ROWS[4][0], ROWS[5][0]):
        for _ in range(edits):
            seconds, answer = await session.ask(row, line, column)
            samples.add(row, seconds)
        if not answer:
            raise Abort(f"{row} on {send.name!r} at {caller}:{literal.lineno}: no answer")
    samples.add(ROWS[6][0], float(session.peak_rss()))
    await session.stop()


def _baselines(site: Site, cli: str, samples: Samples) -> None:
    seconds, _, _ = _timed([sys.executable, "-c", PARSE_ALL], site, _env(site, site.cache_dir))
    samples.add("parse", seconds)
    shutil.rmtree(site.cache_dir, ignore_errors=True)
    seconds, rss, _ = _timed([cli, "check"], site, _env(site, site.cache_dir))
    samples.add("check cold", seconds)
    samples.add("check cold peak RSS", float(rss))


def measure(site: Site, cli: str, repeat: int, edits: int) -> Samples:
    samples = Samples()
    for number in range(repeat):
        _baselines(site, cli, samples)
        asyncio.run(_session(site, cli, samples, edits, validate=number == 0))
        print(f"repetition {number + 1}/{repeat} done", file=sys.stderr, flush=True)
    return samples


def report(site: Site, samples: Samples, label: str) -> list[str]:
    def shown(row: str, value: float) -> str:
        return f"{value / 1024:.0f} MiB" if "RSS" in row else f"{value:.3f} s"

    lines = [
        f"{label}: {site.modules} modules; load {load()}",
        "",
        "| row | median | baseline | its median | ratio | target |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for row, baseline, target in ROWS:
        value, base = samples.median(row), samples.median(baseline)
        lines.append(
            f"| {row} | {shown(row, value)} | {baseline} | {shown(baseline, base)} "
            f"| {value / base:.3f} | {target} |"
        )
    counts = {row: len(values) for row, values in samples.by_row.items()}
    lines += ["", f"samples per row: {counts}"]
    return lines


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tree", type=Path, help="a real tree (copied; never edited)")
    parser.add_argument("--caller", help="the caller module, relative to the tree")
    parser.add_argument("--handler", help="the handler module, relative to the tree")
    parser.add_argument("--config", type=Path, help="copied in as the tree's pyproject.toml")
    parser.add_argument("--scale", type=float, default=1.0, help="without --tree: generated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="copy or generate (or reuse) here")
    parser.add_argument("--repeat", type=int, default=5, help="sessions (and baselines)")
    parser.add_argument("--edits", type=int, default=5, help="keystrokes etc. per session")
    gen.add_shape_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _arguments()
    options = parser.parse_args(argv)
    cli = shutil.which("rpcsurface", path=str(Path(sys.executable).parent))
    if cli is None:
        parser.error("the rpcsurface script is not installed beside this Python")
    if options.tree is not None and not (options.caller and options.handler):
        parser.error("--tree needs --caller and --handler")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-server-") as temporary:
            workdir = (options.workdir or Path(temporary)).resolve()
            workdir.mkdir(parents=True, exist_ok=True)
            if options.tree is not None:
                site = prepare_tree(workdir, options.tree, options.caller, options.handler,
                                    config=options.config, cli=cli)  # fmt: skip
                label = f"{options.tree} (caller {options.caller})"
            else:
                shape = gen.shape_of(parser, options)
                site = prepare(workdir, options.scale, options.seed, shape)
                site.cli = cli
                label = f"generated scale {options.scale:g} seed {options.seed}"
            samples = measure(site, cli, options.repeat, options.edits)
    except Abort as error:
        print(f"bench/server.py: {error}", file=sys.stderr)
        return 1
    print("\n".join([*machine(), "", *report(site, samples, label)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

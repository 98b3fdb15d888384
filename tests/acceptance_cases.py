"""The acceptance table: mutations of the fixture engine, and the findings each one must give.

A case is a list of edits ``(relative_path, old, new)``: replace the text *old*,
which must occur exactly once in the file, with *new*; ``old=None`` creates the
file with content *new*. Expected findings are never written as line numbers:
a line of the mutated copy ending in ``# expect: rpc-unlisted`` (several symbols
comma-separated) means exactly that message on exactly that line. The unmutated
fixture carries no markers, so it must be silent.

The ids M0..M4, C1 and X1..X6 are the mutants of the code review this plugin
replaces (a hand-written test that compared RAPIDSERVE_RPCS to a line-range scan
of engine_core.py). Each description says what that test did and what we expect.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from support import PylintRun

FIXTURE = Path(__file__).parent / "fixtures" / "engine"

CONFIG = "atom/config.py"
ENGINE_CORE = "atom/model_engine/engine_core.py"
MODEL_RUNNER = "atom/model_engine/model_runner.py"
DIFFUSION_CORE = "atom/diffusion/engine/engine_core.py"
RPC_NAMES = "atom/model_engine/rpc_names.py"
FAST_CORES = "atom/model_engine/fast_cores.py"
OTHER_CORES = "atom/other/cores.py"

# The modules that end in an import trap, and the sentinel each one writes.
# Every module of the fixture has one: the registry module, the handlers, the callers,
# the other modules, a package __init__.py and two conftest.py files.
TRAPPED = {
    CONFIG: "atom/IMPORTED_config",
    "atom/model_engine/__init__.py": "atom/model_engine/IMPORTED_model_engine",
    MODEL_RUNNER: "atom/model_engine/IMPORTED_model_runner",
    ENGINE_CORE: "atom/model_engine/IMPORTED_engine_core",
    "atom/model_engine/runner_mgr.py": "atom/model_engine/IMPORTED_runner_mgr",
    "atom/model_engine/scheduler.py": "atom/model_engine/IMPORTED_scheduler",
    DIFFUSION_CORE: "atom/diffusion/engine/IMPORTED_diffusion_engine_core",
    "conftest.py": "IMPORTED_conftest",
    "atom/conftest.py": "atom/IMPORTED_atom_conftest",
}
TRAP_COMMENT = "# Import trap:"

SYMBOLS = frozenset(
    {
        "rpc-unlisted",
        "rpc-listed-unwaited",
        "rpc-listed-unanswered",
        "rpc-listed-in-base",
        "rpc-unanswered",
        "rpc-name-uninferable",
        "rpc-wait-uninferable",
        "rpc-registry-invalid",
        "rpcsurface-config-error",
        "rpc-waited-none-reply",
        "rpc-waited-maybe-none",
        "rpc-unwaited-reply",
        "rpc-reply-arity",
        "rpc-handler-signature",
    }
)

Edit = tuple[str, str | None, str]
Finding = tuple[str, str, int]  # (symbol, relative path, line)


@dataclass(frozen=True)
class Case:
    id: str
    description: str
    edits: tuple[Edit, ...]


# ---------------------------------------------------------------------------
# Edit machinery


def apply_edits(root: Path, edits: Iterable[Edit]) -> None:
    """Apply *edits* in order to the tree at *root*; every *old* must occur exactly once."""
    for relpath, old, new in edits:
        target = root / relpath
        if old is None:
            if target.exists():
                raise AssertionError(f"{relpath}: the edit creates a file that already exists")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(new, encoding="utf-8")
            continue
        text = target.read_text(encoding="utf-8")
        count = text.count(old)
        if count != 1:
            raise AssertionError(f"{relpath}: edit anchor occurs {count} times, not once: {old!r}")
        target.write_text(text.replace(old, new, 1), encoding="utf-8")


def make_copy(dest: Path, edits: Iterable[Edit] = ()) -> Path:
    """Copy the fixture engine to *dest* (which must not exist), apply *edits*, return *dest*."""
    shutil.copytree(
        FIXTURE, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "IMPORTED_*")
    )
    apply_edits(dest, edits)
    return dest


def python_files(root: Path) -> list[str]:
    """Every .py file under *root*, as sorted relative posix paths."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


def sentinels(root: Path) -> list[str]:
    """The ``IMPORTED_*`` files under *root*: proof that some module of it was imported."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("IMPORTED_*"))


# ---------------------------------------------------------------------------
# Marker scanning

_MARKER = re.compile(r"#\s*expect:(?P<symbols>[^#]*)$")


def markers_in_text(text: str, relpath: str) -> set[Finding]:
    """The (symbol, relpath, line) the ``# expect:`` markers of *text* ask for."""
    found: set[Finding] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if "expect:" not in line:
            continue
        match = _MARKER.search(line)
        if match is None:
            raise AssertionError(f"{relpath}:{lineno}: marker not at the end of line: {line!r}")
        symbols = [s.strip() for s in match["symbols"].split(",")]
        unknown = [s for s in symbols if s not in SYMBOLS]
        if unknown:
            raise AssertionError(f"{relpath}:{lineno}: unknown symbol(s) {unknown} in {line!r}")
        found.update((symbol, relpath, lineno) for symbol in symbols)
    return found


def expected_findings(root: Path) -> set[Finding]:
    """Scan every .py file under *root* for markers."""
    found: set[Finding] = set()
    for relpath in python_files(root):
        found |= markers_in_text((root / relpath).read_text(encoding="utf-8"), relpath)
    return found


# ---------------------------------------------------------------------------
# Checks shared by the test modules


def assert_ran(run: PylintRun) -> None:
    """Pylint ran to the end: no traceback, and stdout is a json2 report."""
    assert "Traceback" not in run.stderr, run.stderr
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        report = None
    assert isinstance(report, dict), (
        f"pylint printed no json2 report (exit {run.returncode})\n"
        f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    )
    assert "messages" in report, run.stdout


def assert_no_duplicates(run: PylintRun) -> None:
    """No (symbol, path, line, column) is reported twice."""
    counts = Counter((m.symbol, m.path, m.line, m.column) for m in run.messages)
    twice = sorted(key for key, n in counts.items() if n > 1)
    assert not twice, f"reported more than once: {twice}"


def explain(expected: set[Finding], run: PylintRun) -> str:
    """A readable diff of expected markers against what pylint reported."""
    got = run.keys()
    lines = ["missing (marked, not reported):"]
    lines += [f"  {s} {p}:{n}" for s, p, n in sorted(expected - got, key=_by_place)]
    lines.append("unexpected (reported, not marked):")
    lines += [
        f"  {m.symbol} {m.path}:{m.line}:{m.column} {m.text}"
        for m in run.messages
        if (m.symbol, m.path, m.line) not in expected
    ]
    lines.append(f"exit code {run.returncode}; stderr:\n{run.stderr}")
    return "\n".join(lines)


def _by_place(finding: Finding) -> tuple[str, int, str]:
    symbol, path, line = finding
    return (path, line, symbol)


def prefill_core_lines(engine_core_source: str) -> tuple[int, int]:
    """First and last line of class PrefillEngineCore in an engine_core.py source."""
    for node in ast.walk(ast.parse(engine_core_source)):
        if isinstance(node, ast.ClassDef) and node.name == "PrefillEngineCore":
            assert node.end_lineno is not None
            return node.lineno, node.end_lineno
    raise AssertionError("no class PrefillEngineCore")


# ---------------------------------------------------------------------------
# Edit builders and the fixture's anchors


def insert_after(path: str, anchor: str, text: str) -> Edit:
    return (path, anchor, anchor + text)


def insert_before(path: str, anchor: str, text: str) -> Edit:
    return (path, anchor, text + anchor)


def mark(path: str, line: str, symbols: str) -> Edit:
    """Append a marker to the whole line *line* (given without its newline)."""
    return (path, line + "\n", f"{line}  # expect: {symbols}\n")


def create(path: str, text: str) -> Edit:
    return (path, None, text)


def element(name: str) -> str:
    """One line of the registry tuple in atom/config.py."""
    return f'    "{name}",\n'


def listed(name: str, symbols: str | None = None) -> str:
    """A registry line to add, with a marker when a finding is expected on it."""
    if symbols is None:
        return element(name)
    return f'    "{name}",  # expect: {symbols}\n'


# engine_core.py
ENGINE_IMPORT = "from atom.model_engine.runner_mgr import RunnerManager\n"
BASE_KV_INIT_END = "        self.num_blocks = num_blocks\n"  # end of EngineCore._init_kv_cache
BASE_SHUTDOWN_DEF = "    def shutdown(self) -> None:\n"
PREFILL_DISAGG_END = '        logger.info("prefill engine sends KV cache to %s", self.peer)\n'
PREFILL_WARMUP_CALL = '        self.runner_mgr.call_func("prefill_warmup", wait_out=True)\n'
PREFILL_CHUNKED_DEF = "    def _prefill_chunked(self, batch: Batch) -> list[int]:\n"
PREFILL_FORWARD_STEP = (
    "            first_tokens = self.runner_mgr.call_func("
    '"prefill_forward", batch.seq_ids, batch.token_ids, wait_out=True)'
)
PREFILL_FORWARD_CHUNK = '                "prefill_forward",'  # name argument of a multi-line call
DECODE_DISAGG_END = '        logger.info("decode engine receives KV cache on %s", self.peer)\n'
DECODE_WARMUP_CALL = '        self.runner_mgr.call_func("decode_warmup", wait_out=True)\n'
DECODE_RECEIVE = (
    '            counts = self.runner_mgr.call_func_with_aggregation("receive_kv_cache", arriving)'
)
DECODE_STEP_END = "        self.received.difference_update(finished)\n"
ENGINE_TRAP = "# Import trap: the linter must analyse this module, never import it.\n"

# model_runner.py: new RapidServeModelRunner methods go just before this one.
RUNNER_BIND_DEF = "    def _bind_kv_cache_to_modules(self) -> int:\n"

# diffusion/engine/engine_core.py: its last line.
DIFFUSION_LAST = "        return [request.request_id for request in batch]\n"

REGISTRY_BLOCK = (
    "RAPIDSERVE_RPCS = (\n"
    + element("prefill_forward")
    + element("decode_forward")
    + element("transfer_kv_cache")
    + element("receive_kv_cache")
    + element("get_kv_transfer_metadata")
    + element("prefill_warmup")
    + element("decode_warmup")
    + ")\n"
)
REGISTRY_CORE = (
    "_CORE = (\n"
    + element("prefill_forward")
    + element("decode_forward")
    + element("transfer_kv_cache")
    + element("receive_kv_cache")
    + element("get_kv_transfer_metadata")
    + element("prefill_warmup")
    + ")\n"
)


def answer(name: str, params: str = "") -> Edit:
    """RapidServeModelRunner gains a method *name* (so the handlers answer it)."""
    return insert_before(
        MODEL_RUNNER,
        RUNNER_BIND_DEF,
        f"    def {name}(self{params}) -> int:\n"
        f'        """Answer the {name} RPC."""\n'
        "        drained = len(self.pending_transfers)\n"
        "        self.pending_transfers.clear()\n"
        "        return drained\n"
        "\n",
    )


def prefill_method(text: str) -> Edit:
    """Add a method to PrefillEngineCore (*text* is the indented method, no blank lines)."""
    return insert_before(ENGINE_CORE, PREFILL_CHUNKED_DEF, text + "\n")


def decode_method(text: str) -> Edit:
    """Add a method to DecodeEngineCore, right after its _init_disagg."""
    return insert_after(ENGINE_CORE, DECODE_DISAGG_END, "\n" + text)


def after_decode_core(text: str) -> Edit:
    """Add module-level code after DecodeEngineCore (before the import trap)."""
    return insert_before(ENGINE_CORE, ENGINE_TRAP, text + "\n\n")


def _x4_padding() -> Edit:
    """Pad the diffusion engine_core.py so its module-level broadcast lands on a line
    that is inside PrefillEngineCore in atom/model_engine/engine_core.py."""
    first, last = prefill_core_lines((FIXTURE / ENGINE_CORE).read_text(encoding="utf-8"))
    target = (first + last) // 2
    existing = len((FIXTURE / DIFFUSION_CORE).read_text(encoding="utf-8").splitlines())
    # existing lines, 2 blank lines, padding, then 3 lines with the call last
    padding = target - existing - 2 - 3
    assert padding > 0, "the diffusion engine_core.py is already longer than the target"
    text = "\n\n"
    text += "".join(f"# calibration table row {i:03d}: reserved\n" for i in range(padding))
    text += (
        "_LEGACY_RUNNER_MGR = None\n"
        "if _LEGACY_RUNNER_MGR is not None:\n"
        '    _LEGACY_RUNNER_MGR.call_func("diffusion_only_rpc", wait_out=True)\n'
    )
    return insert_after(DIFFUSION_CORE, DIFFUSION_LAST, text)


def fast_cores_module(symbols: str | None) -> Edit:
    """atom/model_engine/fast_cores.py: a caller subclass imported under an alias."""
    marker = f"  # expect: {symbols}" if symbols else ""
    return create(
        FAST_CORES,
        '"""Engine cores tuned for short prompts."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from atom.model_engine.engine_core import PrefillEngineCore as _Prefill\n"
        "\n"
        "\n"
        "class TurboPrefill(_Prefill):\n"
        '    """A prefill core that drains the stream pool after every step."""\n'
        "\n"
        "    def step(self) -> list[int]:\n"
        "        finished = super().step()\n"
        f'        self.runner_mgr.call_func("drain_stream_pool", wait_out=True){marker}\n'
        "        return finished\n",
    )


def fast_prefill_subclass(symbols: str) -> Edit:
    return after_decode_core(
        "class FastPrefillEngineCore(PrefillEngineCore):\n"
        '    """A prefill core that recycles its streams after every step."""\n'
        "\n"
        "    def step(self) -> list[int]:\n"
        "        finished = super().step()\n"
        '        self.runner_mgr.call_func("recycle_prefill_streams", wait_out=True)'
        f"  # expect: {symbols}\n"
        "        return finished\n"
    )


def base_reload(symbols: str | None) -> Edit:
    """EngineCore.reload waits on _bind_kv_cache_to_modules (RapidServe-only, unlisted)."""
    marker = f"  # expect: {symbols}" if symbols else ""
    return insert_before(
        ENGINE_CORE,
        BASE_SHUTDOWN_DEF,
        "    def reload(self) -> None:\n"
        '        """Re-point the model at its KV cache after a weight swap."""\n'
        f'        self.runner_mgr.call_func("_bind_kv_cache_to_modules", wait_out=True){marker}\n'
        "\n",
    )


PREFILL_RELOAD_NO_SUPER = prefill_method(
    "    def reload(self) -> None:\n"
    '        self.runner_mgr.call_func("allocate_kv_cache", self.num_blocks, wait_out=True)\n'
    "        self._init_disagg()\n"
)
PREFILL_RELOAD_SUPER = prefill_method(
    "    def reload(self) -> None:\n        super().reload()\n        self._init_disagg()\n"
)
DECODE_RELOAD_NO_SUPER = decode_method(
    "    def reload(self) -> None:\n"
    '        self.runner_mgr.call_func("allocate_kv_cache", self.num_blocks, wait_out=True)\n'
    "        self.received.clear()\n"
)

# ---------------------------------------------------------------------------
# The table

CASES: tuple[Case, ...] = (
    Case(
        "M0",
        "seed M0 (unmutated, green): the fixture is clean, so no message at all",
        (),
    ),
    Case(
        "M1",
        "seed M1 (drop prefill_forward from RAPIDSERVE_RPCS, red): rpc-unlisted on both "
        "waited prefill_forward sites, one of them on the name line of a multi-line call",
        (
            (CONFIG, element("prefill_forward"), ""),
            mark(ENGINE_CORE, PREFILL_FORWARD_STEP, "rpc-unlisted"),
            mark(ENGINE_CORE, PREFILL_FORWARD_CHUNK, "rpc-unlisted"),
        ),
    ),
    Case(
        "M1b",
        "not in the seed: drop receive_kv_cache, which DecodeEngineCore sends with "
        "call_func_with_aggregation (no wait_out): rpc-unlisted on that site",
        (
            (CONFIG, element("receive_kv_cache"), ""),
            mark(ENGINE_CORE, DECODE_RECEIVE, "rpc-unlisted"),
        ),
    ),
    Case(
        "M2",
        "seed M2 (list _bind_kv_cache_to_modules, a RapidServe method never broadcast, red): "
        "rpc-listed-unwaited on that registry element",
        (
            insert_after(
                CONFIG,
                element("receive_kv_cache"),
                listed("_bind_kv_cache_to_modules", "rpc-listed-unwaited"),
            ),
        ),
    ),
    Case(
        "M2b",
        "seed M2b (list the made-up never_broadcast, red): rpc-listed-unanswered on that "
        "element (unanswered wins over unwaited)",
        (
            insert_after(
                CONFIG, element("decode_warmup"), listed("never_broadcast", "rpc-listed-unanswered")
            ),
        ),
    ),
    Case(
        "M3",
        "seed M3 (PrefillEngineCore waits on drain_prefill_stream_pool, nobody answers, red): "
        "rpc-unanswered on the call",
        (
            insert_after(
                ENGINE_CORE,
                PREFILL_WARMUP_CALL,
                '        self.runner_mgr.call_func("drain_prefill_stream_pool", wait_out=True)'
                "  # expect: rpc-unanswered\n",
            ),
        ),
    ),
    Case(
        "M3b",
        "seed M3b (DecodeEngineCore waits on drain_decode_stream_pool, nobody answers, red): "
        "rpc-unanswered on the call",
        (
            insert_after(
                ENGINE_CORE,
                DECODE_WARMUP_CALL,
                '        self.runner_mgr.call_func("drain_decode_stream_pool", wait_out=True)'
                "  # expect: rpc-unanswered\n",
            ),
        ),
    ),
    Case(
        "M4",
        "seed M4 (base EngineCore._init_kv_cache, inherited by both cores, waits on "
        "_bind_kv_cache_to_modules, red): rpc-unlisted reported once, on the base's line",
        (
            insert_after(
                ENGINE_CORE,
                BASE_KV_INIT_END,
                '        self.runner_mgr.call_func("_bind_kv_cache_to_modules", wait_out=True)'
                "  # expect: rpc-unlisted\n",
            ),
        ),
    ),
    Case(
        "C1",
        "seed C1 (unwaited drain_prefill_stream_pool in PrefillEngineCore, green control): "
        "no registry finding since it is not waited, but rpc-unanswered because nothing "
        "answers it and the worker skips it silently",
        (
            insert_after(
                ENGINE_CORE,
                PREFILL_WARMUP_CALL,
                '        self.runner_mgr.call_func("drain_prefill_stream_pool")'
                "  # expect: rpc-unanswered\n",
            ),
        ),
    ),
    Case(
        "X1",
        "seed X1 (RapidServe answers drain_stream_pool; a module-level helper after "
        "DecodeEngineCore waits on it; seed red via rapid_only): silent, since no caller "
        "calls the helper, so its broadcast is nobody's",
        (
            answer("drain_stream_pool"),
            after_decode_core(
                "def drain_all(runner_mgr: RunnerManager) -> int:\n"
                '    """Operator tool: drain the stream pool of every rank."""\n'
                '    return runner_mgr.call_func("drain_stream_pool", wait_out=True)\n'
            ),
        ),
    ),
    Case(
        "X1-CALLED",
        "seed X1 with helpers followed: PrefillEngineCore.warmup calls the helper, so the "
        "helper's waited broadcast is PrefillEngineCore's: rpc-unlisted on the helper's "
        "call_func, naming the chain",
        (
            answer("drain_stream_pool"),
            after_decode_core(
                "def drain_all(runner_mgr: RunnerManager) -> int:\n"
                '    """Operator tool: drain the stream pool of every rank."""\n'
                '    return runner_mgr.call_func("drain_stream_pool", wait_out=True)'
                "  # expect: rpc-unlisted\n"
            ),
            insert_after(ENGINE_CORE, PREFILL_WARMUP_CALL, "        drain_all(self.runner_mgr)\n"),
        ),
    ),
    Case(
        "X2",
        "seed X2 (waited broadcast of _bind_kv_cache_to_modules in a nested def inside "
        "PrefillEngineCore._init_disagg, red): rpc-unlisted on the nested line",
        (
            insert_after(
                ENGINE_CORE,
                PREFILL_DISAGG_END,
                "\n"
                "        def rebind_after_reconnect() -> None:\n"
                '            self.runner_mgr.call_func("_bind_kv_cache_to_modules", wait_out=True)'
                "  # expect: rpc-unlisted\n"
                "\n"
                "        self.on_peer_reconnect = rebind_after_reconnect\n",
            ),
        ),
    ),
    Case(
        "X3",
        "seed X3 (subclass FastPrefillEngineCore after DecodeEngineCore waits on "
        "recycle_prefill_streams, nobody answers; the seed missed it, green): rpc-unanswered",
        (fast_prefill_subclass("rpc-unanswered"),),
    ),
    Case(
        "X3b",
        "seed X3b (X3, and RapidServe answers recycle_prefill_streams, red): rpc-unlisted "
        "on the subclass's call",
        (fast_prefill_subclass("rpc-unlisted"), answer("recycle_prefill_streams")),
    ),
    Case(
        "X4",
        "seed X4 (module-level waited diffusion_only_rpc in the other engine_core.py, on a "
        "line inside PrefillEngineCore's range; seed false red): silent",
        (_x4_padding(),),
    ),
    Case(
        "X4b",
        "not in the seed: the other engine_core.py defines its own PrefillEngineCore and a "
        "subclass of it that waits on diffusion_only_rpc: silent. Identity by basename "
        "would take 'engine_core.PrefillEngineCore' for the caller and give a false red",
        (
            insert_after(
                DIFFUSION_CORE,
                DIFFUSION_LAST,
                "\n\n"
                "class PrefillEngineCore:\n"
                '    """The prefill stage of the diffusion engine, unrelated to RapidServe."""\n'
                "\n"
                "    def __init__(self, runner_mgr: object) -> None:\n"
                "        self.runner_mgr = runner_mgr\n"
                "\n"
                "\n"
                "class DiffusionPrefill(PrefillEngineCore):\n"
                "    def step(self) -> object:\n"
                '        return self.runner_mgr.call_func("diffusion_only_rpc", wait_out=True)\n',
            ),
        ),
    ),
    Case(
        "X5",
        "seed X5 (RapidServe answers drain_stream_pool; DecodeEngineCore sends it with "
        "call_func_with_aggregation, no wait_out, red): rpc-unlisted, aggregation always waits",
        (
            answer("drain_stream_pool"),
            decode_method(
                "    def drain(self) -> list[int]:\n"
                '        return self.runner_mgr.call_func_with_aggregation("drain_stream_pool")'
                "  # expect: rpc-unlisted\n"
            ),
        ),
    ),
    Case(
        "X6",
        "seed X6 (RapidServe's release_kv_cache broadcast unwaited by DecodeEngineCore, and "
        "listed, red): rpc-listed-unwaited on the new element",
        (
            answer("release_kv_cache", ", seq_ids: list[int]"),
            insert_after(
                ENGINE_CORE,
                DECODE_STEP_END,
                '        self.runner_mgr.call_func("release_kv_cache", finished)\n',
            ),
            insert_after(
                CONFIG,
                element("get_kv_transfer_metadata"),
                listed("release_kv_cache", "rpc-listed-unwaited"),
            ),
        ),
    ),
    Case(
        "NAME-CONST",
        "not in the seed: PrefillEngineCore waits on DRAIN, imported from a new module "
        "rpc_names.py; RapidServe answers drain_stream_pool: rpc-unlisted",
        (
            create(
                RPC_NAMES,
                '"""Names of RPCs more than one engine core sends."""\n'
                "\n"
                'DRAIN = "drain_stream_pool"\n',
            ),
            insert_before(
                ENGINE_CORE, ENGINE_IMPORT, "from atom.model_engine.rpc_names import DRAIN\n"
            ),
            answer("drain_stream_pool"),
            prefill_method(
                "    def drain(self) -> int:\n"
                "        return self.runner_mgr.call_func(DRAIN, wait_out=True)"
                "  # expect: rpc-unlisted\n"
            ),
        ),
    ),
    Case(
        "WAIT-LOCAL",
        "not in the seed: DecodeEngineCore passes wait_out=wait with a local wait = True; "
        "RapidServe answers drain_stream_pool: rpc-unlisted (the local flag was inferred)",
        (
            answer("drain_stream_pool"),
            decode_method(
                "    def drain(self) -> int:\n"
                "        wait = True\n"
                '        return self.runner_mgr.call_func("drain_stream_pool", wait_out=wait)'
                "  # expect: rpc-unlisted\n"
            ),
        ),
    ),
    Case(
        "OVERRIDE-NO-SUPER",
        "not in the seed: EngineCore.reload waits on _bind_kv_cache_to_modules, both cores "
        "override reload without super(): silent, the base method is not their code",
        (base_reload(None), PREFILL_RELOAD_NO_SUPER, DECODE_RELOAD_NO_SUPER),
    ),
    Case(
        "OVERRIDE-SUPER",
        "not in the seed: as OVERRIDE-NO-SUPER, but PrefillEngineCore.reload calls "
        "super().reload(): rpc-unlisted on the base's line",
        (base_reload("rpc-unlisted"), PREFILL_RELOAD_SUPER, DECODE_RELOAD_NO_SUPER),
    ),
    Case(
        "ALIAS-SUBCLASS",
        "not in the seed: fast_cores.py subclasses PrefillEngineCore imported as _Prefill "
        "and waits on drain_stream_pool, which RapidServe answers: rpc-unlisted in fast_cores.py",
        (fast_cores_module("rpc-unlisted"), answer("drain_stream_pool")),
    ),
    Case(
        "SAME-NAME-NOT-CALLER",
        "not in the seed: atom/other/cores.py has its own class PrefillEngineCore waiting "
        "on nobody_answers_this: silent, callers are identified by qualified name",
        (
            create(
                OTHER_CORES,
                '"""A toy engine core for experiments, unrelated to the RapidServe cores."""\n'
                "\n"
                "from __future__ import annotations\n"
                "\n"
                "from typing import Any\n"
                "\n"
                "\n"
                "class PrefillEngineCore:\n"
                '    """Named like the RapidServe prefill core, but not a subclass of it."""\n'
                "\n"
                "    def __init__(self, runner_mgr: Any) -> None:\n"
                "        self.runner_mgr = runner_mgr\n"
                "\n"
                "    def step(self) -> Any:\n"
                '        return self.runner_mgr.call_func("nobody_answers_this", wait_out=True)\n',
            ),
        ),
    ),
    Case(
        "FORWARDING",
        "not in the seed: PrefillEngineCore.broadcast forwards its method as vLLM's "
        "_run_workers does (if/else rebind, del, the name read in a list comprehension): "
        "silent; broadcast_default's else branch gives a literal: rpc-name-uninferable",
        (
            insert_after(ENGINE_CORE, "import os as _os\n", "import pickle\n"),
            prefill_method(
                "    def broadcast(self, method: object, *args: object) -> list[object]:\n"
                '        """Send one RPC to every runner, by name or as pickled code."""\n'
                "        if isinstance(method, str):\n"
                "            sent_method = method\n"
                "        else:\n"
                "            sent_method = pickle.dumps(method)\n"
                "        del method\n"
                "        return [\n"
                "            self.runner_mgr.call_func(sent_method, *args, wait_out=True)\n"
                "            for _ in range(2)\n"
                "        ]\n"
                "    def broadcast_default(self, method: object, warm: bool) -> object:\n"
                "        if warm:\n"
                '            sent_method = "prefill_warmup"\n'
                "        else:\n"
                "            sent_method = method\n"
                "        return self.runner_mgr.call_func(sent_method, wait_out=True)"
                "  # expect: rpc-name-uninferable\n"
            ),
        ),
    ),
    Case(
        "FSTRING",
        'not in the seed: PrefillEngineCore sends f"drain_{kind}_pool" with kind a '
        "parameter: rpc-name-uninferable on the name",
        (
            prefill_method(
                "    def drain(self, kind: str) -> None:\n"
                '        """Drain one of the runner\'s stream pools."""\n'
                '        self.runner_mgr.call_func(f"drain_{kind}_pool", wait_out=True)'
                "  # expect: rpc-name-uninferable\n"
            ),
        ),
    ),
    Case(
        "WAIT-UNINFERABLE",
        "not in the seed: prefill_forward sent with wait_out=wait, wait a parameter without "
        "default: rpc-wait-uninferable on the keyword's value line",
        (
            prefill_method(
                "    def prefill_now(self, batch: Batch, wait: bool) -> list[int] | None:\n"
                "        return self.runner_mgr.call_func(\n"
                '            "prefill_forward",\n'
                "            batch.seq_ids,\n"
                "            batch.token_ids,\n"
                "            wait_out=wait,  # expect: rpc-wait-uninferable\n"
                "        )\n"
            ),
        ),
    ),
    Case(
        "FROZENSET",
        'not in the seed: the registry becomes frozenset(_CORE + ("decode_warmup",)) with '
        "the same 7 names: silent",
        (
            (
                CONFIG,
                REGISTRY_BLOCK,
                REGISTRY_CORE + 'RAPIDSERVE_RPCS = frozenset(_CORE + ("decode_warmup",))\n',
            ),
        ),
    ),
    Case(
        "FROZENSET-BAD",
        "not in the seed: the frozenset form with never_broadcast in the extension tuple: "
        "rpc-listed-unanswered on that line",
        (
            (
                CONFIG,
                REGISTRY_BLOCK,
                REGISTRY_CORE + "RAPIDSERVE_RPCS = frozenset(\n"
                "    _CORE\n"
                "    + (\n"
                '        "decode_warmup",\n'
                '        "never_broadcast",  # expect: rpc-listed-unanswered\n'
                "    )\n"
                ")\n",
            ),
        ),
    ),
    Case(
        "BASE-LISTED",
        "not in the seed: list get_num_blocks, which ModelRunner answers and EngineCore "
        "waits on: rpc-listed-in-base on that element",
        (
            insert_after(
                CONFIG, element("transfer_kv_cache"), listed("get_num_blocks", "rpc-listed-in-base")
            ),
        ),
    ),
    Case(
        "DUPLICATE",
        "not in the seed: prefill_forward listed twice: rpc-registry-invalid on the second "
        "occurrence",
        (
            insert_after(
                CONFIG, element("decode_warmup"), listed("prefill_forward", "rpc-registry-invalid")
            ),
        ),
    ),
)

CASES_BY_ID = {case.id: case for case in CASES}

# The cases that must be silent; every other case must carry at least one marker.
GREEN = frozenset(
    {"M0", "X1", "X4", "X4b", "OVERRIDE-NO-SUPER", "SAME-NAME-NOT-CALLER", "FROZENSET"}
)


def combine(*case_ids: str) -> tuple[Edit, ...]:
    """The edits of several cases, applied one after the other."""
    return tuple(edit for case_id in case_ids for edit in CASES_BY_ID[case_id].edits)


# A mutation with findings in engine_core.py, fast_cores.py and config.py, and a
# padded diffusion engine_core.py; its markers are its expected findings.
BUSY = combine("M1", "M2b", "BASE-LISTED", "M3", "M3b", "M4", "X2", "ALIAS-SUBCLASS", "X4")

# ALIAS-SUBCLASS with drain_stream_pool listed: clean, and the only waiter of that
# name is the subclass in fast_cores.py.
ALIAS_LISTED = (
    fast_cores_module(None),
    answer("drain_stream_pool"),
    insert_after(CONFIG, element("prefill_warmup"), listed("drain_stream_pool")),
)

"""Generate a deterministic synthetic project shaped like an inference engine.

    python bench/generate_project.py OUT --scale S [--seed N] [--shape real|classic]
                                     [--handler-lines N] [--caller-lines N] [--force]

At scale 1 the project has >= 400 modules and >= 180k lines; scales 2, 4 and 7 multiply the
unrelated code (7x is about 1.3M lines); any float scale works for smoke tests. It contains:

- the top-level package ``infer`` and several of its sub-packages as implicit namespace
  packages (folders without ``__init__.py``), and some regular packages;
- an engine core base class and the configured caller ``DisaggEngineCore`` that dispatch RPCs by
  name (``self.runner_mgr.call_func("name", wait_out=True)``, ``call_func(CONST_NAME, ...)``,
  ``call_func_with_aggregation(...)``), and caller subclasses in several modules: through a
  plain import, an alias import, a module import, and two levels deep;
- a base runner (the base handler) and a specialised runner (the handler, with a mixin in its
  own module), thousands of lines each, and a registry module with a tuple constant;
- hundreds of unrelated modules with thousands of classes, methods, imports and calls, a few of
  them ``call_func`` calls on other receivers, which are not callers and must not be judged;
- a real import graph (generator version 3): every regular package's ``__init__.py``
  imports some of its submodules, and ``infer/engine/__init__.py`` imports the caller
  module lazily, through a module-level ``__getattr__``; the unrelated modules import
  each other in a ring (and the classes of earlier ones), which makes them and the
  packages importing them one strongly connected component, most of the tree; and 19
  unrelated modules in 20 import the caller module (some through that ``__getattr__``),
  without subclassing a caller;
- surface modules that build on the standard library as a real engine's do (generator
  version 4): an abstract base class, an enum, dataclasses, and threads, locks and queues
  held in ``self`` attributes that the dispatching methods call (see ``STDLIB_REACH``);
- a ``pyproject.toml`` whose ``[tool.rpcsurface]`` table covers all of it;
- planted bugs: a waited RPC the registry lacks (``rpc-unlisted``) and a misspelled one
  (``rpc-unanswered``). Each planted line ends with ``# expect: <symbol>``.

The surface modules (core, runners, registry) grow with the scale up to 1x and then stay the
same size, as in a real engine that grows by adding models and layers; the number of caller
subclass modules and of unrelated modules grows linearly with the scale. ``--shape`` sets the
length of the two modules a user edits most, the same at every scale: ``real`` (the default)
makes the handler class's module (``infer/worker/disagg/runner.py``) at least 5,100 lines and
the caller class's module (``infer/engine/core.py``, the stdin file) at least 1,250, the shape
of a real engine (4,897 and 1,233 lines); ``classic`` keeps the sizes of generator version 1
(about 2.4k and 1.4k lines at 1x). ``--handler-lines`` / ``--caller-lines`` set either length.

It writes ``OUT/.bench.json``, a manifest the benchmark runner reads: the figures, the largest
caller module (the file for the single-file measurements) and the expected findings, each as
``[symbol, path, line]`` found by searching the written text for its marker.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

# 2: the shape of the surface modules (--shape); 3: a real import graph (see Graph);
# 4: surface modules whose build and inference reach the standard library (see STDLIB_REACH)
GENERATOR_VERSION = 4
MANIFEST = ".bench.json"
EXPECT_MARK = "# expect: "
ROOT = "infer"

# Unrelated modules at scale 1 and their size; the surface modules add about 9k lines.
UNRELATED_AT_1X = 400
MODULE_LINES = (240, 610)

VERBS = (
    "get", "set", "load", "init", "sync", "transfer", "export", "reset", "update", "compute",
    "prepare", "flush", "capture", "build", "release", "profile", "warmup", "allocate", "evict",
    "swap", "pin", "gather", "scatter", "refresh", "attach", "detach", "register", "drain",
)  # fmt: skip
NOUNS = (
    "cache", "blocks", "tokens", "batch", "seqs", "kv", "weights", "graph", "experts", "layers",
    "rank", "stream", "tensors", "buffer", "pages", "slots", "requests", "prompts", "logits",
    "samples", "adapters", "lora", "metrics", "memory", "handles", "topology", "schedule",
)  # fmt: skip
AREAS = (
    "models", "layers", "kernels", "distributed", "utils", "sampling", "quant", "ops", "io",
    "lora", "multimodal", "spec_decode", "attention", "tokenizer", "metrics", "executor",
)  # fmt: skip
SUBS = ("common", "impl", "cuda", "rocm", "cpu", "fused", "legacy", "v2", "compat", "backends")
STDLIB = ("os", "math", "time", "logging", "functools", "itertools", "collections", "json")

# What the surface modules of a real engine import and build on (generator version 4): an
# abstract base class, an enum, dataclasses with typed fields, and threads, locks and
# queues held in ``self`` attributes that the dispatching methods call. Building such a
# module with astroid builds ``abc``, ``enum``, ``dataclasses`` and ``typing`` (its
# transforms and the inference of ``self``), and following the calls in a dispatching
# method builds ``threading`` and ``queue``, as it builds ``threading``, ``uuid`` and
# ``multiprocessing`` on vLLM 0.7.3.
STDLIB_REACH = [
    "import enum",
    "import queue",
    "import threading",
    "from abc import ABC, abstractmethod",
    "from dataclasses import dataclass, field",
    "from functools import partial",
    "from typing import Any, Optional",
]


@dataclass(frozen=True)
class Shape:
    """How long the surface modules the user edits are, in lines (None: the classic sizes).

    *handler_lines* is the length of the configured handler class's module, *caller_lines*
    that of the configured caller class's module (the stdin file). A length is absolute,
    the same at every scale: a real engine's surface modules don't shrink with it.
    """

    handler_lines: int | None = None
    caller_lines: int | None = None


# "real": a real engine measured in issue 14 had a 4,897-line handler module and a
# 1,233-line caller module; "classic": the sizes the generator had before (about 2.4k and
# 1.4k lines at 1x, smaller below 1x).
SHAPES = {"real": Shape(handler_lines=5100, caller_lines=1250), "classic": Shape()}
DEFAULT_SHAPE = "real"


def filler_budget(target: int | None, fixed: int, classic: int) -> int:
    """Filler lines that make a module of *fixed* other lines *target* long (or *classic*)."""
    # + 1: the module's text ends in the last filler method's empty line, which adds no line.
    return classic if target is None else max(0, target - fixed + 1)


@dataclass
class Module:
    path: str  # relative to OUT, forward slashes
    text: str


@dataclass
class Project:
    modules: list[Module] = field(default_factory=list)
    packages_regular: set[str] = field(default_factory=set)
    packages_namespace: set[str] = field(default_factory=set)
    callers: list[str] = field(default_factory=list)  # paths of modules defining callers

    def add(self, path: str, text: str) -> None:
        self.modules.append(Module(path, text))
        folder = path.rsplit("/", 1)[0]
        parts = folder.split("/")
        for depth in range(1, len(parts) + 1):
            package = "/".join(parts[:depth])
            if package not in self.packages_regular:
                self.packages_namespace.add(package)

    def regular(self, package: str) -> None:
        """Make *package* (a folder, forward slashes) a regular package with an __init__.py."""
        self.packages_regular.add(package)
        self.packages_namespace.discard(package)


def rpc_names(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
        if name not in taken:
            taken.add(name)
            names.append(name)
    return names


def filler_method(rng: random.Random, name: str, attr: str) -> list[str]:
    """A method of 8-20 lines that does something plausible; never dispatches an RPC."""
    k = rng.randint(2, 9)
    kind = rng.randrange(5)
    if kind == 0:
        body = [
            f"    def {name}(self, items, scale=1.0):",
            f'        """Scale every {k}th item of *items*."""',
            "        out = []",
            "        for i, item in enumerate(items):",
            f"            if i % {k} == 0:",
            "                out.append(item * scale)",
            "            else:",
            f"                out.append(self.{attr} + i)",
            f'        logger.debug("{name}: %d items", len(out))',
            "        return out",
        ]
    elif kind == 1:
        body = [
            f"    def {name}(self, key, default=None):",
            "        if key in self._cache:",
            "            return self._cache[key]",
            f"        value = math.sqrt(abs(hash(key)) % {k * 97} + 1)",
            "        self._cache[key] = value",
            "        return value if value else default",
        ]
    elif kind == 2:
        body = [
            f"    def {name}(self, batch):",
            "        total = 0",
            "        seen = set()",
            "        while batch:",
            "            head = batch.pop()",
            "            if head in seen:",
            "                continue",
            "            seen.add(head)",
            f"            total += head * {k}",
            f"        self.stats[{name!r}] = total",
            "        return total",
        ]
    elif kind == 3:
        body = [
            f"    def {name}(self, path, retries={k}):",
            "        for attempt in range(retries):",
            "            try:",
            '                with open(path, encoding="utf-8") as handle:',
            "                    return handle.read()",
            "            except OSError as error:",
            f'                logger.warning("{name}: attempt %d failed: %s", attempt, error)',
            "                time.sleep(0.01 * attempt)",
            "        return None",
        ]
    else:
        body = [
            f"    def {name}(self, *args, **kwargs):",
            "        merged = dict(kwargs)",
            "        for index, value in enumerate(args):",
            '            merged[f"arg{index}"] = value',
            f"        merged[{attr!r}] = self.{attr}",
            f"        if len(merged) > {k}:",
            "            merged = {key: merged[key] for key in sorted(merged)[:" + f"{k}" + "]}",
            "        return merged",
        ]
    return [*body, ""]


def filler_methods(rng: random.Random, prefix: str, lines: int, attr: str) -> list[str]:
    out: list[str] = []
    index = 0
    while len(out) < lines:
        out += filler_method(rng, f"_{prefix}_{rng.choice(VERBS)}_{index}", attr)
        index += 1
    return out


HEADER = [
    "from __future__ import annotations",
    "",
    "import logging",
    "import math",
    "import time",
    "",
]


def waited(name_expr: str, style: str) -> str:
    """One dispatch line (without indentation) in the given style."""
    if style == "aggregate":
        return f"self.runner_mgr.call_func_with_aggregation({name_expr})"
    if style == "fire":
        return f"self.runner_mgr.call_func({name_expr})"
    return f"self.runner_mgr.call_func({name_expr}, wait_out=True)"


def build(  # noqa: PLR0915
    scale: float, seed: int, shape: Shape | None = None
) -> tuple[Project, dict[str, object]]:
    shape = shape or SHAPES[DEFAULT_SHAPE]
    rng = random.Random(seed)
    surface = min(scale, 1.0)
    project = Project()
    taken: set[str] = set()
    base_rpcs = rpc_names(rng, 24, taken)
    spec_rpcs = rpc_names(rng, 18, taken)
    fire_only = spec_rpcs[-2:]  # answered by the handler, never waited: not in the registry
    listed = spec_rpcs[:-2]
    unlisted = rpc_names(rng, 1, taken)[0]  # planted: waited, answered, not listed
    misspelled_of = listed[3]
    misspelled = misspelled_of.replace("_", "__", 1)  # planted: nobody answers it
    consts = {f"RPC_{name.upper()}": name for name in listed[:4]}
    const = list(consts)

    # The registry and config, in the namespace package root.
    config = [
        '"""Engine configuration, and the RPCs only the disaggregated runner answers."""',
        "",
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass",
        "",
        "DISAGG_RPCS = (",
        *(f"    {name!r}," for name in listed),
        ")",
        "",
        "",
        "@dataclass",
        "class EngineConfig:",
        '    model: str = "tiny"',
        "    tensor_parallel_size: int = 1",
        "    max_num_seqs: int = 256",
        "    role: str = 'prefill'",
        "",
    ]
    project.add(f"{ROOT}/config.py", "\n".join(config))

    # RPC name constants, in a regular package.
    project.regular(f"{ROOT}/engine")
    project.add(
        f"{ROOT}/engine/rpc_names.py",
        '"""RPC names used by more than one engine core."""\n\n'
        + "".join(f"{const} = {name!r}\n" for const, name in consts.items()),
    )

    # The base engine core and the configured caller.
    core = [
        '"""Engine cores: step the scheduler and broadcast work to the runners by name."""',
        "",
        *HEADER,
        *STDLIB_REACH,
        "",
        f"from {ROOT}.config import EngineConfig",
        f"from {ROOT}.engine import rpc_names",
        f"from {ROOT}.engine.rpc_names import {', '.join(const[:2])}",
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "class StepKind(enum.Enum):",
        '    PREFILL = "prefill"',
        '    DECODE = "decode"',
        '    IDLE = "idle"',
        "",
        "",
        "@dataclass",
        "class StepOutput:",
        '    """What one step of an engine core produced."""',
        "",
        "    kind: StepKind",
        "    tokens: list[int] = field(default_factory=list)",
        "    meta: Optional[dict[str, Any]] = None",
        "",
        "",
        "class EngineCore(ABC):",
        '    """Owns the runners of one engine and drives them one step at a time."""',
        "",
        "    def __init__(self, config: EngineConfig, runner_mgr) -> None:",
        "        self.config = config",
        "        self.runner_mgr = runner_mgr",
        "        self.steps = 0",
        "        self._cache = {}",
        "        self.stats = {}",
        "        self._lock = threading.Lock()",
        "        self._outputs: queue.Queue[StepOutput] = queue.Queue()",
        "        self._drainer = threading.Thread(target=self._drain, daemon=True)",
        "        self._record = partial(self._put_output, StepKind.DECODE)",
        "",
        "    def _put_output(self, kind, tokens=None):",
        "        self._outputs.put(StepOutput(kind, list(tokens or ())))",
        "",
        "    def _drain(self):",
        "        while not self._outputs.empty():",
        "            self._outputs.get_nowait()",
        "",
        "    @abstractmethod",
        "    def start_transfer(self):",
        '        """Start moving KV blocks between the prefill and the decode workers."""',
        "",
    ]
    for i, name in enumerate(base_rpcs):
        style = "fire" if i % 6 == 5 else ("aggregate" if i % 6 == 4 else "wait")
        core += [
            f"    def do_{name}(self, *args):",
            f"        self.steps += {i + 1}",
            *([f"        self._record([{i}])"] if i % 3 == 0 else []),
            f"        return {waited(repr(name), style)}",
            "",
        ]
    disagg_core = [
        "",
        "class DisaggEngineCore(EngineCore):",
        '    """The configured caller: a disaggregated prefill/decode engine."""',
        "",
        "    def start_transfer(self):",
        "        with self._lock:",
        "            self.steps += 1",
        f"        meta = {waited(const[0], 'wait')}",
        f"        peers = {waited(const[1], 'wait')}",
        f"        self.runner_mgr.call_func(rpc_names.{const[2]}, wait_out=True)",
        f"        self.runner_mgr.call_func({unlisted!r}, wait_out=True)  "
        f"{EXPECT_MARK}rpc-unlisted",
        "        self._outputs.put(StepOutput(StepKind.PREFILL, [len(peers)]))",
        "        self._record([self.steps])",
        "        return meta, peers",
        "",
    ]
    # The filler of the two classes, 7 to 6 (as in the classic shape).
    budget = filler_budget(shape.caller_lines, len(core) + len(disagg_core), round(1300 * surface))
    core += filler_methods(rng, "core", round(budget * 7 / 13), "steps")
    core += disagg_core
    core += filler_methods(rng, "disagg", budget - round(budget * 7 / 13), "steps")
    project.add(f"{ROOT}/engine/core.py", "\n".join(core))
    project.regular(f"{ROOT}/engine/roles")  # inside a regular package: see unrelated()
    project.callers.append(f"{ROOT}/engine/core.py")

    # Caller subclasses: each waits on a share of the listed names, in rotating styles.
    to_wait = listed[4:]
    subclass_specs = [
        # (path, import lines, class line, role)
        (
            f"{ROOT}/engine/roles/prefill.py",
            [f"from {ROOT}.engine.core import DisaggEngineCore"],
            "class PrefillEngineCore(DisaggEngineCore):",
        ),
        (
            f"{ROOT}/engine/roles/decode.py",
            [f"from {ROOT}.engine.core import DisaggEngineCore as _DisaggBase"],
            "class DecodeEngineCore(_DisaggBase):",
        ),
        (
            f"{ROOT}/serving/chunked_prefill.py",
            [f"from {ROOT}.engine.roles.prefill import PrefillEngineCore"],
            "class ChunkedPrefillEngineCore(PrefillEngineCore):",
        ),
        (
            f"{ROOT}/serving/disagg/mixed.py",
            [f"from {ROOT}.engine.roles import decode as decode_roles"],
            "class MixedEngineCore(decode_roles.DecodeEngineCore):",
        ),
    ]
    for k in range(max(1, round(3 * scale))):
        parent = ("prefill", "PrefillEngineCore") if k % 2 else ("decode", "DecodeEngineCore")
        subclass_specs.append(
            (
                f"{ROOT}/engine/roles/variant_{k}.py",
                [f"from {ROOT}.engine.roles.{parent[0]} import {parent[1]} as _Parent"],
                f"class Variant{k}EngineCore(_Parent):",
            )
        )
    styles = ("wait", "aggregate", "wait")
    for index, (path, imports, class_line) in enumerate(subclass_specs):
        share = to_wait[index::4] if index < 4 else [rng.choice(listed)]
        lines = [
            '"""An engine core role."""',
            "",
            *HEADER,
            *imports,
            f"from {ROOT}.engine.rpc_names import {const[3]}",
            "",
            "logger = logging.getLogger(__name__)",
            "",
            "",
            class_line,
            "    def role_step(self):",
            "        self.steps += 1",
        ]
        lines.append(f"        {waited(const[3], 'wait')}")
        for j, name in enumerate(share):
            lines.append(f"        {waited(repr(name), styles[(index + j) % len(styles)])}")
        if index == 1:
            lines.append(f"        self.runner_mgr.call_func({fire_only[0]!r})")
            lines.append(
                f"        self.runner_mgr.call_func({misspelled!r}, wait_out=True)  "
                f"{EXPECT_MARK}rpc-unanswered"
            )
        if index == 2:
            lines.append(f"        self.runner_mgr.call_func({fire_only[1]!r}, wait_out=False)")
        lines += ["        return self.steps", ""]
        lines += filler_methods(rng, "role", round(rng.randint(80, 300) * surface), "steps")
        project.add(path, "\n".join(lines))
        project.callers.append(path)

    # Handlers: the base runner, a mixin and the specialised runner.
    runner = [
        '"""The model runner: what a worker process answers, looked up by name."""',
        "",
        *HEADER,
        *STDLIB_REACH,
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "class RunnerPhase(enum.Enum):",
        "    LOADING = enum.auto()",
        "    READY = enum.auto()",
        "",
        "",
        "@dataclass",
        "class RunnerState:",
        "    phase: RunnerPhase = RunnerPhase.LOADING",
        "    served: dict[str, int] = field(default_factory=dict)",
        "",
        "",
        "class ModelRunner:",
        "    def __init__(self, rank=0):",
        "        self.rank = rank",
        "        self._cache = {}",
        "        self.stats = {}",
        "        self._lock = threading.RLock()",
        "        self.state = RunnerState()",
        "",
    ]
    for i, name in enumerate(base_rpcs):
        runner += [f"    def {name}(self, *args):"]
        if i % 4 == 0:
            runner += ["        with self._lock:", f"            self.state.served[{name!r}] = 1"]
        runner += [f"        return self.rank, {name!r}", ""]
    runner += filler_methods(rng, "runner", round(3200 * surface), "rank")
    project.add(f"{ROOT}/worker/model_runner.py", "\n".join(runner))
    half = len(spec_rpcs) // 2
    mixin = [
        '"""KV cache transfer between prefill and decode workers."""',
        "",
        *HEADER,
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "class KVTransferMixin:",
    ]
    for name in spec_rpcs[:half]:
        mixin += [f"    def {name}(self, *args):", f"        return {name!r}", ""]
    mixin += filler_methods(rng, "kv", round(500 * surface), "rank")
    project.add(f"{ROOT}/worker/disagg/kv_transfer.py", "\n".join(mixin))
    project.regular(f"{ROOT}/worker/disagg")
    special = [
        '"""The disaggregated model runner: answers the DISAGG_RPCS."""',
        "",
        *HEADER,
        f"from {ROOT}.worker.disagg.kv_transfer import KVTransferMixin",
        f"from {ROOT}.worker.model_runner import ModelRunner",
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "class DisaggModelRunner(KVTransferMixin, ModelRunner):",
    ]
    for i, name in enumerate([*spec_rpcs[half:], unlisted]):
        special += [f"    def {name}(self, *args):"]
        if i % 3 == 0:  # the base runner's lock and state
            special += ["        with self._lock:", f"            self.state.served[{name!r}] = 1"]
        special += [f"        return {name!r}", ""]
    budget = filler_budget(shape.handler_lines, len(special), round(2400 * surface))
    special += filler_methods(rng, "disagg", budget, "rank")
    project.add(f"{ROOT}/worker/disagg/runner.py", "\n".join(special))

    # A look-alike that is no caller: its dispatches must not be judged.
    project.add(
        f"{ROOT}/legacy/engine_core.py",
        "\n".join(
            [
                '"""The old engine core, kept for reference; not a subclass of any caller."""',
                "",
                "",
                "class EngineCore:",
                "    def __init__(self, runner_mgr):",
                "        self.runner_mgr = runner_mgr",
                "",
                "    def step(self):",
                '        return self.runner_mgr.call_func("no_such_legacy_rpc", wait_out=True)',
                "",
            ]
        ),
    )

    graph = unrelated(project, rng, max(3, round(UNRELATED_AT_1X * scale)))

    # __init__.py of the regular packages: each imports its submodules, as a real
    # package's does; the engine package imports its caller module lazily.
    for package in sorted(project.packages_regular):
        project.modules.append(Module(f"{package}/__init__.py", init_text(project, package)))

    expected = []
    for module in project.modules:
        for number, line in enumerate(module.text.splitlines(), start=1):
            if EXPECT_MARK in line:
                expected.append([line.split(EXPECT_MARK, 1)[1].strip(), module.path, number])
    texts = {m.path: m.text for m in project.modules}
    largest = max(project.callers, key=lambda p: (texts[p].count("\n"), p))
    manifest: dict[str, object] = {
        "generator_version": GENERATOR_VERSION,
        "scale": scale,
        "seed": seed,
        "shape": {"handler_lines": shape.handler_lines, "caller_lines": shape.caller_lines},
        "modules": len(project.modules),
        "lines": sum(m.text.count("\n") for m in project.modules),
        "largest_caller_module": largest,
        "caller_module": f"{ROOT}/engine/core.py",  # the configured caller class's module
        "handler_module": f"{ROOT}/worker/disagg/runner.py",  # the configured handler's
        "caller_modules": sorted(project.callers),
        "handler_modules": [
            f"{ROOT}/worker/model_runner.py",
            f"{ROOT}/worker/disagg/kv_transfer.py",
            f"{ROOT}/worker/disagg/runner.py",
        ],
        "registry": f"{ROOT}/config.py",
        "namespace_packages": sorted(project.packages_namespace),
        "regular_packages": sorted(project.packages_regular),
        "expected_findings": sorted(expected),
        "import_graph": {
            "lazy_getattr": f"{ROOT}/engine/__init__.py",  # imports the caller module
            "caller_importers": len(graph.caller_importers),
            "ring": graph.count if graph.count > 1 else 0,
        },
    }
    return project, manifest


def unrelated_module(index: int) -> tuple[str, str]:
    """The package (a folder) and the dotted name of unrelated module *index*."""
    area = AREAS[index % len(AREAS)]
    sub = SUBS[(index // len(AREAS)) % len(SUBS)]
    package = f"{ROOT}/{area}/{sub}"
    return package, f"{package.replace('/', '.')}.mod_{index}"


CALLER_MODULE = f"{ROOT}.engine.core"


@dataclass
class Graph:
    """The import graph of the unrelated modules (generator version 3), as real trees have:

    - a ring: module *i* imports module *i + 1* (the last the first), so that with the
      imports of earlier modules' classes every unrelated module, and every package
      ``__init__.py`` that imports one, is in one strongly connected component;
    - 19 modules in 20 import the caller module: ``from infer.engine.core import
      EngineCore``, or every third of them ``from infer.engine import core``, which
      resolves through the package's lazy module-level ``__getattr__``; none subclasses a
      caller, so the planted findings stay the same.
    """

    count: int
    caller_importers: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.caller_importers = [i for i in range(self.count) if i % 20 != 19]

    def imports_of(self, index: int) -> list[str]:
        lines = []
        if self.count > 1:
            package, name = unrelated_module((index + 1) % self.count)
            lines.append(
                f"from {package.replace('/', '.')} import {name.rsplit('.', 1)[1]} as _ring"
            )
        if index in self.caller_importers:
            if index % 3 == 2:
                lines.append(f"from {ROOT}.engine import core as engine_core")
            else:
                lines.append(f"from {CALLER_MODULE} import EngineCore")
        return lines

    def uses_of(self, index: int) -> list[str]:
        lines = []
        if self.count > 1:
            lines += ["", "", "def ring_size():", "    return _ring.DEFAULT_SIZE + DEFAULT_SIZE"]
        if index in self.caller_importers:
            core = "engine_core.EngineCore" if index % 3 == 2 else "EngineCore"
            lines += ["", "", "def is_engine_core(obj):", f"    return isinstance(obj, {core})"]
        return lines


def unrelated(project: Project, rng: random.Random, count: int) -> Graph:
    """*count* modules of ordinary code: classes, methods, imports and calls."""
    graph = Graph(count)
    classes: list[tuple[str, str]] = []  # (module, class name) defined so far
    for area_index, area in enumerate(AREAS):
        if area_index % 3 == 0:  # a third of the areas are regular packages
            project.regular(f"{ROOT}/{area}")
    for index in range(count):
        area = AREAS[index % len(AREAS)]
        sub = SUBS[(index // len(AREAS)) % len(SUBS)]
        package, module_name = unrelated_module(index)
        # pylint --recursive=y skips a folder without __init__.py inside a regular package,
        # so a regular area's sub-packages are regular too.
        if f"{ROOT}/{area}" in project.packages_regular or (index // len(AREAS)) % 4 == 1:
            project.regular(package)
        target = rng.randint(*MODULE_LINES)
        stdlib = sorted(rng.sample(STDLIB, 3))
        unused = rng.random() < 0.3  # a few unused imports, as in real code
        lines = [
            f'"""{area.capitalize()} {sub} module {index}."""',
            "",
            "from __future__ import annotations",
            "",
            *(f"import {name}" for name in sorted({"logging", "math", "time", *stdlib})),
            *(["import functools as _unused_functools"] if unused else []),
            "",
        ]
        lines += graph.imports_of(index)
        parents: list[tuple[str, str]] = []
        if classes:
            for module, name in rng.sample(classes, min(3, len(classes))):
                if module != module_name and (module, name) not in parents:
                    parents.append((module, name))
        for module, name in parents:
            lines.append(f"from {module} import {name}")
        lines += [
            "",
            "logger = logging.getLogger(__name__)",
            f"DEFAULT_SIZE = {rng.randint(8, 4096)}",
            "",
            "",
            "def helper(a, b=2):",
            "    return a * b + DEFAULT_SIZE",
            "",
        ]
        class_index = 0
        while len(lines) < target:
            cls = f"{rng.choice(NOUNS).capitalize()}{rng.choice(VERBS).capitalize()}{class_index}"
            base = rng.choice(parents)[1] if parents and rng.random() < 0.5 else None
            lines += ["", f"class {cls}({base}):" if base else f"class {cls}:"]
            lines += [
                f'    """A {cls} of the {area} subsystem."""',
                "",
                "    def __init__(self, pool=None, size=8):",
                *(["        super().__init__(pool, size)"] if base else []),
                "        self.pool = pool",
                "        self.size = size",
                "        self._cache = {}",
                "        self.stats = {}",
                "",
            ]
            # A dispatch-like call on a receiver that is no caller; the first class has one.
            if rng.random() < 0.05 or not classes:
                lines += [
                    "    def sync_pool(self, payload):",
                    f'        result = self.pool.call_func("{rng.choice(VERBS)}_pool", payload,'
                    " wait_out=True)",
                    '        self.stats["sync_pool"] = result',
                    "        return helper(len(self.stats))",
                    "",
                ]
            for _ in range(rng.randint(3, 9)):
                lines += filler_method(rng, f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}", "size")
            class_index += 1
            classes.append((module_name, cls))
        if parents:
            module, name = parents[0]
            lines += ["", f"def make_{index}(pool=None):", f"    return {name}(pool, DEFAULT_SIZE)"]
        lines += graph.uses_of(index)
        project.add(f"{package}/mod_{index}.py", "\n".join(lines) + "\n")
    return graph


ENGINE_INIT = f'''"""{ROOT}/engine: the engine cores; the caller module is imported lazily."""

from __future__ import annotations

from {ROOT}.engine import rpc_names

__all__ = ["core", "rpc_names"]


def __getattr__(name):
    if name == "core":
        import {CALLER_MODULE} as core

        return core
    raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
'''


def init_text(project: Project, package: str) -> str:
    """The ``__init__.py`` of *package*: its docstring and imports of its submodules.

    ``infer/engine``'s imports the name constants and, through a module-level
    ``__getattr__``, the caller module (lazily, as vLLM's ``vllm/__init__.py`` does); every
    other package imports up to three of its modules and regular sub-packages, in the
    order of their names.
    """
    if package == f"{ROOT}/engine":
        return ENGINE_INIT
    prefix = package + "/"
    children = sorted(
        {
            m.path[len(prefix) : -3]
            for m in project.modules
            if m.path.startswith(prefix) and "/" not in m.path[len(prefix) :]
        }
        | {
            sub[len(prefix) :]
            for sub in project.packages_regular
            if sub.startswith(prefix) and "/" not in sub[len(prefix) :]
        }
    )
    text = f'"""{package}."""\n'
    if children:
        dotted = package.replace("/", ".")
        text += f"\nfrom {dotted} import {', '.join(children[:3])}\n"
    return text


PYPROJECT = f"""\
# A synthetic inference engine generated by bench/generate_project.py; see .bench.json.
[tool.rpcsurface]
source-roots = ["."]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.dispatch]]
method = "call_func_with_aggregation"
waits = true

[[tool.rpcsurface.surface]]
name = "disagg"
callers = ["{ROOT}.engine.core.DisaggEngineCore"]
handlers = ["{ROOT}.worker.disagg.runner.DisaggModelRunner"]
base-handlers = ["{ROOT}.worker.model_runner.ModelRunner"]
registry = "{ROOT}.config.DISAGG_RPCS"
"""


def write(out: Path, scale: float, seed: int, shape: Shape | None = None) -> dict[str, object]:
    """Generate the project into *out* (which must not exist or be empty); return the manifest."""
    project, manifest = build(scale, seed, shape)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    for module in project.modules:
        target = out / module.path
        target.parent.mkdir(parents=True, exist_ok=True)
        text = module.text if module.text.endswith("\n") else module.text + "\n"
        target.write_text(text, encoding="utf-8")
    # Count what was written, not what was meant to be.
    files = sorted(out.rglob("*.py"))
    manifest["modules"] = len(files)
    manifest["lines"] = sum(f.read_text("utf-8").count("\n") for f in files)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def read_manifest(out: Path) -> dict[str, object] | None:
    try:
        loaded = json.loads((out / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    """--shape, --handler-lines and --caller-lines (bench/run.py takes them too)."""
    parser.add_argument(
        "--shape",
        choices=sorted(SHAPES),
        default=DEFAULT_SHAPE,
        help="length of the handler and caller modules: real (>= 5.1k and 1.25k lines, a "
        "real engine's, default) or classic (generator version 1's, about 2.4k and 1.4k)",
    )
    for role in ("handler", "caller"):
        parser.add_argument(
            f"--{role}-lines",
            type=int,
            metavar="N",
            help=f"make the {role} class's module at least N lines (overrides --shape's)",
        )


def shape_of(parser: argparse.ArgumentParser, options: argparse.Namespace) -> Shape:
    """The Shape the options ask for; a usage error for a length below 1."""
    shape: Shape = SHAPES[options.shape]
    for role in ("handler", "caller"):
        lines = getattr(options, f"{role}_lines")
        if lines is not None and lines < 1:
            parser.error(f"--{role}-lines: expected a positive number of lines, got {lines}")
    return Shape(
        options.handler_lines if options.handler_lines is not None else shape.handler_lines,
        options.caller_lines if options.caller_lines is not None else shape.caller_lines,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to create (must be empty or absent)")
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 400+ modules, 180k+ lines")
    parser.add_argument("--seed", type=int, default=0)
    add_shape_arguments(parser)
    parser.add_argument(
        "--force", action="store_true", help="replace OUT if it holds a generated project"
    )
    options = parser.parse_args(argv)
    if not math.isfinite(options.scale) or options.scale <= 0:
        parser.error(f"--scale: expected a positive number, got {options.scale}")
    shape = shape_of(parser, options)
    out: Path = options.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not (options.force and out.is_dir() and read_manifest(out) is not None):
            print(
                f"{out}: expected an empty or absent folder (--force replaces a folder "
                f"holding a generated project, one with {MANIFEST})",
                file=sys.stderr,
            )
            return 2
        shutil.rmtree(out)
    manifest = write(out, options.scale, options.seed, shape)
    print(f"generated {out}: scale {options.scale}, seed {options.seed}")
    print(f"modules: {manifest['modules']}")
    print(f"lines: {manifest['lines']}")
    print(f"largest caller module: {manifest['largest_caller_module']}")
    for role in ("handler", "caller"):
        path = manifest[f"{role}_module"]
        assert isinstance(path, str)
        print(f"{role} module: {path}: {(out / path).read_text('utf-8').count(chr(10))} lines")
    expected = manifest["expected_findings"]
    assert isinstance(expected, list)
    print(f"expected findings: {len(expected)}")
    for symbol, path, line in expected:
        print(f"  {path}:{line}: {symbol}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

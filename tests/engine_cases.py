"""The end-to-end engine cases: the shapes real engines are written in.

Each case is a small project: ``cases/<id>/pyproject.toml`` (the ``[tool.rpcsurface]``
table, where ``{m}`` stands for the case's module) and one module
``cases/<id>/<module>.py``. A line of the module ending in ``# [symbol]`` (several
comma-separated) expects exactly that message on that line; a case without markers must
be silent. ``texts`` are fragments some message of the case must contain.

Every case keeps a real finding next to the false one it removes, so a fix that silences
the whole shape fails as surely as one that leaves the false finding.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from support import marked_findings


@dataclass(frozen=True)
class EngineCase:
    id: str
    shape: int  # the number of the engine shape the case lays
    description: str
    config: str  # the [tool.rpcsurface] table's body; {m} is the module's name
    source: str
    texts: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        return "e_" + self.id.lower().replace("-", "_")


def source_of(case: EngineCase) -> str:
    return textwrap.dedent(case.source)


def expected(case: EngineCase) -> set[tuple[str, int]]:
    return marked_findings(source_of(case))


def write_cases(root: Path, cases: tuple[EngineCase, ...]) -> None:
    for case in cases:
        folder = root / "cases" / case.id
        folder.mkdir(parents=True)
        table = "[tool.rpcsurface]\n" + textwrap.dedent(case.config).replace("{m}", case.module)
        (folder / "pyproject.toml").write_text(table, encoding="utf-8")
        (folder / f"{case.module}.py").write_text(source_of(case), encoding="utf-8")


COLLECTIVE = """\
[[tool.rpcsurface.dispatch]]
method = "collective_rpc"
waits = true
args-from = "args"
kwargs-from = "kwargs"

[[tool.rpcsurface.surface]]
name = "s"
callers = ["{m}.Executor"]
handlers = ["{m}.Worker"]
"""

_WORKER = """\
        class Worker:
            def set_cache_config(self, cache_config, spec_cache_config):
                return True

            def load(self, path):
                return True
"""

CASES: tuple[EngineCase, ...] = (
    # --- 1. the args tuple passed positionally ------------------------------------------
    EngineCase(
        "ARGS-POSITIONAL",
        1,
        "LMDeploy's collective_rpc(method, args=None, kwargs=None): the tuple and the dict "
        "passed by position bind to the dispatch method's own parameters; a tuple with one "
        "value too many and a misspelt keyword are still reported",
        COLLECTIVE,
        _WORKER
        + """

        class Executor:
            def __init__(self, workers):
                self.workers = workers

            def collective_rpc(self, method, args=None, kwargs=None, timeout=None):
                return [w.run(method, *(args or ()), **(kwargs or {})) for w in self.workers]

            def start(self, cache, spec, path):
                self.collective_rpc("set_cache_config", (cache, spec))
                self.collective_rpc("load", None, {"path": path}, 5.0)
                self.collective_rpc("load", kwargs={"path": path}, timeout=5.0)
                self.collective_rpc("set_cache_config", (cache, spec, 3))  # [rpc-handler-signature]
                self.collective_rpc("load", (), {"pathh": path})  # [rpc-handler-signature]
        """,
        texts=("with 3 positional arguments", "unexpected keyword argument 'pathh'"),
    ),
    EngineCase(
        "ARGS-UNSEEN",
        1,
        "the dispatch method is not in sight (an engine attribute nobody can infer): a call "
        "passing a positional argument or a keyword the configuration doesn't describe is "
        "not judged; one passing only the described keywords still is",
        COLLECTIVE,
        _WORKER
        + """

        class Executor:
            def __init__(self, engine):
                self.engine = engine

            def start(self, cache):
                self.engine.collective_rpc("set_cache_config", (cache,))
                self.engine.collective_rpc("load", args=("p",), timeout=5.0)
                self.engine.collective_rpc("load", args=(cache, 2))  # [rpc-handler-signature]
        """,
        texts=("with 2 positional arguments,",),
    ),
    EngineCase(
        "ARGS-FORWARDED",
        1,
        "a forwarded *args or **kwargs may carry anything: not judged, whether the dispatch "
        "method is seen or not; the literal call next to them still is",
        COLLECTIVE,
        _WORKER
        + """

        class Executor:
            def collective_rpc(self, method, args=None, kwargs=None):
                return method

            def start(self, *rest, **options):
                self.collective_rpc("set_cache_config", *rest)
                self.collective_rpc("set_cache_config", **options)
                self.collective_rpc("load", *rest, kwargs={"path": 1})
                self.collective_rpc("load", args=(1, 2))  # [rpc-handler-signature]
        """,
    ),
)

CALL_FUNC = """\
[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.surface]]
name = "s"
callers = ["{m}.Executor"]
handlers = ["{m}.Worker"]
"""

CASES += (
    # --- 2. classes defined under try/except, if/else, TYPE_CHECKING, version checks --
    EngineCase(
        "CLASS-TRY",
        2,
        "vLLM's RayWorkerWrapper: the handler is defined under try with `Worker = None` in "
        "`except ImportError:`; it resolves to the class, and a subclass of a caller "
        "defined the same way is found through it",
        CALL_FUNC,
        """\
        try:
            import ray

            class Worker:
                def load(self):
                    return ray
        except ImportError:
            Worker = None


        class Executor:
            def start(self):
                self.mgr.call_func("load", wait_out=True)


        try:
            import ray

            class RayExecutor(Executor):
                pass
        except ImportError:
            RayExecutor = None


        class LateExecutor(RayExecutor):
            def more(self):
                self.mgr.call_func("gone", wait_out=True)  # [rpc-unanswered]
        """,
        texts=("'gone' is broadcast by LateExecutor",),
    ),
    EngineCase(
        "CLASS-TYPE-CHECKING",
        2,
        "a caller's subclass written twice, a stub under `if TYPE_CHECKING:` first: the "
        "definition that runs is judged, never the stub",
        CALL_FUNC,
        """\
        from typing import TYPE_CHECKING


        class Worker:
            def load(self):
                return 1


        class Executor:
            def start(self):
                self.mgr.call_func("load", wait_out=True)


        if TYPE_CHECKING:

            class Sub(Executor):
                def more(self):
                    self.mgr.call_func("stub_only", wait_out=True)
        else:

            class Sub(Executor):
                def more(self):
                    self.mgr.call_func("gone", wait_out=True)  # [rpc-unanswered]
        """,
    ),
    EngineCase(
        "CLASS-VERSION",
        2,
        "a handler defined under a version check: the branch this Python runs is judged, "
        "not the last one written",
        CALL_FUNC,
        """\
        import sys

        if sys.version_info >= (3, 8):

            class Worker:
                def load(self):
                    return 1

                def step(self):
                    return 2
        else:

            class Worker:
                def load(self):
                    return 1


        class Executor:
            def start(self):
                self.mgr.call_func("load", wait_out=True)
                self.mgr.call_func("step", wait_out=True)
                self.mgr.call_func("gone", wait_out=True)  # [rpc-unanswered]
        """,
    ),
    EngineCase(
        "CLASS-SEVERAL-HANDLERS",
        2,
        "two definitions of the handler that can both run (a runtime flag): refused with "
        "the reason, not one of them picked",
        CALL_FUNC,
        """\
        # [rpcsurface-config-error]
        import os

        if os.environ.get("FAST"):

            class Worker:
                def load(self):
                    return 1
        else:

            class Worker:
                def step(self):
                    return 1


        class Executor:
            def start(self):
                self.mgr.call_func("load", wait_out=True)
        """,
        texts=("several definitions (lines 6 and 11) that can run",),
    ),
    EngineCase(
        "CLASS-SEVERAL-CALLERS",
        2,
        "a caller's subclass with two definitions that can both run: each is judged, the "
        "second named by its line",
        CALL_FUNC,
        """\
        import os


        class Worker:
            def load(self):
                return 1


        class Executor:
            def start(self):
                self.mgr.call_func("load", wait_out=True)


        if os.environ.get("FAST"):

            class Sub(Executor):
                def more(self):
                    self.mgr.call_func("fast_gone", wait_out=True)  # [rpc-unanswered]
        else:

            class Sub(Executor):
                def more(self):
                    self.mgr.call_func("slow_gone", wait_out=True)  # [rpc-unanswered]
        """,
        texts=("'slow_gone' is broadcast by Sub (line 21)",),
    ),
)

RUN_WORKERS = """\
[[tool.rpcsurface.dispatch]]
method = "_run_workers"
waits = true

[[tool.rpcsurface.surface]]
name = "s"
callers = ["{m}.Executor"]
handlers = ["{m}.Worker"]
"""

RUN_WORKERS_RAY = """\
[[tool.rpcsurface.dispatch]]
method = "_run_workers"
waits = true

[[tool.rpcsurface.dispatch]]
method = "execute_method"
waits = true

[[tool.rpcsurface.dispatch]]
method = "remote"
waits = false

[[tool.rpcsurface.surface]]
name = "s"
callers = ["{m}.Executor"]
handlers = ["{m}.Worker"]
"""

CALL_UTILITY = """\
[[tool.rpcsurface.dispatch]]
method = "_call_utility_async"
waits = true

[[tool.rpcsurface.surface]]
name = "s"
callers = ["{m}.DPAsyncMPClient"]
handlers = ["{m}.EngineCore"]
"""

CASES += (
    # --- 3. a forwarding layer that rebinds its parameter --------------------------------
    EngineCase(
        "REBIND-FORWARDING",
        3,
        "vLLM's `sent_method = method if isinstance(method, str) else "
        "cloudpickle.dumps(method)`: a forwarding layer, silent; a parameter reassigned from "
        "something else, or a branch giving a literal, stays uninferable",
        RUN_WORKERS,
        """\
        import cloudpickle


        class Worker:
            def load(self):
                return 1


        class Executor:
            def collective_rpc(self, method, args=()):
                sent_method = method if isinstance(method, str) else cloudpickle.dumps(method)
                return self._run_workers(sent_method, *args)

            def alias(self, method):
                forwarded = method
                return self._run_workers(forwarded)

            def start(self):
                self._run_workers("load")
                self._run_workers("gone")  # [rpc-unanswered]

            def renamed(self, method):
                method = method + "_v2"
                return self._run_workers(method)  # [rpc-name-uninferable]

            def defaulted(self, method, flag):
                sent = method if flag else "load"
                return self._run_workers(sent)  # [rpc-name-uninferable]

            def suffixed(self, method, flag):
                sent = method if flag else method + "_v2"
                return self._run_workers(sent)  # [rpc-name-uninferable]
        """,
    ),
    EngineCase(
        "FORWARD-DEL",
        3,
        "vLLM's _run_workers: the statement form of the rebind, `del method` after it, the "
        "name read in a list comprehension and by the driver call, MultiprocExecutor's "
        "dumps(method, protocol=pickle.HIGHEST_PROTOCOL), the local annotated first, and "
        "the parameter rebound from itself: a forwarding layer, silent; a branch giving a "
        "literal or another value, the name rebound after, del then a rebinding from "
        "something else, a binding a raise in a try may leave, a rebinding later in a "
        "loop stay uninferable",
        RUN_WORKERS_RAY,
        """\
        import pickle

        import cloudpickle
        import ray


        class Worker:
            def load(self):
                return 1


        class Executor:
            def _run_workers(self, method, *args, **kwargs):
                if isinstance(method, str):
                    sent_method = method
                else:
                    sent_method = cloudpickle.dumps(method)
                del method
                ray_worker_outputs = [
                    worker.execute_method.remote(sent_method, *args, **kwargs)
                    for worker in self.workers
                ]
                driver_output = self.driver_worker.execute_method(sent_method, *args, **kwargs)
                return [driver_output] + ray.get(ray_worker_outputs)

            def multiproc(self, method, *args):
                if isinstance(method, str):
                    send_method = method
                else:
                    send_method = cloudpickle.dumps(method, protocol=pickle.HIGHEST_PROTOCOL)
                return self.driver_worker.execute_method(send_method, *args)

            def annotated(self, method, *args):
                sent_method: str | bytes
                if isinstance(method, str):
                    sent_method = method
                else:
                    sent_method = cloudpickle.dumps(method)
                return self.driver_worker.execute_method(sent_method, *args)

            def normalised(self, method, *args):
                method = method if isinstance(method, str) else cloudpickle.dumps(method)
                return self.driver_worker.execute_method(method, *args)

            def start(self):
                self._run_workers("load")
                self._run_workers("gone")  # [rpc-unanswered]

            def defaulted(self, method):
                if isinstance(method, str):
                    sent_method = method
                else:
                    sent_method = "load"
                return self.driver_worker.execute_method(sent_method)  # [rpc-name-uninferable]

            def rebound(self, method):
                if isinstance(method, str):
                    sent_method = method
                else:
                    sent_method = cloudpickle.dumps(method)
                sent_method = self.rename(sent_method)
                return self.driver_worker.execute_method(sent_method)  # [rpc-name-uninferable]

            def replaced(self, method):
                del method
                method = self.default_method
                return self.driver_worker.execute_method(method)  # [rpc-name-uninferable]

            def guarded(self, method):
                try:
                    sent_method = self.fallback_method
                    self.validate(method)
                    sent_method = method
                except ValueError:
                    pass
                return self.driver_worker.execute_method(sent_method)  # [rpc-name-uninferable]

            def looped(self, method):
                sent_method = method
                for worker in self.workers:
                    worker.execute_method.remote(sent_method)  # [rpc-name-uninferable]
                    sent_method = sent_method + "_next"

            def other_branch(self, method, flag):
                sent_method = method if flag else self.default_method
                return self.driver_worker.execute_method(sent_method)  # [rpc-name-uninferable]

            def prefixed(self, method, flag):
                sent_method = method if flag else PREFIX + method
                return self.driver_worker.execute_method(sent_method)  # [rpc-name-uninferable]


        PREFIX = "v2_"
        """,
    ),
    EngineCase(
        "FORWARD-NESTED",
        3,
        "vLLM's call_utility_async: the name forwarded from inside a comprehension passed "
        "to asyncio.gather, a generator, a lambda and a nested def: silent; a lambda or a "
        "generator that reads the name rebound after it, or a name rebound through "
        "nonlocal, stays uninferable",
        CALL_UTILITY,
        """\
        import asyncio


        class EngineCore:
            def profile(self, is_start):
                return is_start


        class DPAsyncMPClient:
            async def call_utility_async(self, method, *args):
                # Only the result from the first engine is returned.
                return (await asyncio.gather(*[
                    self._call_utility_async(method, *args, engine=engine)
                    for engine in self.core_engines
                ]))[0]

            async def call_each(self, method, *args):
                return await asyncio.gather(
                    *(self._call_utility_async(method, *args, engine=e) for e in self.core_engines)
                )

            def later(self, method):
                return lambda: self._call_utility_async(method, engine=self.engine)

            def deferred(self, method):
                def call(engine):
                    return self._call_utility_async(method, engine=engine)

                return call

            async def start(self):
                await self._call_utility_async("profile", True, engine=self.engine)
                await self._call_utility_async("gone", engine=self.engine)  # [rpc-unanswered]

            def late_rebind(self, method):
                call = lambda: self._call_utility_async(method)  # [rpc-name-uninferable]
                method = method + "_v2"
                return call

            async def late_generator(self, method):
                calls = (self._call_utility_async(method) for _ in "ab")  # [rpc-name-uninferable]
                method = method + "_v2"
                return await asyncio.gather(*calls)

            def through_nonlocal(self, method):
                def rename():
                    nonlocal method
                    method = method + "_v2"

                rename()
                return self._call_utility_async(method, engine=None)  # [rpc-name-uninferable]
        """,
    ),
)

DROPS_NONE = """\
[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"
drops-none = true

[[tool.rpcsurface.surface]]
name = "s"
callers = ["{m}.Executor"]
handlers = ["{m}.Worker"]
"""

CASES += (
    # --- 4. decorated handlers ------------------------------------------------------------
    EngineCase(
        "DECO-TRANSPARENT",
        4,
        "handlers under @torch.inference_mode(), @lru_cache and the engine's own "
        "functools.wraps pass-through wrapper are checked: a waited prefill_forward sent "
        "without its batch, a None reply; an opaque decorator stays not judged",
        DROPS_NONE,
        """\
        import functools
        from functools import lru_cache

        import torch
        from registry import register


        def with_monitor(func):
            @functools.wraps(func)
            def wrapper(self, *args, **kwargs):
                with torch.cuda.nvtx.range(func.__name__):
                    return func(self, *args, **kwargs)

            return wrapper


        def timed(func):
            def inner(*args, **kwargs):
                return func(*args, **kwargs)

            return inner


        class Worker:
            @torch.inference_mode()
            def prefill_forward(self, batch):
                return batch

            @with_monitor
            def forward(self, batch):
                return batch

            @timed
            def warmup(self):
                self.ready = True

            @lru_cache(maxsize=None)
            def spec(self, name):
                return name

            @register("opaque")
            def opaque(self, batch):
                return None


        class Executor:
            def step(self, batch):
                self.mgr.call_func("prefill_forward", batch, wait_out=True)
                self.mgr.call_func("prefill_forward", wait_out=True)  # [rpc-handler-signature]
                self.mgr.call_func("forward", batch, wait_out=True)
                self.mgr.call_func("forward", batch, 2, wait_out=True)  # [rpc-handler-signature]
                self.mgr.call_func("warmup", wait_out=True)  # [rpc-waited-none-reply]
                self.mgr.call_func("spec", wait_out=True)  # [rpc-handler-signature]
                self.mgr.call_func("opaque", wait_out=True)
        """,
        texts=("missing required argument(s) 'batch'",),
    ),
    EngineCase(
        "DECO-NOT-PASS-THROUGH",
        4,
        "wrappers that drop or change the arguments, or swallow the reply, are opaque: "
        "their handlers are not judged",
        DROPS_NONE,
        """\
        import functools


        def fixed(func):
            @functools.wraps(func)
            def wrapper(self, *args, **kwargs):
                return func(self, 1)

            return wrapper


        def swallow(func):
            def wrapper(*args, **kwargs):
                func(*args, **kwargs)

            return wrapper


        def when_ready(func):
            def wrapper(self, *args, **kwargs):
                if self.ready:
                    return func(self, *args, **kwargs)

            return wrapper


        def unbound(func):
            def wrapper(self, *args, **kwargs):
                return func(*args, **kwargs)

            return wrapper


        class Worker:
            @fixed
            def forward(self, batch):
                return batch

            @swallow
            def load(self, path):
                return path

            @when_ready
            def warm(self, n):
                return n

            @unbound
            def bind(self, n):
                return n


        class Executor:
            def step(self):
                self.mgr.call_func("forward", wait_out=True)
                self.mgr.call_func("load", wait_out=True)
                self.mgr.call_func("warm", wait_out=True)
                self.mgr.call_func("bind", wait_out=True)
        """,
    ),
)

CASES += (
    # --- 5. what the worker does with an unknown name ------------------------------------
    EngineCase(
        "UNKNOWN-RAISES",
        5,
        "vLLM's run_method raises NotImplementedError on a name the worker lacks: "
        "unknown-name = 'raises', and rpc-unanswered says the caller gets the error",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "collective_rpc"
        waits = true
        unknown-name = "raises"

        [[tool.rpcsurface.dispatch]]
        method = "call_func"
        waits = "wait_out"

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Executor"]
        handlers = ["{m}.Worker"]
        """,
        """\
        class Worker:
            def load(self):
                return 1


        class Executor:
            def start(self):
                self.collective_rpc("load")
                self.collective_rpc("start_profile")  # [rpc-unanswered]
                self.call_func("stop_profile", wait_out=True)  # [rpc-unanswered]
        """,
        texts=(
            "'start_profile' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the workers raise on the unknown name, and the caller gets the error "
            "instead of a reply",
            "'stop_profile' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes and blocks forever",
        ),
    ),
)

CASES += (
    # --- 7. messages that list every caller ------------------------------------------------
    EngineCase(
        "CALLERS-CAPPED",
        7,
        "a site run by five callers names three and counts the rest; four are all named",
        CALL_FUNC,
        """\
        class Worker:
            def load(self):
                return 1


        class Executor:
            def start(self):
                self.mgr.call_func("gone", wait_out=True)  # [rpc-unanswered]


        class RayExecutor(Executor):
            pass


        class MpExecutor(Executor):
            pass


        class UniExecutor(Executor):
            def more(self):
                self.mgr.call_func("also_gone", wait_out=True)  # [rpc-unanswered]


        class ExternalExecutor(UniExecutor):
            pass
        """,
        texts=(
            "'gone' is broadcast by Executor, ExternalExecutor, MpExecutor and 2 more callers, "
            "but no handler answers it",
            "'also_gone' is broadcast by ExternalExecutor and UniExecutor, but",
        ),
    ),
)

_WAIT_WORKER = """\
        class Worker:
            def load(self):
                return 1

"""

CASES += (
    # --- 6. wait forms ----------------------------------------------------------------------
    EngineCase(
        "WAITS-UNLESS",
        6,
        "vLLM's non_block=True and TensorRT-LLM's async_call=True: waits-unless names the "
        "keyword whose true value means not waited; absent means waited",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "_run_workers"
        waits-unless = "non_block"

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Executor"]
        handlers = ["{m}.Worker"]
        """,
        _WAIT_WORKER
        + """
        class Executor:
            def start(self, flag):
                self._run_workers("load", non_block=True)
                self._run_workers("gone_waited")  # [rpc-unanswered]
                self._run_workers("gone_waited_too", non_block=False)  # [rpc-unanswered]
                self._run_workers("gone_unwaited", non_block=True)  # [rpc-unanswered]
                self._run_workers("load", non_block=flag)  # [rpc-wait-uninferable]
        """,
        texts=(
            "'gone_waited' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'gone_waited_too' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'gone_unwaited' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the workers skip it silently",
        ),
    ),
    EngineCase(
        "WAITS-WHEN-ABSENT",
        6,
        "a wait keyword whose absence means waited: waits-when-absent = true",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "call"
        waits = "wait"
        waits-when-absent = true

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Executor"]
        handlers = ["{m}.Worker"]
        """,
        _WAIT_WORKER
        + """
        class Executor:
            def start(self):
                self.mgr.call("gone_waited")  # [rpc-unanswered]
                self.mgr.call("gone_unwaited", wait=False)  # [rpc-unanswered]
        """,
        texts=(
            "'gone_waited' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'gone_unwaited' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the workers skip it silently",
        ),
    ),
    EngineCase(
        "CALLED-AS-FUNCTION",
        6,
        "OpenRLHF's batch_vllm_engine_call(engines, 'sleep'): a plain function with the name "
        "at index 1 (called-as = 'function'); a plain call of a method-style dispatch is "
        "still not one",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "batch_engine_call"
        called-as = "function"
        name-arg = 1
        waits = true

        [[tool.rpcsurface.dispatch]]
        method = "call_func"
        waits = true

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Trainer"]
        handlers = ["{m}.Engine"]
        """,
        """\
        import ray


        class Engine:
            def sleep(self, level=1):
                return level

            def wake_up(self):
                return True


        def batch_engine_call(engines, method_name, *args, **kwargs):
            return ray.get([getattr(e, method_name).remote(*args, **kwargs) for e in engines])


        def call_func(name):
            return name


        class Trainer:
            def step(self):
                batch_engine_call(self.engines, "wake_up")
                batch_engine_call(self.engines, "sleep", 2)
                batch_engine_call(self.engines, "sleep", 1, 2)  # [rpc-handler-signature]
                batch_engine_call(self.engines, "gone")  # [rpc-unanswered]
                call_func("not_a_dispatch")
        """,
    ),
)

CASES += (
    EngineCase(
        "WAITED-BY-RAY-GET",
        6,
        "OpenRLHF's ray.get(group.async_run_method(method_name='fit')): waited-by names the "
        "function the result must reach; a dropped result is not waited on, a returned one "
        "is not known",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "async_run_method"
        name-keyword = "method_name"
        waited-by = ["ray.get"]

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Executor"]
        handlers = ["{m}.Worker"]
        """,
        _WAIT_WORKER
        + """
        import ray as ray_api


        class Executor:
            def start(self, gs):
                ray_api.get(self.g.async_run_method(method_name="gone_waited"))  # [rpc-unanswered]
                ray_api.get(
                    [g.async_run_method(method_name="gone_list") for g in gs]  # [rpc-unanswered]
                )
                refs = self.g.async_run_method(method_name="gone_later")  # [rpc-unanswered]
                ray_api.get(refs)
                self.g.async_run_method(method_name="gone_dropped")  # [rpc-unanswered]
                return self.g.async_run_method(method_name="gone_returned")  # [rpc-unanswered]
        """,
        texts=(
            "'gone_waited' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'gone_list' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'gone_later' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'gone_dropped' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the workers skip it silently",
            "'gone_returned' is broadcast by Executor, but no handler answers it (handlers: "
            "Worker): the workers skip it, and a caller that waits blocks forever",
        ),
    ),
)

CASES += (
    # --- 2b. a method bound by assignment ------------------------------------------------
    EngineCase(
        "METHOD-BY-ASSIGNMENT",
        2,
        "a class attribute bound to a module-level function (send = _send_impl) is a method "
        "the class runs: its broadcasts are the class's, and the helper it calls is followed",
        CALL_FUNC,
        _WORKER
        + """

        def _send_impl(self):
            self.mgr.call_func("load", "/weights", wait_out=True)
            self.mgr.call_func("lost", wait_out=True)  # [rpc-unanswered]


        class Executor:
            send = _send_impl
            data = 3

            def run(self):
                return self.send()
        """,
    ),
)

CASES += (
    # --- 6. callers that are module-level functions --------------------------------------
    EngineCase(
        "FUNCTION-CALLERS",
        6,
        "vLLM sends from module-level functions: a function named in callers broadcasts its "
        "own body (a nested function and a lambda in it too) and its helpers' calls, and is "
        "named by its short name; of a function written twice, the TYPE_CHECKING stub is "
        "never judged; a name only a function waits on is rightly in the registry",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "call_func"
        waits = "wait_out"

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Executor", "{m}.broadcast_sleep", "{m}.broadcast_wake"]
        handlers = ["{m}.Worker"]
        registry = "{m}.WAITED"
        """,
        """\
        from typing import TYPE_CHECKING

        WAITED = ("load", "sleep", "wake_up")


        class Worker:
            def load(self):
                return 1

            def sleep(self, level):
                return level

            def wake_up(self):
                return True


        class Executor:
            def start(self, mgr):
                mgr.call_func("load", wait_out=True)


        def _wake(mgr):
            mgr.call_func("wake_up", wait_out=True)
            mgr.call_func("wake_upp", wait_out=True)  # [rpc-unanswered]


        def broadcast_wake(mgr):
            _wake(mgr)


        if TYPE_CHECKING:

            def broadcast_sleep(mgr, level):
                mgr.call_func("stub_only", wait_out=True)
        else:

            def broadcast_sleep(mgr, level):
                mgr.call_func("sleep", level, wait_out=True)
                mgr.call_func("sleeep", level, wait_out=True)  # [rpc-unanswered]

                def later():
                    mgr.call_func("nested_gone", wait_out=True)  # [rpc-unanswered]

                return later, lambda: mgr.call_func("lambda_gone")  # [rpc-unanswered]


        def not_a_caller(mgr):
            mgr.call_func("never_judged", wait_out=True)
        """,
        texts=(
            "'sleeep' is broadcast by broadcast_sleep, but no handler answers it (handlers: "
            "Worker): the caller waits for a reply that never comes",
            "'wake_upp' is broadcast by broadcast_wake via _wake() at e_function_callers.py:28, "
            "but no handler answers it",
        ),
    ),
    EngineCase(
        "FUNCTION-CALLERS-UNRESOLVED",
        6,
        "a caller that is neither a class nor a module-level function (a name bound nowhere, "
        "a method, a constant, a function only a TYPE_CHECKING stub defines): each a "
        "configuration error saying what was expected",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "call_func"
        waits = "wait_out"

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.broadcast_gone", "{m}.Executor.start", "{m}.WAITED", "{m}.stubbed"]
        handlers = ["{m}.Worker"]
        """,
        """\
        # [rpcsurface-config-error]
        from typing import TYPE_CHECKING

        WAITED = ("load",)


        class Worker:
            def load(self):
                return 1


        class Executor:
            def start(self, mgr):
                mgr.call_func("gone", wait_out=True)


        if TYPE_CHECKING:

            def stubbed(mgr):
                mgr.call_func("gone", wait_out=True)
        """,
        texts=(
            "tool.rpcsurface.surface[0].callers[0]: expected a class or a module-level "
            "function under the source roots, but 'e_function_callers_unresolved' has no "
            "attribute 'broadcast_gone' that infers to one class or module-level function",
            "tool.rpcsurface.surface[0].callers[1]: expected a class or a module-level "
            "function under the source roots, but 'e_function_callers_unresolved.Executor' "
            "has no attribute 'start' that infers to one class or module-level function",
            "tool.rpcsurface.surface[0].callers[2]: expected a class or a module-level "
            "function under the source roots, but 'e_function_callers_unresolved' has no "
            "attribute 'WAITED' that infers to one class or module-level function",
            "tool.rpcsurface.surface[0].callers[3]: expected a class or a module-level "
            "function under the source roots, but 'e_function_callers_unresolved' has no "
            "attribute 'stubbed' that infers to one class or module-level function",
        ),
    ),
)

CASES += (
    # --- a loop that answers a name itself, before the handlers' lookup ---------------
    EngineCase(
        "LOOP-ANSWERS",
        7,
        'nano-vllm-voxcpm\'s server loop: `if method_name == "stop": return {...}` before '
        "`getattr(srv, method_name)`; with answered-before-lookup naming it, it is answered "
        "(no rpc-unanswered, no handler's signature judged, not wanted in the registry, and "
        "rpc-listed-in-base where it is listed); a misspelt name is still unanswered",
        """\
        [[tool.rpcsurface.dispatch]]
        method = "submit"
        waits = true
        unknown-name = "raises"

        [[tool.rpcsurface.surface]]
        name = "s"
        callers = ["{m}.Client"]
        handlers = ["{m}.Server"]
        registry = "{m}.RPCS"
        answered-before-lookup = ["stop", "shutdown"]
        """,
        """\
        RPCS = (
            "health",
            "stop",  # [rpc-listed-in-base]
        )


        class Server:
            def health(self):
                return True

            def stop(self):
                return True


        def method_call(srv, cmd):
            method_name = cmd["type"]
            if method_name in ("stop", "shutdown"):
                return {"data": None}
            return {"data": getattr(srv, method_name)(*cmd["args"])}


        class Client:
            def submit(self, cmd, *args):
                return cmd, args

            def run(self):
                self.submit("health")
                self.submit("stop", 1, 2)
                self.submit("shutdown")
                self.submit("stopp")  # [rpc-unanswered]
        """,
        texts=(
            "'stop' is listed in e_loop_answers.RPCS, but the receiving loop itself "
            "(answered-before-lookup) answers it already",
        ),
    ),
)

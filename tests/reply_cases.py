"""The end-to-end reply cases: None replies, stale replies, reply arity, handler
signatures and helpers.

Each case is a small project: ``cases/<id>/pyproject.toml`` and one module
``cases/<id>/<module>.py``. A line of the module ending in ``# [symbol]`` (several
comma-separated) expects exactly that message on that line; a case without markers must
be silent. ``texts`` are fragments some message of the case must contain; ``{line:X}``
in a fragment is the number of the line of the module that contains X.

All cases are linted in one pylint run (each file finds its own pyproject.toml), which
keeps the table cheap enough to grow.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from support import marked_findings


@dataclass(frozen=True)
class ReplyCase:
    id: str
    message: str  # the message the case is about, for the closing table
    description: str
    source: str  # the module, dedented; the caller is <module>.Core, the handler <module>.Runner
    dispatch: str = ""  # extra keys of the call_func dispatch table
    top: str = ""  # extra top-level keys
    texts: tuple[str, ...] = ()
    handlers: str = "Runner"  # the handler classes, comma-separated short names
    opt_in_off: bool = field(default=False)  # linted with pylint's defaults, not --enable

    @property
    def module(self) -> str:
        return "c_" + self.id.lower().replace("-", "_")


def pyproject(case: ReplyCase) -> str:
    handlers = ", ".join(f'"{case.module}.{name.strip()}"' for name in case.handlers.split(","))
    return (
        f"[tool.rpcsurface]\n{case.top}"
        '[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\nwaits = "wait_out"\n'
        f"{case.dispatch}"
        '[[tool.rpcsurface.surface]]\nname = "s"\n'
        f'callers = ["{case.module}.Core"]\nhandlers = [{handlers}]\n'
    )


def source_of(case: ReplyCase) -> str:
    return textwrap.dedent(case.source)


def expected(case: ReplyCase) -> set[tuple[str, int]]:
    return marked_findings(source_of(case))


def resolve(case: ReplyCase, fragment: str) -> str:
    """Replace ``{line:X}`` by the number of the (only) line containing X."""
    lines = source_of(case).splitlines()

    def number(match: re.Match[str]) -> str:
        hits = [n for n, line in enumerate(lines, start=1) if match[1] in line]
        assert len(hits) == 1, f"{case.id}: {match[1]!r} is on lines {hits}, not one line"
        return str(hits[0])

    return re.sub(r"\{line:([^}]*)\}", number, fragment)


def write_cases(root: Path, cases: tuple[ReplyCase, ...]) -> None:
    for case in cases:
        folder = root / "cases" / case.id
        folder.mkdir(parents=True)
        (folder / "pyproject.toml").write_text(pyproject(case), encoding="utf-8")
        (folder / f"{case.module}.py").write_text(source_of(case), encoding="utf-8")


DROPS = "drops-none = true\n"
SHARED = "shared-reply-queue = true\n"
VLLM = 'args-from = "args"\nkwargs-from = "kwargs"\n'

CASES: tuple[ReplyCase, ...] = (
    # --- rpc-waited-none-reply -----------------------------------------------------------
    ReplyCase(
        "NONE-FALLS-OFF",
        "rpc-waited-none-reply",
        "a waited handler that falls off its end: fires, naming the handler's file:line",
        """\
        class Runner:
            def load(self):
                self.loaded = True


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)  # [rpc-waited-none-reply]
        """,
        dispatch=DROPS,
        texts=(
            "'load' is waited on by Core, but its handler Runner.load at "
            "c_none_falls_off.py:{line:def load}",
        ),
    ),
    ReplyCase(
        "NONE-INFERRED",
        "rpc-waited-none-reply",
        "bare return, return None and a name inferring to None, on every path: fires",
        """\
        NOTHING = None


        class Runner:
            def load(self, flag):
                if flag:
                    return
                if flag > 1:
                    return None
                return NOTHING


        class Core:
            def run(self, mgr):
                mgr.call_func("load", 1, wait_out=True)  # [rpc-waited-none-reply]
        """,
        dispatch=DROPS,
    ),
    ReplyCase(
        "NONE-RANK-THEN-VALUE",
        "rpc-waited-none-reply",
        "`if rank: return None` then `return value`: no none-reply; the opt-in maybe-none "
        "(enabled here by --enable=rpcsurface) names the None line",
        """\
        class Runner:
            def load(self):
                if self.rank:
                    return None
                return self.rank + 1


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)  # [rpc-waited-maybe-none]
        """,
        dispatch=DROPS,
        texts=("may return None (at c_none_rank_then_value.py:{line:return None})",),
    ),
    ReplyCase(
        "NONE-RAISES-ELSE",
        "rpc-waited-none-reply",
        "a handler that raises on every path but its value path: silent (no maybe either)",
        """\
        class Runner:
            def load(self, flag):
                if flag:
                    return [flag]
                try:
                    raise KeyError(flag)
                finally:
                    self.flag = flag


        class Core:
            def run(self, mgr):
                mgr.call_func("load", 1, wait_out=True)
        """,
        dispatch=DROPS,
    ),
    ReplyCase(
        "NONE-STUB-RAISES",
        "rpc-waited-none-reply",
        "a stub raising NotImplementedError never returns: silent",
        """\
        class Runner:
            def load(self):
                raise NotImplementedError


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)
        """,
        dispatch=DROPS,
    ),
    ReplyCase(
        "NONE-NOT-DROPPED",
        "rpc-waited-none-reply",
        "falls off its end, but drops-none is off: silent",
        """\
        class Runner:
            def load(self):
                self.loaded = True


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)
        """,
    ),
    ReplyCase(
        "NONE-UNWAITED",
        "rpc-waited-none-reply",
        "falls off its end, drops-none on, but nobody waits: silent",
        """\
        class Runner:
            def load(self):
                self.loaded = True


        class Core:
            def run(self, mgr):
                mgr.call_func("load")
        """,
        dispatch=DROPS,
    ),
    ReplyCase(
        "NONE-UNKNOWN-VALUE",
        "rpc-waited-none-reply",
        "returns a value astroid can't infer: no claim, silent",
        """\
        class Runner:
            def load(self, table):
                return table.lookup()


        class Core:
            def run(self, mgr):
                mgr.call_func("load", 1, wait_out=True)
        """,
        dispatch=DROPS,
    ),
    ReplyCase(
        "MAYBE-OFF-BY-DEFAULT",
        "rpc-waited-maybe-none",
        "pylint's defaults (no --enable): the opt-in message stays off, none-reply shows",
        """\
        class Runner:
            def load(self):
                if self.rank:
                    return None
                return self.rank + 1

            def save(self):
                self.saved = True


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)
                mgr.call_func("save", wait_out=True)  # [rpc-waited-none-reply]
        """,
        dispatch=DROPS,
        opt_in_off=True,
    ),
    # --- rpc-unwaited-reply ----------------------------------------------------------------
    ReplyCase(
        "UNWAITED-VALUE",
        "rpc-unwaited-reply",
        "an unwaited call of a handler that returns a value: fires, naming the return line",
        """\
        class Runner:
            def flush(self):
                return {"flushed": True}


        class Core:
            def run(self, mgr):
                mgr.call_func("flush")  # [rpc-unwaited-reply]
        """,
        dispatch=SHARED,
        texts=("returns a value (at c_unwaited_value.py:{line:return {})",),
    ),
    ReplyCase(
        "UNWAITED-NONE",
        "rpc-unwaited-reply",
        "an unwaited call of a handler that returns None: silent",
        """\
        class Runner:
            def flush(self):
                self.queue = []
                return None


        class Core:
            def run(self, mgr):
                mgr.call_func("flush")
        """,
        dispatch=SHARED,
    ),
    ReplyCase(
        "UNWAITED-QUEUE-OFF",
        "rpc-unwaited-reply",
        "returns a value, unwaited, but shared-reply-queue is off: silent",
        """\
        class Runner:
            def flush(self):
                return {"flushed": True}


        class Core:
            def run(self, mgr):
                mgr.call_func("flush")
        """,
    ),
    ReplyCase(
        "UNWAITED-WAITED",
        "rpc-unwaited-reply",
        "returns a value and the call waits: silent",
        """\
        class Runner:
            def flush(self):
                return {"flushed": True}


        class Core:
            def run(self, mgr):
                mgr.call_func("flush", wait_out=True)
        """,
        dispatch=SHARED,
    ),
    ReplyCase(
        "UNWAITED-PRAGMA",
        "rpc-unwaited-reply",
        "the benign exit sent last, silenced with a pragma on its line: silent",
        """\
        class Runner:
            def exit(self):
                return True


        class Core:
            def shutdown(self, mgr):
                mgr.call_func("exit")  # pylint: disable=rpc-unwaited-reply
        """,
        dispatch=SHARED,
    ),
    # --- rpc-reply-arity -------------------------------------------------------------------
    ReplyCase(
        "ARITY-2-OF-3",
        "rpc-reply-arity",
        "a 2-name unpack of a handler returning 3-tuples: fires, naming N, M and the line",
        """\
        class Runner:
            def stats(self):
                return 1, 2, 3


        class Core:
            def run(self, mgr):
                a, b = mgr.call_func("stats", wait_out=True)  # [rpc-reply-arity]
                return a, b
        """,
        texts=(
            "'stats' reply is unpacked into 2 values by Core, but its handler Runner.stats "
            "at c_arity_2_of_3.py:{line:def stats} returns a tuple of 3 at "
            "c_arity_2_of_3.py:{line:return 1, 2, 3}",
        ),
    ),
    ReplyCase(
        "ARITY-INFERRED",
        "rpc-reply-arity",
        "the returned tuple is a name astroid infers; a list target: fires",
        """\
        TRIPLE = (1, 2, 3)


        class Runner:
            def stats(self):
                return TRIPLE


        class Core:
            def run(self, mgr):
                [a, b, c, d] = mgr.call_func("stats", wait_out=True)  # [rpc-reply-arity]
                return a, b, c, d
        """,
    ),
    ReplyCase(
        "ARITY-WHOLE",
        "rpc-reply-arity",
        "a single-name target takes the whole reply: silent",
        """\
        class Runner:
            def stats(self):
                return 1, 2, 3


        class Core:
            def run(self, mgr):
                whole = mgr.call_func("stats", wait_out=True)
                return whole
        """,
    ),
    ReplyCase(
        "ARITY-TWO-SHAPES",
        "rpc-reply-arity",
        "a handler with two return shapes is not inferable: silent, no guess",
        """\
        class Runner:
            def stats(self, full):
                if full:
                    return 1, 2, 3
                return 1, 2


        class Core:
            def run(self, mgr):
                a, b = mgr.call_func("stats", 0, wait_out=True)
                return a, b
        """,
    ),
    ReplyCase(
        "ARITY-MATCHES",
        "rpc-reply-arity",
        "a 3-name unpack of 3-tuples, and a starred target: silent",
        """\
        class Runner:
            def stats(self):
                return 1, 2, 3


        class Core:
            def run(self, mgr):
                a, b, c = mgr.call_func("stats", wait_out=True)
                first, *rest = mgr.call_func("stats", wait_out=True)
                return a, b, c, first, rest
        """,
    ),
    # --- rpc-handler-signature -------------------------------------------------------------
    ReplyCase(
        "SIG-MISSING",
        "rpc-handler-signature",
        "a missing positional: fires, naming the argument",
        """\
        class Runner:
            def forward(self, seq_ids, token_ids):
                return seq_ids + token_ids


        class Core:
            def run(self, mgr, seq_ids):
                mgr.call_func("forward", seq_ids, wait_out=True)  # [rpc-handler-signature]
        """,
        texts=(
            "'forward' is sent by Core with 1 positional argument, but its handler "
            "Runner.forward at c_sig_missing.py:{line:def forward} takes (seq_ids, token_ids): "
            "it is missing required argument(s) 'token_ids'",
        ),
    ),
    ReplyCase(
        "SIG-EXTRA",
        "rpc-handler-signature",
        "an extra positional: fires",
        """\
        class Runner:
            def forward(self, seq_ids):
                return seq_ids


        class Core:
            def run(self, mgr, seq_ids):
                mgr.call_func("forward", seq_ids, 1, wait_out=True)  # [rpc-handler-signature]
        """,
        texts=("it takes 1 positional argument(s) but 2 were given",),
    ),
    ReplyCase(
        "SIG-STARARGS",
        "rpc-handler-signature",
        "*args in the handler accepts any count; defaults fill the rest: silent",
        """\
        class Runner:
            def forward(self, *args):
                return args

            def load(self, path, strict=True):
                return path, strict


        class Core:
            def run(self, mgr):
                mgr.call_func("forward", 1, 2, 3, 4, wait_out=True)
                mgr.call_func("forward", wait_out=True)
                mgr.call_func("load", "p", wait_out=True)
                mgr.call_func("load", "p", False, wait_out=True)
        """,
    ),
    ReplyCase(
        "SIG-UNKNOWN-AT-CALL",
        "rpc-handler-signature",
        "*args at the call, or a handler under an opaque decorator: not judged, silent "
        "(functools.lru_cache, which this case once used, is transparent now)",
        """\
        from registry import register


        class Runner:
            def forward(self, seq_ids):
                return seq_ids

            @register
            def cached(self, key):
                return key


        class Core:
            def run(self, mgr, extra):
                mgr.call_func("forward", *extra, wait_out=True)
                mgr.call_func("cached", wait_out=True)
        """,
    ),
    ReplyCase(
        "SIG-VLLM",
        "rpc-handler-signature",
        "args=/kwargs= (vLLM style): a missing argument, an unknown keyword and a "
        "positional-only passed as a keyword fire; a good call is silent",
        """\
        class Runner:
            def load(self, path, /, *, strict):
                return path, strict


        class Core:
            def run(self, mgr):
                mgr.call_func("load", args=("p",), kwargs={"strict": True})
                mgr.call_func("load", kwargs={"strict": 1})  # [rpc-handler-signature]
                mgr.call_func("load", args=(1,), kwargs={"x": 2})  # [rpc-handler-signature]
                mgr.call_func("load", kwargs={"path": "p", "strict": 1})  # [rpc-handler-signature]
        """,
        dispatch=VLLM,
        texts=(
            "it got an unexpected keyword argument 'x'",
            "it is missing required argument(s) 'path'",
            "with the keywords 'path', 'strict'",
        ),
    ),
    # --- helpers ---------------------------------------------------------------------------
    ReplyCase(
        "HELPER-DIRECT",
        "helpers",
        "a module-level helper the caller calls: its broadcast is the caller's, via it",
        """\
        class Runner:
            def load(self):
                return 1


        def drain(mgr):
            return mgr.call_func("drain", wait_out=True)  # [rpc-unanswered]


        class Core:
            def run(self, mgr):
                drain(mgr)
        """,
        texts=(
            "'drain' is broadcast by Core via drain() at c_helper_direct.py:{line:        drain(}",
        ),
    ),
    ReplyCase(
        "HELPER-CHAIN",
        "helpers",
        "a two-level chain through a staticmethod of another class: named in full",
        """\
        class Runner:
            def load(self):
                self.loaded = True


        def _rebind(mgr):
            mgr.call_func("load", wait_out=True)  # [rpc-waited-none-reply]


        class Tools:
            @staticmethod
            def reconnect(mgr):
                _rebind(mgr)


        class Core:
            def run(self, mgr):
                Tools.reconnect(mgr)
        """,
        dispatch=DROPS,
        texts=(
            "waited on by Core via reconnect() at c_helper_chain.py:{line:Tools.reconnect(mgr)}"
            ", _rebind() at c_helper_chain.py:{line:    _rebind(mgr)}",
        ),
    ),
    ReplyCase(
        "HELPER-CLASSMETHOD",
        "helpers",
        "a classmethod of another class, called on the class and through cls: followed",
        """\
        class Runner:
            def load(self):
                return 1


        class Tools:
            @classmethod
            def reset(cls, mgr):
                cls.flush(mgr)

            @classmethod
            def flush(cls, mgr):
                mgr.call_func("flush_all", wait_out=True)  # [rpc-unanswered]


        class Core:
            def run(self, mgr):
                Tools.reset(mgr)
        """,
        texts=("via reset() at c_helper_classmethod.py:{line:Tools.reset(mgr)}, flush() at",),
    ),
    ReplyCase(
        "HELPER-TWO-CHAINS",
        "helpers",
        "one helper reached by two chains: one finding, naming the shortest chain",
        """\
        class Runner:
            def load(self):
                return 1


        def drain(mgr):
            mgr.call_func("drain_rpc", wait_out=True)  # [rpc-unanswered]


        def outer(mgr):
            drain(mgr)


        class Core:
            def a(self, mgr):
                outer(mgr)

            def b(self, mgr):
                drain(mgr)  # the short way
        """,
        texts=("by Core via drain() at c_helper_two_chains.py:{line:# the short way}, but",),
    ),
    ReplyCase(
        "HELPER-RECURSION",
        "helpers",
        "a helper calling itself and two calling each other: terminates, one finding each",
        """\
        class Runner:
            def load(self):
                return 1


        def again(mgr, n):
            mgr.call_func("again_rpc", wait_out=True)  # [rpc-unanswered]
            if n:
                again(mgr, n - 1)


        def ping(mgr):
            mgr.call_func("ping_rpc")  # [rpc-unanswered]
            pong(mgr)


        def pong(mgr):
            ping(mgr)


        class Core:
            def run(self, mgr):
                again(mgr, 3)
                ping(mgr)
        """,
    ),
    ReplyCase(
        "HELPER-UNRESOLVABLE",
        "helpers",
        "calls astroid can't resolve to one function (unknown import, getattr, a "
        "parameter): no guess, no crash, silent",
        """\
        import importlib

        from nowhere_at_all import drain


        class Runner:
            def load(self):
                return 1


        def helper(mgr):
            mgr.call_func("never_seen", wait_out=True)


        class Core:
            def run(self, mgr, callback, name):
                drain(mgr)
                getattr(importlib.import_module("x"), name)(mgr)
                callback(mgr)
        """,
    ),
    ReplyCase(
        "HELPER-DEPTH",
        "helpers",
        "helper-depth = 1: the first helper is followed, the second is not",
        """\
        class Runner:
            def load(self):
                return 1


        def inner(mgr):
            mgr.call_func("too_deep", wait_out=True)


        def outer(mgr):
            mgr.call_func("shallow", wait_out=True)  # [rpc-unanswered]
            inner(mgr)


        class Core:
            def run(self, mgr):
                outer(mgr)
        """,
        top="helper-depth = 1\n",
    ),
    ReplyCase(
        "HELPER-NOT-CALLED",
        "helpers",
        "a helper no caller calls: silent (as seed X1)",
        """\
        class Runner:
            def load(self):
                return 1


        def drain(mgr):
            return mgr.call_func("drain", wait_out=True)


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)
        """,
    ),
    # --- forwarding layers, callables, several handlers ------------------------------------
    ReplyCase(
        "FORWARD-AND-CALLABLE",
        "forwarding",
        "a name passed through from a parameter, a function, a lambda and a bound method "
        "as the name: not named RPCs, silent (no rpc-name-uninferable)",
        """\
        def on_worker(worker):
            return worker


        class Runner:
            def load(self):
                return 1


        class Core:
            def collective_rpc(self, method, *args):
                return self.mgr.call_func(method, *args, wait_out=True)

            def run(self):
                self.mgr.call_func(on_worker, wait_out=True)
                self.mgr.call_func(lambda worker: worker, wait_out=True)
                self.mgr.call_func(self.collective_rpc, wait_out=True)
        """,
    ),
    ReplyCase(
        "FORWARD-REBOUND",
        "forwarding",
        "a parameter rebound before the call is not a plain pass-through: still uninferable",
        """\
        class Runner:
            def load(self):
                return 1


        class Core:
            def call(self, method):
                method = method.strip()
                return self.mgr.call_func(method, wait_out=True)  # [rpc-name-uninferable]
        """,
    ),
    ReplyCase(
        "SEVERAL-HANDLERS",
        "rpc-waited-none-reply",
        "two handler classes: only the one whose method falls off is named",
        """\
        class Runner:
            def load(self):
                return 1


        class LazyRunner(Runner):
            def load(self):  # lazy
                self.lazy = True


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)  # [rpc-waited-none-reply]
        """,
        dispatch=DROPS,
        handlers="Runner, LazyRunner",
        texts=("its handler LazyRunner.load at c_several_handlers.py:{line:# lazy}",),
    ),
    ReplyCase(
        "SHARED-HANDLER-METHOD",
        "rpc-waited-none-reply",
        "two handler classes run one inherited method: the message names both",
        """\
        class Base:
            def load(self):  # shared
                self.loaded = True


        class Runner(Base):
            pass


        class FastRunner(Base):
            pass


        class Core:
            def run(self, mgr):
                mgr.call_func("load", wait_out=True)  # [rpc-waited-none-reply]
        """,
        dispatch=DROPS,
        handlers="Runner, FastRunner",
        texts=(
            "Base.load at c_shared_handler_method.py:{line:# shared} (for FastRunner and Runner)",
        ),
    ),
)

CASES_BY_ID = {case.id: case for case in CASES}

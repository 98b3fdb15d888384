"""The end-to-end cases of issue 13: the shapes real engines are written in.

Each case is a small project: ``cases/<id>/pyproject.toml`` (the ``[tool.rpcsurface]``
table, where ``{m}`` stands for the case's module) and one module
``cases/<id>/<module>.py``. A line of the module ending in ``# [symbol]`` (several
comma-separated) expects exactly that message on that line; a case without markers must
be silent. ``texts`` are fragments some message of the case must contain.

Every case keeps a real finding next to the false one it removes, so a fix that silences
the whole shape fails as surely as one that leaves the false finding.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"#\s*\[([a-z-]+(?:\s*,\s*[a-z-]+)*)\]\s*$")


@dataclass(frozen=True)
class EngineCase:
    id: str
    shape: int  # the numbered shape of issue 13
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
    found = set()
    for number, line in enumerate(source_of(case).splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found.update((symbol.strip(), number) for symbol in match.group(1).split(","))
    return found


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

"""A tiny valid project for end-to-end tests, and the checks every such run shares.

Everything lives in app.py: one caller, a base handler, a handler and the registry.
PYPROJECT with APP is silent; APP_PLANTED adds one waited RPC nobody answers.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from pylint_runner import PylintRun

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


def explain(run: PylintRun) -> str:
    listed = "\n".join(f"  {m.path}:{m.line}:{m.column} {m.symbol}: {m.text}" for m in run.messages)
    return (
        f"exit {run.returncode}\nmessages:\n{listed or '  (none)'}\n"
        f"stdout:\n{run.stdout[-3000:]}\nstderr:\n{run.stderr[-3000:]}"
    )


def assert_no_crash(run: PylintRun) -> None:
    """No traceback, no pylint crash message (F0001 fatal, F0002 astroid-error)."""
    for stream in (run.stdout, run.stderr):
        assert "Traceback" not in stream, explain(run)
        assert "F0002" not in stream, explain(run)
    assert "Exception" not in run.stderr, explain(run)
    assert run.stdout.lstrip().startswith("{"), explain(run)  # the json2 report, nothing else
    assert not any(m.symbol in ("fatal", "astroid-error") for m in run.messages), explain(run)
    assert not run.returncode & 1, explain(run)  # pylint's "fatal message issued" bit

"""What a worker does with a request type it has no handler for is read from its code
(issue 46, item 5): an ``isinstance`` chain whose ``else:`` raises, or a dispatcher of
(type, handler) pairs whose ``__call__`` raises on a miss (SGLang's
``TypeBasedDispatcher``), raises, and ``rpc-unanswered`` says so even when the dispatch
sets no ``unknown-name``; an explicit ``unknown-name`` stays the override, and a miss path
that does not raise keeps the default text. Run through the ``rpcsurface`` console
script and pylint, which must agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import describe_run, line_of, project, run_check, run_pylint

PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "send_pyobj"
key = "type"
waits = true
{unknown_name}

[[tool.rpcsurface.surface]]
name = "scheduler"
callers = ["srt.tokenizer_manager.TokenizerManager"]
tables = ["{table}"]
"""

TOKENIZER_MANAGER = """\
from srt.io_struct import AbortReq, FlushCacheReqInput


class TokenizerManager:
    def __init__(self, send_to_scheduler):
        self.send_to_scheduler = send_to_scheduler

    def flush_cache(self):
        return self.send_to_scheduler.send_pyobj(FlushCacheReqInput())

    def abort_request(self, rid):
        return self.send_to_scheduler.send_pyobj(AbortReq(rid))
"""

IO_STRUCT = """\
class FlushCacheReqInput:
    pass


class AbortReq:
    def __init__(self, rid):
        self.rid = rid
"""

# The scheduler of SGLang 0.4.0: an isinstance chain over the requests received.
CHAIN = """\
from srt.io_struct import FlushCacheReqInput


class Scheduler:
    def process_input_requests(self, recv_reqs):
        for recv_req in recv_reqs:
            if isinstance(recv_req, FlushCacheReqInput):
                self.flush_cache()
            else:
                {miss}

    def flush_cache(self):
        return True
"""

# A dispatcher of (type, handler) pairs, as SGLang's utils.TypeBasedDispatcher.
DISPATCHER = """\
class TypeBasedDispatcher:
    def __init__(self, mapping):
        self._mapping = mapping

    def __call__(self, obj):
        for ty, fn in self._mapping:
            if isinstance(obj, ty):
                return fn(obj)
        {miss}
"""

PAIRS = """\
from srt.io_struct import FlushCacheReqInput
from srt.utils import TypeBasedDispatcher


class Scheduler:
    def __init__(self):
        self._request_dispatcher = TypeBasedDispatcher([(FlushCacheReqInput, self.flush_cache)])

    def flush_cache(self, req):
        return True
"""

RAISE = 'raise NotImplementedError(f"Invalid request: {recv_req}")'
RAISES_TEXT = (
    "the workers raise on the unknown name, and the caller gets the error instead of a reply"
)
SKIPPED_TEXT = "the caller waits for a reply that never comes and blocks forever"


def _project(tmp_path: Path, scheduler: str, table: str, miss: str, unknown_name: str = "") -> Path:
    return project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT.format(unknown_name=unknown_name, table=table),
            "srt/__init__.py": "",
            "srt/tokenizer_manager.py": TOKENIZER_MANAGER,
            "srt/io_struct.py": IO_STRUCT,
            "srt/utils.py": DISPATCHER.replace("{miss}", miss.replace("recv_req", "obj")),
            "srt/scheduler.py": scheduler.replace("{miss}", miss),
        },
    )


CHAIN_TABLE = "srt.scheduler.Scheduler.process_input_requests"
PAIRS_TABLE = "srt.scheduler.Scheduler._request_dispatcher"


# Each case: the scheduler, its table, what its miss path does, the dispatch's
# unknown-name, and the consequence rpc-unanswered ends with.
CASES = {
    "chain-raises": (CHAIN, CHAIN_TABLE, RAISE, "", RAISES_TEXT),
    "dispatcher-raises": (PAIRS, PAIRS_TABLE, RAISE, "", RAISES_TEXT),
    "chain-returns": (CHAIN, CHAIN_TABLE, "return None", "", SKIPPED_TEXT),
    "dispatcher-returns": (PAIRS, PAIRS_TABLE, "return None", "", SKIPPED_TEXT),
    "override": (CHAIN, CHAIN_TABLE, RAISE, 'unknown-name = "skipped"', SKIPPED_TEXT),
    "override-raises": (
        PAIRS, PAIRS_TABLE, "return None", 'unknown-name = "raises"', RAISES_TEXT,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_consequence_of_an_unanswered_type_is_read_from_the_receive_side(
    tmp_path: Path, case: str
) -> None:
    scheduler, table, miss, unknown_name, consequence = CASES[case]
    root = _project(tmp_path, scheduler, table, miss, unknown_name)
    check = run_check(root, "--format", "json", "--no-cache")
    line = line_of(TOKENIZER_MANAGER, "AbortReq(rid)")
    assert [(m.symbol, m.path, m.line) for m in check.messages] == [
        ("rpc-unanswered", "srt/tokenizer_manager.py", line)
    ], check
    assert check.messages[0].text.endswith(": " + consequence), check.messages[0].text
    linted = run_pylint(root, "--recursive=y", "srt")
    assert [(m.symbol, m.path, m.line, m.text) for m in linted.messages] == [
        (m.symbol, m.path, m.line, m.text) for m in check.messages
    ], describe_run(linted)

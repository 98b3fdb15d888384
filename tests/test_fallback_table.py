"""A table of (type, handler) pairs made in a method ``__init__`` calls, then given a
fallback (issue 46, item 2's second form), as SGLang 0.5's ``DataParallelController``
does::

    def init_dispatcher(self):
        self._request_dispatcher = TypeBasedDispatcher([(T, self.handler), ...])
        self._request_dispatcher.add_fallback_fn(self.send_control_message)

The table is read, and its fallback answers every type the pairs don't: no
``rpc-unanswered``. A lambda, or a method of an object the controller holds
(``self.weight_updater.update_weights_from_disk``), answers its type too. Without the
fallback, a type no pair has is unanswered (and raises, as the dispatcher's ``__call__``
does); a fallback given anywhere but right after the
table is made, or a table made in a method ``__init__`` does not call, is a
configuration error naming the key. Run through the ``rpcsurface`` console script and
pylint, which must agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import describe_run, line_of, project, run_check, run_cli, run_pylint

PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "send_pyobj"
key = "type"

[[tool.rpcsurface.surface]]
name = "data-parallel"
callers = ["srt.managers.tokenizer_manager.TokenizerManager"]
tables = ["srt.managers.data_parallel_controller.DataParallelController._request_dispatcher"]
"""

IO_STRUCT = """\
class TokenizedGenerateReqInput:
    pass


class ProfileReq:
    pass


class ElasticScaleUpdateReq:
    pass


class FlushCacheReqInput:
    pass


class UpdateWeightFromDiskReqInput:
    pass
"""

UTILS = """\
class TypeBasedDispatcher:
    def __init__(self, mapping):
        self._mapping = dict(mapping)
        self._fallback_fn = None

    def add_fallback_fn(self, fallback_fn):
        self._fallback_fn = fallback_fn

    def __call__(self, obj):
        fn = self._mapping.get(type(obj))
        if fn is not None:
            return fn(obj)
        if self._fallback_fn is not None:
            return self._fallback_fn(obj)
        raise ValueError(f"Invalid object: {obj}")
"""

TOKENIZER_MANAGER = """\
from srt.managers.io_struct import (
    FlushCacheReqInput,
    ProfileReq,
    TokenizedGenerateReqInput,
    UpdateWeightFromDiskReqInput,
)


class TokenizerManager:
    def __init__(self, send_to_scheduler):
        self.send_to_scheduler = send_to_scheduler

    def generate(self):
        self.send_to_scheduler.send_pyobj(TokenizedGenerateReqInput())

    def start_profile(self):
        self.send_to_scheduler.send_pyobj(ProfileReq())

    def flush_cache(self):
        self.send_to_scheduler.send_pyobj(FlushCacheReqInput())

    def update_weights_from_disk(self):
        self.send_to_scheduler.send_pyobj(UpdateWeightFromDiskReqInput())
"""

CONTROLLER = """\
from srt.managers.io_struct import (
    ElasticScaleUpdateReq,
    ProfileReq,
    TokenizedGenerateReqInput,
    UpdateWeightFromDiskReqInput,
)
from srt.utils import TypeBasedDispatcher


class DataParallelController:
    def __init__(self, server_args, weight_updater):
        self.workers = []
        self.weight_updater = weight_updater
        self.init_dispatcher()

    def init_dispatcher(self):
        self._request_dispatcher = TypeBasedDispatcher(
            [
                (TokenizedGenerateReqInput, self.dispatching_with_trace),
                (ProfileReq, self.send_to_all_workers),
                (ElasticScaleUpdateReq, lambda msg: self.add_elastic_workers(msg.count)),
                (UpdateWeightFromDiskReqInput, self.weight_updater.update_weights_from_disk),
            ]
        )
        self._request_dispatcher.add_fallback_fn(self.send_control_message)

    def dispatching_with_trace(self, req):
        self.workers[0].send_pyobj(req)

    def send_to_all_workers(self, obj):
        for worker in self.workers:
            worker.send_pyobj(obj)

    def send_control_message(self, obj):
        self.workers[0].send_pyobj(obj)

    def add_elastic_workers(self, count):
        return count
"""

FALLBACK = "        self._request_dispatcher.add_fallback_fn(self.send_control_message)\n"
TABLE_KEY = "tool.rpcsurface.surface[0].tables[0]"
ELSEWHERE = "is given a fallback at line {line} outside the statements that follow where it is made"


def _project(tmp_path: Path, controller: str = CONTROLLER) -> Path:
    return project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT,
            "srt/__init__.py": "",
            "srt/utils.py": UTILS,
            "srt/managers/__init__.py": "",
            "srt/managers/io_struct.py": IO_STRUCT,
            "srt/managers/tokenizer_manager.py": TOKENIZER_MANAGER,
            "srt/managers/data_parallel_controller.py": controller,
        },
    )


def _agreed(root: Path) -> set[tuple[str, str, int, str]]:
    """The findings of ``rpcsurface check``, checked equal to pylint's."""
    check = run_check(root, "--format", "json", "--no-cache")
    assert check.returncode in (0, 1), check
    found = {(m.symbol, m.path, m.line, m.text) for m in check.messages}
    linted = run_pylint(root, "--recursive=y", "srt")
    assert {(m.symbol, m.path, m.line, m.text) for m in linted.messages} == found, describe_run(
        linted
    )
    return found


def test_the_fallback_answers_every_type_the_pairs_do_not(tmp_path: Path) -> None:
    assert _agreed(_project(tmp_path)) == set()


def test_without_the_fallback_a_type_without_a_pair_is_unanswered(tmp_path: Path) -> None:
    found = _agreed(_project(tmp_path, CONTROLLER.replace(FALLBACK, "")))
    line = line_of(TOKENIZER_MANAGER, "FlushCacheReqInput()")
    assert {(symbol, path, at) for symbol, path, at, _ in found} == {
        ("rpc-unanswered", "srt/managers/tokenizer_manager.py", line)
    }
    # The dispatcher's __call__ ends in a raise: the message says the workers raise.
    assert "the workers raise on the unknown name" in next(iter(found))[3]


@pytest.mark.parametrize(
    ("controller", "expected"),
    [
        pytest.param(
            CONTROLLER.replace(FALLBACK, "").replace(
                "    def send_control_message(self, obj):\n",
                "    def enable_fallback(self):\n"
                "        self._request_dispatcher.add_fallback_fn(self.send_control_message)\n"
                "\n    def send_control_message(self, obj):\n",
            ),
            ELSEWHERE,
            id="fallback-elsewhere",
        ),
        pytest.param(
            CONTROLLER.replace(
                "        self.init_dispatcher()\n", "        self.started = False\n"
            ),
            "is assigned outside DataParallelController.__init__ and the methods it calls",
            id="made-in-a-method-init-does-not-call",
        ),
        pytest.param(
            CONTROLLER.replace(
                FALLBACK,
                "        if self.workers:\n"
                "            self._request_dispatcher.add_fallback_fn(self.send_control_message)\n",
            ),
            ELSEWHERE,
            id="fallback-under-a-condition",
        ),
    ],
)
def test_a_table_whose_fallback_or_making_may_not_run_is_a_configuration_error(
    tmp_path: Path, controller: str, expected: str
) -> None:
    run = run_cli(_project(tmp_path, controller), "check", "--no-cache")
    if "{line}" in expected:
        expected = expected.format(line=line_of(controller, "add_fallback_fn"))
    assert run.returncode == 2, run
    assert f"{TABLE_KEY}: " in run.stdout + run.stderr, run
    assert expected in run.stdout + run.stderr, run
    assert "Traceback" not in run.stderr

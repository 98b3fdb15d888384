"""Reply checks end to end: each case of reply_cases.py linted with real pylint, compared with
its ``# [symbol]`` markers and text fragments."""

from __future__ import annotations

from pathlib import Path

import pytest
from reply_cases import CASES, ReplyCase, expected, resolve, write_cases
from support import PylintRun, assert_no_crash, describe_run, run_pylint

OURS = {
    "rpc-waited-none-reply",
    "rpc-waited-maybe-none",
    "rpc-unwaited-reply",
    "rpc-reply-arity",
    "rpc-handler-signature",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, tuple[Path, PylintRun]]:
    """One pylint run over every case with --enable=rpcsurface, and one with pylint's
    defaults over the cases that check what is on by default."""
    found = {}
    for opt_in_off in (False, True):
        cases = tuple(c for c in CASES if c.opt_in_off is opt_in_off)
        root = tmp_path_factory.mktemp("opt_in_off" if opt_in_off else "enabled")
        write_cases(root, cases)
        files = [f"cases/{c.id}/{c.module}.py" for c in cases]
        run = run_pylint(root, *files, only_ours=not opt_in_off)
        assert_no_crash(run)
        found[opt_in_off] = (root, run)
    return found


def _ids(case: ReplyCase) -> str:
    return case.id


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_reply_case(case: ReplyCase, runs: dict[bool, tuple[Path, PylintRun]]) -> None:
    _, run = runs[case.opt_in_off]
    path = f"cases/{case.id}/{case.module}.py"
    mine = [m for m in run.messages if m.path == path]
    if case.opt_in_off:  # every checker ran: keep ours
        mine = [m for m in mine if m.symbol.startswith("rpc")]
    assert {(m.symbol, m.line) for m in mine} == expected(case), describe_run(run)
    places = [(m.symbol, m.line, m.column) for m in mine]
    assert len(places) == len(set(places)), f"reported twice:\n{describe_run(run)}"
    for fragment in case.texts:
        wanted = resolve(case, fragment)
        assert any(wanted in m.text for m in mine), f"{wanted!r} not in:\n{describe_run(run)}"
    for message in mine:
        assert message.text.startswith("'"), message.text
        assert message.confidence == "INFERENCE" or message.symbol == "rpc-name-uninferable"


def test_every_new_message_fires_in_some_case() -> None:
    fired = {symbol for case in CASES for symbol, _ in expected(case)}
    assert fired >= OURS

"""A proxy reply is read only where it is used (issue 46, item 4), end to end.

tests/fixtures/proxy_reply_use is a small Ray project whose actor replies are all None.
A reply discarded where it is made, or handed back by ``return`` to callers that all
discard it (followed through the project's callers, across classes and modules, through
callers that return it in turn, a cycle included), is not read: no
``rpc-waited-none-reply``. One a caller uses (assigned and read, indexed, compared,
passed on) is read. A method nobody in the project calls hands its reply to nobody the
project shows: not read. What is expected comes from the fixture's ``# [symbol]``
markers, never from a run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import PylintRun, describe_run, marked_findings, run_check, run_cli, run_pylint

FIXTURE = Path(__file__).parent / "fixtures" / "proxy_reply_use"
NONE_REPLY = "rpc-waited-none-reply"
Key = tuple[str, str, int]  # (symbol, path, line)


def python_files(root: Path = FIXTURE) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*.py") if "__pycache__" not in p.parts
    )


def planted(root: Path = FIXTURE) -> set[Key]:
    return {
        (symbol, relpath, line)
        for relpath in python_files(root)
        for symbol, line in marked_findings((root / relpath).read_text("utf-8"))
    }


EXPECTED = planted()


def fresh_copy(tmp_path: Path) -> Path:
    return Path(
        shutil.copytree(FIXTURE, tmp_path / "project", ignore=shutil.ignore_patterns("__pycache__"))
    )


def _pylint_keys(run: PylintRun) -> set[Key]:
    assert "Traceback" not in run.stdout + run.stderr, describe_run(run)
    return {(m.symbol, m.path, m.line) for m in run.messages}


def _check_keys(copy: Path, *args: str) -> set[Key]:
    run = run_check(copy, "--format", "json", *args)
    assert run.returncode in (0, 1), run
    assert "Traceback" not in run.stderr, run.stderr
    return {(m.symbol, m.path, m.line) for m in run.messages}


def _line(copy: Path, relpath: str, fragment: str) -> int:
    lines = (copy / relpath).read_text("utf-8").splitlines()
    (number,) = [n for n, line in enumerate(lines, 1) if fragment in line]
    return number


def _edit(copy: Path, relpath: str, old: str, new: str) -> None:
    path = copy / relpath
    text = path.read_text("utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), "utf-8")


def test_the_fixture_plants_read_replies_and_holds_every_shape() -> None:
    group = (FIXTURE / "rl" / "group.py").read_text("utf-8")
    marked = {line for _, path, line in EXPECTED if path == "rl/group.py"}
    # The five uses are planted; the six shapes that do not read are not.
    for read in ("get_lr", "get_loss", "get_version", "get_state", "sync"):
        assert _line(FIXTURE, "rl/group.py", f"a.{read}.remote(") in marked, read
    for unread in ("offload", "clear_memory", "save_model", "reset", "describe", "ping", "flush"):
        assert _line(FIXTURE, "rl/group.py", f"a.{unread}.remote(") not in marked, unread
    assert {symbol for symbol, _, _ in EXPECTED} == {NONE_REPLY}
    # A worker group's plain call (remote = false): returned, discarded by its caller
    # in one method, read in another.
    assert ("rl/wg.py", _line(FIXTURE, "rl/wg.py", "self.wg.get_lr()")) in {
        (path, line) for _, path, line in EXPECTED
    }
    assert ("rl/wg.py", _line(FIXTURE, "rl/wg.py", "self.wg.offload()")) not in {
        (path, line) for _, path, line in EXPECTED
    }
    assert "return self.reset(False)" in group  # the cycle


MODES = {
    "pylint --recursive=y .": lambda copy: _pylint_keys(run_pylint(copy, "--recursive=y", ".")),
    "pylint rl": lambda copy: _pylint_keys(run_pylint(copy, "rl")),
    "rpcsurface check": _check_keys,
    "rpcsurface check --no-cache": lambda copy: _check_keys(copy, "--no-cache"),
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_reports_only_the_replies_a_caller_reads(mode: str, tmp_path: Path) -> None:
    assert MODES[mode](fresh_copy(tmp_path)) == EXPECTED


FILES_WITH_FINDINGS = sorted({path for _, path, _ in EXPECTED})


def _in(relpath: str, keys: set[Key]) -> set[Key]:
    return {key for key in keys if key[1] == relpath}


@pytest.mark.parametrize("relpath", FILES_WITH_FINDINGS)
def test_pylint_on_one_file_gives_its_findings(relpath: str, tmp_path: Path) -> None:
    keys = _pylint_keys(run_pylint(fresh_copy(tmp_path), relpath))
    assert keys == _in(relpath, EXPECTED)


@pytest.mark.parametrize("relpath", FILES_WITH_FINDINGS)
def test_pylint_from_stdin_gives_the_buffers_findings(relpath: str, tmp_path: Path) -> None:
    copy = fresh_copy(tmp_path)
    buffer = (copy / relpath).read_text("utf-8")
    (copy / relpath).write_text("", "utf-8")
    keys = _pylint_keys(run_pylint(copy, "--from-stdin", relpath, stdin=buffer))
    assert keys == _in(relpath, EXPECTED)


def test_the_message_names_where_a_returned_reply_is_read(tmp_path: Path) -> None:
    """The message is at the proxy call; the place that reads what the method hands back
    is named, through callers that return it in turn too (sync: Trainer.synced, then
    loop.train, whose value an if tests)."""
    run = run_pylint(fresh_copy(tmp_path), "--recursive=y", ".")
    texts = {m.text for m in run.messages if m.symbol == NONE_REPLY}
    lr_read = _line(FIXTURE, "rl/trainer.py", "lr = self.actor_model.get_lr()")
    handler = _line(FIXTURE, "rl/actor.py", "def get_lr(")
    assert (
        "'get_lr' is waited on by RayTrainGroup.get_lr through proxy 'train-actors', but its "
        f"handler TrainActor.get_lr at rl/actor.py:{handler} never returns anything but None: the "
        f"caller reads None as its reply (returned, and read at rl/trainer.py:{lr_read})"
    ) in texts, texts
    sync_read = _line(FIXTURE, "rl/loop.py", "if train(")
    (sync,) = [text for text in texts if text.startswith("'sync' ")]
    assert sync.endswith(f"(returned, and read at rl/loop.py:{sync_read})"), sync


def _finding_of(copy: Path, rpc: str) -> Key:
    return (NONE_REPLY, "rl/group.py", _line(copy, "rl/group.py", f"a.{rpc}.remote("))


@pytest.mark.parametrize(
    ("relpath", "old", "new", "rpc"),
    [
        # A caller in the caller class's own module's neighbour starts reading the value.
        (
            "rl/trainer.py",
            "        self.actor_model.clear_memory()\n",
            "        print(self.actor_model.clear_memory())\n",
            "clear_memory",
        ),
        # A caller in another module, through a parameter, starts reading it.
        (
            "rl/loop.py",
            "    model.clear_memory()\n",
            "    log(model.clear_memory())\n",
            "clear_memory",
        ),
        # The caller of a caller that returns it starts reading it.
        (
            "rl/loop.py",
            "    trainer.checkpoint(1)\n",
            "    log(trainer.checkpoint(1))\n",
            "save_model",
        ),
    ],
)
def test_a_warm_run_follows_a_caller_that_starts_reading(
    relpath: str, old: str, new: str, rpc: str, tmp_path: Path
) -> None:
    """The reply's verdict rests on other functions' bodies: after one caller's edit,
    a run from the store must give what a run from nothing gives, both ways."""
    copy = fresh_copy(tmp_path)
    assert _check_keys(copy) == EXPECTED
    assert _check_keys(copy) == EXPECTED  # from the store
    _edit(copy, relpath, old, new)
    read = EXPECTED | {_finding_of(copy, rpc)}
    assert _check_keys(copy) == _check_keys(copy, "--no-cache") == read
    _edit(copy, relpath, new, old)
    assert _check_keys(copy) == _check_keys(copy, "--no-cache") == EXPECTED


def test_a_warm_run_follows_the_last_reader_that_stops(tmp_path: Path) -> None:
    """get_state's one reader passes it on; once it discards it, the finding goes."""
    copy = fresh_copy(tmp_path)
    assert _check_keys(copy) == EXPECTED
    assert _check_keys(copy) == EXPECTED  # from the store
    _edit(copy, "rl/loop.py", "    log(model.get_state())\n", "    model.get_state()\n")
    unread = EXPECTED - {_finding_of(copy, "get_state")}
    assert _check_keys(copy) == _check_keys(copy, "--no-cache") == unread


def test_a_caller_of_a_method_nobody_called_reads_it(tmp_path: Path) -> None:
    """describe has no caller, so nobody the project shows reads its reply; a new module
    that reads it makes the finding, in pylint on the handler's caller's file too."""
    copy = fresh_copy(tmp_path)
    (copy / "rl" / "report.py").write_text(
        "def show(group):\n    return str(group.describe())\n", "utf-8"
    )
    expected = EXPECTED | {_finding_of(copy, "describe")}
    assert _check_keys(copy) == expected
    assert _pylint_keys(run_pylint(copy, "rl/group.py")) == _in("rl/group.py", expected)


def test_explain_says_what_the_proxy_rule_assumes(tmp_path: Path) -> None:
    completed = run_cli(fresh_copy(tmp_path), "explain", NONE_REPLY)
    assert completed.returncode == 0, completed.stderr
    text = " ".join(completed.stdout.split())
    assert "the reply is read only where it is used" in text, text
    assert "returned to callers that all discard it" in text, text
    assert "from a method no code of the project calls, is not reported" in text, text

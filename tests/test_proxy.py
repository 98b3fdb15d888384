"""Attribute-proxy RPCs end to end: real pylint in every mode and the real
``rpcsurface`` command on tests/fixtures/proxy, whose files hold the hard shapes and
their expected findings.

What is expected comes from the fixture's source, never from a run: a line ending in
``# [symbol] @text`` expects that message on that line, at the column where ``text``
first starts on it (the call's own column).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from support import PylintRun, describe_run, run_check, run_cli, run_pylint

FIXTURE = Path(__file__).parent / "fixtures" / "proxy"
Key = tuple[str, str, int, int]  # (symbol, path, line, column)
_MARKER = re.compile(r"#\s*\[(?P<symbol>[a-z0-9-]+)\]\s+@(?P<text>\S+)$")


def python_files(root: Path = FIXTURE) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*.py") if "__pycache__" not in p.parts
    )


def planted(root: Path = FIXTURE) -> set[Key]:
    found: set[Key] = set()
    for relpath in python_files(root):
        for number, line in enumerate((root / relpath).read_text("utf-8").splitlines(), 1):
            match = _MARKER.search(line)
            if match is None:
                assert "# [" not in line, f"{relpath}:{number}: a malformed marker"
                continue
            column = line.index(match["text"])
            assert column < match.start(), f"{relpath}:{number}: text not in the code"
            found.add((match["symbol"], relpath, number, column))
    return found


EXPECTED = planted()
FILES_WITH_FINDINGS = sorted({key[1] for key in EXPECTED})


def expected_in(paths: set[str]) -> set[Key]:
    return {key for key in EXPECTED if key[1] in paths}


def fresh_copy(tmp_path: Path) -> Path:
    return Path(
        shutil.copytree(FIXTURE, tmp_path / "proxy", ignore=shutil.ignore_patterns("__pycache__"))
    )


def _diff(got: set[Key], want: set[Key]) -> str:
    return f"missing {sorted(want - got)}, unexpected {sorted(got - want)}"


def _pylint_keys(run: PylintRun) -> set[Key]:
    assert "Traceback" not in run.stdout + run.stderr, describe_run(run)
    return {(m.symbol, m.path, m.line, m.column) for m in run.messages}


_CHECK_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<symbol>[a-z0-9-]+): ")


def _check_text(copy: Path, *args: str) -> set[Key]:
    run = run_check(copy, *args)
    assert run.returncode == 1, run
    keys = set()
    for line in run.stdout.splitlines():
        match = _CHECK_LINE.match(line)
        assert match, line
        keys.add((match["symbol"], match["path"], int(match["line"]), int(match["col"])))
    return keys


def _check_json(copy: Path) -> set[Key]:
    run = run_check(copy, "--format", "json")
    assert run.returncode == 1, run
    return {(m.symbol, m.path, m.line, m.column) for m in run.messages}


def _check_sarif(copy: Path) -> set[Key]:
    run = run_check(copy, "--format", "sarif")
    assert run.returncode == 1, run
    (sarif_run,) = json.loads(run.stdout)["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    keys = set()
    for result in sarif_run["results"]:
        if result.get("suppressions"):
            continue
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        keys.add(
            (
                rules[result["ruleIndex"]]["name"],
                physical["artifactLocation"]["uri"],
                physical["region"]["startLine"],
                physical["region"]["startColumn"] - 1,  # 1-based; the fixture is ASCII
            )
        )
    return keys


def test_the_fixture_plants_every_proxy_message() -> None:
    symbols = {key[0] for key in EXPECTED}
    assert symbols == {
        "rpc-proxy-unanswered",
        "rpc-name-uninferable",
        "rpc-proxy-unmapped",
        "rpc-handler-signature",
        "rpc-waited-none-reply",
        "rpc-reply-arity",
    }
    assert len(EXPECTED) >= 5
    text = (FIXTURE / "pyproject.toml").read_text("utf-8")
    assert "[[tool.rpcsurface.dispatch]]" not in text  # a project with proxies only
    source = "".join((FIXTURE / f).read_text("utf-8") for f in python_files())
    for shape in (".options(", "enumerate(", "zip(", "hasattr(", "getattr(", "ray.remote("):
        assert shape in source, shape


MODES = {
    "pylint --recursive=y .": lambda copy: _pylint_keys(run_pylint(copy, "--recursive=y", ".")),
    "pylint rl": lambda copy: _pylint_keys(run_pylint(copy, "rl")),
    "pylint -j 2 --recursive=y .": lambda copy: _pylint_keys(
        run_pylint(copy, "-j", "2", "--recursive=y", ".")
    ),
    "rpcsurface check": _check_text,
    "rpcsurface check --no-cache": lambda copy: _check_text(copy, "--no-cache"),
    "rpcsurface check --format json": _check_json,
    "rpcsurface check --format sarif": _check_sarif,
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_gives_the_planted_findings(mode: str, tmp_path: Path) -> None:
    keys = MODES[mode](fresh_copy(tmp_path))
    assert keys == EXPECTED, _diff(keys, EXPECTED)


@pytest.mark.parametrize("relpath", python_files())
def test_pylint_on_one_file_gives_its_planted_findings(relpath: str, tmp_path: Path) -> None:
    keys = _pylint_keys(run_pylint(fresh_copy(tmp_path), relpath))
    assert keys == expected_in({relpath}), _diff(keys, expected_in({relpath}))


@pytest.mark.parametrize("relpath", FILES_WITH_FINDINGS)
def test_pylint_from_stdin_gives_the_buffers_planted_findings(relpath: str, tmp_path: Path) -> None:
    copy = fresh_copy(tmp_path)
    buffer = (copy / relpath).read_text(encoding="utf-8")
    (copy / relpath).write_text("", encoding="utf-8")
    keys = _pylint_keys(run_pylint(copy, "--from-stdin", relpath, stdin=buffer))
    assert keys == expected_in({relpath}), _diff(keys, expected_in({relpath}))


def test_a_warm_store_gives_the_cold_answer_after_an_edit(tmp_path: Path) -> None:
    """The proxy pieces are kept under what they read: after the handler gains the
    method, the warm run must drop the finding, as a run from nothing does."""
    copy = fresh_copy(tmp_path)
    assert _check_text(copy) == EXPECTED
    assert _check_text(copy) == EXPECTED  # from the store
    actors = copy / "rl" / "actors.py"
    text = actors.read_text("utf-8")
    actors.write_text(
        text.replace(
            "class PolicyActorImpl:\n",
            "class PolicyActorImpl:\n    def save(self, step):\n        return step\n\n",
        ),
        "utf-8",
    )
    # The two calls of save: actor.save.options(...), and the local bound from .save
    # called on the next line.
    lines = (copy / "rl" / "group.py").read_text("utf-8").splitlines()
    saves = {n + 1 for n, line in enumerate(lines) if "actor.save.options(" in line}
    saves |= {n + 2 for n, line in enumerate(lines) if line.endswith("_handlers[0].save")}
    gone = {key for key in EXPECTED if key[1] == "rl/group.py" and key[2] in saves}
    assert len(gone) == 2
    warm = _check_text(copy)
    cold = _check_text(copy, "--no-cache")
    assert warm == cold == EXPECTED - gone, _diff(warm, EXPECTED - gone)


def test_the_message_names_the_rpc_receiver_caller_and_lacking_handler(tmp_path: Path) -> None:
    run = run_pylint(fresh_copy(tmp_path), "rl/group.py")
    texts = {(m.line, m.text) for m in run.messages if m.symbol == "rpc-proxy-unanswered"}
    assert (
        18,
        "'save' is called on self._actor_handlers by RayActorGroup.save, but "
        "PolicyActorImpl (one of its 2 handlers) has no method 'save'",
    ) in texts, texts


def test_a_pragma_silences_a_proxy_finding_in_pylint_and_check(tmp_path: Path) -> None:
    copy = fresh_copy(tmp_path)
    trainer = copy / "rl" / "trainer.py"
    lines = trainer.read_text("utf-8").splitlines()
    (silenced,) = [
        key for key in EXPECTED if key[1] == "rl/trainer.py" and key[0] == "rpc-proxy-unanswered"
    ]
    lines.insert(silenced[2] - 1, "        # pylint: disable-next=rpc-proxy-unanswered")
    trainer.write_text("\n".join(lines) + "\n", "utf-8")
    shifted = {
        (s, p, line + 1 if p == "rl/trainer.py" and line >= silenced[2] else line, c)
        for s, p, line, c in EXPECTED - {silenced}
    }
    assert _pylint_keys(run_pylint(copy, "--recursive=y", ".")) == shifted
    assert _check_text(copy) == shifted


def test_the_signature_message_judges_each_handlers_method(tmp_path: Path) -> None:
    """Each alternative's own method is judged: both impls define load_checkpoint(path),
    so a call passing strict=True gets a message for each, naming its method."""
    run = run_pylint(fresh_copy(tmp_path), "rl/group.py")
    messages = [m for m in run.messages if m.symbol == "rpc-handler-signature"]
    assert len(messages) == 2, messages
    prefix = (
        "'load_checkpoint' is sent by RayActorGroup.reload with 1 positional argument and "
        "the keyword 'strict', but its handler "
    )
    named = set()
    for message in messages:
        assert message.text.startswith(prefix), message.text
        assert message.text.endswith(
            "takes (path): it got an unexpected keyword argument 'strict'"
        ), message.text
        named.add(message.text[len(prefix) :].split(" at ", 1)[0])
    assert named == {"PolicyActorImpl.load_checkpoint", "CriticActorImpl.load_checkpoint"}


def test_a_waited_proxy_reply_is_judged_against_each_handler(tmp_path: Path) -> None:
    """Waits: a none reply read through ray.get of a comprehension, and a
    single ref's reply unpacked into 3 names where each handler returns 2, name the
    proxy table and each alternative's own method."""
    run = run_pylint(fresh_copy(tmp_path), "rl/group.py")
    none = sorted(m.text for m in run.messages if m.symbol == "rpc-waited-none-reply")
    assert len(none) == 2, none
    for text, handler in zip(none, ("CriticActorImpl", "PolicyActorImpl"), strict=True):
        assert text.startswith(
            "'sync_weights' is waited on by RayActorGroup.sync through proxy 'train-actors', "
            f"but its handler {handler}.sync_weights at rl/actors.py:"
        ), text
        # A proxy's reply arrives: None is read, nothing hangs; sync returns it to
        # AsyncActorGroup.sync_and_log, which reads it.
        lines = (FIXTURE / "rl" / "async_group.py").read_text("utf-8").splitlines()
        read_at = 1 + next(n for n, line in enumerate(lines) if "print(self.sync(" in line)
        assert text.endswith(
            "never returns anything but None: the caller reads None as its reply "
            f"(returned, and read at rl/async_group.py:{read_at})"
        ), text
    arity = sorted(
        m.text
        for m in run.messages
        if m.symbol == "rpc-reply-arity" and "RayActorGroup.metrics " in m.text
    )
    assert len(arity) == 2, arity
    for text, handler in zip(arity, ("CriticActorImpl", "PolicyActorImpl"), strict=True):
        assert text.startswith(
            "'step_metrics' reply is unpacked into 3 values by RayActorGroup.metrics through "
            f"proxy 'train-actors', but its handler {handler}.step_metrics at rl/actors.py:"
        ), text
        assert " returns a tuple of 2 at rl/actors.py:" in text, text


def test_report_says_whether_each_proxy_call_is_waited(tmp_path: Path) -> None:
    completed = run_cli(fresh_copy(tmp_path), "report", "--format", "json")
    assert completed.returncode == 0, completed.stderr
    proxies = {s["proxy"]: s for s in json.loads(completed.stdout) if "proxy" in s}
    rows = {row["rpc"]: row for row in proxies["train-actors"]["rows"]}
    waited = {site["code"]: site["waited"] for site in rows["sync_weights"]["calledBy"]}
    assert waited == {
        "RayActorGroup.sync": True,
        "RayActorGroup.barrier": True,
        "RayActorGroup.broadcast_weights": False,
        "RayActorGroup.own_get": None,  # passed to a get that is not ray's: not known
    }
    # remote = false: a worker group's plain call is waited.
    wg = proxies["actor-rollout-wg"]["rows"]
    assert wg
    assert all(site["waited"] is True for row in wg for site in row["calledBy"])
    text = run_cli(fresh_copy(tmp_path / "text"), "report", env={"COLUMNS": "1000"})  # a table
    assert "RayActorGroup.broadcast_weights (rl/group.py:58, not waited)" in text.stdout


def _config_error(copy: Path, old: str, new: str) -> str:
    toml = copy / "pyproject.toml"
    text = toml.read_text("utf-8")
    assert old in text
    toml.write_text(text.replace(old, new, 1), "utf-8")
    run = run_cli(copy, "check")
    assert run.returncode == 2, run
    return run.stdout + run.stderr


def test_a_receiver_in_no_callers_code_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    output = _config_error(
        fresh_copy(tmp_path), '"self._actor_handlers"]', '"self._actor_handles"]'
    )
    assert "tool.rpcsurface.proxy[0].receivers[0]: " in output, output
    assert "self._actor_handles" in output
    assert "rpc-proxy-unanswered" not in output  # the table is not judged at all


def test_a_handler_that_does_not_resolve_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    output = _config_error(
        fresh_copy(tmp_path), '"rl.workers.megatron.MegatronWorker"', '"rl.workers.megatron.Nope"'
    )
    assert "tool.rpcsurface.proxy[1].handlers[1]: " in output, output


def test_report_has_a_table_per_proxy_surface(tmp_path: Path) -> None:
    completed = run_cli(fresh_copy(tmp_path), "report", "--format", "json")
    assert completed.returncode == 0, completed.stderr
    proxies = {s["proxy"]: s for s in json.loads(completed.stdout) if "proxy" in s}
    assert set(proxies) == {"train-actors", "actor-rollout-wg"}
    rows = {row["rpc"]: row for row in proxies["train-actors"]["rows"]}
    assert rows["save"]["answeredBy"] == "CriticActorImpl"
    assert rows["save"]["lacking"] == ["rl.actors.PolicyActorImpl"]
    assert rows["save"]["calledBy"] == [
        {
            "code": "RayActorGroup.save",
            "callers": ["rl.async_group.AsyncActorGroup", "rl.group.RayActorGroup"],
            "at": "rl/group.py:18",
            "waited": None,
        },
        {
            "code": "RayActorGroup.save_first",
            "callers": ["rl.async_group.AsyncActorGroup", "rl.group.RayActorGroup"],
            "at": "rl/group.py:89",
            "waited": True,
        },
    ]
    assert rows["save"]["verdict"] == ["rpc-proxy-unanswered"]
    assert rows["fit"]["lacking"] == []
    assert rows["fit"]["verdict"] == ["ok"]
    wg = {row["rpc"]: row for row in proxies["actor-rollout-wg"]["rows"]}
    assert wg["spawn"]["answeredBy"] == "the proxy itself (own-members)"
    assert wg["spawn"]["verdict"] == ["ok"]
    # Every verdict is a planted finding at one of the row's sites, and back.
    planted_at = {(key[0], f"{key[1]}:{key[2]}") for key in EXPECTED}
    verdicts = set()
    for surface in proxies.values():
        for row in surface["rows"]:
            sites = {site["at"] for site in row["calledBy"]}
            for symbol in set(row["verdict"]) - {"ok"}:
                at = {place for s, place in planted_at if s == symbol and place in sites}
                assert at, (row, symbol)
                verdicts |= {(symbol, place) for place in at}
    assert verdicts == planted_at


# An edit of each module a proxy piece reads, one after another: after every step the
# store's answer must be the answer from nothing, and the edit must change it.
EDIT_SEQUENCE = (
    # The mixin's decorator becomes a local one: FSDPWorker no longer exposes start_profile.
    (
        "rl/workers/mixin.py",
        "    from rl.decorator import register\n",
        "    def register(dispatch_mode=None):\n        return lambda function: function\n",
    ),
    # A new call in the caller.
    (
        "rl/trainer.py",
        "        self.actor_rollout_wg.init_model()\n",
        "        self.actor_rollout_wg.init_model()\n        self.actor_rollout_wg.shutdown()\n",
    ),
    # A method renamed in the base class both workers inherit it from.
    ("rl/workers/base.py", "    def init_model(self):", "    def init_model_v2(self):"),
    # The own-members class loses spawn: the call in __init__ becomes an RPC.
    (
        "rl/workers/group.py",
        "    def spawn(self, prefix_set):",
        "    def spawn_all(self, prefix_set):",
    ),
    # A handler gains the method the other one has.
    (
        "rl/actors.py",
        "class PolicyActorImpl:\n",
        "class PolicyActorImpl:\n    def save(self, step):\n        return step\n\n",
    ),
)


def _check_lines(copy: Path, *args: str) -> list[str]:
    run = run_check(copy, *args)
    assert run.returncode in (0, 1), run
    assert "Traceback" not in run.stderr, run.stderr
    return run.stdout.splitlines()


def test_the_store_answers_as_a_run_from_nothing_after_each_edit(tmp_path: Path) -> None:
    copy = fresh_copy(tmp_path)
    before = _check_lines(copy)
    assert before == _check_lines(copy, "--no-cache")
    for relpath, old, new in EDIT_SEQUENCE:
        path = copy / relpath
        text = path.read_text("utf-8")
        assert old in text, (relpath, old)
        path.write_text(text.replace(old, new, 1), "utf-8")
        warm = _check_lines(copy)
        cold = _check_lines(copy, "--no-cache")
        assert warm == cold, (relpath, warm, cold)
        assert warm != before, relpath  # the edit changed the answer
        before = warm

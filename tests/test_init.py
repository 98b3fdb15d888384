"""``rpcsurface init``: the table it writes for three dispatch families, each compared with
a table written by hand from the fixture's code, and used as the configuration: the real
``rpcsurface check`` then gives the findings each fixture plants (``# [symbol]``).

Also: a refusal when two handlers compete, ``--diff`` and the exit statuses, every other
byte of pyproject.toml kept (comments, CRLF, no final newline), a second run proposing
nothing, a configured project getting only additions, and the sender's wait keyword read
with either polarity.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import (
    CONSOLE_SCRIPT,
    ROOT,
    clean_environment,
    load_bench_script,
    marked_findings,
    project,
    read_terminal,
    run_check,
    run_cli,
)

from pylint_rpcsurface.config import load_config

if sys.platform != "win32":
    import pty

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

FIXTURES = ROOT / "tests" / "fixtures"

# Written by hand from each fixture's code (see the comments), not from init's output.
EXPECTED = {
    "init_engine": {
        "dispatch": [
            {
                "method": "call_func",
                # runner_mgr.py: `if not wait_out: return None` before replies.get()
                "waits": "wait_out",
                # busy_loop: getattr(runner, name, None), `continue` when None
                "unknown-name": "skipped",
                # busy_loop: `if out is not None: replies.put(out)`
                "drops-none": True,
                # one replies queue, the bare result put on it
                "shared-reply-queue": True,
            },
            {
                "method": "call_func_with_aggregation",
                "waits": True,  # returns every rank's replies.get()
                "unknown-name": "skipped",
                "drops-none": True,
            },
        ],
        "surface": [
            {
                "name": "ModelRunner",
                # EngineCore's runner_cls is ModelRunner: the caller of its own table,
                # which judges its calls; its subclasses' table judges theirs
                "callers": ["seedengine.engine_core.EngineCore"],
                "handlers": ["seedengine.model_runner.ModelRunner"],
            },
            {
                "name": "RapidServeModelRunner",
                # The cores whose runner_cls is RapidServeModelRunner; their base
                # EngineCore holds a ModelRunner, so it is not a caller of this surface
                "callers": [
                    "seedengine.engine_core.DecodeEngineCore",
                    "seedengine.engine_core.PrefillEngineCore",
                ],
                "handlers": ["seedengine.model_runner.RapidServeModelRunner"],
                "base-handlers": ["seedengine.model_runner.ModelRunner"],
                "registry": "seedengine.config.RAPIDSERVE_RPCS",
            },
        ],
    },
    "init_vllm": {
        "dispatch": [
            {
                "method": "collective_rpc",
                "waits": True,  # every worker_response_mq.dequeue(), unconditionally
                "args-from": "args",
                "kwargs-from": "kwargs",
                "unknown-name": "raises",  # run_method raises NotImplementedError
            }
        ],
        "surface": [
            {
                "name": "Worker",
                "callers": [
                    "vlike.engine.core.EngineCore",
                    "vlike.engine.core.LLM",
                    "vlike.executor.multiproc.Executor",
                ],
                "handlers": ["vlike.worker.gpu_worker.Worker"],
            }
        ],
    },
    "init_runworkers": {
        "dispatch": [
            {
                "method": "_run_workers",
                "called-as": "function",  # a module-level function
                "name-arg": 1,  # _run_workers(workers, method, ...)
                "waits": True,  # ray.get(refs)
                "unknown-name": "raises",  # getattr(worker, method) on the actor handle
            }
        ],
        "surface": [
            {
                "name": "PolicyActor",
                "callers": ["trainer.ppo.PPOTrainer", "trainer.ppo.offload_all"],
                "handlers": ["trainer.actors.PolicyActor"],
            }
        ],
    },
}

EVIDENCE = re.compile(r"# .*[\w/]+\.py:\d+")


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name))


def _planted(folder: Path) -> set[tuple[str, str, int]]:
    found = set()
    for path in sorted(folder.rglob("*.py")):
        relative = path.relative_to(folder).as_posix()
        for symbol, line in marked_findings(path.read_text("utf-8")):
            found.add((symbol, relative, line))
    return found


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_init_writes_the_hand_written_table_and_check_finds_what_is_planted(
    tmp_path: Path, name: str
) -> None:
    folder = _copy(name, tmp_path)
    before = (folder / "pyproject.toml").read_bytes()
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    after = (folder / "pyproject.toml").read_bytes()
    assert after.startswith(before)  # every byte that was there is still there
    table = tomllib.loads(after.decode())["tool"]["rpcsurface"]
    assert table == EXPECTED[name]
    load_config(folder / "pyproject.toml")  # our own validation accepts it
    appended = after[len(before) :].decode()
    keys = [line for line in appended.splitlines() if re.match(r"^\s*[\w\"-]", line)]
    assert keys
    for line in keys:
        if line.endswith("[") or line.startswith("["):
            continue
        assert EVIDENCE.search(line), line
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode == 1, checked.stderr
    found = {(m.symbol, m.path, m.line) for m in checked.messages}
    planted = _planted(folder)
    assert planted
    assert found == planted
    again = run_cli(folder, "init")
    assert again.returncode == 0, again.stderr
    assert "nothing new" in again.stderr
    assert (folder / "pyproject.toml").read_bytes() == after


def test_diff_prints_the_change_and_writes_nothing(tmp_path: Path) -> None:
    folder = _copy("init_vllm", tmp_path)
    before = (folder / "pyproject.toml").read_bytes()
    shown = run_cli(folder, "init", "--diff")
    assert shown.returncode == 1, shown.stderr
    assert (folder / "pyproject.toml").read_bytes() == before
    assert shown.stdout.startswith("--- a/pyproject.toml\n+++ b/pyproject.toml\n")
    assert '+method = "collective_rpc"' in shown.stdout
    assert run_cli(folder, "init").returncode == 0
    unchanged = run_cli(folder, "init", "--diff")
    assert (unchanged.returncode, unchanged.stdout) == (0, ""), unchanged.stderr


def test_two_competing_handlers_are_commented_out_with_both_listed(tmp_path: Path) -> None:
    folder = _copy("init_compete", tmp_path)
    pyproject = folder / "pyproject.toml"
    before = pyproject.read_bytes()
    for args, status in ((("init", "--diff"), 1), (("init",), 0)):
        shown = run_cli(folder, *args)
        assert shown.returncode == status, shown.stderr
        assert (
            "twin.runners.CpuRunner answers 2 of 2 names sent (twin/runners.py:5)" in shown.stderr
        )
        assert (
            "twin.runners.GpuRunner answers 2 of 2 names sent (twin/runners.py:13)" in shown.stderr
        )
        assert "Traceback" not in shown.stderr
    text = pyproject.read_text("utf-8")
    assert text.startswith(before.decode())
    assert '#     "twin.runners.CpuRunner",  # twin/runners.py:5: answers 2 of 2' in text
    assert '#     "twin.runners.GpuRunner",  # twin/runners.py:13: answers 2 of 2' in text
    assert "# Confirm which of these classes the objects the names are looked up on" in text
    assert load_config(pyproject).surfaces == ()


def test_crlf_comments_and_a_missing_final_newline_are_kept(tmp_path: Path) -> None:
    folder = _copy("init_vllm", tmp_path)
    before = b'# my project\r\n[project]\r\nname = "vlike"  # the name\r\n\r\n[tool.x]\r\na = 1'
    (folder / "pyproject.toml").write_bytes(before)
    assert run_cli(folder, "init").returncode == 0
    after = (folder / "pyproject.toml").read_bytes()
    assert after.startswith(before + b"\r\n\r\n[tool.rpcsurface]\r\n")
    assert b"\n" not in after.replace(b"\r\n", b"")  # every added line ends in CRLF too
    assert tomllib.loads(after.decode())["tool"]["x"] == {"a": 1}
    assert load_config(folder / "pyproject.toml").dispatch[0].method == "collective_rpc"


def test_a_configured_project_gets_only_what_is_missing(tmp_path: Path) -> None:
    folder = _copy("init_engine", tmp_path)
    mine = (
        "\n[tool.rpcsurface]\n"
        "[[tool.rpcsurface.dispatch]]\n"
        'method = "call_func"\n'
        'waits = "wait_out"   # mine: no drops-none, and init must not add it\n'
    )
    with (folder / "pyproject.toml").open("a", encoding="utf-8") as stream:
        stream.write(mine)
    before = (folder / "pyproject.toml").read_bytes()
    assert run_cli(folder, "init").returncode == 0
    after = (folder / "pyproject.toml").read_bytes()
    assert after.startswith(before)
    table = tomllib.loads(after.decode())["tool"]["rpcsurface"]
    assert table["dispatch"][0] == {"method": "call_func", "waits": "wait_out"}
    assert [d["method"] for d in table["dispatch"]] == ["call_func", "call_func_with_aggregation"]
    assert [s["name"] for s in table["surface"]] == ["ModelRunner", "RapidServeModelRunner"]
    assert "call_func =" not in after[len(before) :].decode()
    assert run_cli(folder, "init").returncode == 0
    assert (folder / "pyproject.toml").read_bytes() == after


def test_no_dispatch_and_a_bad_pyproject_are_refused(tmp_path: Path) -> None:
    empty = project(tmp_path / "empty", {"m.py": "def f():\n    return 1\n"})
    refused = run_cli(empty, "init")
    assert refused.returncode == 2
    assert "no dispatch" in refused.stderr
    assert not (empty / "pyproject.toml").exists()
    bad = project(tmp_path / "bad", {"pyproject.toml": "[tool\n", "m.py": ""})
    refused = run_cli(bad, "init")
    assert refused.returncode == 2
    assert "pyproject.toml: can't be read as TOML" in refused.stderr
    assert "Traceback" not in refused.stderr


WAIT_FORMS = {
    # `if non_block: return` before the receive: waited unless non_block is true
    "non_block": (
        "def call(self, name, *args, non_block=False):\n"
        "        self.q.put((name, args))\n"
        "        if non_block:\n"
        "            return None\n"
        "        return self.r.get()\n",
        {"waits-unless": "non_block"},
    ),
    # the receive under `if wait:`, wait defaulting to True
    "wait_default_true": (
        "def call(self, name, *args, wait=True):\n"
        "        self.q.put((name, args))\n"
        "        if wait:\n"
        "            return self.r.get()\n"
        "        return None\n",
        {"waits": "wait", "waits-when-absent": True},
    ),
}


@pytest.mark.parametrize("form", sorted(WAIT_FORMS))
def test_the_wait_keyword_and_its_polarity_are_read_from_the_sender(
    tmp_path: Path, form: str
) -> None:
    method, expected = WAIT_FORMS[form]
    folder = project(
        tmp_path,
        {
            "app.py": (
                "import threading\n\n\n"
                "class Runner:\n"
                "    def load(self):\n        return 1\n"
                "    def step(self):\n        return 2\n\n\n"
                # The worker loop Engine starts: what proves Runner is the handler.
                "def loop(q, r):\n"
                "    runner = Runner()\n"
                "    while True:\n"
                "        name, args = q.get()\n"
                "        r.put(getattr(runner, name)(*args))\n\n\n"
                "class Engine:\n"
                f"    {method}\n"
                "    def start(self):\n"
                "        threading.Thread(target=loop, args=(self.q, self.r)).start()\n\n"
                "    def run(self):\n"
                '        self.call("load")\n'
                '        self.call("step")\n'
            )
        },
    )
    assert run_cli(folder, "init").returncode == 0
    table = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    (dispatch,) = table["dispatch"]
    assert {k: v for k, v in dispatch.items() if k.startswith("waits")} == expected


SERVER = """\
import multiprocessing as mp


class {impl}:
    def health(self):
        return "ok"

    def encode(self, wav):
        return wav


def main_loop(queue_in, queue_out):
    srv = {impl}()
    while True:
        cmd = queue_in.get()
        queue_out.put(getattr(srv, cmd["type"])(*cmd["args"]))


class {client}:
    def __init__(self):
        self.queue_in, self.queue_out = mp.Queue(), mp.Queue()
        mp.Process(target=main_loop, args=(self.queue_in, self.queue_out)).start()

    def submit(self, cmd, *args):
        self.queue_in.put({{"type": cmd, "args": args}})
        return self.queue_out.get()

    def run(self):
        self.submit("health")
        return self.submit("encode", b"")
"""


def test_tied_handlers_are_settled_by_the_worker_loop_each_caller_starts(
    tmp_path: Path,
) -> None:
    # Two servers answering the same names: each client starts its own module's loop,
    # whose `srv = Impl()` names its handler. A config double in tests/ is no caller.
    folder = project(
        tmp_path,
        {
            "srv/__init__.py": "",
            "srv/one.py": SERVER.format(impl="OneImpl", client="OneClient"),
            "srv/two.py": SERVER.format(impl="TwoImpl", client="TwoClient"),
            "tests/test_srv.py": (
                "class Fake:\n    def submit(self, cmd):\n        return cmd\n\n\n"
                "def test_it(client):\n"
                '    client.submit("health")\n    client.submit("encode")\n'
            ),
        },
    )
    assert run_cli(folder, "init").returncode == 0
    table = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    surfaces = {tuple(s["callers"]): s["handlers"] for s in table["surface"]}
    assert surfaces == {
        ("srv.one.OneClient",): ["srv.one.OneImpl"],
        ("srv.two.TwoClient",): ["srv.two.TwoImpl"],
    }


def test_fields_are_no_evidence_of_a_handler(tmp_path: Path) -> None:
    # The names sent are fields of a config dataclass, methods of no class: no dispatch.
    folder = project(
        tmp_path,
        {
            "app.py": (
                "from dataclasses import dataclass\n\n\n"
                "@dataclass\nclass Roles:\n    actor: int = 0\n    critic: int = 0\n\n\n"
                "class Launcher:\n"
                "    def spawn(self, role, queue):\n        queue.put(role)\n\n"
                "    def run(self, queue):\n"
                '        self.spawn("actor", queue)\n        self.spawn("critic", queue)\n'
            )
        },
    )
    refused = run_cli(folder, "init")
    assert refused.returncode == 2
    assert "no dispatch found" in refused.stderr


def test_the_real_engine_table_says_how_far_below_the_target_an_engine_is() -> None:
    bench = load_bench_script("init_engines")
    engine = bench.Engine("e", "1.0", "e")
    result = bench.Result(
        engine, 3, frozenset({"a", "b", "c", "d"}), frozenset({"a", "b", "c"}), 0, "", (), ()
    )
    row = bench.render([result]).splitlines()[2]
    assert "| e 1.0 | 3 | 0 | 75% (3/4) (target 90%: 15% short), not seen: `d` |" in row
    assert row.endswith("| none |")  # no finding to trace
    for engine in bench.ENGINES:
        assert engine.hand.is_file(), engine.name
    # Beyond the nano-vllm ports, two unrelated engines.
    assert {"vllm", "lmdeploy"} <= {engine.name for engine in bench.ENGINES}


def test_the_real_engine_table_traces_every_finding_of_the_written_configuration() -> None:
    bench = load_bench_script("init_engines")
    engine = bench.Engine("e", "1.0", "e")
    found = ("e/a.py:3:rpc-unanswered", "e/b.py:9:rpc-unanswered")
    result = bench.Result(engine, 3, frozenset({"a"}), frozenset({"a"}), 1, "", (), (), found)
    verdicts = {"e": {found[0]: {"verdict": "true", "why": "no class defines it"}}}
    text = bench.render([result], verdicts)
    assert text.splitlines()[2].endswith("| 2: 1 true, 0 false, 1 NOT TRACED | none |")
    assert "| e | written | `e/a.py:3:rpc-unanswered` | true | no class defines it |" in text
    _, problems = bench.traced(result, verdicts)
    assert problems == ["e: no verdict for e/b.py:9:rpc-unanswered"]
    verdicts["e"]["e/c.py:1:rpc-unanswered"] = {"verdict": "false", "why": "gone"}
    assert "which is no longer found" in bench.traced(result, verdicts)[1][-1]


def test_the_real_engine_table_traces_what_uncommenting_the_rest_adds() -> None:
    # Issue 50: uncommenting what init wrote commented out adds no false finding. What
    # it adds beyond the written table is a column of its own, each finding traced.
    bench = load_bench_script("init_engines")
    engine = bench.Engine("e", "1.0", "e")
    written, added = ("e/a.py:3:rpc-unanswered",), ("e/b.py:9:rpc-handler-signature",)
    result = bench.Result(
        engine, 3, frozenset({"a"}), frozenset({"a"}), 1, "", (), (), written, added
    )
    verdicts = {"e": {written[0]: {"verdict": "true", "why": "no class defines it"}}}
    row = bench.render([result], verdicts).splitlines()[2]
    assert row.endswith("| 1: 1 true, 0 false | 1: 0 true, 0 false, 1 NOT TRACED |")
    assert bench.traced(result, verdicts)[1] == ["e: no verdict for e/b.py:9:rpc-handler-signature"]
    verdicts["e"][added[0]] = {"verdict": "false", "why": "never paired"}
    text = bench.render([result], verdicts)
    assert text.splitlines()[2].endswith("| 1: 0 true, 1 false |")
    assert "| e | uncommented | `e/b.py:9:rpc-handler-signature` | false | never paired |" in text
    assert bench.traced(result, verdicts)[1] == []
    broken = bench.Result(engine, 3, frozenset(), frozenset(), 1, "", (), (), (), (), "bad key")
    assert bench.render([broken]).splitlines()[2].endswith("| configuration error: bad key |")


def test_uncommenting_makes_active_only_the_tables_init_wrote_commented_out() -> None:
    bench = load_bench_script("init_engines")
    before = (
        "[tool.rpcsurface]\n"
        "# waits: not written, the evidence is ambiguous:\n"
        "#   a.py:3: no receive found\n"
        "\n"
        "# Not proven: the surface of a.A\n"
        f"{bench.UNCOMMENT_AFTER}\n"
    )
    waiting = "[[tool.rpcsurface.surface]]\ncallers = [\"a.A\"]  # a.py:3 sends 'x'\n"
    after = "\n# a note after the table\n"
    commented = "".join(f"# {line}\n" for line in waiting.splitlines())
    # Only the table below the instruction: the notes before and after stay comments.
    assert bench.uncommented(before + commented + after) == before + waiting + after


def test_a_dispatch_that_runs_the_name_itself_is_read_from_its_own_lookup(
    tmp_path: Path,
) -> None:
    # nano-vllm's shape: ModelRunner.call writes the name for the other ranks and runs
    # getattr(self, name, None)(*args) itself. The unrelated loop below skips unknown
    # names; what call() does with one is its own business: None called, a TypeError.
    folder = project(
        tmp_path,
        {
            "runner.py": (
                "class ModelRunner:\n"
                "    def call(self, method_name, *args):\n"
                "        self.shm.write(method_name, *args)\n"
                "        method = getattr(self, method_name, None)\n"
                "        return method(*args)\n\n"
                "    def run(self, seqs):\n        return seqs\n\n"
                "    def exit(self):\n        return True\n\n\n"
                "def other_loop(obj, requests):\n"
                "    while True:\n"
                "        name = requests.get()\n"
                "        fn = getattr(obj, name, None)\n"
                "        if fn is None:\n            continue\n"
                "        fn()\n\n\n"
                "class LLMEngine:\n"
                "    def step(self, seqs):\n"
                '        self.model_runner.call("run", seqs)\n'
                '        self.model_runner.call("exit")\n'
            )
        },
    )
    assert run_cli(folder, "init").returncode == 0
    table = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    assert table["dispatch"] == [{"method": "call", "waits": True, "unknown-name": "raises"}]
    assert table["surface"][0]["handlers"] == ["runner.ModelRunner"]
    assert table["surface"][0]["callers"] == ["runner.LLMEngine"]


def test_a_pyproject_that_is_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    folder = _copy("init_vllm", tmp_path)
    (folder / "pyproject.toml").unlink()
    (folder / "pyproject.toml").mkdir()
    refused = run_cli(folder, "init")
    assert refused.returncode == 2
    assert "pyproject.toml: can't be read" in refused.stderr
    assert "Traceback" not in refused.stderr


def _init_on_a_terminal(folder: Path) -> tuple[int, str]:
    """``rpcsurface init --diff`` with its standard error on a terminal: the status, and
    what the terminal showed."""
    main, secondary = pty.openpty()
    with subprocess.Popen(
        [*CONSOLE_SCRIPT, "init", "--diff"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=secondary,
        env=clean_environment({"TERM": "xterm"}),
    ) as process:
        os.close(secondary)
        shown = read_terminal(main)
        status = process.wait(timeout=120)
    os.close(main)
    return status, shown


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_progress_is_shown_on_a_terminal_only(tmp_path: Path) -> None:
    folder = _copy("init_vllm", tmp_path)
    files = len(list(folder.rglob("*.py")))
    status, shown = _init_on_a_terminal(folder)
    assert status == 1, shown
    # The phases, each on the one line the next overwrites; cleared at the end.
    assert f"rpcsurface init: reading {files} Python files" in shown, shown
    assert "rpcsurface init: checking the proposed table" in shown, shown
    assert "\r\x1b[K" in shown
    piped = run_cli(folder, "init", "--diff")
    assert piped.returncode == 1
    assert "reading" not in piped.stderr
    assert "\r" not in piped.stderr
    assert "\x1b" not in piped.stderr

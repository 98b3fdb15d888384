"""init writes a surface's registry only where the dispatch methods it judges have their
``waits`` written (issue 50: nothing unproven is active configuration). Without ``waits``
the checker reads every call as never waited, so every name the registry lists would be
``rpc-listed-unwaited``: a finding of a default, not of the code. The bundled example
with a launcher that iterates ``DISAGG_RPCS`` (as its ``config.py`` says the launcher
does) is that shape: its ``call_func`` returns the replies when ``wait_out`` is true but
receives nothing, so whether a call waits is not known."""

from __future__ import annotations

import shutil
from pathlib import Path

from support import ROOT, run_check, run_cli

EXAMPLE = ROOT / "examples" / "engine"

LAUNCHER = """\
from minimind.config import DISAGG_RPCS
from minimind.engine_core import DecodeEngineCore, EngineCore, PrefillEngineCore
from minimind.model_runner import DisaggModelRunner, ModelRunner
from minimind.worker import RunnerManager


def start_engine(num_gpus):
    return EngineCore(RunnerManager([ModelRunner() for _ in range(num_gpus)]))


def start_prefill(num_gpus):
    return PrefillEngineCore(_disagg_runners(num_gpus))


def start_decode(num_gpus):
    return DecodeEngineCore(_disagg_runners(num_gpus))


def _disagg_runners(num_gpus):
    runners = [DisaggModelRunner() for _ in range(num_gpus)]
    for name in DISAGG_RPCS:
        if not hasattr(runners[0], name):
            raise RuntimeError(name)
    return RunnerManager(runners)
"""


def _engine(tmp_path: Path, name: str) -> Path:
    folder = Path(shutil.copytree(EXAMPLE, tmp_path / name))
    (folder / "minimind" / "launch.py").write_text(LAUNCHER, "utf-8")
    return folder


def _found(folder: Path) -> set[tuple[str, int, str]]:
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode in (0, 1), checked.stderr
    return {(m.path, m.line, m.symbol) for m in checked.messages}


def test_a_registry_is_not_written_for_calls_whose_waits_are_not_known(tmp_path: Path) -> None:
    hand = _found(_engine(tmp_path, "hand"))  # the example's own table
    folder = _engine(tmp_path, "init")
    (folder / "pyproject.toml").unlink()
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    table = (folder / "pyproject.toml").read_text("utf-8")
    assert "\nregistry = " not in table
    assert "# registry: not written" in table
    assert "the calls of call_func(), call_func_with_aggregation() wait is not known" in table
    found = _found(folder)
    assert found  # the misspelled name and the f-string
    assert found <= hand
    # Why: written, the registry's every name is "never waited on".
    with_registry = table.replace(
        "\nbase-handlers = [", '\nregistry = "minimind.config.DISAGG_RPCS"\nbase-handlers = ['
    )
    assert with_registry != table
    (folder / "pyproject.toml").write_text(with_registry, "utf-8")
    unwaited = {line for path, line, symbol in _found(folder) if symbol == "rpc-listed-unwaited"}
    assert {8, 9} <= unwaited  # send_kv_cache and recv_kv_cache, both sent with wait_out=True

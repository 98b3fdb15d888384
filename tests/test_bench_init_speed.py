"""bench/init_speed.py: init, a cold check of what it wrote (and of a hand table), and
ast.parse of every file, measured on a copy of the tree (the times themselves are not
asserted: the machine is shared)."""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, load_bench_script, project

init_speed = load_bench_script("init_speed")

FIXTURE = ROOT / "tests" / "fixtures" / "init_vllm"
# The fixture's table, written by hand from its code (as tests/test_init.py expects it).
HAND = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "collective_rpc"
waits = true
args-from = "args"
kwargs-from = "kwargs"
unknown-name = "raises"

[[tool.rpcsurface.surface]]
name = "Worker"
callers = [
    "vlike.engine.core.EngineCore",
    "vlike.engine.core.LLM",
    "vlike.executor.multiproc.Executor",
]
handlers = ["vlike.worker.gpu_worker.Worker"]
"""


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """The fixture without a pyproject.toml, and the hand configuration apart."""
    tree = Path(shutil.copytree(FIXTURE, tmp_path / "tree"))
    (tree / "pyproject.toml").unlink()
    hand = tmp_path / "hand.toml"
    hand.write_text(HAND, encoding="utf-8")
    return tree, hand


def _files(tree: Path) -> dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in tree.rglob("*") if p.is_file()}


def test_each_round_runs_on_a_copy_and_gives_every_column(tmp_path: Path) -> None:
    tree, hand = _tree(tmp_path)
    before = _files(tree)
    times, written = init_speed.measure(tree, hand, 2)
    assert _files(tree) == before  # nothing written in the tree measured
    assert b"[[tool.rpcsurface.surface]]" in written
    assert b'"vlike.worker.gpu_worker.Worker",' in written  # the fixture's handler
    for column in (times.init, times.check, times.hand, times.parse, times.index, times.trees):
        assert len(column) == 2
        assert all(seconds is not None and seconds > 0 for seconds in column)
    cells = init_speed.row("vlike", 9, times).strip("| ").split(" | ")
    assert cells[:2] == ["vlike", "9"]
    init = statistics.median(times.init)
    assert cells[2] == f"{init:.2f} s"
    columns = (times.check, times.hand, times.parse, times.index, times.trees)
    pairs = (cells[3:5], cells[5:7], cells[7:9], cells[9:11], cells[11:13])
    for column, (seconds, ratio) in zip(columns, pairs, strict=True):
        baseline = statistics.median(column)
        assert seconds == f"{baseline:.2f} s"
        assert float(ratio) == pytest.approx(init / baseline, abs=0.051)  # one decimal


def test_a_configuration_that_cant_be_used_gives_no_baseline(tmp_path: Path) -> None:
    """check exits 2 on it (and stops early): its time would be no baseline."""
    tree, hand = _tree(tmp_path)
    hand.write_text(
        hand.read_text("utf-8").replace("gpu_worker.Worker", "gpu_worker.NoSuchWorker"),
        encoding="utf-8",
    )
    times, _ = init_speed.measure(tree, hand, 1)
    assert times.hand == [None]
    assert times.check[0] is not None
    row = init_speed.row("vlike", 9, times)
    assert "exit 2: the configuration can't be used | n/a" in row


def test_an_init_that_writes_nothing_stops_the_run(tmp_path: Path) -> None:
    tree = project(tmp_path / "plain", {"app/__init__.py": "", "app/m.py": "X = 1\n"})
    with pytest.raises(init_speed.Failed, match=r"rpcsurface init in .* exited 2"):
        init_speed.measure(tree, None, 1)


def test_every_command_runs_with_the_packages_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--packages``: the folder they are installed in is on every run's PYTHONPATH, as
    in the engine's own environment; without it, nothing is put before site-packages."""
    tree, hand = _tree(tmp_path)
    packages = tmp_path / "packages"
    (packages / "heavylib").mkdir(parents=True)
    (packages / "heavylib" / "__init__.py").write_text("class Base: ...\n", encoding="utf-8")
    seen: list[tuple[str, str | None]] = []
    popen = init_speed.subprocess.Popen

    def recorded(argv: list[str], **kwargs: Any) -> Any:
        seen.append((Path(argv[0]).name + " " + argv[1], kwargs["env"].get("PYTHONPATH")))
        return popen(argv, **kwargs)

    monkeypatch.setattr(init_speed.subprocess, "Popen", recorded)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "elsewhere"))
    init_speed.measure(tree, hand, 1, packages)
    assert [command for command, _ in seen] == [
        "rpcsurface init",
        "rpcsurface check",
        "rpcsurface check",
        f"{Path(init_speed.sys.executable).name} -c",
        f"{Path(init_speed.sys.executable).name} -c",
        f"{Path(init_speed.sys.executable).name} -c",
    ]
    assert {path for _, path in seen} == {str(packages)}
    seen.clear()
    init_speed.measure(tree, hand, 1)
    assert {path for _, path in seen} == {None}


def test_the_packages_are_installed_once_without_their_dependencies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installs: list[list[str]] = []

    def pip(command: list[str], check: bool) -> None:
        assert check
        installs.append(command)
        target = Path(command[command.index("--target") + 1])
        (target / "transformers").mkdir(parents=True)

    monkeypatch.setattr(init_speed.subprocess, "run", pip)
    specs = ["transformers==5.25.0", "pydantic"]
    folder = init_speed.installed(specs, tmp_path)
    assert (folder / "transformers").is_dir()
    (command,) = installs
    assert command[1:5] == ["-m", "pip", "install", "--quiet"]
    assert "--no-deps" in command
    assert command[-2:] == specs
    # The same packages again, in another order: the folder is reused, nothing installed.
    assert init_speed.installed(list(reversed(specs)), tmp_path) == folder
    assert len(installs) == 1
    assert init_speed.installed(["pydantic"], tmp_path) != folder
    assert len(installs) == 2

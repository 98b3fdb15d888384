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
    columns = (times.check, times.hand, times.parse, times.index, times.trees)
    columns += (times.words, times.cited)
    for column in (times.init, *columns):
        assert len(column) == 2
        assert all(seconds is not None and seconds > 0 for seconds in column)
    assert len(times.cited_same) == 2
    cells = init_speed.row("vlike", 9, times).strip("| ").split(" | ")
    assert cells[:2] == ["vlike", "9"]
    init = statistics.median(times.init)
    assert cells[2] == f"{init:.2f} s"
    pairs = [cells[start : start + 2] for start in range(3, 17, 2)]
    for column, (seconds, ratio) in zip(columns, pairs, strict=True):
        baseline = statistics.median(column)
        assert seconds == f"{baseline:.2f} s"
        assert float(ratio) == pytest.approx(init / baseline, abs=0.051)  # one decimal
    assert cells[17] == ("same" if all(times.cited_same) else "another")
    assert len(cells) == 18 == init_speed.HEADER.splitlines()[0].count("|") - 1


def _citing(monkeypatch: pytest.MonkeyPatch, chosen: Any) -> list[str]:
    """Make the cited-files run build what *chosen* picks of the tree's files (given the
    table and the notes init wrote); what the runs were told, each a list."""
    told: list[str] = []
    popen = init_speed.subprocess.Popen

    def recorded(argv: list[str], **kwargs: Any) -> Any:
        if "CITED" in kwargs["env"]:
            told.append(kwargs["env"]["CITED"])
        return popen(argv, **kwargs)

    monkeypatch.setattr(init_speed.subprocess, "Popen", recorded)
    monkeypatch.setattr(init_speed, "cited_files", chosen)
    return told


def test_init_building_every_file_up_front_writes_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file cited: the narrowed init is init itself, so its table is the same."""
    tree, hand = _tree(tmp_path)
    every = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.py"))
    told = _citing(monkeypatch, lambda table, notes: every)
    times, _ = init_speed.measure(tree, hand, 1)
    assert told == ["\n".join(every)]
    assert times.cited_same == [True]
    assert init_speed.row("vlike", 9, times).endswith(" | same |")


def test_init_building_no_file_up_front_writes_another_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing cited: no module is the project's, init finds nothing to write (exit 2),
    which is another table than the one init wrote; the run goes on."""
    tree, hand = _tree(tmp_path)
    told = _citing(monkeypatch, lambda table, notes: [])
    times, written = init_speed.measure(tree, hand, 1)
    assert told == [""]
    assert b"[[tool.rpcsurface.surface]]" in written
    assert times.cited_same == [False]
    assert init_speed.row("vlike", 9, times).endswith(" | another |")


def test_the_files_cited_are_read_from_the_table_and_the_notes() -> None:
    table = (
        b"[[tool.rpcsurface.dispatch]]\n"
        b'method = "run"  # pkg/engine.py:12: run(method, *args) sends method\n'
        b"# pkg/engine.py:40: and again; pkg/sub/worker.py:7: getattr\n"
    )
    notes = "rpcsurface init: done (2 s)\nrpcsurface init: pkg/loop.py:3: no receive found\n"
    notes += "setup.py is no place cited (no line)\n"
    assert init_speed.cited_files(table, notes) == [
        "pkg/engine.py",
        "pkg/loop.py",
        "pkg/sub/worker.py",
    ]


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

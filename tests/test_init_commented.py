"""``rpcsurface init`` writes what it proves and comments out what it doesn't.

On the bundled example no code binds the object the names are looked up on to a class:
the dispatch tables are written active, the surface commented out with its evidence (the
call sites, the overlap) and what the user must confirm. Uncommented, it loads and
``rpcsurface check`` finds nothing a hand-written configuration doesn't. Each runs the
real console script.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from support import ROOT, load_bench_script, run_check, run_cli

from pylint_rpcsurface.config import load_config

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

EXAMPLE = ROOT / "examples" / "engine"


def _example(tmp_path: Path, *, launcher: bool = False) -> Path:
    """The bundled example without its hand-written table, and without its launcher
    unless *launcher*: then nothing binds the runners the manager holds to a class."""
    folder = Path(shutil.copytree(EXAMPLE, tmp_path / "engine"))
    (folder / "pyproject.toml").unlink()
    if not launcher:
        (folder / "minimind" / "launch.py").unlink()
    return folder


def uncommented(text: str) -> str:
    """*text* with every commented-out table init wrote made active, as its comment asks
    (bench/init_engines.py's reading, which measures the same on real engines)."""
    return str(load_bench_script("init_engines").uncommented(text))


def located(folder: Path) -> set[tuple[str, int, str]]:
    """Where ``rpcsurface check --no-cache`` finds something in *folder*."""
    checked = run_check(folder, "--format", "json", "--no-cache")
    assert checked.returncode in (0, 1), checked.stderr
    return {(m.path, m.line, m.symbol) for m in checked.messages}


def test_the_example_gets_its_dispatch_written_and_its_surface_commented_out(
    tmp_path: Path,
) -> None:
    folder = _example(tmp_path)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    pyproject = folder / "pyproject.toml"
    assert written.stderr.endswith(
        f"wrote the [tool.rpcsurface] table to {pyproject.resolve()}: 2 tables active, "
        "1 commented out waiting for you to confirm\n"
    )
    text = pyproject.read_text("utf-8")
    config = load_config(pyproject)
    assert [d.method for d in config.dispatch] == ["call_func", "call_func_with_aggregation"]
    assert config.surfaces == ()  # nothing unproven is active
    assert "# Not proven: the surface of minimind.engine_core.EngineCore\n" in text
    # Its evidence: the call sites and the overlap, and what to confirm.
    assert "minimind/engine_core.py:17 sends 'load_model'" in text
    assert "minimind/model_runner.py:24: answers 6 of 7 names sent, by overlap only" in text
    assert "# Confirm that the objects the names are looked up on hold these classes" in text
    again = run_cli(folder, "init")
    assert again.returncode == 0, again.stderr
    assert "nothing new to propose" in again.stderr
    assert pyproject.read_text("utf-8") == text


def test_the_commented_out_surface_loads_and_finds_nothing_a_hand_written_one_doesnt(
    tmp_path: Path,
) -> None:
    folder = _example(tmp_path)
    assert run_cli(folder, "init").returncode == 0
    pyproject = folder / "pyproject.toml"
    active_only = located(folder)
    pyproject.write_text(uncommented(pyproject.read_text("utf-8")), "utf-8")
    table = tomllib.loads(pyproject.read_text("utf-8"))["tool"]["rpcsurface"]
    assert [s["handlers"] for s in table["surface"]] == [
        ["minimind.model_runner.DisaggModelRunner"]
    ]
    assert load_config(pyproject).surfaces[0].name == "EngineCore"
    confirmed = located(folder)
    hand_written = located(EXAMPLE)
    assert confirmed, "the surface judges the calls once uncommented"
    assert active_only <= confirmed <= hand_written
    again = run_cli(folder, "init", "--diff")
    assert (again.returncode, again.stdout) == (0, ""), again.stderr


def test_the_example_with_its_launcher_gets_its_surfaces_written(tmp_path: Path) -> None:
    # Issue 50: on the bundled example, the active part sees at least 90% of the RPC
    # names the hand-written table sees, and gives no finding it doesn't. The launcher
    # constructs each engine core's runners: the most specific caller reaches its own.
    folder = _example(tmp_path, launcher=True)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    assert written.stderr.endswith(
        ": 4 tables active, 0 commented out waiting for you to confirm\n"
    )
    pyproject = folder / "pyproject.toml"
    surfaces = {s.name: s for s in load_config(pyproject).surfaces}
    assert [(s.callers, s.handlers) for s in surfaces.values()] == [
        (("minimind.engine_core.EngineCore",), ("minimind.model_runner.ModelRunner",)),
        (
            ("minimind.engine_core.DecodeEngineCore", "minimind.engine_core.PrefillEngineCore"),
            ("minimind.model_runner.DisaggModelRunner",),
        ),
    ]
    found = located(folder)
    assert found
    assert found <= located(EXAMPLE)
    bench = load_bench_script("init_engines")
    table = pyproject.read_text("utf-8")  # sites() writes the table it is given there
    init_sites, init_error = bench.sites(folder, table)
    hand_sites, hand_error = bench.sites(folder, (EXAMPLE / "pyproject.toml").read_text("utf-8"))
    assert (hand_error, init_error) == ("", "")
    seen = [name for name, at in hand_sites.items() if at <= init_sites.get(name, set())]
    assert hand_sites
    assert len(seen) / len(hand_sites) >= bench.TARGET


def test_getting_started_shows_what_init_writes_on_the_example(tmp_path: Path) -> None:
    # docs/getting-started.md shows init's table on the example, its comments left out:
    # the same keys and values as the file init writes, read as TOML.
    page = (ROOT / "docs" / "getting-started.md").read_text("utf-8")
    section = page.split("### Or let `rpcsurface init` write it", 1)[1]
    shown = section.split("```toml\n", 1)[1].split("```", 1)[0]
    folder = _example(tmp_path, launcher=True)
    assert run_cli(folder, "init").returncode == 0
    written = (folder / "pyproject.toml").read_text("utf-8")
    assert tomllib.loads(shown) == tomllib.loads(written)


def test_the_example_as_shipped_gets_nothing_new(tmp_path: Path) -> None:
    # Its hand-written table names the handlers the commented-out surface would list.
    folder = Path(shutil.copytree(EXAMPLE, tmp_path / "engine"))
    before = (folder / "pyproject.toml").read_bytes()
    shown = run_cli(folder, "init", "--diff")
    assert (shown.returncode, shown.stdout) == (0, ""), shown.stderr
    assert (folder / "pyproject.toml").read_bytes() == before

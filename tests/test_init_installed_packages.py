"""``init`` reads the project and the standard library, never an installed package (issue
50, item 4): what it proposes is the same wherever it runs, and astroid does not build a
dependency for every class of the project that derives from it (vLLM 0.7.3, run where
``transformers`` is installed, took 34 s instead of 7 s, 26 of them building 2,342 of its
modules)."""

from __future__ import annotations

from pathlib import Path

from support import init_engine, run_check, run_cli

# An installed package whose base class answers three of the names the engine sends.
PACKAGE = """\
class RunnerBase:
    def capture_cudagraph(self):
        return [1, 2, 4, 8]

    def reset_prefix_cache(self):
        return None

    def exit(self):
        return True
"""

MOVED = (
    "    def capture_cudagraph(self) -> list[int]:\n        return [1, 2, 4, 8]\n\n",
    "    def reset_prefix_cache(self) -> None:\n        self.kv_cache = []\n\n",
    "    def exit(self) -> bool:\n        return True\n\n",
)


def _engine_on_a_package(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The init fixture whose ``ModelRunner`` gets three of its methods from the installed
    package's ``RunnerBase``, and the environment of a run where it is installed."""
    folder = init_engine(tmp_path / "p")
    runner = folder / "seedengine" / "model_runner.py"
    text = runner.read_text(encoding="utf-8")
    for method in MOVED:
        assert method in text
        text = text.replace(method, "")
    assert "class ModelRunner:" in text
    text = "from heavylib import RunnerBase\n\n" + text.replace(
        "class ModelRunner:", "class ModelRunner(RunnerBase):"
    )
    runner.write_text(text, encoding="utf-8")
    site = tmp_path / "site"
    (site / "heavylib").mkdir(parents=True)
    (site / "heavylib" / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    return folder, {"PYTHONPATH": str(site)}


def test_an_installed_package_changes_nothing_init_proposes(tmp_path: Path) -> None:
    folder, installed = _engine_on_a_package(tmp_path)
    absent = run_cli(folder, "init", "--diff")
    present = run_cli(folder, "init", "--diff", env=installed)
    assert absent.returncode == present.returncode, (absent.stderr, present.stderr)
    assert present.stdout == absent.stdout
    assert present.stderr == absent.stderr
    # The proposal is about the engine: its dispatch, and no word of the package.
    assert 'method = "call_func"' in present.stdout
    assert "heavylib" not in present.stdout + present.stderr


def test_the_check_of_init_s_table_reads_the_installed_package(tmp_path: Path) -> None:
    """Only init's reading leaves the package out: ``check`` of the table it wrote, in
    the same environment, reads the base class as pylint does."""
    folder, installed = _engine_on_a_package(tmp_path)
    written = run_cli(folder, "init", env=installed)
    assert written.returncode == 0, written.stderr
    present = run_check(folder, "--format", "json", "--no-cache", env=installed)
    absent = run_check(folder, "--format", "json", "--no-cache")
    # The package's handler returns a value the engine does not wait for: only a run
    # that reads the package knows it.
    unwaited = "RunnerBase.capture_cudagraph"
    assert [m.symbol for m in present.messages if unwaited in m.text] == ["rpc-unwaited-reply"]
    assert not [m for m in absent.messages if unwaited in m.text]

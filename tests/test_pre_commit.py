"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit program.

``pre-commit try-repo REPO HOOK --all-files`` clones REPO at its HEAD, builds the hook's
own isolated virtualenv with pip (pip installs this package and its dependencies, and
nothing of the linted project), and runs the hook in the current git repository. That
repository here is a small project whose code imports a package that is not installed
anywhere: pylint's own checks struggle in such an environment, ours never import the code
and must work. The planted bug must be reported with pre-commit's exit status 1, and the
hook must pass once it is fixed.

REPO is a fresh git repository holding a copy of this checkout's package files, committed:
try-repo only sees committed (or tracked) files, and the checkout may be a plain copy
without .git (as in CI) or have uncommitted changes. Each try-repo builds its environment
anew (it uses a temporary store), so these tests take a while: they are marked
``precommit``, to select (``-m precommit``) or skip (``-m "not precommit"``) them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import ROOT, copy_checkout, fast_surface

HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"

pytestmark = pytest.mark.precommit

PYPROJECT = """\
[project]
name = "engine"
version = "0"
dependencies = ["gpu-runtime-that-does-not-exist"]

""" + fast_surface(
    "engine.core.Core",
    "engine.runner.FastRunner",
    "engine.runner.Runner",
    "engine.runner.FAST_RPCS",
)

# The runners use the missing package but don't subclass anything from it: a handler
# with an unresolvable base may answer names nobody can see, so the plugin would
# rightly refuse to call anything unanswered.
RUNNER = """\
import gpu_runtime_that_does_not_exist as gpu

FAST_RPCS = ("prefill",)


class Runner:
    def forward(self, batch):
        return gpu.run(batch)


class FastRunner(Runner):
    def prefill(self, batch):
        return gpu.prefill(batch)
"""

# The planted bug: a misspelt RPC name that no runner answers.
CORE_BUGGY = """\
from gpu_runtime_that_does_not_exist import Manager


class Core:
    def __init__(self):
        self.mgr = Manager()

    def step(self, batch):
        self.mgr.call_func("forward", batch, wait_out=True)
        return self.mgr.call_func("prefil", batch, wait_out=True)  # expect: rpc-unanswered
"""
CORE_FIXED = CORE_BUGGY.replace('"prefil"', '"prefill"').replace("  # expect: rpc-unanswered", "")


def planted() -> tuple[str, int, int]:
    """The planted finding's (symbol, line, column), from CORE_BUGGY's ``# expect:`` marker."""
    for number, line in enumerate(CORE_BUGGY.splitlines(), start=1):
        match = re.search(r"# expect: ([a-z-]+)$", line)
        if match:
            return match.group(1), number, line.index('"prefil"')
    raise AssertionError("CORE_BUGGY has no '# expect:' marker")


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def hooks_repo(folder: Path) -> Path:
    """A git repository holding this checkout's package and hooks, committed."""
    repo = copy_checkout(folder / "hooks-repo")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks under test")
    return repo


def user_project(folder: Path) -> Path:
    """The linted project: a git repository whose code imports a package nobody has."""
    project = folder / "project"
    (project / "engine").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT, "utf-8")
    (project / "engine" / "__init__.py").write_text("", "utf-8")
    (project / "engine" / "runner.py").write_text(RUNNER, "utf-8")
    (project / "engine" / "core.py").write_text(CORE_BUGGY, "utf-8")
    git(project, "init", "-q")
    git(project, "add", "-A")
    return project


def try_repo(project: Path, repo: Path, hook: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(repo), hook, "--all-files"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def explain(run: subprocess.CompletedProcess[str]) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"


def the_dependency_is_really_missing() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import gpu_runtime_that_does_not_exist"],
        capture_output=True,
        check=False,
    )
    assert probe.returncode != 0


def report_then_pass(tmp_path: Path, hook: str, finding: re.Pattern[str]) -> None:
    the_dependency_is_really_missing()
    repo = hooks_repo(tmp_path)
    project = user_project(tmp_path)
    home = tmp_path / "pre-commit-home"

    run = try_repo(project, repo, hook, home)
    assert run.returncode == 1, explain(run)
    assert finding.search(run.stdout), explain(run)
    assert "Traceback" not in run.stdout + run.stderr, explain(run)

    (project / "engine" / "core.py").write_text(CORE_FIXED, "utf-8")
    git(project, "add", "-A")
    run = try_repo(project, repo, hook, home)
    assert run.returncode == 0, explain(run)
    assert re.search(rf"^{re.escape(hook_name(hook))}\.+Passed$", run.stdout, re.M), explain(run)
    assert "rpc-" not in run.stdout, explain(run)


def hook_name(hook: str) -> str:
    (entry,) = [h for h in yaml.safe_load(HOOKS_FILE.read_text("utf-8")) if h["id"] == hook]
    return str(entry["name"])


def test_the_pylint_hook_reports_the_planted_bug_then_passes(tmp_path: Path) -> None:
    symbol, line, column = planted()
    # pylint's text format: path:line:column: msgid: text (symbol)
    finding = re.compile(
        rf"^engine/core\.py:{line}:{column}: E77\d\d: 'prefil' .* \({symbol}\)$", re.M
    )
    report_then_pass(tmp_path, "pylint-rpcsurface", finding)


def test_the_check_hook_reports_the_planted_bug_then_passes(tmp_path: Path) -> None:
    symbol, line, _ = planted()
    finding = re.compile(rf"engine/core\.py:{line}:.*{symbol}", re.M)
    report_then_pass(tmp_path, "rpcsurface-check", finding)


def test_both_hooks_are_declared_as_the_docs_say() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text("utf-8"))}
    assert set(hooks) == {"pylint-rpcsurface", "rpcsurface-check"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["require_serial"] is True
        assert hook["types"] == ["python"]
    pylint_hook, check_hook = hooks["pylint-rpcsurface"], hooks["rpcsurface-check"]
    assert pylint_hook["entry"] == "pylint"
    assert "--load-plugins=pylint_rpcsurface" in pylint_hook["args"]
    # only our checker: everything else off first, then ours on
    assert pylint_hook["args"].index("--disable=all") < pylint_hook["args"].index(
        "--enable=rpcsurface"
    )
    assert pylint_hook.get("pass_filenames", True) is True
    assert check_hook["entry"] == "rpcsurface check"
    assert check_hook["pass_filenames"] is False
    # Both judge the same messages (the opt-in one included), whatever pylint's
    # configuration file says: the same options, in the same order.
    message_options = [a for a in pylint_hook["args"] if a.startswith(("--disable=", "--enable="))]
    assert check_hook["args"] == message_options


def test_the_fixture_marks_one_planted_bug() -> None:
    symbol, line, column = planted()
    assert symbol == "rpc-unanswered"
    assert CORE_BUGGY.splitlines()[line - 1][column:].startswith('"prefil"')
    assert '"prefil"' not in CORE_FIXED
    assert "# expect" not in CORE_FIXED


def test_the_documented_rev_is_a_commit_that_declares_both_hooks() -> None:
    # No release is tagged: the docs pin a commit, which must exist and hold the hooks.
    blocks = re.findall(
        r"```yaml\n(.*?)```", (ROOT / "docs" / "pre-commit.md").read_text("utf-8"), re.S
    )
    (config,) = [yaml.safe_load(b) for b in blocks if "repos:" in b]
    (repo,) = config["repos"]
    rev = str(repo["rev"])
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"{rev!r} is not a full commit hash"
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    shown = subprocess.run(
        ["git", "show", f"{rev}:.pre-commit-hooks.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    ids = {hook["id"] for hook in yaml.safe_load(shown.stdout)}
    assert ids == {"pylint-rpcsurface", "rpcsurface-check"}
    assert {hook["id"] for hook in repo["hooks"]} <= ids

"""A class's lineage for the caller search (the configured callers among its ancestors,
and whether a starred base may make it anything) is a piece of its own, read from the
class's module's interface and its bases' modules. A statement added in a method of the
module leaves it as it was: the module's caller search runs again (it reads the whole
body, where a class may be nested anywhere), but no base's module is built for it
(LMDeploy 0.7.3's ``mp_executor.py``, whose edit built ``base.py`` and
``base_worker.py`` again)."""

from __future__ import annotations

from pathlib import Path

from support import fast_surface, line_of, project, run_check, stats_env, stats_records

ROLES = """\
from pkg.base_worker import WorkerBase
from pkg.core import Core


class Prefill(Core):
    def run(self):
        self.mgr.call_func("prefil", wait_out=True)


class Wrapper(WorkerBase):
    pass
"""

FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        'class Core:\n    def step(self):\n        self.mgr.call_func("prefill", wait_out=True)\n'
    ),
    "pkg/base_worker.py": "class WorkerBase:\n    def ping(self):\n        return 1\n",
    "pkg/roles.py": ROLES,
    "pkg/runners.py": (
        "RPCS = ()\n\n\nclass Runner:\n    def prefill(self):\n        return 1\n\n\n"
        "class FastRunner(Runner):\n    pass\n"
    ),
    "pyproject.toml": fast_surface(
        "pkg.core.Core", "pkg.runners.FastRunner", "pkg.runners.Runner", "pkg.runners.RPCS"
    ),
}


def test_a_body_edit_builds_no_base_module_for_the_caller_search(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", FILES)
    warm = run_check(root, "--format", "json", env=stats_env(root))
    assert {(m.symbol, m.path) for m in warm.messages} == {("rpc-unanswered", "pkg/roles.py")}
    edited = ROLES.replace("    def run(self):\n", "    def run(self):\n        edited = 1\n")
    (root / "pkg/roles.py").write_text(edited)
    after = run_check(root, "--format", "json", env=stats_env(root))
    uncached = run_check(root, "--format", "json", "--no-cache")
    assert after.stdout == uncached.stdout, after.stderr
    # The finding moved with its line.
    assert [m.line for m in after.messages] == [line_of(edited, '"prefil"')]
    record = stats_records(root)[-1]
    # The edited module, and the caller's base whose attribute the edited method's
    # dispatch reads; not the handler wrapper's base, which only the search reads.
    assert record["modules_built"] == ["pkg/core.py", "pkg/roles.py"]

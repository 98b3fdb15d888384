"""A handler's replies are judged only for the names whose calls a reply rule reads them
for: a waited call whose dispatch drops None, an unwaited one whose replies share one
queue, a reply unpacked. Inferring a return builds what it returns (on LMDeploy 0.7.3, a
fifth of a cold ``check``), so a name no rule asks about leaves the module its handler's
return comes from unbuilt; a name a rule asks about still gets its finding.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import project, run_check, stats_env, stats_records

DISPATCH = {
    "waited": "waits = true",
    "drops-none": "waits = true\ndrops-none = true",
    "shared-queue": "waits = false\nshared-reply-queue = true",
}

# (the dispatch, the caller's statement, the reply's source in kinds.py, the finding)
CASES = {
    "nothing reads the reply": ("waited", 'self.mgr.call("load")', "return None", None),
    "a waited call that drops None": (
        "drops-none",
        'self.mgr.call("load")',
        "return None",
        "rpc-waited-none-reply",
    ),
    "an unwaited call on a shared queue": (
        "shared-queue",
        'self.mgr.call("load")',
        "return 1",
        "rpc-unwaited-reply",
    ),
    "a reply unpacked": (
        "waited",
        'a, b = self.mgr.call("load")',
        "return (1, 2, 3)",
        "rpc-reply-arity",
    ),
}


def _files(dispatch: str, statement: str, reply: str) -> dict[str, str]:
    settings = "\n".join(f"        {line}" for line in DISPATCH[dispatch].splitlines())
    return {
        "pyproject.toml": f"""\
        [tool.rpcsurface]

        [[tool.rpcsurface.dispatch]]
        method = "call"
{settings}

        [[tool.rpcsurface.surface]]
        name = "workers"
        callers = ["pkg.base.Base"]
        handlers = ["pkg.worker.Worker"]
        """,
        "pkg/__init__.py": "",
        "pkg/kinds.py": f"""\
        def made():
            {reply}
        """,
        "pkg/worker.py": """\
        from pkg import kinds


        class Worker:
            def load(self):
                return kinds.made()
        """,
        "pkg/base.py": f"""\
        class Base:
            def __init__(self, mgr):
                self.mgr = mgr

            def start(self):
                {statement}
        """,
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_replies_are_judged_where_a_rule_reads_them(tmp_path: Path, case: str) -> None:
    dispatch, statement, reply, symbol = CASES[case]
    root = project(tmp_path / "proj", _files(dispatch, statement, reply))
    cached = run_check(root, "--format", "json", env=stats_env(root))
    uncached = run_check(root, "--format", "json", "--no-cache")
    assert cached.stdout == uncached.stdout, cached.stderr
    built = stats_records(root)[-1]["modules_built"]
    if symbol is None:
        assert cached.returncode == 0, cached.stdout + cached.stderr
        assert "pkg/worker.py" in built, built
        assert "pkg/kinds.py" not in built, built
    else:
        assert cached.returncode == 1, cached.stdout + cached.stderr
        assert f'"{symbol}"' in cached.stdout, cached.stdout
        assert "pkg/kinds.py" in built, built


def test_an_edit_of_another_method_keeps_the_handler_pieces(tmp_path: Path) -> None:
    """A handler piece whose replies are not judged still holds its method's position:
    an edit of another method above it in the module moves the position, and the piece
    holds without a build of the module, as when its replies are judged."""
    files = _files("waited", 'self.mgr.call("load")', "return 1")
    files["pkg/worker.py"] = files["pkg/worker.py"].replace(
        "class Worker:\n",
        "class Worker:\n            def before(self):\n                return 2\n\n",
    )
    root = project(tmp_path / "proj", files)
    env = stats_env(root)
    run_check(root, env=env)
    worker = root / "pkg/worker.py"
    text = worker.read_text("utf-8")
    assert text.count("        return 2\n") == 1
    worker.write_text(
        text.replace("        return 2\n", "        edited = 2\n        return edited\n")
    )
    warm = run_check(root, "--format", "json", env=env)
    assert warm.stdout == run_check(root, "--format", "json", "--no-cache").stdout
    record = stats_records(root)[-1]
    assert record["modules_built"] == [], record  # the handler's piece held

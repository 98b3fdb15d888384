"""bench/floors.py: which modules the configuration names, the ones a truly cold run must
build at the least (nothing is timed here)."""

from __future__ import annotations

from pathlib import Path

from support import load_bench_script, project

floors = load_bench_script("floors")

CONFIG = """\
[tool.rpcsurface]
source-roots = ["src"]

[[tool.rpcsurface.dispatch]]
method = "call"

[[tool.rpcsurface.surface]]
name = "s"
callers = ["app.core.Core", "app.helpers.send"]
handlers = ["app.Worker"]
base-handlers = ["app.core.Base"]
registry = "app.names.RPCS"
tables = ["app.tables.Engine.TABLE"]

[[tool.rpcsurface.proxy]]
name = "p"
callers = ["app.core.Core"]
receivers = ["self.actors"]
handlers = ["actors.Actor"]
own-members = ["missing.Nowhere"]
"""


def test_each_named_class_or_constant_gives_the_module_that_defines_it(tmp_path: Path) -> None:
    root = project(
        tmp_path / "proj",
        {
            "pyproject.toml": CONFIG,
            "src/app/__init__.py": "class Worker:\n    pass\n",
            "src/app/core.py": "class Base: ...\nclass Core(Base): ...\n",
            "src/app/helpers.py": "def send(): ...\n",
            "src/app/names.py": "RPCS = ()\n",
            "src/app/tables.py": "class Engine:\n    TABLE = {}\n",
            "src/actors.py": "class Actor: ...\n",
            "src/unnamed.py": "class Core: ...\n",
        },
    )
    assert floors.configured_modules(root) == [
        "src/actors.py",
        "src/app/__init__.py",
        "src/app/core.py",
        "src/app/helpers.py",
        "src/app/names.py",
        "src/app/tables.py",
    ]

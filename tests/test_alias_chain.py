"""A caller reached through an alias of an alias is a caller, in every mode
(docs/reliability.md, "Aliases of aliases").

The subclass search reads only the files whose text names a caller or one of its
aliases; each alias found adds its name, until nothing new turns up. Each project below
reaches ``app.Core`` from ``sub.Sub`` through a chain of aliases; ``Sub`` waits on
"sub_rpc", which only it waits on and the registry lists, and on "nobody_answers". Seen,
Sub's unanswered name is reported and "sub_rpc" is not called unwaited; unseen, the
first is missing and the second is a false rpc-listed-unwaited (and fix would delete it).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from support import (
    ONLY_A_SUBCLASS_WAITS,
    PYPROJECT,
    assert_no_crash,
    describe_run,
    line_of,
    project,
    run_check,
    run_cli,
    run_pylint,
)


def _sub(base_import: str) -> str:
    return textwrap.dedent(
        f"""\
        {base_import}


        class Sub(B):
            def go(self):
                self.mgr.call_func("sub_rpc", wait_out=True)
                self.mgr.call_func("nobody_answers", wait_out=True)
        """
    )


# Each chain: the modules between app.Core and sub.py, and how sub.py imports B.
CHAINS: dict[str, tuple[dict[str, str], str]] = {
    # The case: an alias of an alias in one module, used in another.
    "alias-of-alias-in-one-module": (
        {"aliases.py": "from app import Core\n\nA = Core\nB = A\n"},
        "from aliases import B",
    ),
    "import-as-then-assigned": (
        {"aliases.py": "from app import Core as A\n\nB = A\n"},
        "from aliases import B",
    ),
    # One link a module: each module names only the link before it.
    "across-modules": (
        {
            "first.py": "from app import Core\n\nA = Core\n",
            "second.py": "from first import A\n\nB = A\n",
        },
        "from second import B",
    ),
    "re-exported-as": (
        {
            "first.py": "from app import Core\n\nA = Core\n",
            "second.py": "from first import A as B\n",
        },
        "from second import B",
    ),
    # mid_alias.py is read before mid.py defines Mid (a subclass of Core): the alias
    # of Mid must still be followed once Mid is found.
    "alias-of-a-subclass-found-later": (
        {
            "mid.py": "from app import Core\n\n\nclass Mid(Core):\n    pass\n",
            "a_mid_alias.py": "from app import Core\nfrom mid import Mid\n\nB = Mid\nC = Core\n",
        },
        "from a_mid_alias import B",
    ),
    # A cycle in the aliases: the search must end, and B is still Core.
    "cycle": (
        {"aliases.py": "from app import Core\n\nA = Core\nB = A\nA = B\nB = A\n"},
        "from aliases import B",
    ),
}


def _project(tmp_path: Path, chain: str) -> tuple[Path, str]:
    modules, base_import = CHAINS[chain]
    sub = _sub(base_import)
    files: dict[str, str | bytes] = {
        "pyproject.toml": PYPROJECT,
        "app.py": ONLY_A_SUBCLASS_WAITS,
        **modules,
        "sub.py": sub,
    }
    return project(tmp_path / "proj", files), sub


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_a_caller_through_a_chain_of_aliases_is_a_caller_in_every_mode(
    tmp_path: Path, chain: str
) -> None:
    """check (cold, warm, --no-cache), pylint on the whole tree, on sub.py alone, with
    -j 2 and on sub.py's buffer from stdin, report and fix agree: Sub is a caller."""
    root, sub = _project(tmp_path, chain)
    expected = {("rpc-unanswered", "sub.py", line_of(sub, "nobody_answers"))}

    for args in (("--no-cache",), (), ()):  # afresh, then cold and warm through the store
        check = run_check(root, "--format", "json", *args)
        assert {(m.symbol, m.path, m.line) for m in check.messages} == expected, check
        assert check.messages[0].text.startswith("'nobody_answers' is broadcast by Sub,")
    for args in (("--recursive=y", "."), ("sub.py",), ("-j", "2", "--recursive=y", ".")):
        run = run_pylint(root, *args)
        assert_no_crash(run)
        assert run.keys() == expected, f"pylint {args}\n{describe_run(run)}"
    typed = run_pylint(root, "--from-stdin", "sub.py", stdin=sub)  # an editor's buffer
    assert_no_crash(typed)
    assert typed.keys() == expected, describe_run(typed)

    report = json.loads(run_cli(root, "report", "--format", "json").stdout)
    (row,) = [r for r in report[0]["rows"] if r["rpc"] == "sub_rpc"]
    assert row["waitedBy"][0]["callers"] == ["sub.Sub"], row
    fixed = run_cli(root, "fix", "--diff")
    assert fixed.returncode == 0, fixed  # nothing to change: 'sub_rpc' stays listed
    assert fixed.stdout == "", fixed

"""``rpcsurface fix``: each registry form rewritten in place, --diff, refusals, encodings.

The project: Core waits on some names and sends one without waiting; FastRunner answers
the fast ones, its base Runner the rest. The registry must be WAITED & FAST - BASE, which
is computed here from the same constants the fixture is written from.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import stat
import textwrap
from pathlib import Path

import pytest
from support import fast_surface, project, run_check, run_cli

BASE = ("step",)
FAST = ("fast_a", "fast_b", "fast_c", "fast_d")
WAITED = ("step", "fast_a", "fast_c", "fast_d")
UNWAITED = ("fast_b",)
DERIVED = frozenset(WAITED) & frozenset(FAST) - frozenset(BASE)  # fast_a, fast_c, fast_d

PYPROJECT = fast_surface("app.Core", "app.FastRunner", "app.Runner", "registry.RPCS")


def _app(extra_call: str = "", runner_base: str = "Runner") -> str:
    methods = "".join(f"    def {n}(self):\n        return 1\n\n" for n in BASE)
    fast = "".join(f"    def {n}(self):\n        return 2\n\n" for n in FAST)
    calls = "".join(f'        self.mgr.call_func("{n}", wait_out=True)\n' for n in WAITED)
    calls += "".join(f'        self.mgr.call_func("{n}", wait_out=False)\n' for n in UNWAITED)
    return (
        f"class Runner:\n{methods}\n"
        f"class FastRunner({runner_base}):\n{fast}\n"
        "class Core:\n    def __init__(self, mgr):\n        self.mgr = mgr\n\n"
        f"    def run(self, name):\n{calls}{extra_call}"
    )


def _project(tmp_path: Path, registry: str | bytes, **kwargs: str) -> Path:
    return project(
        tmp_path / "proj",
        {"pyproject.toml": PYPROJECT, "app.py": _app(**kwargs), "registry.py": registry},
    )


def _value_of(text: str) -> ast.expr:
    (assign,) = [n for n in ast.parse(text).body if isinstance(n, (ast.Assign, ast.AnnAssign))]
    assert assign.value is not None
    return assign.value


def _names(text: str) -> list[str]:
    value = _value_of(text)
    if isinstance(value, ast.Call):
        value = value.args[0] if value.args else ast.Tuple(elts=[])
    assert isinstance(value, (ast.Tuple, ast.List, ast.Set)), ast.dump(value)
    return [ast.literal_eval(e) for e in value.elts]


def _comments(text: str) -> list[str]:
    return re.findall(r"#[^\n]*", text)


# Each case: the registry as written, and the registry fix must write. The expected text
# applies the documented rules by hand: stale names leave with their line (and its
# comment) when each name has a line of its own; new names are appended sorted, or go to
# their sorted place when the literal was sorted; form, quotes, indentation and trailing
# comma stay.
CASES = {
    "tuple-one-per-line-sorted-with-comments": (
        """\
        # The RPCs only FastRunner answers.
        RPCS = (
            "fast_a",  # first
            "fast_b",  # stale: sent without waiting
            # the c group
            "fast_c",
        )
        """,
        """\
        # The RPCs only FastRunner answers.
        RPCS = (
            "fast_a",  # first
            # the c group
            "fast_c",
            "fast_d",
        )
        """,
    ),
    "list-inline-unsorted-single-quotes": (
        "RPCS = ['fast_c', 'step', 'fast_a']\n",
        "RPCS = ['fast_c', 'fast_a', 'fast_d']\n",
    ),
    "set-literal-sorted-inline": (
        'RPCS = {"fast_a", "fast_d", "nope"}\n',
        'RPCS = {"fast_a", "fast_c", "fast_d"}\n',
    ),
    "frozenset-of-set-one-per-line-no-trailing-comma": (
        """\
        RPCS = frozenset({
            'fast_d',
            'fast_a'
        })
        """,
        """\
        RPCS = frozenset({
            'fast_d',
            'fast_a',
            'fast_c'
        })
        """,
    ),
    "frozenset-empty": (
        "RPCS = frozenset()\n",
        'RPCS = frozenset({"fast_a", "fast_c", "fast_d"})\n',
    ),
    "annotated-tuple-one-element-trailing-comma": (
        'RPCS: tuple[str, ...] = ("fast_a",)\n',
        'RPCS: tuple[str, ...] = ("fast_a", "fast_c", "fast_d",)\n',
    ),
    "duplicate-removed": (
        'RPCS = ("fast_a", "fast_c", "fast_a", "fast_d")\n',
        'RPCS = ("fast_a", "fast_c", "fast_d")\n',
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fix_rewrites_each_form_in_place(tmp_path: Path, case: str) -> None:
    before, after = (textwrap.dedent(text) for text in CASES[case])
    assert set(_names(after)) == DERIVED  # the expectation itself obeys the rule
    root = _project(tmp_path, before)
    # The registry is wrong (fix says it fixed it, and before != after); that check exits
    # 1 on a wrong registry is the acceptance table's and the parity matrix's.
    assert before != after
    run = run_cli(root, "fix")
    assert (run.returncode, run.stderr) == (0, ""), run
    assert run.stdout == "fixed registry.py (registry.RPCS)\n"
    written = (root / "registry.py").read_text(encoding="utf-8")
    assert written == after
    # Every comment that wasn't on a removed name's line survives.
    removed = {n for n in _names(before) if n not in DERIVED}
    kept = [
        c
        for line in before.splitlines()
        for c in _comments(line)
        if not any(f'"{n}"' in line or f"'{n}'" in line for n in removed)
    ]
    assert _comments(written) == kept
    check = run_check(root, "--no-cache")
    assert (check.returncode, check.stdout) == (0, ""), check
    again = run_cli(root, "fix")
    assert (again.returncode, again.stdout) == (0, "")  # nothing left to do


def test_diff_prints_the_change_and_writes_nothing(tmp_path: Path) -> None:
    before = textwrap.dedent(CASES["tuple-one-per-line-sorted-with-comments"][0])
    root = _project(tmp_path, before)
    registry = root / "registry.py"
    stamp = registry.stat().st_mtime_ns
    run = run_cli(root, "fix", "--diff")
    assert run.returncode == 1, run
    assert registry.read_bytes() == before.encode()
    assert registry.stat().st_mtime_ns == stamp
    # The diff is exactly the change fix then writes.
    assert run_cli(root, "fix").returncode == 0
    expected = difflib.unified_diff(
        before.splitlines(keepends=True),
        registry.read_text(encoding="utf-8").splitlines(keepends=True),
        "a/registry.py",
        "b/registry.py",
    )
    assert run.stdout == "".join(expected)
    assert '-    "fast_b",  # stale: sent without waiting\n' in run.stdout
    assert '+    "fast_d",\n' in run.stdout


def test_nothing_to_do_exits_0_and_the_diff_says_no_change(tmp_path: Path) -> None:
    # fix is silent, as a formatter with nothing to do; --diff says so on stderr, so that
    # its standard output stays an (empty) patch.
    text = 'RPCS = ("fast_a", "fast_c", "fast_d")\n'
    root = _project(tmp_path, text)
    run = run_cli(root, "fix")
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    run = run_cli(root, "fix", "--diff")
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "rpcsurface fix: no change\n")
    assert (root / "registry.py").read_text(encoding="utf-8") == text


REFUSALS = {
    "expression": (
        {"registry": 'BASE = ("fast_a",)\nRPCS = BASE + ("fast_c",)\n'},
        "RPCS = BASE",
        "it is built from an expression (`BASE + ('fast_c',)`)",
    ),
    "two-assignments": (
        {"registry": 'RPCS = ("fast_a",)\nRPCS = ("fast_c",)\n'},
        'RPCS = ("fast_a",)',
        "it is bound 2 times",
    ),
    "augmented": (
        {"registry": 'RPCS = ("fast_a",)\nif True:\n    RPCS += ("fast_c",)\n'},
        'RPCS = ("fast_a",)',
        "it is bound 2 times",
    ),
    "uninferable-waited-name": (
        {
            "registry": 'RPCS = ("fast_a",)\n',
            # Built at run time: not a parameter passed through (a forwarding layer,
            # which is not a named RPC at all), so the name is really unknown.
            "extra_call": '        self.mgr.call_func(f"fast_{self.kind}", wait_out=True)\n',
        },
        'RPCS = ("fast_a",)',
        "the RPC name f'fast_{self.kind}' at app.py:",
    ),
    "unresolved-handler-base": (
        {"registry": 'RPCS = ("fast_a",)\n', "runner_base": "Runner, missing_module.Mixin"},
        'RPCS = ("fast_a",)',
        "the names the handlers answer are not all known",
    ),
    "non-str-element": (
        {"registry": 'RPCS = ("fast_a", 3)\n'},
        'RPCS = ("fast_a", 3)',
        "the element 3 (line 1) is not a str",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusal_is_one_line_with_file_line_and_reason(tmp_path: Path, case: str) -> None:
    kwargs, at, why = REFUSALS[case]
    registry = kwargs.pop("registry")
    root = _project(tmp_path, registry, **kwargs)
    line = registry[: registry.index(at)].count("\n") + 1
    for args in (("fix",), ("fix", "--diff")):
        run = run_cli(root, *args)
        assert run.returncode == 2, run
        assert run.stdout == ""
        (message,) = run.stderr.splitlines()
        assert message.startswith(f"registry.py:{line}: can't fix registry.RPCS: "), message
        assert why in message, message
        assert (root / "registry.py").read_text(encoding="utf-8") == registry


def test_encoding_newlines_and_mode_are_kept(tmp_path: Path) -> None:
    lines = [
        "# -*- coding: latin-1 -*-",
        "# Liste des RPC: élève",
        "RPCS = (",
        '    "fast_a",',
        '    "fast_b",  # périmé',
        ")",
        "",
    ]
    before = "\r\n".join(lines).encode("latin-1")
    root = _project(tmp_path, before)
    registry = root / "registry.py"
    registry.chmod(0o640)
    run = run_cli(root, "fix")
    assert run.returncode == 0, run
    data = registry.read_bytes()
    expected = [*lines[:4], '    "fast_c",', '    "fast_d",', ")", ""]
    assert data == "\r\n".join(expected).encode("latin-1")
    assert stat.S_IMODE(registry.stat().st_mode) == 0o640
    assert [p.name for p in root.iterdir() if p.name.startswith(".registry")] == []


def test_utf8_bom_is_kept(tmp_path: Path) -> None:
    before = '\ufeff# ü\nRPCS = ["fast_a"]\n'.encode()
    root = _project(tmp_path, before)
    assert run_cli(root, "fix").returncode == 0
    assert (
        root / "registry.py"
    ).read_bytes() == '\ufeff# ü\nRPCS = ["fast_a", "fast_c", "fast_d"]\n'.encode()


def test_fix_is_a_no_op_without_a_registry(tmp_path: Path) -> None:
    root = _project(tmp_path, 'RPCS = ("fast_a",)\n')
    pyproject = root / "pyproject.toml"
    pyproject.write_text(PYPROJECT.replace('registry = "registry.RPCS"\n', ""), encoding="utf-8")
    before = {path: path.read_bytes() for path in root.iterdir() if path.is_file()}
    said = "rpcsurface fix: pyproject.toml: no surface names a registry"
    for args in (("fix",), ("fix", "--diff")):
        run = run_cli(root, *args)
        # Said on stderr, once, instead of nothing or "no change" (issue 50): neither
        # tells the user that fix has nothing it may rewrite.
        assert (run.returncode, run.stdout) == (0, ""), run.stderr
        assert run.stderr.startswith(said), run.stderr
        assert run.stderr.count("\n") == 1, run.stderr
    assert {path: path.read_bytes() for path in root.iterdir() if path.is_file()} == before


def test_the_example_project_registry_is_refused_not_guessed(tmp_path: Path) -> None:
    """examples/engine builds DISAGG_RPCS from an expression: fix must say so."""
    example = Path(__file__).parent.parent / "examples" / "engine"
    config = (example / "minimind" / "config.py").read_text(encoding="utf-8")
    line = config[: config.index("DISAGG_RPCS =")].count("\n") + 1
    run = run_cli(example, "fix", "--diff")
    assert run.returncode == 2
    assert run.stderr.startswith(
        f"minimind/config.py:{line}: can't fix minimind.config.DISAGG_RPCS: "
        "it is built from an expression"
    ), run.stderr
    assert os.path.exists(example / "minimind" / "config.py")


def test_a_silenced_finding_leaves_its_name_alone(tmp_path: Path) -> None:
    """A pragma on a stale element keeps it; a pragma on the only call of a missing name
    keeps it out; pylint's configuration silencing rpc-unlisted keeps out the rest."""
    registry = 'RPCS = (\n    "fast_a",\n    "fast_b",  # pylint: disable=rpc-listed-unwaited\n)\n'
    app = _app().replace(
        'call_func("fast_c", wait_out=True)',
        'call_func("fast_c", wait_out=True)  # pylint: disable=rpc-unlisted',
    )
    root = project(
        tmp_path / "proj",
        {"pyproject.toml": PYPROJECT, "app.py": app, "registry.py": registry},
    )
    run = run_cli(root, "fix")
    assert run.returncode == 0, run.stderr
    # fast_b stays (its finding is silenced), fast_c stays out, fast_d is added.
    assert _names((root / "registry.py").read_text()) == ["fast_a", "fast_b", "fast_d"]
    assert run_check(root, "--no-cache").returncode == 0
    # Silencing rpc-unlisted in pylint's configuration: fix adds nothing more.
    (root / "registry.py").write_text(registry)
    (root / "pyproject.toml").write_text(
        PYPROJECT + '\n[tool.pylint.messages_control]\ndisable = ["rpc-unlisted"]\n'
    )
    assert run_cli(root, "fix").returncode == 0
    assert _names((root / "registry.py").read_text()) == ["fast_a", "fast_b"]


LONG = tuple(f"fast_rpc_name_{n}" for n in range(1, 8))  # 7 names: ~140 columns inline
LONG_APP = (
    "class Runner:\n    def step(self):\n        return 1\n\n\n"
    "class FastRunner(Runner):\n"
    + "".join(f"    def {n}(self):\n        return 2\n\n" for n in LONG)
    + "\nclass Core:\n    def __init__(self, mgr):\n        self.mgr = mgr\n\n"
    "    def run(self):\n"
    + "".join(f'        self.mgr.call_func("{n}", wait_out=True)\n' for n in LONG)
)
# One element per line, as black and ruff format a literal past the line length.
WRAPPED = "RPCS = (\n" + "".join(f'    "{n}",\n' for n in LONG) + ")\n"
INLINE = "RPCS = (" + ", ".join(f'"{n}"' for n in LONG) + ")\n"
LAYOUTS = {
    # the formatter's settings beside [tool.rpcsurface], and whether fix wraps the line
    "default-88": ({}, WRAPPED),
    "black-200": ({"pyproject": "[tool.black]\nline-length = 200\n"}, INLINE),
    "ruff-first": (
        {"pyproject": "[tool.ruff]\nline-length = 200\n\n[tool.black]\nline-length = 80\n"},
        INLINE,
    ),
    "ruff-toml": ({"ruff.toml": "line-length = 200\n"}, INLINE),
    "pylint-200": ({"pyproject": "[tool.pylint.format]\nmax-line-length = 200\n"}, INLINE),
    "pylint-100": ({"pyproject": "[tool.pylint.format]\nmax-line-length = 100\n"}, WRAPPED),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_line_past_the_configured_length_is_wrapped_one_name_a_line(
    tmp_path: Path, layout: str
) -> None:
    assert 100 < len(INLINE) - 1 < 200  # the cases' premise
    settings, after = LAYOUTS[layout]
    files = {
        "pyproject.toml": PYPROJECT + "\n" + settings.get("pyproject", ""),
        "app.py": LONG_APP,
        "registry.py": "RPCS = ()\n",
    }
    if "ruff.toml" in settings:
        files["ruff.toml"] = settings["ruff.toml"]
    root = project(tmp_path / "proj", files)
    run = run_cli(root, "fix")
    assert (run.returncode, run.stderr) == (0, ""), run
    assert (root / "registry.py").read_text(encoding="utf-8") == after
    assert run_check(root, "--no-cache").returncode == 0


WRAPPED_FORMS = {
    "frozenset-with-a-comment-after": (
        'RPCS = frozenset({"fast_rpc_name_1"})  # the fast ones\n',
        "RPCS = frozenset(\n    {\n"
        + "".join(f'        "{n}",\n' for n in LONG)
        + "    }\n)  # the fast ones\n",
    ),
    "list-single-quotes": (
        "RPCS = ['fast_rpc_name_1', 'fast_rpc_name_2']\n",
        "RPCS = [\n" + "".join(f"    '{n}',\n" for n in LONG) + "]\n",
    ),
    "crlf": ("RPCS = ()\r\n", WRAPPED.replace("\n", "\r\n")),
}


@pytest.mark.parametrize("form", sorted(WRAPPED_FORMS))
def test_each_form_is_wrapped_as_a_formatter_would(tmp_path: Path, form: str) -> None:
    before, after = WRAPPED_FORMS[form]
    files: dict[str, str | bytes] = {"pyproject.toml": PYPROJECT, "app.py": LONG_APP}
    files["registry.py"] = before.encode()
    root = project(tmp_path / "proj", files)
    run = run_cli(root, "fix")
    assert (run.returncode, run.stderr) == (0, ""), run
    assert (root / "registry.py").read_bytes() == after.encode()

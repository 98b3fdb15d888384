"""Pieces kept under what they read: never stale, and an edit costs what it changes.

Each scenario writes a small project, runs the analysis with a memo, makes one edit that
inference sees only by entering another module (a helper's return, an attribute set in
``__init__``, a ``global`` write, a package's lazy ``__getattr__``, a factory-made base,
a reply through a helper), and compares the memo's answer with the answer from nothing.
The cost side counts the modules astroid builds: an edit that leaves every interface as
it was builds none of the modules that only their interface was read from.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from astroid.builder import AstroidBuilder
from support import fast_surface

from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import Memo, surface_facts
from pylint_rpcsurface.model import Analysis

SURFACE = fast_surface(
    "app.Core", "runners.FastRunner", "runners.Runner", "registry.FAST_RPCS"
).replace('waits = "wait_out"', 'waits = "wait_out"\ndrops-none = true\nshared-reply-queue = true')
RUNNERS = """\
from replies import reply_of


class Runner:
    def prefill(self):
        return reply_of("prefill")


class FastRunner(Runner):
    def alpha(self):
        return 1

    def beta(self):
        return 2
"""
REPLIES = """\
def reply_of(name):
    return name
"""
REGISTRY = 'FAST_RPCS = ("alpha", "beta")\n'

# The last class of RUNNERS, answering alpha with None, and a class to move it below.
FAST_RUNNER = RUNNERS.replace("return 1", "return None")[RUNNERS.index("class FastRunner") :]
OTHER = "class Other:\n    def unrelated(self):\n        return 3\n"

# Each scenario: its modules, then the one edit (module, old text, new text).
SCENARIOS: dict[str, tuple[dict[str, str], tuple[str, str, str]]] = {
    "a helper's return": (
        {
            "names.py": 'def rpc_name():\n    return "alpha"\n',
            "app.py": (
                "from names import rpc_name\n\n\nclass Core:\n    def step(self):\n"
                "        self.mgr.call_func(rpc_name(), wait_out=True)\n"
            ),
        },
        ("names.py", 'return "alpha"', 'return "gamma"'),
    ),
    "an attribute set in __init__": (
        {
            "names.py": 'class Names:\n    def __init__(self):\n        self.rpc = "alpha"\n',
            "app.py": (
                "from names import Names\n\n\nclass Core:\n    def step(self):\n"
                "        self.mgr.call_func(Names().rpc, wait_out=True)\n"
            ),
        },
        ("names.py", 'self.rpc = "alpha"', 'self.rpc = "gamma"'),
    ),
    "a local the attribute is set from": (
        {
            "names.py": (
                "class Names:\n    def __init__(self):\n        chosen = 'alpha'\n"
                "        self.rpc = chosen\n"
            ),
            "app.py": (
                "from names import Names\n\n\nclass Core:\n    def step(self):\n"
                "        self.mgr.call_func(Names().rpc, wait_out=True)\n"
            ),
        },
        ("names.py", "chosen = 'alpha'", "chosen = 'gamma'"),
    ),
    "a global write": (
        {
            "names.py": (
                'NAME = "alpha"\n\n\ndef configure():\n    global NAME\n    NAME = "alpha"\n'
            ),
            "app.py": (
                "import names\n\n\nclass Core:\n    def step(self):\n"
                "        self.mgr.call_func(names.NAME, wait_out=True)\n"
            ),
        },
        ("names.py", '    NAME = "alpha"', '    NAME = "gamma"'),
    ),
    "a lazy __getattr__ of a package made eager": (
        {
            "pkg/__init__.py": (
                "def __getattr__(name):\n    if name == 'Base':\n"
                "        from pkg.base import Base\n        return Base\n"
                "    raise AttributeError(name)\n"
            ),
            "pkg/base.py": (
                "class Base:\n    def step(self):\n"
                "        self.mgr.call_func('alpha', wait_out=True)\n"
            ),
            "app.py": "import pkg\n\n\nclass Core(pkg.Base):\n    pass\n",
        },
        (
            "pkg/__init__.py",
            "def __getattr__(name):",
            "from pkg.base import Base\n\n\ndef __getattr__(name):",
        ),
    ),
    "a submodule reached through another module's attribute": (
        {
            "a.py": "import pkg.sub\n",
            "pkg/__init__.py": "",
            "pkg/sub.py": (
                "class Base:\n    def step(self):\n"
                "        self.mgr.call_func('alpha', wait_out=True)\n"
            ),
            "app.py": "import a\n\n\nclass Core(a.pkg.sub.Base):\n    pass\n",
        },
        ("pkg/sub.py", "'alpha'", "'gamma'"),
    ),
    "a factory-made base": (
        {
            "factory.py": (
                "from bases import First, Second\n\n\ndef make_base():\n    return First\n"
            ),
            "bases.py": (
                "class First:\n    def step(self):\n"
                "        self.mgr.call_func('alpha', wait_out=True)\n\n\n"
                "class Second:\n    def step(self):\n"
                "        self.mgr.call_func('gamma', wait_out=True)\n"
            ),
            "app.py": "from factory import make_base\n\n\nclass Core(make_base()):\n    pass\n",
        },
        ("factory.py", "return First", "return Second"),
    ),
    "a renamed import": (
        {
            "names.py": (
                'def rpc_name():\n    return "alpha"\n\n\ndef other_name():\n    return "gamma"\n'
            ),
            "app.py": (
                "from names import rpc_name\n\n\nclass Core:\n    def step(self):\n"
                "        self.mgr.call_func(rpc_name(), wait_out=True)\n"
            ),
        },
        ("app.py", "import rpc_name", "import other_name as rpc_name"),
    ),
    "a handler class moved below another": (
        {
            "app.py": (
                "class Core:\n    def step(self):\n"
                "        self.mgr.call_func('alpha', wait_out=True)\n"
            ),
            # FastRunner.alpha replies None: the finding names its line.
            "runners.py": RUNNERS.replace("return 1", "return None") + "\n\n" + OTHER,
        },
        ("runners.py", FAST_RUNNER + "\n\n" + OTHER, OTHER + "\n\n" + FAST_RUNNER),
    ),
    "a reply through a helper": (
        {
            "app.py": (
                "class Core:\n    def step(self):\n"
                "        out = self.mgr.call_func('prefill', wait_out=True)\n"
                "        return out.shape\n"
            ),
        },
        ("replies.py", "return name", "print(name)"),
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")


def _answer(analysis: Analysis) -> tuple[object, ...]:
    return (analysis.config_errors, analysis.all_findings())


@contextmanager
def _counting_builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The files astroid builds meanwhile, in order."""
    built: list[str] = []
    original = AstroidBuilder.file_build

    def file_build(self: AstroidBuilder, path: str, modname: str | None = None) -> object:
        built.append(os.path.basename(path))
        return original(self, path, modname)

    monkeypatch.setattr(AstroidBuilder, "file_build", file_build)
    try:
        yield built
    finally:
        monkeypatch.undo()


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = Path(os.path.realpath(tmp_path))
    _write(
        root,
        {
            "pyproject.toml": SURFACE,
            "runners.py": RUNNERS,
            "replies.py": REPLIES,
            "registry.py": REGISTRY,
            **files,
        },
    )
    return root


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_an_edit_inference_sees_through_another_module_is_never_stale(
    tmp_path: Path, scenario: str
) -> None:
    files, (edited, old, new) = SCENARIOS[scenario]
    root = _project(tmp_path, files)
    config = load_config(root / "pyproject.toml")
    memo_file = root / ".memo.json"
    before = _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis())
    assert before == _answer(surface_facts(config).analysis())
    text = (root / edited).read_text(encoding="utf-8")
    assert old in text
    (root / edited).write_text(text.replace(old, new), encoding="utf-8")
    expected = _answer(surface_facts(config).analysis())
    assert expected != before, "the edit must change the answer, or the test proves nothing"
    assert _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis()) == expected


def test_a_comment_in_the_caller_builds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment changes no syntax tree: every piece holds, and no module is built."""
    files, _ = SCENARIOS["a helper's return"]
    root = _project(tmp_path, files)
    config = load_config(root / "pyproject.toml")
    memo_file = root / ".memo.json"
    expected = _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis())
    app = root / "app.py"
    app.write_text(app.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    with _counting_builds(monkeypatch) as built:
        assert (
            _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis()) == expected
        )
    assert built == []


def test_a_body_edit_that_keeps_the_interface_builds_only_what_read_the_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The caller reads names.py's interface only (the helper's return is its body): an
    edit inside another function of names.py recomputes only the pieces that entered
    that body, and the caller's module is not built again."""
    files = {
        "names.py": ('def rpc_name():\n    return "alpha"\n\n\ndef unrelated():\n    return 1\n'),
        "app.py": (
            "from names import rpc_name\n\n\nclass Core:\n    def step(self):\n"
            "        self.mgr.call_func(rpc_name(), wait_out=True)\n"
        ),
    }
    root = _project(tmp_path, files)
    config = load_config(root / "pyproject.toml")
    memo_file = root / ".memo.json"
    surface_facts(config, memo=Memo(memo_file, "identity")).analysis()
    names = root / "names.py"
    names.write_text(
        names.read_text(encoding="utf-8").replace("return 1", "return 2"), encoding="utf-8"
    )
    expected = _answer(surface_facts(config).analysis())
    with _counting_builds(monkeypatch) as built:
        assert (
            _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis()) == expected
        )
    # rpc_name's body was entered by the caller's broadcasts: names.py's body digest
    # changed, so that piece is computed again, building names.py and app.py. The
    # handlers' pieces read neither module: runners.py and replies.py are not built.
    assert "runners.py" not in built
    assert "replies.py" not in built


def _edit_and_count_builds(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str],
    edit: tuple[str, str, str],
) -> tuple[tuple[object, ...], list[str]]:
    """The project of *files* analysed with a memo, then *edit* (module, old text, new
    text) saved: the answer from nothing after it, which the memo's must equal and which
    must differ from the one before (the edit is seen), and the modules the memo's run
    built."""
    root = _project(tmp_path, files)
    config = load_config(root / "pyproject.toml")
    memo_file = root / ".memo.json"
    before = _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis())
    module, old, new = edit
    text = (root / module).read_text(encoding="utf-8")
    assert old in text
    (root / module).write_text(text.replace(old, new, 1), encoding="utf-8")
    expected = _answer(surface_facts(config).analysis())
    assert expected != before, "the edit must change the answer, or the test proves nothing"
    with _counting_builds(monkeypatch) as built:
        assert (
            _answer(surface_facts(config, memo=Memo(memo_file, "identity")).analysis()) == expected
        )
    return expected, built


def test_lines_inserted_above_a_handler_move_its_findings_and_build_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blank lines above the handler classes move every position in runners.py, but no
    function's text: the pieces that read those functions hold, their positions moved
    with the functions (the finding names the handler's new line), and no module is
    built."""
    files = {
        "app.py": (
            'class Core:\n    def step(self):\n        self.mgr.call_func("alpha", wait_out=True)\n'
        ),
        "runners.py": RUNNERS.replace("return 1", "return None"),
    }
    # Blank lines above the classes: the handler's line, in the finding, moves.
    _, built = _edit_and_count_builds(
        tmp_path, monkeypatch, files, ("runners.py", "from replies", "\n\nfrom replies")
    )
    assert built == []


def test_an_edit_in_one_method_recomputes_that_method_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Core.step reaches names.py's helper; an edit inside Core.other (a line more,
    which moves Core.step's positions too) recomputes Core.other's piece alone: the
    helper's module is not built, and the answer is the one from nothing."""
    files = {
        "names.py": 'def rpc_name():\n    return "alpha"\n',
        "app.py": (
            "from names import rpc_name\n\n\nclass Core:\n    def other(self):\n"
            "        return 1\n\n    def step(self):\n"
            "        self.mgr.call_func(rpc_name(), wait_out=True)\n"
            '        self.mgr.call_func("ghost", wait_out=True)\n'
        ),
    }
    # A line more in Core.other: the finding on 'ghost' moves a line down.
    _, built = _edit_and_count_builds(
        tmp_path, monkeypatch, files, ("app.py", "return 1", "x = 1\n        return x")
    )
    assert "names.py" not in built


def test_an_edit_in_an_inherited_method_builds_no_subclass_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SubCore, in sub.py, inherits Core's methods: after an edit inside Core.other,
    SubCore's broadcasts are put together again from the pieces of its members and
    codes, and sub.py is not built."""
    files = {
        "app.py": (
            "class Core:\n    def other(self):\n        return 1\n\n    def step(self):\n"
            '        self.mgr.call_func("ghost", wait_out=True)\n'
        ),
        "sub.py": "from app import Core\n\n\nclass SubCore(Core):\n    pass\n",
    }
    # A line more in Core.other: the finding on 'ghost' moves a line down.
    expected, built = _edit_and_count_builds(
        tmp_path, monkeypatch, files, ("app.py", "return 1", "x = 1\n        return x")
    )
    assert "SubCore" in str(expected), "the subclass is a caller whose finding is reported"
    assert "sub.py" not in built

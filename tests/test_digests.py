"""A module's two digests: the body digest sees every change of the syntax tree and its
positions but no comment; the interface digest sees what inference reads from outside
a function, and nothing else a function's body holds."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

import pylint_rpcsurface
from pylint_rpcsurface.engine.digests import (
    LocalDigests,
    _functions_named,
    module_digests,
)

MODULE = """\
import os

LIMIT = 3


def decorate(function):
    return function


class Runner:
    size: int = 2

    def __init__(self, rank):
        self.rank = rank
        local = rank + 1
        print(local)

    @decorate
    def forward(self, batch, scale=1.0):
        total = 0
        for item in batch:
            total += item
        return total * scale


def configure():
    global LIMIT
    LIMIT = 4
    return os.getcwd()
"""

# Each edit: (old, new), and the digests read from outside a function that it changes:
# the module's interface, and its top-level class's members ("class Runner" all of them,
# "member Runner.N" those bound to N).
RUNNER = "class Runner"
EDITS: dict[str, tuple[str, str, set[str]]] = {
    "a statement in a method": ("total = 0", "total = 1", set()),
    "a local in __init__": ("local = rank + 1", "local = rank + 2", set()),
    "a return value": ("return total * scale", "return total", set()),
    "an attribute set in __init__": (
        "self.rank = rank",
        "self.rank = rank * 2",
        {"interface", RUNNER, "member Runner.__init__", "member Runner.rank"},
    ),
    "a write to a global": ("    LIMIT = 4", "    LIMIT = 5", {"interface"}),
    "a default value": ("scale=1.0", "scale=2.0", {RUNNER, "member Runner.forward"}),
    "a decorator": ("    @decorate\n", "", {RUNNER, "member Runner.forward"}),
    "a class attribute": ("size: int = 2", "size: int = 3", {RUNNER, "member Runner.size"}),
    "a module constant": ("LIMIT = 3", "LIMIT = 30", {"interface"}),
    "an import": ("import os", "import sys as os", {"interface"}),
    "a new function": (
        "def configure",
        "def extra(self):\n    pass\n\n\ndef configure",
        {"interface"},
    ),
    "a new method": (
        "    @decorate\n",
        "    def extra(self):\n        pass\n\n    @decorate\n",
        {RUNNER, "member Runner.extra"},
    ),
    "a base class": ("class Runner:", "class Runner(object):", {"interface"}),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_each_edit_changes_the_digests_it_should(edit: str) -> None:
    old, new, outside = EDITS[edit]
    assert old in MODULE
    levels, _ = module_digests(MODULE)
    edited, _ = module_digests(MODULE.replace(old, new, 1))
    assert edited["body"] != levels["body"]
    changed = {
        level
        for level in levels.keys() | edited.keys()
        if level != "body"
        and not level.startswith("def ")
        and levels.get(level) != edited.get(level)
    }
    assert changed == outside


def test_comments_change_no_tree_digest() -> None:
    """A comment after the code changes nothing; one inside a function changes that
    function's own digest only (it is of the function's text)."""
    assert module_digests(MODULE + "\n# the end\n\n") == module_digests(MODULE)
    before, _ = module_digests(MODULE)
    after, _ = module_digests(MODULE.replace("total = 0", "total = 0  # start"))
    changed = {level for level in before if after.get(level) != before[level]}
    assert changed == {"def Runner.forward"}


def test_a_line_inserted_moves_positions_but_not_the_interface() -> None:
    before, _ = module_digests(MODULE)
    after, _ = module_digests("\n" + MODULE)
    assert after["interface"] == before["interface"]
    assert after["body"] != before["body"]
    # Every function moved, but its text is the same: the same version of it (the
    # positions read from it are re-anchored); its span moved.
    functions = [level for level in before if level.startswith("def ")]
    assert functions
    assert all(after[level] == before[level] for level in functions)
    assert module_digests("\n" + MODULE)[1]["Runner.forward"][0][0] == (
        module_digests(MODULE)[1]["Runner.forward"][0][0] + 1
    )


def test_an_edit_in_one_function_leaves_the_others_digests() -> None:
    before, spans = module_digests(MODULE)
    after, _ = module_digests(MODULE.replace("total = 0", "total = 1"))
    changed = {level for level in before if after.get(level) != before[level]}
    assert changed == {"body", "def Runner.forward"}
    start, end = spans["Runner.forward"][0]
    lines = MODULE.splitlines()
    assert lines[start - 1].strip() == "@decorate"
    assert lines[end - 1].strip() == "return total * scale"


def test_a_module_that_does_not_parse_changes_with_any_byte() -> None:
    broken = "def f(:\n"
    levels, spans = module_digests(broken)
    assert levels["body"] == levels["interface"]
    assert spans == {}
    assert module_digests(broken + "# x\n")[0] != levels


# str.splitlines also breaks at these, Python's tokenizer does not: in a string or a
# comment they are text, and they move no line of the syntax tree.
NOT_PYTHON_LINE_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
CALLER = 'def run(mgr):\n    mgr.call_func("alpha")\n    mgr.call_func("beta")\n'


@pytest.mark.parametrize("char", NOT_PYTHON_LINE_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_function_digest_is_of_its_own_lines_after_a_character_splitlines_breaks_at(
    char: str,
) -> None:
    """A function's digest is of its lines as Python counts them: a form feed or a
    separator in a string or a comment before it shifted str.splitlines' lines, so the
    digest was of the lines above and an edit of the function's last line kept it (the
    warm run reused the stale facts: `rpcsurface check` reported the name it no longer
    broadcast)."""
    text = f'X = "a{char}b"  # c{char}d\n\n\n' + CALLER
    levels, spans = module_digests(text)
    plain, _ = module_digests('X = "ab"  # cd\n\n\n' + CALLER)
    assert spans["run"] == ((4, 6),)
    assert levels["def run"] == plain["def run"]
    edited, _ = module_digests(text.replace('"beta"', '"gamma"'))
    assert edited["def run"] != levels["def run"]


def _local(text: str, function: str = "Runner.__init__", name: str = "rank") -> str:
    return LocalDigests(text).digest(function, name)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("        print(local)\n", "        print(local)\n        print(local)\n"),
        ("        local = rank + 1\n", "        local = rank + 2\n"),
        ("class Runner:\n", "# a comment\n\nclass Runner:\n"),
    ],
    ids=["a-call-added", "another-name-s-value", "lines-inserted-above"],
)
def test_a_local_digest_ignores_statements_that_neither_bind_its_name_nor_set_an_attribute(
    old: str, new: str
) -> None:
    assert new != old
    assert old in MODULE
    assert _local(MODULE.replace(old, new)) == _local(MODULE)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("        local = rank + 1\n", "        rank = 1\n        local = rank + 1\n"),
        ("        local = rank + 1\n", "        for rank in (1,):\n            pass\n"),
        ("        self.rank = rank\n", "        self.rank = rank + 1\n"),
        ("        print(local)\n", "        print(local)\n        self.other = 2\n"),
        ("        print(local)\n", "        global LIMIT\n        print(local)\n"),
    ],
    ids=[
        "a-binding-added",
        "a-loop-that-binds-it",
        "the-attribute-s-statement",
        "another-attribute-set",
        "declared-global",
    ],
)
def test_a_local_digest_changes_with_a_binding_of_its_name_or_an_attribute_s_statement(
    old: str, new: str
) -> None:
    assert new != old
    assert old in MODULE
    assert _local(MODULE.replace(old, new)) != _local(MODULE)


def test_a_local_digest_of_a_function_the_module_does_not_define_is_absent() -> None:
    assert _local(MODULE, "Runner.missing") == "absent"
    assert _local(MODULE.replace("def __init__", "def __init_")) == "absent"
    assert LocalDigests("def broken(:\n").digest("broken", "x") == "unparsed"


def test_a_local_digest_tells_where_the_attribute_s_statement_lies_among_the_bindings() -> None:
    after = MODULE.replace(
        "        self.rank = rank\n", "        self.rank = rank\n        rank = 2\n"
    )
    before = MODULE.replace(
        "        self.rank = rank\n", "        rank = 2\n        self.rank = rank\n"
    )
    assert after != before != MODULE
    assert _local(after) != _local(before)


def _reference_local_digest(tree: ast.Module, function: str, name: str) -> str:
    """The "local Q N" digest as LocalDigests' docstring defines it, statement by
    statement, with nothing kept between names."""
    definitions = _functions_named(tree.body, function)  # which defs: not what is compared
    if not definitions:
        return "absent"
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for d in definitions for n in ast.walk(d)):
        return "declares " + _sha("\0".join(ast.dump(d) for d in definitions))

    def binds(statement: ast.stmt) -> bool:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                if node.id == name:
                    return True
            elif isinstance(node, ast.alias):
                if (node.asname or node.name.partition(".")[0]) == name:
                    return True
            elif not isinstance(node, ast.Name) and name in (
                getattr(node, "name", None),
                getattr(node, "arg", None),
                getattr(node, "rest", None),
            ):
                return True
        return False

    def sets_an_attribute(statement: ast.stmt) -> bool:
        return any(
            isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del))
            for n in ast.walk(statement)
        )

    return _sha(
        "\1".join(
            "\0".join(ast.dump(s) for s in d.body if binds(s) or sets_an_attribute(s))
            for d in definitions
        )
    )


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def test_local_digests_are_the_reference_s_for_every_function_and_name_of_real_code() -> None:
    """Every "local Q N" digest LocalDigests gives (each function's statements read once
    for all names) is the one the definition gives name by name, over this package's
    analysis modules: every method and function, every name its code holds, and one it
    doesn't."""
    package = Path(pylint_rpcsurface.__file__).parent / "analysis"
    texts = [path.read_text("utf-8") for path in sorted(package.rglob("*.py"))]
    compared = 0
    for text in [*texts, _EVERY_WAY_TO_BIND]:
        digests = LocalDigests(text)
        tree = ast.parse(text)
        for function, names in _functions_and_names(tree).items():
            for name in [*sorted(names), "not_a_name_here"]:
                assert digests.digest(function, name) == _reference_local_digest(
                    tree, function, name
                ), (text[:60], function, name)
                compared += 1
    assert compared > 5_000


# A name bound every way a statement binds one, beside attributes set and deleted.
_EVERY_WAY_TO_BIND = """\
class Worker:
    def step(self, rank, *extra, flag=None, **options):
        import os.path
        from json import loads as decode
        total = count = 0
        total += 1
        del count
        (left, [right, *rest]) = extra
        with open(rank) as handle, open(flag) as other:
            pass
        for index, item in enumerate(extra):
            del item
        try:
            pass
        except OSError as error:
            print(error)
        if (size := len(extra)) > 1:
            self.size = size
        match options:
            case {"a": captured, **remaining}:
                pass
            case [first, *others]:
                pass
            case Point(x=px) as whole:
                pass
        def inner(argument):
            return argument
        class Local:
            pass
        lambda value: value
        print(sep=rank)
        self.worker.rank = rank
        del self.size
        return decode(os.path.join(handle, other))

    def declares(self):
        global LIMIT
        LIMIT = 1

    async def later(self, rank):
        async for chunk in rank:
            self.chunk = chunk
        async with rank as held:
            pass
"""


def _functions_and_names(tree: ast.Module) -> dict[str, set[str]]:
    """Each function's "def Q" name, with every identifier its code holds."""
    found: dict[str, set[str]] = {}

    def visit(statements: list[ast.stmt], within: str) -> None:
        for statement in statements:
            if isinstance(statement, ast.ClassDef):
                visit(statement.body, within + statement.name + ".")
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = found.setdefault(within + statement.name, set())
                for node in ast.walk(statement):
                    for field in ("id", "name", "arg", "asname", "attr", "rest"):
                        value = getattr(node, field, None)
                        if isinstance(value, str):
                            names.add(value.partition(".")[0])

    visit(tree.body, "")
    return found

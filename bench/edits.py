"""The edits bench/run.py makes to a module's text before a measured run: a statement in a
method that sends, a comment, a new caller method, an RPC name changed at a send. Text
in, text out: nothing here runs or saves anything."""

from __future__ import annotations

import ast

import generate_project as gen
from sites import Abort, Dispatch


def parsed(text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as error:
        raise Abort(f"the text to edit does not parse: {error}") from None


def dispatch_calls(node: ast.AST, dispatch: tuple[Dispatch, ...]) -> list[ast.Call]:
    """The dispatch calls under *node*, in the order of the text."""
    calls = [
        n for n in ast.walk(node) if isinstance(n, ast.Call) and any(d.matches(n) for d in dispatch)
    ]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


Method = ast.FunctionDef | ast.AsyncFunctionDef


def methods_of(tree: ast.Module) -> list[tuple[ast.ClassDef, Method]]:
    """Every method of every class of *tree* whose body starts on a line of its own."""
    found = [
        (cls, node)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body[0].lineno > node.lineno
    ]
    return sorted(found, key=lambda pair: pair[1].lineno)


def indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def edit_text(text: str, number: int, dispatch: tuple[Dispatch, ...] = ()) -> tuple[str, str]:
    """*text* with one statement inserted as the first line of a method's body, and where.

    The method is the first one whose ``def`` line is at or after the middle of the text
    that contains a dispatch call (of *dispatch*'s tables); failing that, the first
    method anywhere that contains one; failing that, the first method at or after the
    middle. The statement, ``edited_<number> = <number>``, differs with *number*. An edit
    a user makes while typing: inside a method that sends an RPC, not at the end.
    """
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    methods = [m for _, m in methods_of(parsed(text))]
    after = [m for m in methods if m.lineno - 1 >= middle]
    sending = [m for m in methods if dispatch_calls(m, dispatch)]
    sending_after = [m for m in sending if m.lineno - 1 >= middle]
    chosen = (sending_after or sending or after or [None])[0]
    if chosen is None:
        raise Abort(f"no method after the middle of the text to edit ({len(lines)} lines)")
    index = chosen.body[0].lineno - 1
    indent = indentation(lines[index])
    lines.insert(index, f"{indent}edited_{number} = {number}  # a bench edit\n")
    return "".join(lines), f"line {index + 1}, in method `{chosen.name}`"


def comment_text(text: str, number: int) -> tuple[str, str]:
    """*text* with a comment line appended, ``# a bench comment <number>``, and where."""
    if text and not text.endswith("\n"):
        text += "\n"
    line = text.count("\n") + 1
    return text + f"# a bench comment {number}\n", f"line {line}, a comment appended"


def interface_text(
    text: str, number: int, dispatch: tuple[Dispatch, ...], callers: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """*text* with a new method added at the end of a caller class, and where.

    The method, ``bench_interface_<number>``, returns a copy of a waited dispatch call of
    that class whose RPC name (a string, or a name or attribute: a constant) is already
    sent in the file: the class's interface changes, the RPCs it sends don't. The call
    is one of a class the configuration names as a caller if there is one, on ``self``
    if there is one, then the first in the text; a line with an ``# expect:`` marker is
    never copied (its finding would be reported twice).
    """
    tree = parsed(text)
    lines = text.splitlines(keepends=True)
    candidates = []
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        inner = {id(n) for c in ast.walk(cls) if c is not cls and isinstance(c, ast.ClassDef)
                 for n in ast.walk(c)}  # fmt: skip
        for call in dispatch_calls(cls, dispatch):
            if id(call) in inner or not call.args:
                continue
            if not isinstance(call.args[0], (ast.Constant, ast.Name, ast.Attribute)):
                continue
            if isinstance(call.args[0], ast.Constant) and not isinstance(call.args[0].value, str):
                continue
            if not any(d.matches(call) and d.waited(call) for d in dispatch):
                continue
            if any(
                gen.EXPECT_MARK in lines[n - 1]
                for n in range(call.lineno, (call.end_lineno or 0) + 1)
            ):
                continue  # its finding would be reported twice
            segment = ast.get_source_segment(text, call)
            if segment is None:
                continue
            first_seen = (call.lineno, call.col_offset, len(candidates))
            key = (cls.name not in callers, not segment.startswith("self."), *first_seen)
            candidates.append((key, cls, call, segment))
    if not candidates:
        raise Abort("no waited dispatch call with a constant RPC name in a class to copy")
    _, cls, call, segment = min(candidates, key=lambda c: c[0])
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    first = methods[0] if methods else cls.body[0]
    indent = indentation(lines[first.lineno - 1])
    end = cls.end_lineno or cls.lineno
    name = f"bench_interface_{number}"
    # A call's continuation lines are inside its parentheses: any indentation will do.
    added = ["\n", f"{indent}def {name}(self):\n", f"{indent}    return {segment}\n"]
    if end == len(lines) and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines[end:end] = added
    where = (
        f"line {end + 2}, method `{name}` added to class `{cls.name}`, a copy of the call "
        f"at line {call.lineno}"
    )
    return "".join(lines), where

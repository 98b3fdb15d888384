"""The edits bench/run.py makes to a module's text before a measured run: a statement in a
method that sends, a comment, a new caller method, an RPC name changed at a send. Text
in, text out: nothing here runs or saves anything."""

from __future__ import annotations

import ast
from dataclasses import dataclass

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


@dataclass(frozen=True)
class NameSend:
    """A send whose RPC name the name edits change, and the names it may change to."""

    call: ast.Call
    where: str  # "class `C`, method `m`"
    answered: tuple[str, ...]  # other names answered from it, in the order they are tried

    @property
    def literal(self) -> ast.Constant:
        node = self.call.args[0]
        assert isinstance(node, ast.Constant)
        return node

    @property
    def name(self) -> str:
        return str(self.literal.value)


def _base_names(cls: ast.ClassDef) -> set[str]:
    return {
        base.id if isinstance(base, ast.Name) else base.attr
        for base in cls.bases
        if isinstance(base, (ast.Name, ast.Attribute))
    }


def _caller_classes(tree: ast.Module, callers: frozenset[str]) -> tuple[dict[str, int], set[str]]:
    """The classes of *tree* every caller class of *tree* is or derives from, each with
    how many classes of *tree* derive from it; and every class of *tree* a caller class
    is or derives from (those whose sends are judged).

    A caller class is one the configuration names, or one that derives from one (by the
    last part of a base's name: the base may be in another module)."""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    bases = {cls.name: _base_names(cls) for cls in classes}

    def ancestors(name: str) -> set[str]:
        found: set[str] = set()
        todo = [name]
        while todo:
            for base in bases.get(todo.pop(), set()) - found:
                found.add(base)
                todo.append(base)
        return found

    lineage = {name: ancestors(name) | {name} for name in bases}
    in_file = [name for name, line in lineage.items() if line & callers]
    if not in_file:
        return {}, set(bases)
    every = set.intersection(*(lineage[name] for name in in_file)) & set(bases)
    judged = set.union(*(lineage[name] for name in in_file)) & set(bases)
    inherited = {name: sum(name in line for line in lineage.values()) - 1 for name in every}
    return inherited, judged


def _shape(call: ast.Call) -> tuple[int, tuple[str, ...]]:
    return len(call.args), tuple(sorted(k.arg or "**" for k in call.keywords))


def _named(call: ast.Call) -> bool:
    """Whether *call* sends a name written as one string literal on one line."""
    if not call.args:
        return False
    first = call.args[0]
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and first.value.isidentifier()
        and first.lineno == first.end_lineno
    )


def _takes_no_payload(node: Method) -> bool:
    """Whether the method can answer a send with no payload: every parameter after self
    has a default (or is ``*args`` / ``**kwargs``)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args][1:]
    required = len(positional) - len(arguments.defaults)
    keyword_only = all(d is not None for d in arguments.kw_defaults)
    decorated = any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)
    return required <= 0 and keyword_only and not decorated


def handler_methods(text: str) -> tuple[str, ...]:
    """The public methods of *text*'s classes that answer a send with no payload."""
    return tuple(
        dict.fromkeys(
            method.name
            for _, method in methods_of(parsed(text))
            if not method.name.startswith("_") and _takes_no_payload(method)
        )
    )


def name_send(
    text: str,
    dispatch: tuple[Dispatch, ...],
    callers: frozenset[str] = frozenset(),
    flagged: frozenset[int] = frozenset(),
    handler_text: str = "",
) -> NameSend:
    """The send of *text* whose RPC name the name edits change, and the answered names.

    The send is a dispatch call whose name is a string literal, on no line of *flagged*
    (the lines with an expected finding), in a class every caller class of the file is
    or derives from (the one most classes derive from), in its ``__init__`` if it sends
    there, else the first in the text; failing such a class, the first such send of a
    class whose sends are judged (a caller class or one it derives from; any class when
    the file holds no caller class). The answered names are those the other judged sends
    of the file give with the same arguments and no finding on their lines (a send never
    judged proves nothing); failing any, for a send with no payload,
    the public methods of *handler_text* (the handler module) that need no argument.
    """
    tree = parsed(text)
    inherited, judged = _caller_classes(tree, callers)
    sends: list[tuple[tuple[object, ...], ast.Call, str]] = []
    for cls, method in methods_of(tree):
        for call in dispatch_calls(method, dispatch):
            lines = range(call.lineno, (call.end_lineno or call.lineno) + 1)
            if cls.name not in judged or not _named(call) or flagged.intersection(lines):
                continue
            key = (
                cls.name not in inherited,
                -inherited.get(cls.name, 0),
                method.name != "__init__",
                call.lineno,
                call.col_offset,
            )
            sends.append((key, call, f"class `{cls.name}`, method `{method.name}`"))
    named = [call for _, call, _ in sends]
    for _, call, where in sorted(sends, key=lambda send: send[0]):
        name = call.args[0].value  # type: ignore[attr-defined]
        same = [
            other.args[0].value  # type: ignore[attr-defined]
            for other in named
            if _shape(other) == _shape(call) and ast.dump(other.func) == ast.dump(call.func)
        ]
        payload = {k for d in dispatch if d.matches(call) for k in d.payload}
        bare = len(call.args) == 1 and not any(k.arg in payload | {None} for k in call.keywords)
        answered = [n for n in dict.fromkeys(same) if n != name]
        if not answered and bare and handler_text:
            answered = [n for n in handler_methods(handler_text) if n != name]
        if answered:
            return NameSend(call, where, tuple(answered))
    raise Abort(
        "no send with its RPC name as a string literal, and another name answered from it, "
        "in the text to edit"
    )


def letters(number: int) -> str:
    """*number* (from 1) in letters: a, b, ..., z, aa, ab, ..."""
    word = ""
    while number > 0:
        number, digit = divmod(number - 1, 26)
        word = chr(ord("a") + digit) + word
    return word


def name_text(text: str, send: NameSend, number: int, *, mistyped: bool) -> tuple[str, str]:
    """*text* with *send*'s RPC name changed, and where.

    The *number*-th name edit changes it to the answered names in turn, or, *mistyped*,
    to the name followed by *number* in letters (``save_modela``, ``save_modelb``, ...):
    a new name each keystroke, answered by none of the answered names."""
    old = send.name
    if mistyped:
        count = number
        new = old + letters(count)
        while new in send.answered:
            count += 26
            new = old + letters(count)
    else:
        new = send.answered[(number - 1) % len(send.answered)]
    literal = send.literal
    lines = text.splitlines(keepends=True)
    line = lines[literal.lineno - 1].encode("utf-8")  # ast's columns count UTF-8 bytes
    start, end = literal.col_offset, literal.end_col_offset or literal.col_offset
    quote = line[end - 1 : end].decode()
    lines[literal.lineno - 1] = (
        line[:start].decode() + f"{quote}{new}{quote}" + line[end:].decode("utf-8")
    )
    kind = "mistyped" if mistyped else "another answered name"
    where = f"line {literal.lineno}, {send.where}: {old!r} changed to {new!r} ({kind})"
    return "".join(lines), where

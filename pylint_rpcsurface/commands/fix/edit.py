"""Rewriting a registry constant's literal in source text, and nothing else.

Stale names are removed (with the rest of their line when each name has a line of its
own, so a comment on that line goes with its name), missing names are added in sorted
order (at their sorted place when the literal was sorted), and the literal keeps its
form, quotes, indentation, trailing comma and every other comment. The text is read with
:mod:`ast` only: nothing is imported or run.

The statement is found as the checker finds it (:mod:`..analysis.registry_literal` is
shared), and the checker's own reader has the last word: the rewrite must read back,
through the checker's reader and this one, as exactly the expected names, in the expected
order, in the same form, or nothing is written.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pylint_rpcsurface.analysis.registry_literal import CONSTRUCTORS, assigned_value
from pylint_rpcsurface.commands.fix.layout import DEFAULT_LINE_LENGTH

_LINE_END = re.compile(r"\r\n|\r|\n")
_AFTER_ELEMENT = re.compile(r"[ \t]*(,)?[ \t]*(#[^\r\n]*)?(\r\n|\r|\n)?$")
_TRAILING_COMMA = re.compile(r"[ \t]*,")


class Refused(Exception):
    """The registry can't be fixed safely; the message says why, in one line."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why


@dataclass(frozen=True)
class _Literal:
    """The registry's value as written: its form and its elements' spans."""

    form: str  # "tuple", "list", "set", or "frozenset(tuple)" etc. for a constructor call
    container: ast.expr | None  # the Tuple/List/Set, None for an empty constructor call
    call: ast.Call | None
    values: tuple[str, ...]
    elements: tuple[ast.Constant, ...]


class _Offsets:
    """Character offsets in a text from ast's (line, UTF-8 byte column) positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for match in _LINE_END.finditer(text):
            self.starts.append(match.end())

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return self.text[start:end]

    def at(self, line: int, byte_col: int) -> int:
        prefix = self.line_text(line).encode("utf-8")[:byte_col]
        return self.starts[line - 1] + len(prefix.decode("utf-8", errors="replace"))

    def line_of(self, offset: int) -> int:
        low, high = 0, len(self.starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self.starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1

    def line_start(self, line: int) -> int:
        return self.starts[line - 1]

    def line_end(self, line: int) -> int:
        """Just after the line's newline (or the end of the text)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)


def _module_bindings(tree: ast.Module, name: str) -> list[ast.AST]:
    """Every statement or target that binds *name* in the module's own scope."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            found.append(node)
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                found.append(node)
            stack.extend(node.decorator_list)
            continue
        if isinstance(
            node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        ):
            continue
        if _binds(node, name):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == name
    if isinstance(node, (ast.MatchAs, ast.MatchStar, ast.ExceptHandler)):
        return node.name == name
    if isinstance(node, ast.MatchMapping):
        return node.rest == name
    return False


def _read_literal(tree: ast.Module, attribute: str) -> tuple[int, _Literal]:
    bindings = _module_bindings(tree, attribute)
    if not bindings:
        raise Refused(1, "it is not assigned in this file")
    lines = sorted({getattr(b, "lineno", 1) for b in bindings})
    if len(bindings) > 1:
        shown = ", ".join(str(line) for line in lines)
        raise Refused(
            lines[0],
            f"it is bound {len(bindings)} times (lines {shown}); "
            "fix edits one module-level assignment",
        )
    binding = bindings[0]
    line = lines[0]
    statement = _statement_of(tree, binding)
    if isinstance(statement, ast.Assign) and statement.targets == [binding]:
        value: ast.expr | None = statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.target is binding:
        value = statement.value
    else:
        raise Refused(line, f"it is not bound by a plain `{attribute} = <literal>` assignment")
    if value is None:
        raise Refused(line, "it is declared without a value")
    return line, _literal_of(tree, value, line)


def _statement_of(tree: ast.Module, binding: ast.AST) -> ast.AST | None:
    for statement in ast.walk(tree):
        if isinstance(statement, ast.Assign) and binding in statement.targets:
            return statement
        if isinstance(statement, ast.AnnAssign) and statement.target is binding:
            return statement
    return None


def _literal_of(tree: ast.Module, value: ast.expr, line: int) -> _Literal:
    expression = ast.unparse(value)
    if len(expression) > 60:
        expression = expression[:57] + "..."
    refusal = Refused(
        line,
        f"it is built from an expression (`{expression}`); fix edits a tuple, list "
        "or set literal of str, or "
        + ", ".join(f"{name}(...)" for name in CONSTRUCTORS)
        + " of one",
    )
    call: ast.Call | None = None
    container: ast.expr | None = value
    form = type(value).__name__.lower()
    if isinstance(value, ast.Call):
        func = value.func
        if (
            not isinstance(func, ast.Name)
            or func.id not in CONSTRUCTORS
            or value.keywords
            or len(value.args) > 1
            or _module_bindings(tree, func.id)
        ):
            raise refusal
        call = value
        container = value.args[0] if value.args else None
        form = f"{func.id}({type(container).__name__.lower() if container else ''})"
    if container is not None and not isinstance(container, (ast.Tuple, ast.List, ast.Set)):
        raise refusal
    elements: list[ast.Constant] = []
    for element in container.elts if container is not None else []:
        if not isinstance(element, ast.Constant) or not isinstance(element.value, str):
            raise Refused(
                getattr(element, "lineno", line),
                f"it has an element that is not a str literal (`{ast.unparse(element)}`)",
            )
        elements.append(element)
    return _Literal(form, container, call, tuple(str(e.value) for e in elements), tuple(elements))


def final_order(values: Sequence[str], wanted: frozenset[str]) -> list[str]:
    """The names the registry will hold, in order: existing order kept (first of any
    duplicate), new names appended sorted, or everything sorted if it was."""
    kept = list(dict.fromkeys(v for v in values if v in wanted))
    added = sorted(wanted.difference(kept))
    if values and list(values) == sorted(values):
        return sorted(kept + added)
    return kept + added


def rewrite(
    text: str,
    attribute: str,
    qualname: str,
    wanted: frozenset[str],
    line_length: int = DEFAULT_LINE_LENGTH,
) -> str:
    """*text* with the registry *attribute* holding exactly *wanted*; :class:`Refused`
    (with a line and a reason) when that can't be done safely. A literal on one line that
    the edit takes past *line_length* is written one name a line, as a formatter would."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as error:
        raise Refused(
            getattr(error, "lineno", None) or 1, f"the file does not parse: {error}"
        ) from None
    line, literal = _read_literal(tree, attribute)
    expected = final_order(literal.values, wanted)
    if expected == list(literal.values):
        return text
    new = _Editor(text, literal, line, qualname).apply(expected)
    new = _wrapped(new, attribute, line_length)
    _verify(new, qualname=qualname, form=literal.form, expected=expected, line=line)
    return new


def _as_the_checker_reads(text: str, qualname: str) -> list[str | None] | None:
    """The registry's values as the checker's reader finds them in *text* (None for an
    element it can't read), or None when it can't read the registry at all."""
    # Imported here: the checker's reader needs astroid, which a warm `check` and the
    # rest of `fix` never load.
    # pylint: disable-next=import-outside-toplevel
    from pylint_rpcsurface.analysis.registry import read_registry_text  # noqa: PLC0415

    modname, _, attribute = qualname.rpartition(".")
    registry = read_registry_text(text, "<fix>", modname, attribute, qualname)
    if registry is None or registry.problem is not None:
        return None
    return [element.value for element in registry.elements]


def _wrapped(text: str, attribute: str, limit: int) -> str:
    """*text* with the registry's literal one element a line, with a trailing comma (as
    black and ruff write a collection past the line length), when it is on one line, a
    line of its statement is longer than *limit*, and it holds no comment; else *text*."""
    try:
        tree = ast.parse(text)
        line, literal = _read_literal(tree, attribute)
    except (SyntaxError, ValueError, Refused):
        return text  # the check after the edit refuses it
    statement = next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    container = literal.container
    node: ast.expr | None = literal.call or container
    if statement is None or container is None or node is None or not literal.elements:
        return text
    if node.lineno != node.end_lineno:
        return text  # laid out by hand over several lines: kept
    offsets = _Offsets(text)
    lines = range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
    if max(len(_LINE_END.sub("", offsets.line_text(n))) for n in lines) <= limit:
        return text
    start = offsets.at(node.lineno, node.col_offset)
    end = offsets.at(node.end_lineno or node.lineno, node.end_col_offset or 0)
    if any(start <= c < end for c in _comment_offsets(text)):
        return text
    first = offsets.line_text(statement.lineno)
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    newline_match = _LINE_END.search(first)
    newline = newline_match.group(0) if newline_match else "\n"
    items = [
        text[
            offsets.at(e.lineno, e.col_offset) : offsets.at(
                e.end_lineno or e.lineno, e.end_col_offset or 0
            )
        ]
        for e in literal.elements
    ]
    inner_start = offsets.at(container.lineno, container.col_offset)
    inner_end = offsets.at(container.end_lineno or container.lineno, container.end_col_offset or 0)

    def block(base: str) -> str:
        rows = "".join(f"{base}    {item},{newline}" for item in items)
        return f"{text[inner_start]}{newline}{rows}{base}{text[inner_end - 1]}"

    if literal.call is None:
        return text[:start] + block(indent) + text[end:]
    inner = f"{indent}    "
    call = f"{text[start:inner_start]}{newline}{inner}{block(inner)}{newline}{indent})"
    return text[:start] + call + text[end:]


def _verify(new: str, *, qualname: str, form: str, expected: list[str], line: int) -> None:
    try:
        _, again = _read_literal(ast.parse(new), qualname.rpartition(".")[2])
    except (SyntaxError, ValueError, Refused):
        again = None
    if (
        again is None
        or list(again.values) != expected
        or _family(again.form) != _family(form)
        or _as_the_checker_reads(new, qualname) != expected
    ):
        raise Refused(line, "the edit would not read back as intended; nothing written")


def _family(form: str) -> str:
    """The form a user sees: ``frozenset()`` and ``frozenset({...})`` are one form, and
    an emptied set literal can only be written ``set()``."""
    return form.split("(", 1)[0]


@dataclass(frozen=True)
class _Span:
    value: str
    start: int
    end: int
    first_line: int
    last_line: int


class _Editor:
    def __init__(self, text: str, literal: _Literal, line: int, qualname: str) -> None:
        self.text = text
        self.literal = literal
        self.line = line
        self.qualname = qualname
        self.offsets = _Offsets(text)
        self.spans = [
            _Span(
                value,
                self.offsets.at(e.lineno, e.col_offset),
                self.offsets.at(e.end_lineno or e.lineno, e.end_col_offset or 0),
                e.lineno,
                e.end_lineno or e.lineno,
            )
            for value, e in zip(literal.values, literal.elements, strict=True)
        ]
        self.comments = _comment_offsets(text)
        self.quote = _quote_of(text, self.spans)

    def apply(self, expected: list[str]) -> str:
        literal = self.literal
        if (
            not expected
            and literal.container is not None
            and isinstance(literal.container, ast.Set)
        ):
            return self._replace_node(literal.container, "()" if literal.call else "set()")
        if not self.spans:
            return self._fill_empty(expected)
        kept: list[int] = []
        seen: set[str] = set()
        for index, span in enumerate(self.spans):
            if span.value in expected and span.value not in seen:
                kept.append(index)
                seen.add(span.value)
        added = [name for name in expected if name not in seen]
        edits = (
            self._one_per_line(kept, added, expected)
            if self._is_one_per_line()
            else self._inline(kept, added, expected)
        )
        new = _splice(self.text, edits)
        if isinstance(literal.container, ast.Tuple) and len(expected) == 1:
            new = self._keep_tuple(new, expected[0])
        return new

    def _keep_tuple(self, new: str, name: str) -> str:
        """A one-element tuple needs its comma: add it if the edit took it away."""
        attribute = self.qualname.rsplit(".", 1)[-1]
        try:
            tree = ast.parse(new)
            _read_literal(tree, attribute)
        except SyntaxError:
            return new  # the check before writing refuses it
        except Refused:
            for statement in tree.body:
                value = assigned_value(statement, attribute)
                for node in ast.walk(value) if value is not None else ():
                    if isinstance(node, ast.Constant) and node.value == name:
                        offsets = _Offsets(new)
                        at = offsets.at(node.end_lineno or node.lineno, node.end_col_offset or 0)
                        return new[:at] + "," + new[at:]
        return new

    def _is_one_per_line(self) -> bool:
        for index, span in enumerate(self.spans):
            before = self.text[self.offsets.line_start(span.first_line) : span.start]
            if before.strip():
                return False
            after = self.text[span.end : self.offsets.line_end(span.last_line)]
            match = _AFTER_ELEMENT.match(after)
            if match is None:
                return False
            if index < len(self.spans) - 1 and match.group(1) is None:
                return False
        return True

    def _has_comma_after(self, span: _Span) -> bool:
        after = self.text[span.end : self.offsets.line_end(span.last_line)]
        match = _AFTER_ELEMENT.match(after)
        return bool(match and match.group(1))

    def _quoted(self, name: str) -> str:
        if name.isidentifier():
            return f"{self.quote}{name}{self.quote}"
        return repr(name)

    def _one_per_line(
        self, kept: list[int], added: list[str], expected: list[str]
    ) -> list[tuple[int, int, str]]:
        edits: list[tuple[int, int, str]] = []
        kept_set = set(kept)
        for index, span in enumerate(self.spans):
            if index not in kept_set:
                edits.append(
                    (
                        self.offsets.line_start(span.first_line),
                        self.offsets.line_end(span.last_line),
                        "",
                    )
                )
        first = self.spans[0]
        first_line = self.offsets.line_text(first.first_line)
        indent = first_line[: len(first_line) - len(first_line.lstrip(" \t"))]
        newline_match = _LINE_END.search(first_line)
        newline = newline_match.group(0) if newline_match else "\n"
        trailing = self._has_comma_after(self.spans[-1])
        kept_spans = [self.spans[i] for i in kept]
        inserted, at_end = _placements(kept_spans, added, expected)
        for place, name in inserted:
            # After the previous name's line rather than before the next one's, so a
            # comment heading the next name stays with it.
            position = (
                self.offsets.line_end(kept_spans[place - 1].last_line)
                if place
                else self.offsets.line_start(kept_spans[place].first_line)
            )
            edits.append((position, position, f"{indent}{self._quoted(name)},{newline}"))
        if at_end:
            if kept_spans:
                last = kept_spans[-1]
                if not self._has_comma_after(last):
                    edits.append((last.end, last.end, ","))
                position = self.offsets.line_end(last.last_line)
                if position == len(self.text) or self.text[position - 1] not in "\r\n":
                    at_end_text = newline
                else:
                    at_end_text = ""
            else:
                position = self.offsets.line_start(first.first_line)
                at_end_text = ""
            for count, name in enumerate(at_end, 1):
                comma = "," if trailing or count < len(at_end) else ""
                at_end_text += f"{indent}{self._quoted(name)}{comma}{newline}"
            edits.append((position, position, at_end_text))
        return edits

    def _inline(
        self, kept: list[int], added: list[str], expected: list[str]
    ) -> list[tuple[int, int, str]]:
        spans = self.spans
        kept_set = set(kept)
        removed = [i for i in range(len(spans)) if i not in kept_set]
        edits: list[tuple[int, int, str]] = []
        if not kept:
            # The trailing comma goes too: `("x",)` empties to `()`, not `(,)`.
            comma = _TRAILING_COMMA.match(self.text, spans[-1].end)
            edits.append((spans[0].start, comma.end() if comma else spans[-1].end, ""))
        else:
            last_kept = kept[-1]
            for index in removed:
                if index < last_kept:
                    edits.append((spans[index].start, spans[index + 1].start, ""))
            if last_kept < len(spans) - 1:
                edits.append((spans[last_kept].end, spans[-1].end, ""))
        for start, end, _ in edits:
            if any(start <= c < end for c in self.comments):
                raise Refused(
                    self.offsets.line_of(start),
                    "a comment sits among the names to remove; "
                    "fix removes a commented name only when each name has a line of its own",
                )
        kept_spans = [spans[i] for i in kept]
        inserted, at_end = _placements(kept_spans, added, expected)
        for place, name in inserted:
            following = kept_spans[place]
            edits.append((following.start, following.start, f"{self._quoted(name)}, "))
        if at_end:
            joined = ", ".join(self._quoted(name) for name in at_end)
            if kept_spans:
                edits.append((kept_spans[-1].end, kept_spans[-1].end, f", {joined}"))
            else:
                edits.append((spans[0].start, spans[0].start, joined))
        return edits

    def _fill_empty(self, expected: list[str]) -> str:
        joined = ", ".join(self._quoted(name) for name in expected)
        literal = self.literal
        if literal.container is None:  # frozenset() / set() / tuple() / list()
            call = literal.call
            assert call is not None
            inner = (
                "{" + joined + "}"
                if literal.form.startswith(("frozenset", "set"))
                else (
                    "(" + joined + ("," if len(expected) == 1 else "") + ")"
                    if literal.form.startswith("tuple")
                    else "[" + joined + "]"
                )
            )
            end = self.offsets.at(call.end_lineno or call.lineno, call.end_col_offset or 0)
            close = self.text.rindex(")", 0, end)
            new = self.text[:close] + inner + self.text[close:]
            # The inner literal changes the form's description; check the names only.
            return new
        container = literal.container
        start = self.offsets.at(container.lineno, container.col_offset)
        end = self.offsets.at(
            container.end_lineno or container.lineno, container.end_col_offset or 0
        )
        inside = self.text[start + 1 : end - 1]
        if inside.strip():
            raise Refused(
                self.line,
                "the empty literal holds a comment; add the names by hand",
            )
        if isinstance(container, ast.Tuple) and len(expected) == 1:
            joined += ","
        return self.text[: start + 1] + joined + self.text[end - 1 :]

    def _replace_node(self, node: ast.expr, replacement: str) -> str:
        start = self.offsets.at(node.lineno, node.col_offset)
        end = self.offsets.at(node.end_lineno or node.lineno, node.end_col_offset or 0)
        if any(start <= c < end for c in self.comments):
            raise Refused(self.line, "emptying it would drop a comment; empty it by hand")
        return self.text[:start] + replacement + self.text[end:]


def _placements(
    kept: Sequence[_Span], added: Iterable[str], expected: Sequence[str]
) -> tuple[list[tuple[int, str]], list[str]]:
    """Where each added name goes in the final order: before the kept name at an index,
    or (the second list) after every kept name."""
    rank = {name: position for position, name in enumerate(expected)}
    kept_ranks = [rank[span.value] for span in kept]
    inserted: list[tuple[int, str]] = []
    at_end: list[str] = []
    for name in added:
        place = bisect.bisect_right(kept_ranks, rank[name])
        if place == len(kept):
            at_end.append(name)
        else:
            inserted.append((place, name))
    return inserted, at_end


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    out: list[str] = []
    cursor = 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if start < cursor:
            raise Refused(1, "internal error: overlapping edits; nothing written")
        out.append(text[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _comment_offsets(text: str) -> list[int]:
    offsets = _Offsets(text)
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type == tokenize.COMMENT:
                line, column = token.start
                found.append(offsets.line_start(line) + column)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _quote_of(text: str, spans: Sequence[_Span]) -> str:
    for span in spans:
        for char in text[span.start : span.end]:
            if char in "'\"":
                return char
    return '"'

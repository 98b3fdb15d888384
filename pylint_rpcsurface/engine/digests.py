"""Two digests of a module's text: of its code with positions, and of its interface.

A piece of facts that read a module's body depends on everything its syntax tree holds,
positions included (the facts hold line numbers), but not on comments or blank lines
that move nothing. A piece that read only its interface (see
:mod:`pylint_rpcsurface.analysis.reads`) depends on less: the module without what its
function bodies hold, and without positions. What a body holds that inference reads
from outside it stays in the interface:

- an assignment to an attribute (``self.x = ...``: astroid makes it an attribute of the
  instance, or of whatever the target's object infers to), a ``for`` or ``with`` target
  that is one, and a ``del`` of one;
- ``global`` and ``nonlocal`` statements, and what the function assigns to a name it
  declares global (a module-level name astroid sees).

Both come from Python's own parser (:mod:`ast`): a module is never built with astroid
for its digests.
"""

from __future__ import annotations

import ast
import hashlib
import pickle

from pylint_rpcsurface.sources import python_lines

__all__ = ["DIGEST_FILENAME", "LocalDigests", "ModuleDigests", "module_digests", "parsed"]

# The file name the parse for digests gives: it is no build of the module, and says so.
DIGEST_FILENAME = "<rpcsurface digests>"

# A module version's digests by level ("body", "interface", "def Q" for the code of the
# function or method Q, "class C" and "member C.N" for a top-level class C's members),
# and the lines each function Q spans (its decorators included).
ModuleDigests = tuple[dict[str, str], dict[str, tuple[tuple[int, int], ...]]]


def module_digests(text: str, tree: ast.Module | None = None) -> ModuleDigests:
    """The digests of the module whose source is *text*, at every level; *tree* is its
    syntax tree when parsed already (:func:`parsed`), and is left as it was.

    A text that does not parse has no interface to speak of: its body and interface
    digests are then its text's hash, so that any edit of it changes them, and it has no
    function to read alone."""
    # The bodies cut out of the tree for the interface, each put back after.
    cut: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, list[ast.stmt]]] = []
    try:
        if tree is None:
            tree = ast.parse(text, DIGEST_FILENAME)
        levels = {"body": hashlib.sha256(pickle.dumps(tree, protocol=5)).hexdigest()}
        spans = _definitions(tree.body, "", python_lines(text), levels)
        _cut_bodies(tree.body, cut)
        _split_classes(tree, levels, cut)
        levels["interface"] = _hash(ast.dump(tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        unparsed = "unparsed " + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return ({"body": unparsed, "interface": unparsed}, {})
    finally:
        for definition, body in reversed(cut):
            definition.body = body
    return (levels, spans)


def parsed(text: str) -> ast.Module | None:
    """The syntax tree of *text* for :class:`LocalDigests`; None when it does not parse."""
    try:
        return ast.parse(text, DIGEST_FILENAME)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class LocalDigests:
    """The "local Q N" digests of one module version: for the function Q (a "def Q"
    name), the digest of what it binds to the name N, and of where in its body the
    statements that assign an attribute lie among those bindings: the statements of its
    body that bind N or assign an attribute, at any depth, each whole, in order (a
    compound statement stands for all it holds).

    A look-up of N from a statement that assigns an attribute (whose text the interface
    holds) gives the bindings of N before it in the function, or those of the scopes
    around it when there are none: what this digest holds, and where the statement lies
    among them. A statement that neither binds N nor assigns an attribute changes nothing
    here. A function that declares a name ``global`` or ``nonlocal`` moves bindings to
    other scopes: its digest is then of its whole code.

    A run asks for many names of one function: each function's statements are read once
    (what each binds, whether it assigns an attribute, its dump), not once a name."""

    def __init__(self, text: str, tree: ast.Module | None = None) -> None:
        self._tree = tree if tree is not None else parsed(text)
        # Each function's digest when it declares a name global or nonlocal (or is not
        # defined, or the text does not parse); else each definition's statements.
        self._functions: dict[str, str | list[list[_Statement]]] = {}

    def digest(self, function: str, name: str) -> str:
        """The digest of what *function* binds to *name* (see the class)."""
        statements = self._functions.get(function)
        if statements is None:
            statements = self._functions[function] = self._read(function)
        if isinstance(statements, str):
            return statements
        return _hash(
            "\1".join(
                "\0".join(s.dump for s in definition if s.assigns_attribute or name in s.binds)
                for definition in statements
            )
        )

    def _read(self, function: str) -> str | list[list[_Statement]]:
        if self._tree is None:
            return "unparsed"
        definitions = _functions_named(self._tree.body, function)
        if not definitions:
            return "absent"
        read = [[_Statement(statement) for statement in d.body] for d in definitions]
        # Only a statement of the body can declare (never a decorator or a default).
        if any(statement.declares for body in read for statement in body):
            return "declares " + _hash("\0".join(ast.dump(d) for d in definitions))
        return read


class _Statement:
    """One statement of a function's body as :class:`LocalDigests` reads it."""

    __slots__ = ("_dump", "_node", "assigns_attribute", "binds", "declares")

    def __init__(self, statement: ast.stmt) -> None:
        self._node = statement
        self._dump: str | None = None
        binds: set[str] = set()
        self.assigns_attribute = self.declares = False
        for node in ast.walk(statement):  # once: a body's statements are most of its nodes
            if isinstance(node, ast.Attribute):
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    self.assigns_attribute = True
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.declares = True
            else:
                _add_bound_name(node, binds)
        self.binds = frozenset(binds)

    @property
    def dump(self) -> str:
        if self._dump is None:
            self._dump = ast.dump(self._node)
        return self._dump


def _functions_named(
    statements: list[ast.stmt], function: str
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The definitions of the function or method *function* ("def Q" names, as
    :func:`_definitions` gives them) among *statements*, in order."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    pending = [(statement, "") for statement in statements]
    while pending:
        statement, within = pending.pop(0)
        if isinstance(statement, ast.ClassDef):
            pending.extend((inner, within + statement.name + ".") for inner in statement.body)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if within + statement.name == function:
                found.append(statement)
        else:
            for block in _blocks(statement):
                pending.extend((inner, within) for inner in block)
    return found


def _add_bound_name(node: ast.AST, names: set[str]) -> None:
    """Add the name *node* may bind to *names*: a name stored or deleted, a parameter, an
    import, a definition, an ``except ... as``, a pattern's capture (and a keyword
    argument's name: more than binds, never less)."""
    if isinstance(node, ast.Name):
        if not isinstance(node.ctx, ast.Load):
            names.add(node.id)
    elif isinstance(node, ast.alias):
        names.add(node.asname or node.name.partition(".")[0])
    else:
        for field in ("name", "arg", "rest"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                names.add(value)


def _split_classes(
    tree: ast.Module,
    levels: dict[str, str],
    cut: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, list[ast.stmt]]],
) -> None:
    """Take the members of each class defined at the module's top level out of its
    interface, into digests of their own: "class C", all of C's members, and "member C.N",
    the statements of C's body that bind N (see :func:`member_names`), with the attribute
    assignments in C's methods to an attribute named N.

    Called once function bodies are cut: a member is read from outside as the interface
    is. What C's methods assign to attributes (and declare global) stays in the interface
    too, as any object's attribute may be the one assigned. A statement of C's body that
    binds no name, or binds names in a way :func:`member_names` does not tell, is in
    "class C" alone: a piece that reads it reads the whole class."""
    classes: dict[str, list[str]] = {}
    members: dict[str, list[str]] = {}
    # Each statement's digest once: one statement may bind thousands of names
    # (``a = b = ... = None``), each of which takes it into its member's digest.
    digests: dict[int, str] = {}

    def digest(node: ast.AST) -> str:
        if id(node) not in digests:
            digests[id(node)] = _hash(ast.dump(node))
        return digests[id(node)]

    for statement in tree.body:
        if not isinstance(statement, ast.ClassDef):
            continue
        prefix = statement.name + "."
        classes.setdefault(statement.name, []).append(ast.dump(ast.Module(statement.body, [])))
        kept: list[ast.stmt] = []
        for member in statement.body:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kept.extend(member.body)
            for name in member_names(member) or ():
                members.setdefault(prefix + name, []).append(digest(member))
        for assignment in kept:
            for name in _attributes_assigned(assignment):
                members.setdefault(prefix + name, []).append(digest(assignment))
        cut.append((statement, statement.body))
        statement.body = kept
    for name, dumps in classes.items():
        levels["class " + name] = _hash("\0".join(dumps))
    for name, dumps in members.items():
        levels["member " + name] = _hash("\0".join(dumps))


def member_names(statement: ast.stmt) -> tuple[str, ...] | None:
    """The names a statement of a class's body binds, when it is of a kind whose names
    the syntax alone tells (a definition, a plain assignment, an import); None for any
    other. :func:`pylint_rpcsurface.analysis.reads.bound_names` must agree for astroid's
    nodes."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (statement.name,)
    if any(isinstance(node, ast.NamedExpr) for node in ast.walk(statement)):
        return None
    if isinstance(statement, ast.Assign):
        targets: list[ast.expr] = list(statement.targets)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    elif isinstance(statement, ast.Import):
        return tuple((a.asname or a.name).partition(".")[0] for a in statement.names)
    elif isinstance(statement, ast.ImportFrom):
        if any(a.name == "*" for a in statement.names):
            return None
        return tuple(a.asname or a.name for a in statement.names)
    else:
        return None
    names: list[str] = []
    pending = targets
    while pending:
        target = pending.pop()
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pending.extend(target.elts)
        elif isinstance(target, ast.Starred):
            pending.append(target.value)
        else:
            return None  # an attribute or a subscript: no name of the class's
    return tuple(names)


def _attributes_assigned(statement: ast.stmt) -> set[str]:
    """The attribute names a statement a function body keeps for its interface assigns
    (or deletes): ``self.x = ...`` assigns x."""
    return {
        node.attr
        for node in ast.walk(statement)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del))
    }


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _definitions(
    statements: list[ast.stmt], prefix: str, lines: list[str], levels: dict[str, str]
) -> dict[str, tuple[tuple[int, int], ...]]:
    """Add to *levels* the "def Q" digest of each function and method among *statements*
    (classes' bodies and compound statements searched, function bodies not); the lines
    each function spans.

    A function's digest is of its text alone: a function moved by a line is the same
    version of it, and the positions facts read from it hold are moved with it (the
    engine re-anchors them to where the function starts now). Several definitions of one
    name (``if``/``else``) make one digest of them all, in order."""
    texts: dict[str, list[str]] = {}
    spans: dict[str, list[tuple[int, int]]] = {}
    pending = [(statement, prefix) for statement in statements]
    while pending:
        statement, within = pending.pop(0)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = within + statement.name
            if isinstance(statement, ast.ClassDef):
                pending.extend((inner, name + ".") for inner in statement.body)
                continue
            start = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
            end = statement.end_lineno or statement.lineno
            texts.setdefault(name, []).append("".join(lines[start - 1 : end]))
            spans.setdefault(name, []).append((start, end))
        else:
            for block in _blocks(statement):
                pending.extend((inner, within) for inner in block)
    for name, parts in texts.items():
        levels["def " + name] = _hash("\0".join(parts))
    return {name: tuple(found) for name, found in spans.items()}


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def _cut_bodies(
    statements: list[ast.stmt],
    cut: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, list[ast.stmt]]],
) -> None:
    """Replace, in place, each function body among *statements* (at any depth of classes
    and compound statements) by what inference reads of it from outside; each function
    with the body it had goes to *cut*."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            cut.append((statement, statement.body))
            statement.body = _seen_from_outside(statement.body)
        elif isinstance(statement, ast.ClassDef):
            _cut_bodies(statement.body, cut)
        else:
            for block in _blocks(statement):
                _cut_bodies(block, cut)


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds."""
    if isinstance(statement, _COMPOUND):
        blocks = [statement.body, getattr(statement, "orelse", [])]
        if isinstance(statement, ast.Try):
            blocks += [handler.body for handler in statement.handlers]
            blocks.append(statement.finalbody)
        return blocks
    if isinstance(statement, ast.Match):
        return [case.body for case in statement.cases]
    return []


def _seen_from_outside(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a function *body* (nested functions and classes included) that
    inference reads without entering it (see the module's docstring), in order."""
    statements: list[ast.stmt] = []
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        statements.append(statement)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(reversed(statement.body))
        else:
            for block in reversed(_blocks(statement)):
                pending.extend(reversed(block))
    declared = {
        name
        for statement in statements
        if isinstance(statement, (ast.Global, ast.Nonlocal))
        for name in statement.names
    }
    kept: list[ast.stmt] = []
    for node in statements:
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            kept.append(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            if _binds_outside(node.target, declared):
                kept.append(ast.For(target=node.target, iter=node.iter, body=[], orelse=[]))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in node.items if item.optional_vars]
            if any(_binds_outside(target, declared) for target in targets):
                kept.append(ast.With(items=node.items, body=[]))
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            if any(_binds_outside(target, declared) for target in targets):
                kept.append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and declared:
            bound = {(alias.asname or alias.name).partition(".")[0] for alias in node.names}
            if bound & declared:
                kept.append(node)
        elif declared and _walrus_binds(node, declared):
            kept.append(ast.Expr(value=ast.Constant(value=ast.dump(node))))
    return kept


def _walrus_binds(statement: ast.stmt, declared: set[str]) -> bool:
    """Whether an assignment expression in *statement* binds a declared name."""
    return any(
        isinstance(sub, ast.NamedExpr) and sub.target.id in declared for sub in ast.walk(statement)
    )


def _binds_outside(target: ast.expr, declared: set[str]) -> bool:
    """Whether assigning to *target* binds something outside the function: an attribute,
    or a name declared global or nonlocal."""
    for node in ast.walk(target):
        if isinstance(node, ast.Attribute):
            return True
        if isinstance(node, ast.Name) and node.id in declared:
            return True
    return False

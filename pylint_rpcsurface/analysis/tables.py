"""Handler tables: a dict literal that maps each name a worker answers to its handler.

An engine that looks the handler up in a table (``handler = self._HANDLERS[name]``, then
``getattr(self, handler)()``) answers exactly the table's keys. A ``tables`` entry of a
surface names such a dict: a module constant, a class attribute (``ClassVar``
annotations allowed), or an instance attribute assigned once, by its class's ``__init__``
or a method ``__init__`` calls. Its keys must be str literals, enum members or classes;
its values name the handlers:

- a str: the name of a method of the table's class;
- a reference to a method: ``self.method`` (in a method of the class), a method
  defined earlier in the class body, or ``Class.method``;
- a module-level function;
- a lambda, or a method of an object the instance holds (``self.updater.load``): a
  handler whose class is not written there, never judged.

A table of (type, handler) pairs may be given a fallback, ``<table>.add_fallback_fn(f)``
right after it is made: it then answers every key. Whether a key it lacks raises is read
from the code (:attr:`Table.miss_raises`).

A ``tables`` entry may also name a function or method that makes the table by binding
each key with one call of one method, ``manager.bind_func(RequestType.ADD, self._on_add)``
(LMDeploy's engine): each such call is an entry, and each must be a statement of the
function's own body, so that every one of them runs.

Nothing here guesses: a table that is bound more than once, is not a dict display, is
changed after it is made (``TABLE[key] = ...``, ``TABLE.update(...)``), or holds a key
or a value of another kind gives the reason instead of a table, and the engine reports
it as a configuration error naming the key.
"""

from __future__ import annotations

from typing import cast

from astroid import bases, nodes

from pylint_rpcsurface.analysis.inference import (
    INFERENCE_ERRORS,
    QualnameOf,
    enum_member_key,
    infer_unique,
    inferred_values,
    location_of,
)
from pylint_rpcsurface.analysis.syntax import builtin_call, changed_in_place
from pylint_rpcsurface.model import Location, Table, TableEntry

__all__ = ["read_table"]


def read_table(
    owner: nodes.Module | nodes.ClassDef, attribute: str, qualname: str, qualname_of: QualnameOf
) -> Table | str:
    """The table *owner* binds to *attribute* (configured as *qualname*), or why it
    can't be read: a phrase that follows the configured name (``is not a dict
    literal...``)."""
    defined = owner.locals.get(attribute, [])
    if len(defined) == 1 and isinstance(defined[0], nodes.FunctionDef):
        return _bound_by_calls(defined[0], owner, qualname, qualname_of)
    bound = _binding(owner, attribute)
    if isinstance(bound, str):
        return bound
    target, value = bound
    line = target.lineno
    pairs = _pairs(value)
    if not isinstance(value, nodes.Dict) and pairs is None:
        return (
            f"is assigned {value.as_string()[:60]!r} at line {line}, neither a dict literal "
            "nor a call of a list of (key, handler) pairs: its entries can't be read "
            "without running the code"
        )
    # Any mapping of that name counts (self.X, Class.X, X): a false alarm is a
    # configuration error, which asks, where a missed change would be a guess.
    changed = changed_in_place(owner.root(), attribute, attributes=True, in_classes=True)
    if changed is not None:
        return (
            f"is changed after it is made, at line {changed.lineno} "
            f"({changed.as_string()[:60]!r}): its entries can't be read without running "
            "the code"
        )
    entries: dict[str, TableEntry] = {}
    items = pairs if pairs is not None else cast("nodes.Dict", value).items
    for key, handler in items:
        if not isinstance(handler, nodes.NodeNG):
            return f"has an entry at line {key.lineno} whose value is not written"
        if isinstance(key, nodes.DictUnpack):
            return f"unpacks another mapping at line {handler.lineno}: its keys are not written"
        if not isinstance(key, nodes.NodeNG):
            return f"has an entry at line {handler.lineno} whose key is not written"
        name = _key(key, qualname_of)
        if name is None:
            return (
                f"has a key that is neither a str literal, an enum member nor a class at "
                f"line {key.lineno} ({key.as_string()[:60]!r})"
            )
        entry = _entry(name, handler, owner, qualname_of)
        if isinstance(entry, str):
            return entry
        entries[name] = entry  # a repeated key: the dict keeps the last
    fallback = _fallback(owner, attribute, target, qualname_of)
    if isinstance(fallback, str):
        return fallback
    at = location_of(target) or Location(owner.root().file or "", 1, 0, None, None)
    raises = fallback is None and pairs is not None and _call_raises_on_miss(value)
    return Table(qualname, at, tuple(entries.values()), fallback=fallback, miss_raises=raises)


# The methods that give a table of (type, handler) pairs the handler of every type it
# lacks: SGLang's ``TypeBasedDispatcher.add_fallback_fn``.
_FALLBACK_ADDERS = frozenset({"add_fallback_fn"})
_FALLBACK_KEY = "*"  # the key of a table's fallback entry: every key the others lack


def _fallback(
    owner: nodes.Module | nodes.ClassDef,
    attribute: str,
    target: nodes.NodeNG,
    qualname_of: QualnameOf,
) -> TableEntry | str | None:
    """The handler ``<table>.add_fallback_fn(handler)`` gives every key the table lacks,
    None when no such call names the table, or why it can't be read: the call must be
    a statement of the function that makes the table, after it, so that it runs
    whenever the table is made, and the only one."""
    found: TableEntry | None = None
    for call in owner.root().nodes_of_class(nodes.Call):
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname in _FALLBACK_ADDERS):
            continue
        holder = func.expr
        named = holder.attrname if isinstance(holder, nodes.Attribute) else None
        if isinstance(holder, nodes.Name):
            named = holder.name
        if named != attribute:
            continue
        line = call.lineno
        statement = call.parent
        if not (
            isinstance(statement, nodes.Expr)
            and statement.parent is target.scope()
            and statement.fromlineno > (target.lineno or 0)
        ):
            return (
                f"is given a fallback at line {line} outside the statements that follow "
                "where it is made: whether it runs is not written"
            )
        if found is not None or len(call.args) != 1 or call.keywords:
            return (
                f"is given a fallback at line {line} that is not one handler, once: "
                "which one answers is not known"
            )
        entry = _entry(_FALLBACK_KEY, call.args[0], owner, qualname_of)
        if isinstance(entry, str):
            return entry
        found = entry
    return found


def _call_raises_on_miss(value: nodes.NodeNG) -> bool:
    """Whether the table *value* makes, ``Dispatcher([(T, handler), ...])``, raises when it
    is called with a type no pair has: its class's ``__call__`` ends in a ``raise``
    (SGLang's ``TypeBasedDispatcher``: ``raise ValueError(f"Invalid object: {obj}")``)."""
    if not isinstance(value, nodes.Call):
        return False
    klass = infer_unique(value.func)
    if not isinstance(klass, nodes.ClassDef):
        return False
    try:
        order = [klass, *klass.ancestors()]
    except INFERENCE_ERRORS:
        return False
    # The instance's __call__, by the MRO (klass.getattr adds the metaclass's).
    defined = next((c.locals["__call__"] for c in order if "__call__" in c.locals), [])
    method = defined[-1] if defined else None
    return isinstance(method, nodes.FunctionDef) and _ends_in_raise(method.body)


def _ends_in_raise(body: list[nodes.NodeNG]) -> bool:
    """Whether the last statement of *body* is a ``raise``."""
    return bool(body) and isinstance(body[-1], nodes.Raise)


def _key(node: nodes.NodeNG, qualname_of: QualnameOf) -> str | None:
    """The name a key written *node* stands for: a str literal's value, an enum member's
    key (:func:`enum_member_key`), or a class's qualified name (a key by type); None for
    anything else."""
    if isinstance(node, nodes.Const):
        return node.value if isinstance(node.value, str) else None
    member = enum_member_key(node, qualname_of)
    return member if member is not None else _class_key(node, qualname_of)


def _class_key(node: nodes.NodeNG, qualname_of: QualnameOf) -> str | None:
    """The qualified name of the class a name or an attribute *node* infers to."""
    if isinstance(node, (nodes.Name, nodes.Attribute)):
        klass = infer_unique(node)
        if isinstance(klass, nodes.ClassDef):
            return qualname_of(klass)
    return None


def _pairs(value: nodes.NodeNG) -> list[tuple[nodes.NodeNG, nodes.NodeNG]] | None:
    """The (key, handler) pairs of a call whose one argument is a list or tuple display
    of pairs, ``TypeBasedDispatcher([(FlushCacheReqInput, self.flush_cache), ...])``; None
    for any other value."""
    if not isinstance(value, nodes.Call) or value.keywords or len(value.args) != 1:
        return None
    listed = value.args[0]
    if not isinstance(listed, (nodes.List, nodes.Tuple)) or not listed.elts:
        return None
    pairs = []
    for element in listed.elts:
        if not isinstance(element, nodes.Tuple) or len(element.elts) != 2:
            return None
        key, handler = element.elts
        if not isinstance(key, nodes.NodeNG) or not isinstance(handler, nodes.NodeNG):
            return None
        pairs.append((key, handler))
    return pairs


def _bound_by_calls(
    function: nodes.FunctionDef,
    owner: nodes.Module | nodes.ClassDef,
    qualname: str,
    qualname_of: QualnameOf,
) -> Table | str:
    """The table a function is: the types it answers by its branches
    (:func:`_type_branches`), or, with none, the keys it binds with one call each of one
    method, ``manager.bind_func(RequestType.ADD_SESSION, self._on_add_session)``: every
    call in it whose two positional arguments are a key and something else. Each must be
    a statement of the function's own body, so that every one runs; the handler is read
    as a table's value is."""
    branches = _type_branches(function, qualname_of)
    if isinstance(branches, str):
        return branches
    if branches[0]:
        at = location_of(function) or Location(owner.root().file or "", 1, 0, None, None)
        return Table(qualname, at, tuple(branches[0].values()), miss_raises=branches[1])
    entries: dict[str, TableEntry] = {}
    binder: str | None = None
    for call in function.nodes_of_class(nodes.Call):
        if len(call.args) != 2 or call.keywords or not isinstance(call.func, nodes.Attribute):
            continue
        key = _key(call.args[0], qualname_of)
        if key is None:
            continue
        line = call.lineno
        if not (isinstance(call.parent, nodes.Expr) and call.parent.parent is function):
            return (
                f"binds {key!r} at line {line} inside a block or an expression: whether "
                "it runs is not written"
            )
        if binder is not None and call.func.attrname != binder:
            return f"binds with {binder}() and with {call.func.attrname}() (line {line})"
        binder = call.func.attrname
        entry = _entry(key, call.args[1], owner, qualname_of)
        if isinstance(entry, str):
            return entry
        entries[key] = entry
    if not entries:
        return (
            f"is a function that neither binds a key (a call <binder>(KEY, HANDLER) with a "
            "str literal, an enum member or a class as KEY) nor answers by type (if/elif "
            f"isinstance(obj, T) branches, match obj: case T() arms), at line {function.lineno}"
        )
    at = location_of(function) or Location(owner.root().file or "", 1, 0, None, None)
    return Table(qualname, at, tuple(entries.values()))


def _type_branches(
    function: nodes.FunctionDef, qualname_of: QualnameOf
) -> tuple[dict[str, TableEntry], bool] | str:
    """The types a function answers by its branches: each ``if``/``elif
    isinstance(obj, T)`` (``T`` a class, or a tuple of classes) and each ``case T():`` of
    a ``match obj:``, all on one name. A branch is its handler: an entry with no method
    (never judged against the arguments). A test that is not one of these on that name
    is the reason, as is a class that does not infer. With the entries, whether a type
    no branch has raises: every chain's last ``else:`` (or ``case _:``) ends in a
    ``raise``."""
    entries: dict[str, TableEntry] = {}
    subjects: set[str] = set()
    raises = True
    heads = [
        node
        for node in function.nodes_of_class((nodes.If, nodes.Match))
        if _branch_subject(node) is not None and not _is_elif(node)
    ]
    for head in heads:
        if any(head is not other and _inside_branch(head, other) for other in heads):
            continue  # a test inside a branch: part of that branch's handling
        subjects.add(str(_branch_subject(head)))
        raises = raises and _miss_raises(head)
        for test, at in _chain_tests(head):
            keys = _tested_classes(test, qualname_of)
            if keys is None:
                return (
                    f"answers by type at line {at.line}, but {test.as_string()[:60]!r} is not "
                    "a class, a tuple of classes or a class pattern"
                )
            for key in keys:
                entries.setdefault(key, TableEntry(key, at, None, f"the branch at line {at.line}"))
    if len(subjects) > 1:
        names = ", ".join(sorted(subjects))
        return f"tests the types of more than one name ({names}): which one is sent is not known"
    return entries, raises and bool(entries)


def _miss_raises(head: nodes.NodeNG) -> bool:
    """Whether a type none of *head*'s branches tests raises: the ``else:`` of its
    ``if``/``elif`` chain, or its ``case _:`` arm without a guard, ends in a ``raise``."""
    if isinstance(head, nodes.Match):
        return any(
            isinstance(case.pattern, nodes.MatchAs)
            and case.pattern.pattern is None
            and case.guard is None
            and _ends_in_raise(case.body)
            for case in head.cases
        )
    if not isinstance(head, nodes.If):
        return False
    node = head
    while len(node.orelse) == 1 and isinstance(node.orelse[0], nodes.If):
        node = node.orelse[0]
    return _ends_in_raise(node.orelse)


def _branch_subject(node: nodes.NodeNG) -> str | None:
    """The name an ``if isinstance(name, ...)`` or a ``match name:`` tests."""
    if isinstance(node, nodes.If):
        test = node.test
        if builtin_call(test, "isinstance", 2) and isinstance(test.args[0], nodes.Name):
            return test.args[0].name
        return None
    if isinstance(node, nodes.Match) and isinstance(node.subject, nodes.Name):
        return node.subject.name
    return None


def _is_elif(node: nodes.NodeNG) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.If) and parent.orelse == [node]


def _inside_branch(node: nodes.NodeNG, head: nodes.NodeNG) -> bool:
    """Whether *node* is in the code of one of *head*'s branches (not its tests)."""
    current = node.parent
    while current is not None and current is not head:
        current = current.parent
    return current is head


def _chain_tests(head: nodes.NodeNG) -> list[tuple[nodes.NodeNG, Location]]:
    """The type tests of an ``if``/``elif`` chain or of a ``match``'s arms, each with its
    place: the second argument of each isinstance, or each arm's pattern (a wildcard
    ``case _:`` left out: it is the default)."""
    found: list[tuple[nodes.NodeNG, Location]] = []
    if isinstance(head, nodes.Match):
        for case in head.cases:
            pattern = case.pattern
            if isinstance(pattern, nodes.MatchAs) and pattern.pattern is None:
                continue
            at = location_of(pattern)
            if at is not None:
                found.append((pattern, at))
        return found
    node: nodes.NodeNG | None = head
    while isinstance(node, nodes.If):
        test = node.test
        if builtin_call(test, "isinstance", 2):
            at = location_of(test)
            tested = test.args[1]
            if at is not None and isinstance(tested, nodes.NodeNG):
                found.append((tested, at))
        else:
            at = location_of(test)
            if at is not None:
                found.append((test, at))  # not a type test: refused by its caller
        node = (
            node.orelse[0]
            if len(node.orelse) == 1 and isinstance(node.orelse[0], nodes.If)
            else None
        )
    return found


def _tested_classes(test: nodes.NodeNG, qualname_of: QualnameOf) -> list[str] | None:
    """The classes a type test names: a class, a tuple of classes, a class pattern
    ``T()`` or an or-pattern of them; None for anything else."""
    if isinstance(test, nodes.MatchOr):
        found: list[str] = []
        for pattern in test.patterns:
            classes = _tested_classes(pattern, qualname_of)
            if classes is None:
                return None
            found.extend(classes)
        return found
    if isinstance(test, nodes.MatchClass):
        test = test.cls
    if isinstance(test, nodes.Tuple):
        found = []
        for element in test.elts:
            classes = (
                _tested_classes(element, qualname_of) if isinstance(element, nodes.NodeNG) else None
            )
            if classes is None:
                return None
            found.extend(classes)
        return found
    key = _class_key(test, qualname_of)
    return None if key is None else [key]


def _binding(
    owner: nodes.Module | nodes.ClassDef, attribute: str
) -> tuple[nodes.NodeNG, nodes.NodeNG] | str:
    """The one target binding the table and its value, or why there is not one."""
    where = f"{'class' if isinstance(owner, nodes.ClassDef) else 'module'} {owner.name}"
    bindings = [b for b in owner.locals.get(attribute, []) if isinstance(b, nodes.NodeNG)]
    if not bindings and isinstance(owner, nodes.ClassDef):
        # An instance attribute: assigned in the class's own methods (``self.X = {...}``).
        # astroid declares a list of nodes per name as one node.
        assigned = cast("dict[str, list[object]]", owner.instance_attrs)
        bindings = [b for b in assigned.get(attribute, []) if isinstance(b, nodes.NodeNG)]
        if bindings and not all(_made_by_init(b, owner) for b in bindings):
            return (
                f"is assigned outside {owner.name}.__init__ and the methods it calls: which "
                "value it holds is not known"
            )
    if not bindings:
        return f"is not defined in {where}"
    if len(bindings) > 1:
        lines = ", ".join(str(b.lineno) for b in bindings)
        return (
            f"is bound {len(bindings)} times in {where} (lines {lines}): which one holds "
            "is not known"
        )
    target = bindings[0]
    parent = target.parent
    if isinstance(parent, nodes.Assign) and parent.targets == [target]:
        return target, parent.value
    if isinstance(parent, nodes.AnnAssign) and parent.value is not None:
        return target, parent.value
    return f"is not assigned a value of its own at line {target.lineno} (a plain `name = {{...}}`)"


def _made_by_init(binding: nodes.NodeNG, owner: nodes.ClassDef) -> bool:
    """Whether *binding* is in the owner's ``__init__``, or in a method of the owner that
    a statement of ``__init__``'s own body calls, ``self.init_dispatcher()`` (SGLang's
    schedulers make their dispatcher so)."""
    function = binding.scope()
    if not isinstance(function, nodes.FunctionDef) or function.parent is not owner:
        return False
    if function.name == "__init__":
        return True
    init = owner.locals.get("__init__", [])
    if len(init) != 1 or not isinstance(init[0], nodes.FunctionDef):
        return False
    return any(
        isinstance(statement, nodes.Expr)
        and isinstance(statement.value, nodes.Call)
        and isinstance(statement.value.func, nodes.Attribute)
        and statement.value.func.attrname == function.name
        and isinstance(statement.value.func.expr, nodes.Name)
        and _is_self(statement.value.func.expr, owner)
        for statement in init[0].body
    )


def _is_self(name: nodes.Name, owner: nodes.ClassDef) -> bool:
    """Whether *name* is the first parameter of a method of *owner* it is written in."""
    function = name.scope()
    if not isinstance(function, nodes.FunctionDef) or function.parent is not owner:
        return False
    positional = [*(function.args.posonlyargs or []), *(function.args.args or [])]
    return bool(positional) and positional[0].name == name.name and function.type == "method"


def _entry(
    key: str,
    handler: nodes.NodeNG,
    owner: nodes.Module | nodes.ClassDef,
    qualname_of: QualnameOf,
) -> TableEntry | str:
    """The entry *key*: *handler*, or why its value names no handler."""
    at = location_of(handler)
    if at is None:
        return f"has an entry {key!r} whose value has no place in the source"
    if isinstance(handler, nodes.Const) and isinstance(handler.value, str):
        if not isinstance(owner, nodes.ClassDef):
            return (
                f"names the handler of {key!r} by a str at line {handler.lineno}, and is no "
                "class's attribute: whose method that is is not written"
            )
        return TableEntry(key, at, qualname_of(owner), handler.value)
    method = _method_named(handler, owner)
    if method is not None:
        klass, name = method
        return TableEntry(key, at, qualname_of(klass), name)
    if isinstance(handler, nodes.Lambda) or _held_method(handler, owner):
        # A handler all the same (SGLang's ``lambda req: self.profiler._profile(req)``,
        # ``self.weight_updater.update_weights_from_disk``), whose class is not written
        # at the table: the key is answered, the handler not judged, as a branch's.
        return TableEntry(key, at, None, handler.as_string()[:60])
    value = infer_unique(handler)
    if isinstance(value, nodes.FunctionDef) and isinstance(value.parent, nodes.Module):
        return TableEntry(key, at, None, qualname_of(value))
    return (
        f"has a value for {key!r} at line {handler.lineno} ({handler.as_string()[:60]!r}) "
        "that is not a method's name, a method or a module-level function"
    )


def _held_method(handler: nodes.NodeNG, owner: nodes.Module | nodes.ClassDef) -> bool:
    """Whether *handler* is a method of an object the instance holds, ``self.x.m`` in a
    method of the owner."""
    return (
        isinstance(owner, nodes.ClassDef)
        and isinstance(handler, nodes.Attribute)
        and isinstance(handler.expr, nodes.Attribute)
        and isinstance(handler.expr.expr, nodes.Name)
        and _is_self(handler.expr.expr, owner)
    )


def _method_named(
    handler: nodes.NodeNG, owner: nodes.Module | nodes.ClassDef
) -> tuple[nodes.ClassDef, str] | None:
    """The class and method name *handler* refers to: ``self.m`` in the owner's
    ``__init__``, ``m`` defined in the owner's body, or ``Class.m``."""
    if isinstance(owner, nodes.ClassDef):
        if (
            isinstance(handler, nodes.Attribute)
            and isinstance(handler.expr, nodes.Name)
            and _is_self(handler.expr, owner)
        ):
            return owner, handler.attrname
        if isinstance(handler, nodes.Name) and handler.scope() is owner:
            defined = owner.locals.get(handler.name, [])
            if defined and all(isinstance(d, nodes.FunctionDef) for d in defined):
                return owner, handler.name
    if isinstance(handler, nodes.Attribute):
        holder = infer_unique(handler.expr)
        values = inferred_values(handler)
        # astroid gives a class's function, read from the class, as an UnboundMethod.
        if (
            isinstance(holder, nodes.ClassDef)
            and len(values) == 1
            and isinstance(values[0], bases.UnboundMethod)
        ):
            return holder, handler.attrname
    return None

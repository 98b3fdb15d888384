"""Whether a call forwards a sender's name to another sender: the name lands where that
sender takes it, and the call is proven to call that sender; and whether a call site of a
sender's name may call it at all.

A sender found by the name of the function it calls alone is a guess: ``encode(chunk)``
of a JSON encoder is no call of the project's ``encode(prompt)``, and ``list(x)`` of the
builtin no call of a method named ``list``. The data a function packs and passes on
reaches such calls everywhere, so each would make every parameter of it a sender.

A call site is the evidence of the names a sender sends, so one whose callee is not known
counts (``self.executor.collective_rpc("x")``, the executor a class chosen at run time);
but one proven to call no function of the project is no site of it: ``text.encode(
"utf-8")`` calls the builtin ``str.encode``, ``json.JSONEncoder().encode("x")`` the
standard library's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from astroid import nodes

from pylint_rpcsurface.analysis.inference import inferred_values, named_class
from pylint_rpcsurface.discovery.evidence import function_of
from pylint_rpcsurface.discovery.reading import (
    Group,
    Sender,
    class_of,
    is_method,
    name_passed,
    names_in,
    takes_no_instance,
)

Order = Callable[[nodes.ClassDef], Sequence[nodes.ClassDef]]


class Forwards:
    """Reads forwards; *order* gives a class and its ancestors (the class index's),
    *in_project* whether a node is in a module of the project."""

    def __init__(self, order: Order, in_project: Callable[[nodes.NodeNG], bool]) -> None:
        self._order = order
        self._in_project = in_project
        # What each call's callee infers to (the functions, and whether the values are
        # functions alone): asked again for each sender of its name, of each parameter
        # carrying a value to it, round after round, then by the call sites.
        self._callees: dict[int, tuple[list[nodes.FunctionDef], bool]] = {}
        # Whether two classes are of one hierarchy, by their ids: a call's callee is asked
        # of each sender of its name: the 39 ``__init__`` of vLLM 0.11.2, for every call.
        self._relations: dict[tuple[int, int], bool] = {}

    def to(self, call: nodes.Call, tainted: set[str], senders: Sequence[Sender]) -> bool:
        """Whether *call* passes a name of *tainted* where one of *senders* takes its
        name, and calls that sender. Where the name lands is read once for the senders
        that take it alike (vLLM 0.11.2's 39 ``__init__`` senders, for each
        ``super().__init__(...)`` a parameter reaches), each then asked
        whether the call calls it."""
        lands: dict[tuple[bool, int, str], bool] = {}
        through_a_class: list[bool] = []
        for sender in senders:
            shape = _shape(call, sender, through_a_class)
            if shape is None:
                continue
            passes = lands.get(shape)
            if passes is None:
                passes = lands[shape] = _lands_on(call, tainted, *shape)
            if passes and self._calls(call, sender.function):
                return True
        return False

    def may_call_the_project(self, call: nodes.Call) -> bool:
        """Whether *call* may call a function of the project: not when astroid infers its
        callee to functions alone, none of them the project's (a builtin's, the standard
        library's). A call site of a sender's name may call it unless so: a namesake of
        the project may pass the name on by a path no forward proves (vLLM 0.11.2's
        ``LLMEngine.collective_rpc`` to its engine core's, thence to its executor's)."""
        functions, known = self._callees_of(call.func)
        return not known or any(self._in_project(found) for found in functions)

    def _calls(self, call: nodes.Call, function: nodes.FunctionDef) -> bool:
        func = call.func
        if (
            isinstance(func, nodes.Attribute)
            and isinstance(func.expr, nodes.Name)
            and func.expr.name in {"self", "cls"}
        ):
            # ``self.send(...)`` calls the definition of the object's class, which may be
            # a subclass's: the caller's class and the sender's are one hierarchy.
            return self._related(class_of(call), function.parent)
        return any(self._is_or_overrides(found, function) for found in self._callees_of(func)[0])

    def _is_or_overrides(self, found: nodes.FunctionDef, function: nodes.FunctionDef) -> bool:
        """*found* is *function*, an override of it, or a method it overrides."""
        return found is function or (
            found.name == function.name and self._related(found.parent, function.parent)
        )

    def _callees_of(self, func: nodes.NodeNG) -> tuple[list[nodes.FunctionDef], bool]:
        """The functions *func* infers to, and whether it infers to some value and to
        functions alone (nothing astroid can't infer, no other object)."""
        key = id(func)
        if key not in self._callees:
            values = inferred_values(func)
            functions = [found for value in values if (found := function_of(value)) is not None]
            self._callees[key] = functions, bool(values) and len(functions) == len(values)
        return self._callees[key]

    def _related(self, one: object, other: object) -> bool:
        """Whether *one* and *other* are classes of one hierarchy, one of them derived
        from the other (or the same class)."""
        if not isinstance(one, nodes.ClassDef) or not isinstance(other, nodes.ClassDef):
            return False
        key = (id(one), id(other))
        related = self._relations.get(key)
        if related is None:
            related = self._relations[key] = any(k is other for k in self._order(one)) or any(
                k is one for k in self._order(other)
            )
        return related


def by_name(
    senders: Iterable[Sender], before: dict[str, list[Sender]]
) -> tuple[dict[str, list[Sender]], set[str]]:
    """The *senders* by the name of their function, as a call names what it calls, and
    the names with more senders than in *before*."""
    found: dict[str, list[Sender]] = defaultdict(list)
    for sender in senders:
        found[sender.function.name].append(sender)
    return dict(found), {
        name for name, now in found.items() if len(now) != len(before.get(name, ()))
    }


def _shape(
    call: nodes.Call, sender: Sender, through_a_class: list[bool]
) -> tuple[bool, int, str] | None:
    """(whether *sender* is a method, where *call* passes its name, its parameter), or
    None for a function's name called as a method, or the other way round.
    *through_a_class* keeps whether the call is made through a class statement's name,
    asked of the call once."""
    method = is_method(sender.function)
    if not isinstance(call.func, nodes.Attribute if method else nodes.Name):
        return None
    index = sender.index
    if method and not takes_no_instance(sender.function):
        if not through_a_class:
            through_a_class.append(_through_a_class(call.func))
        if through_a_class[0]:
            index += 1  # Base.send(self, name): the instance is passed first
    return method, index, sender.param


def _lands_on(call: nodes.Call, tainted: set[str], method: bool, index: int, param: str) -> bool:
    """Whether *call* passes a name of *tainted* at *index* or as *param*."""
    shape = Group("", "method" if method else "function", index, param, [])
    passed = name_passed(call, shape)
    if passed is not None:
        return bool(names_in(passed[1]) & tainted)
    # ``send(*args)`` or ``send(**kwargs)``: where each value lands is not told by the call,
    # so a name in them may land on the sender's.
    return any(
        isinstance(arg, nodes.Starred) and names_in(arg) & tainted for arg in call.args
    ) or any(given.arg is None and names_in(given.value) & tainted for given in call.keywords or ())


def _through_a_class(func: nodes.NodeNG) -> bool:
    """Whether *func* is called through a class statement's name (``Base.send(self,
    name)`` in an override): a plain method, called so, is passed the instance first."""
    return (
        isinstance(func, nodes.Attribute)
        and isinstance(func.expr, nodes.Name)
        and named_class(func.expr) is not None
    )

"""The model of an RPC surface: plain, immutable facts and the findings derived from them.

Nothing here knows about astroid or pylint. The rules (``rules/``) are pure functions
from these facts to findings, which keeps them easy to test and to cache. An
:class:`Analysis` is one run's result: its configuration errors and its findings by
file, handed around by the cache and the commands without importing astroid or pylint.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pylint_rpcsurface.config import ConfigError
from pylint_rpcsurface.sources import path_keys


@dataclass(frozen=True, order=True)
class Location:
    """A span in a source file, in pylint's convention.

    ``path`` is the file's real path. Lines are 1-based; columns are 0-based UTF-8 byte
    offsets, as astroid and pylint report them.
    """

    path: str
    line: int
    col: int
    end_line: int | None
    end_col: int | None


@dataclass(frozen=True)
class Broadcast:
    """One dispatch call site: ``<expr>.call_func(<name>, ..., wait_out=<flag>)``.

    ``rpc`` is ``None`` when the name does not infer to one str; ``waited`` is ``None``
    when the wait flag does not infer to a constant. Neither is ever guessed.
    """

    call: Location
    name_at: Location  # the name argument, or the call when there is none
    method: str
    rpc: str | None
    name_source: str
    waited: bool | None
    wait_at: Location | None  # the wait keyword's value, when that is what is unknown
    wait_source: str | None
    # The rest describe the reply and the arguments; None means unknown (never guessed).
    unpacked: int | None = None  # ``a, b = <call>``: how many names the reply unpacks into
    sent: Sent | None = None  # the arguments the call forwards to the handler
    via: tuple[HelperStep, ...] = ()  # the helper calls that lead from a caller to this site
    drops_none: bool = False  # the dispatch form's drops-none
    shared_reply_queue: bool = False  # the dispatch form's shared-reply-queue
    # The dispatch form's unknown-name, "skipped" or "raises"; None when it is not set, so
    # what the receive side's code shows decides (``SurfaceFacts.miss_raises``).
    unknown_name: str | None = None
    # What ``rpc`` is: a str name ("name"), an enum member ("enum": ``<enum's qualified
    # name>.<member>``) or, with the dispatch's key = "type", the class of the request
    # sent ("type": its qualified name). No registry of str names lists an enum or a type.
    key_kind: str = "name"
    # With "type": the class and its ancestors, qualified, in MRO order: a table keyed by
    # any of them answers, as isinstance does.
    key_classes: tuple[str, ...] = ()
    # The conditions the call runs under (``analysis.conditions``): a table's ``when``
    # judges it when it is one of them.
    conditions: tuple[str, ...] = ()

    @property
    def wait_state(self) -> str:
        if self.waited is None:
            return "unknown"
        return "waited" if self.waited else "unwaited"


@dataclass(frozen=True)
class Sent:
    """The arguments a dispatch call forwards to the handler: a count and keyword names."""

    positional: int
    keywords: tuple[str, ...]
    # With the dispatch's handler-args = "payload": the handler gets one dict of the
    # keywords sent (``positional`` is 1), whose keys are ``payload``, or None when the
    # call's keywords are not all known.
    packed: bool = False
    payload: tuple[str, ...] | None = None


@dataclass(frozen=True)
class HelperStep:
    """One call of a helper (a module-level function, staticmethod or classmethod)."""

    name: str  # the helper's name, e.g. "_rebind"
    call: Location  # where it is called


@dataclass(frozen=True)
class CallerBroadcast:
    """A broadcast and every caller class whose own code runs it."""

    broadcast: Broadcast
    callers: tuple[str, ...]  # fully qualified names, sorted


@dataclass(frozen=True)
class Answers:
    """The names a set of handler classes answer.

    ``complete`` is False when some ancestor of a handler could not be resolved: its
    names are then unknown, and no finding may claim that a name is unanswered.
    """

    classes: tuple[str, ...]
    names: frozenset[str]
    complete: bool
    # Each class and the names it binds, itself or through its MRO, in ``classes`` order.
    by_class: tuple[tuple[str, frozenset[str]], ...] = ()

    def answering(self, name: str) -> tuple[str, ...]:
        """The classes that bind *name*, themselves or through their MRO."""
        return tuple(cls for cls, names in self.by_class if name in names)


@dataclass(frozen=True)
class Returns:
    """What a handler method's ``return`` statements (and falling off its end) give back.

    ``none_at`` lists the places a None reply can come from: a bare ``return``, a value
    that infers to None, or the ``def`` itself when the body can fall off its end.
    ``value_at`` lists the returns whose value is inferred and never None; ``unknown``
    is True when some return's value can't be inferred, so no claim rests on it.
    """

    none_at: tuple[Location, ...]
    maybe_none_at: tuple[Location, ...]  # returns inferring to None on some paths only
    value_at: tuple[Location, ...]
    unknown: bool
    tuple_arity: int | None  # every return is a tuple of this length
    tuple_at: Location | None  # the first such return

    @property
    def never_value(self) -> bool:
        """Certain: whenever the method returns, it returns None."""
        return bool(self.none_at) and not (self.value_at or self.maybe_none_at or self.unknown)

    @property
    def first_maybe_none(self) -> Location | None:
        found = sorted(self.none_at + self.maybe_none_at)
        return found[0] if found else None


@dataclass(frozen=True)
class Signature:
    """How a handler method binds arguments, ``self`` (or ``cls``) left out."""

    positional: tuple[str, ...]  # positional-only first, then positional-or-keyword
    positional_only: int  # how many of ``positional`` are positional-only
    required_positional: int  # the leading ones without a default
    varargs: bool
    keyword_only: tuple[str, ...]
    required_keyword_only: tuple[str, ...]
    varkw: bool
    text: str  # as written, e.g. "(seq_ids, token_ids=None, *args)"


@dataclass(frozen=True)
class HandlerMethod:
    """The effective method answering *rpc* for some handler classes, by MRO."""

    rpc: str
    classes: tuple[str, ...]  # the handler classes it answers for, sorted
    owner: str  # the fully qualified name of the class defining it
    name: str
    at: Location
    returns: Returns | None  # None for a generator or coroutine: no claim about replies
    signature: Signature | None  # None when a decorator may change it
    # The keys every run of the method reads from its first parameter, ``args["k"]``:
    # what a payload dict (handler-args = "payload") must hold.
    payload_reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class RegistryElement:
    value: str | None  # None when the element is not a str
    source: str
    location: Location


@dataclass(frozen=True)
class Registry:
    """A registry constant and its elements, or the reason it can't be read."""

    qualname: str
    location: Location  # the assignment's target, or the registry module
    elements: tuple[RegistryElement, ...]
    problem: str | None = None


@dataclass(frozen=True)
class TableEntry:
    """One entry of a handler table: the name its key answers and the handler its value
    names. The handler is a method of *owner* (a str value names one of the table's own
    class, a reference ``Class.method`` one of that class), or a function (*owner* None,
    *method* its qualified name)."""

    key: str
    at: Location  # the entry's value: where a missing handler is reported
    owner: str | None  # the class the method is looked up on, qualified
    method: str  # the method's name, or the function's qualified name
    # Whether the owner binds the method (itself or through its MRO): None when a
    # function is the handler, or when an ancestor of the owner does not resolve.
    answered: bool | None = None


@dataclass(frozen=True)
class Table:
    """A handler table: a dict literal whose keys are the names answered and whose values
    name the handlers that answer them."""

    qualname: str  # as configured: the module constant or ``Class.ATTRIBUTE``
    location: Location  # the assignment's target
    entries: tuple[TableEntry, ...]
    # The handler of every key the entries lack (``add_fallback_fn(self.f)``): with
    # one, the table answers every key sent.
    fallback: TableEntry | None = None
    # A key it lacks raises on the receive side (an isinstance chain's ``else: raise``,
    # a dispatcher whose ``__call__`` raises on a miss): read from the code, not guessed.
    miss_raises: bool = False


@dataclass(frozen=True)
class UnknownCallers:
    """What may hold callers that were not found, where, and why.

    ``kind`` is ``"unparsed"`` for a module that doesn't parse or can't be decoded,
    ``"unread"`` for a file that is never read (not a regular file, over the size cap),
    ``"open-class"`` for a class whose starred bases don't infer.
    """

    kind: str
    location: Location
    reason: str


@dataclass(frozen=True)
class SurfaceFacts:
    """Everything the derivation needs to judge one configured surface."""

    name: str
    callers: tuple[str, ...]  # configured callers and every subclass found, sorted
    callers_complete: bool
    broadcasts: tuple[CallerBroadcast, ...]
    handlers: Answers
    base_handlers: Answers
    registry: Registry | None
    root: str  # the project folder, for relative paths in message texts
    handler_methods: tuple[HandlerMethod, ...] = ()  # of every broadcast name, sorted
    # Why callers_complete is False, when something may hold callers not found.
    unknown_callers: tuple[UnknownCallers, ...] = ()
    # The configured answered-before-lookup: names the receiving loop answers itself,
    # before it looks a name up on the handlers, whatever handler it holds.
    loop_answers: frozenset[str] = frozenset()
    # The handler tables (``tables``): their keys are among ``handlers.names``, each
    # table one of ``handlers.classes``.
    tables: tuple[Table, ...] = ()
    when: str | None = None  # the surface's condition, as configured (``engine.judging``)
    # The worker holds one of the handlers, not known which (``one-of``): a call is judged
    # by what holds whichever one it meets.
    one_of: bool = False

    @property
    def miss_raises(self) -> bool:
        """Whether the receive side raises on a name it lacks, by its code: the surface
        answers from tables alone, and each one's miss path raises."""
        tables = {table.qualname for table in self.tables}
        return (
            bool(tables)
            and all(table.miss_raises for table in self.tables)
            and set(self.handlers.classes) <= tables
            and not self.base_handlers.classes
        )


@dataclass(frozen=True)
class ProxyCall:
    """One call of a name on a proxy: ``<proxy>.<name>(...)``, or with ``remote = true``
    ``<proxy>.<name>.remote(...)`` (``.options(...)`` between them too).

    ``rpc`` is None when the attribute can't be read (``getattr(proxy, name)`` with a
    name that does not infer to one str): never guessed.
    """

    at: Location  # the call itself
    rpc: str | None
    source: str  # the name as written: the attribute, or getattr's second argument
    receiver: str  # the configured receiver the proxy comes from, e.g. "self._actors"
    code: str  # the caller's code that makes it, e.g. "TrainGroup.save_model"
    guarded: bool  # under hasattr(proxy, name), or getattr(proxy, name, default)
    sent: Sent | None = None  # the arguments the handler's method gets; None: unknown
    # Whether the caller waits for the reply: with remote = false, always; with remote =
    # true, where the call's result reaches ray.get (None: it leaves the function, so
    # whether anyone waits is not known). Never guessed.
    waited: bool | None = False
    reply_used: bool = False  # the waited reply (or the list ray.get makes of it) is read
    unpacked: int | None = None  # ``a, b = <reply>``, for one call's own reply only
    # The function (its name and where it is defined) whose ``return`` hands the waited
    # reply back: it is read only if a caller of that function reads it, which the engine
    # settles over the project's callers where a handler method never returns a value
    # (reply_used is True until then). None: read or discarded where it is.
    returned_by: tuple[str, Location] | None = None
    read_at: Location | None = None  # the first call of that function that reads it
    conditions: tuple[str, ...] = ()  # what it runs under, as ``Broadcast.conditions``


@dataclass(frozen=True)
class ProxyHandler:
    """One handler class behind a proxy and the names it answers."""

    qualname: str
    names: frozenset[str]
    complete: bool  # False when an ancestor does not resolve: its names are unknown


@dataclass(frozen=True)
class ProxyUse:
    """One call of a group method on an instance of a ``handler-param`` table's caller
    (``critic_model.async_save_model()``, or the construction itself for ``__init__``),
    with one construction the instance may be."""

    at: Location  # the call of the group method (the construction, for __init__)
    method: str  # the group method's name
    group: str  # the caller class built, qualified
    built_at: Location  # the construction
    handler: str  # the class bound to the handler parameter there, qualified
    calls: tuple[ProxyCall, ...]  # the proxy calls the method makes, through self.M() too


@dataclass(frozen=True)
class ProxyUntied:
    """One call of a group method, with proxy calls to judge, on a receiver shown to be
    an instance of a ``handler-param`` table's caller but tied to no construction (a
    parameter, a loop variable, an attribute...), or tied to one whose argument for the
    parameter is not one class of the project (``Group(*args)``): which handler answers
    is not known."""

    at: Location  # the call of the group method
    method: str  # the group method's name
    group: str  # the caller class the receiver is shown to be, qualified
    written: str  # the call as written, arguments left out: ``group.async_save_model()``
    calls: tuple[ProxyCall, ...]  # the proxy calls the method makes, through self.M() too
    built_at: Location | None = None  # the construction tied to, when there is one


@dataclass(frozen=True)
class ProxyFacts:
    """Everything the rules need to judge one ``[[tool.rpcsurface.proxy]]`` table."""

    name: str
    key: str  # e.g. "tool.rpcsurface.proxy[0]"
    callers: tuple[str, ...]  # configured callers and every subclass found, sorted
    calls: tuple[ProxyCall, ...]  # sorted by place
    handlers: tuple[ProxyHandler, ...]  # in the configuration's order
    own_members: frozenset[str]  # names the proxy itself defines: not RPCs
    own_complete: bool  # False when an own-members class's ancestor does not resolve
    exposed_by: str | None = None
    root: str = ""  # the project folder, for relative paths in message texts
    # The method each handler runs for each name called, one entry per distinct method.
    methods: tuple[HandlerMethod, ...] = ()
    remote: bool = False  # the table's calls are <proxy>.<name>.remote(...): Ray actors
    # With handler-param: the handlers are the classes constructions bind to it, each
    # judged at the instance calls (uses) that run a proxy call, and each proxy call's
    # signature and reply against the handlers of those uses only (judged, by place).
    handler_param: str | None = None
    uses: tuple[ProxyUse, ...] = ()
    untied: tuple[ProxyUntied, ...] = ()  # with handler-param: calls no handler is known of
    judged: tuple[tuple[Location, tuple[str, ...]], ...] = ()
    # Each call's callers this table judges it for (``engine.judging``), by place.
    callers_at: tuple[tuple[Location, tuple[str, ...]], ...] = ()
    when: str | None = None  # the table's condition, as configured

    def handlers_of(self, call: ProxyCall) -> tuple[ProxyHandler, ...]:
        """The handlers *call* is judged against: every one, or with handler-param those
        of the instances whose group methods reach it."""
        if self.handler_param is None:
            return self.handlers
        wanted = next((names for at, names in self.judged if at == call.at), ())
        return tuple(h for h in self.handlers if h.qualname in wanted)


@dataclass(frozen=True, order=True)
class Finding:
    """A message to report: sorted by location, then symbol, for deterministic output."""

    location: Location
    symbol: str
    args: tuple[str, ...]
    confidence: str  # the name of a pylint confidence level, e.g. "INFERENCE"
    # The surfaces that give it, in the configuration's order (one message per site and
    # symbol, however many surfaces see it).
    surfaces: tuple[str, ...] = ()
    # What the file's pylint pragmas say of this message at its line: False disabled
    # (or the file skipped), True enabled, None no pragma applies, so pylint's
    # configuration decides (see config.pylint_control).
    pragma: bool | None = None


@dataclass(frozen=True)
class RunCounts:
    """What one analysis did (``RPCSURFACE_STATS`` writes it): the project's modules it
    built with astroid, by path; how many modules outside the source roots inference
    built; the memo's pieces it computed, and those it reused; the files whose text the
    subclass search read, by path (no record of their version was kept)."""

    built: tuple[str, ...] = ()
    built_elsewhere: int = 0
    computed: int = 0
    reused: int = 0
    searched: tuple[str, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """The findings of one configuration over the project, grouped by file."""

    config_errors: tuple[ConfigError, ...]
    _by_path: Mapping[str, tuple[Finding, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, errors: Iterable[ConfigError], findings: Iterable[Finding]) -> Analysis:
        grouped: dict[str, list[Finding]] = defaultdict(list)
        for finding in findings:
            grouped[finding.location.path].append(finding)
        return cls(
            tuple(errors),
            {path: tuple(sorted(found)) for path, found in grouped.items()},
        )

    def findings_in(self, path: str) -> tuple[Finding, ...]:
        # The file's key (see SourceTree.key) is one of these: its real path, or, for a
        # link under the roots to a file outside them, the link's own path.
        for key in path_keys(path):
            if key in self._by_path:
                return self._by_path[key]
        return ()

    def all_findings(self) -> tuple[Finding, ...]:
        """Every finding, sorted by path, line, column and symbol."""
        return tuple(sorted(f for found in self._by_path.values() for f in found))

"""The ``[tool.rpcsurface]`` table: its keys, the frozen configuration, and validation.

The plugin is told, in ``pyproject.toml``, which calls dispatch an RPC by name
(``[[tool.rpcsurface.dispatch]]``) and which classes call, answer and list the
RPCs of each surface (``[[tool.rpcsurface.surface]]``). This module turns that
table into frozen dataclasses that the checker can trust without re-checking.

Design rules, and why:

* Every problem becomes a :class:`ConfigError` whose ``str()`` is one line
  naming the file, the key path (``tool.rpcsurface.surface[0].callers[1]``) and
  what was expected. A configuration mistake is the user's to fix, so they get
  a message that points at the exact key, never a traceback, and never a silent
  guess at what they meant.
* Types are checked exactly. ``bool`` is a subclass of ``int`` in Python, so
  ``name-arg = true`` would otherwise slip through as ``1``.
* Validation is pure (but for checking that source roots exist): finding and reading
  the file is :mod:`pylint_rpcsurface.config.discovery`'s job.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from pylint_rpcsurface.config.expressions import checked_expression
from pylint_rpcsurface.config.values import describe as _describe
from pylint_rpcsurface.config.values import is_dotted as _is_dotted
from pylint_rpcsurface.config.values import is_identifier as _is_identifier
from pylint_rpcsurface.config.values import key_part as _key_part
from pylint_rpcsurface.config.values import one_line as _one_line

TABLE = ("tool", "rpcsurface")

_TABLE_KEY = ".".join(TABLE)

# What a worker does with a name its handler lacks: skips it (no reply), or raises and
# sends the failure back.
UNKNOWN_NAME_VALUES = ("skipped", "raises")
# How the dispatch is called: ``<expr>.method(...)`` only, or also as a plain ``method(...)``.
CALLED_AS_VALUES = ("method", "function")
# How the worker calls the handler: with the arguments forwarded, or one dict of keywords.
HANDLER_ARGS_VALUES = ("forwarded", "payload")
_DEFAULT_HELPER_DEPTH = 5
# Decorators that keep a handler's signature and reply: the common ones of engine code.
DEFAULT_TRANSPARENT_DECORATORS = (
    "torch.inference_mode",
    "torch.no_grad",
    "torch.enable_grad",
    "functools.cache",
    "functools.lru_cache",
)
_CLASS_FIELDS = ("callers", "handlers", "base-handlers", "tables")
_PROXY_CLASS_FIELDS = ("callers", "handlers", "own-members")

_DOTTED = "a dotted name such as 'package.module.Class'"

# ---------------------------------------------------------------- the keys
#
# Each TOML key is declared once, on the field of the frozen dataclass it fills (as
# pylint declares an option once): its name, how its value is checked (``kind``, one of
# _Checker.read's), its type and default as the reference shows them, and one line of
# help. The allowed keys of each table, the order an unknown key's message lists them
# in, the validation of each value, the configuration's digest and the reference's key
# tables (docs/gen_config.py) are all read from these declarations.

_DECLARED = "rpcsurface-key"


@dataclass(frozen=True)
class KeySpec:
    """One TOML key of a ``[tool.rpcsurface]`` table."""

    name: str  # as written in TOML, e.g. "name-arg"
    kind: str  # how its value is checked: see _Checker.read
    type: str  # as the reference shows it
    default: str  # as the reference shows it
    help: str  # one line
    required: bool = False
    nonempty: bool = False  # an array that must not be empty
    choices: tuple[str, ...] = ()
    call_keyword: bool = False  # its value names a keyword argument of the call
    field: str = ""  # the dataclass attribute it fills (filled in by keys_of)
    value: object = None  # the default value (filled in by keys_of)


def toml_key(
    name: str,
    kind: str,
    *,
    type: str,  # pylint: disable=redefined-builtin
    help: str,  # pylint: disable=redefined-builtin
    default: object = dataclasses.MISSING,
    shown: str | None = None,
    required: bool = False,
    nonempty: bool = False,
    choices: tuple[str, ...] = (),
    call_keyword: bool = False,
) -> Any:
    """A dataclass field that declares the TOML key *name*: *default* is the field's
    default (none for a positional field), *shown* the reference's text for it when that
    is not simply the value."""
    spec = KeySpec(
        name,
        kind,
        type,
        shown if shown is not None else _shown(default, required),
        help,
        required,
        nonempty,
        choices,
        call_keyword,
    )
    # The field is made here and assigned in a dataclass body, where pylint can't see it.
    # pylint: disable=invalid-field-call
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata={_DECLARED: spec})
    return dataclasses.field(default=default, metadata={_DECLARED: spec})


def keys_of(cls: type[Any]) -> tuple[KeySpec, ...]:
    """The keys declared on dataclass *cls*, in the order of its fields."""
    found = []
    for item in dataclasses.fields(cls):
        spec = item.metadata.get(_DECLARED)
        if spec is not None:
            value = None if item.default is dataclasses.MISSING else item.default
            found.append(dataclasses.replace(spec, field=item.name, value=value))
    return tuple(found)


def _shown(default: object, required: bool) -> str:
    if required:
        return "none; required"
    if default is None or default is dataclasses.MISSING:
        return "none"
    if isinstance(default, tuple):
        return f"`{json.dumps(list(default))}`"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    return f"`{json.dumps(default)}`"


_IDENTIFIER = "str (a Python identifier)"
_KEYWORD = "str (a keyword argument's name)"
_CLASSES = "list of str (fully qualified class names)"
_CALLERS = "list of str (fully qualified names of classes or module-level functions)"


def _flag(name: str, help: str) -> Any:  # pylint: disable=redefined-builtin
    """A ``bool`` key, false unless set."""
    return toml_key(name, "bool", type="bool", default=False, help=help)


def _keyword_key(name: str, help: str, shown: str | None = None) -> Any:  # pylint: disable=redefined-builtin
    """An optional key whose value is the name of a keyword argument of the dispatch call."""
    return toml_key(
        name, "identifier", type=_IDENTIFIER, default=None, call_keyword=True, shown=shown,
        help=help,
    )  # fmt: skip


def _choice_key(name: str, choices: tuple[str, ...], help: str) -> Any:  # pylint: disable=redefined-builtin
    """A key whose value is one of *choices*, the first by default."""
    shown = " or ".join(f'`"{choice}"`' for choice in choices)
    return toml_key(name, "choice", type=shown, default=choices[0], choices=choices, help=help)


def _classes_key(name: str, help: str) -> Any:  # pylint: disable=redefined-builtin
    """An optional list of fully qualified class names."""
    return toml_key(name, "dotted-list", type=_CLASSES, default=(), help=help)


@dataclass(frozen=True)
class DispatchForm:
    """One ``[[tool.rpcsurface.dispatch]]`` entry: a call that sends an RPC by name."""

    method: str = toml_key(
        "method", "identifier", type=_IDENTIFIER, default="",
        shown="none; required unless [`instance-of`](#key-dispatch-instance-of) is set",
        help="the dispatch method: any call `<expr>.<method>(...)` sends an RPC by name",
    )  # fmt: skip
    waits: bool | str = toml_key(
        "waits", "waits", type="`true`, `false` or str (a keyword argument's name)",
        default=False, call_keyword=True,
        help="whether the caller waits for the reply: always, never, or when that keyword is true",
    )  # fmt: skip
    name_arg: int = toml_key(
        "name-arg", "index", type="int (>= 0)", default=0,
        help="the positional index of the argument carrying the RPC name",
    )  # fmt: skip
    name_keyword: str | None = _keyword_key(
        "name-keyword",
        "the keyword argument carrying the RPC name when the positional one is absent",
    )
    key: str = ""  # e.g. "tool.rpcsurface.dispatch[0]"
    drops_none: bool = _flag(
        "drops-none",
        "a None reply is never delivered: a waited call to a handler that returns None hangs",
    )
    shared_reply_queue: bool = _flag(
        "shared-reply-queue",
        "the replies share one queue without request ids",
    )
    args_from: str | None = _keyword_key(
        "args-from",
        "the keyword holding the tuple of the handler's positional arguments",
        shown="none: the positional arguments after the name are forwarded",
    )
    kwargs_from: str | None = _keyword_key(
        "kwargs-from",
        "the keyword holding the dict of the handler's keyword arguments",
        shown="none: no keyword is forwarded",
    )
    unknown_name: str | None = toml_key(
        "unknown-name", "choice", type='`"skipped"` or `"raises"`', choices=UNKNOWN_NAME_VALUES,
        default=None, shown='`"raises"` where the tables\' miss path raises, else `"skipped"`',
        help="what a worker does with a name its handler lacks",
    )  # fmt: skip
    handler_args: str = _choice_key(
        "handler-args", HANDLER_ARGS_VALUES,
        "how the handler is called: with the arguments forwarded, or one dict of the keywords sent",
    )  # fmt: skip
    waits_unless: str | None = toml_key(
        "waits-unless", "identifier", type=_KEYWORD, default=None, call_keyword=True,
        help="instead of waits: the call waits unless that keyword is true",
    )  # fmt: skip
    waits_when_absent: bool = _flag(
        "waits-when-absent",
        "with waits set to a keyword: whether a call without it waits",
    )
    waited_by: tuple[str, ...] = toml_key(
        "waited-by", "dotted-list", type="list of str (fully qualified function names)",
        default=(), shown="none", nonempty=True,
        help="instead of waits: the call waits when its result reaches one of these functions",
    )  # fmt: skip
    key_by: str = _choice_key(
        "key",
        ("name", "type"),
        "what the name argument's value is: the RPC's name (a str or an enum member), "
        "or a request whose class is the key",
    )
    called_as: str = _choice_key(
        "called-as", CALLED_AS_VALUES, "whether a plain call `<method>(...)` is a dispatch too"
    )

    instance_of: str | None = toml_key(
        "instance-of", "dotted", type="str (fully qualified class name)", default=None,
        shown="none; instead of [`method`](#key-dispatch-method)",
        help="any call of an instance of this class (or a subclass) sends: `<instance>(...)`",
    )  # fmt: skip

    @property
    def name(self) -> str:
        """What the surfaces' ``dispatch`` and the messages call this form by: its method,
        or the class whose instances' calls send."""
        return self.method or str(self.instance_of)

    @property
    def call_keywords(self) -> frozenset[str]:
        """The keyword arguments of the call that this configuration describes."""
        named = (getattr(self, field) for field in _CALL_KEYWORD_FIELDS)
        return frozenset(value for value in named if isinstance(value, str))


# The fields whose value names a keyword argument of the dispatch call.
_CALL_KEYWORD_FIELDS = tuple(spec.field for spec in keys_of(DispatchForm) if spec.call_keyword)


def _name_key(among: str) -> Any:
    """The ``name`` key of a table that must be unique *among* its kind."""
    return toml_key(
        "name", "name", type="str", required=True,
        shown=f"none; required, unique among {among}", help="shown in messages",
    )  # fmt: skip


def _callers_key(what: str) -> Any:
    """The ``callers`` key of a table whose callers' code does *what*."""
    return toml_key(
        "callers", "dotted-list", type=_CALLERS, required=True, nonempty=True,
        shown="none; required, not empty",
        help=f"the classes (with their subclasses) and functions whose code {what}",
    )  # fmt: skip


def _handlers_key(unless: str, help: str) -> Any:  # pylint: disable=redefined-builtin
    """The ``handlers`` key of a table where it is required unless *unless* is set."""
    return toml_key(
        "handlers", "dotted-list", type=_CLASSES, default=(), nonempty=True,
        shown=f"none; not empty; required unless {unless} is set", help=help,
    )  # fmt: skip


def _when_key(table: str) -> Any:
    """The ``when`` key of a surface or proxy table: the condition its calls run under."""
    return toml_key(
        "when", "expression", type="str (a Python expression, as the callers' code tests it)",
        default=None, shown="none: every call, wherever it runs",
        help=f"judge only the calls that run under this condition (an `if` test), where "
        f"another {table} table describes the same calls",
    )  # fmt: skip


@dataclass(frozen=True)
class SurfaceSpec:
    """One ``[[tool.rpcsurface.surface]]`` entry: who calls, who answers, who lists."""

    name: str = _name_key("the surfaces")
    callers: tuple[str, ...] = _callers_key("sends")
    handlers: tuple[str, ...] = _handlers_key(
        "[`tables`](#key-surface-tables)", "the classes whose methods answer the names sent"
    )
    base_handlers: tuple[str, ...] = _classes_key(
        "base-handlers",
        "classes whose names every handler answers, left out of the registry",
    )
    registry: str | None = toml_key(
        "registry", "dotted", type="str (fully qualified name of a module-level constant)",
        default=None,
        shown="none (no registry: `rpc-unlisted`, the `rpc-listed-*` messages and "
        "`rpc-registry-invalid` don't apply; `rpc-unanswered`, the reply rules and the "
        "inference messages still do)",
        help="the constant listing the names only the handlers (not the base handlers) answer",
    )  # fmt: skip
    key: str = ""  # e.g. "tool.rpcsurface.surface[0]"
    # Names the receiving loop answers itself before it looks the name up on the handlers.
    answered_before_lookup: tuple[str, ...] = toml_key(
        "answered-before-lookup", "rpc-names", type="list of str (RPC names)", default=(),
        help="names the receiving loop answers itself before it looks them up",
    )  # fmt: skip
    tables: tuple[str, ...] = toml_key(
        "tables", "dotted-list",
        type="list of str (fully qualified names of dict literals: constants or attributes)",
        default=(), nonempty=True, shown="none; not empty",
        help="handler tables: each answers its keys, its values naming the handlers",
    )  # fmt: skip
    dispatch: tuple[str, ...] = toml_key(
        "dispatch", "methods", type="list of str (methods, or instance-of, of the dispatch tables)",
        default=(),
        shown="none: every dispatch method",
        help="the dispatch methods whose calls this surface judges",
    )  # fmt: skip
    when: str | None = _when_key("surface")
    one_of: bool = _flag(
        "one-of",
        "the worker holds one of the handlers, picked at run time in a way the code does "
        "not show: a reply or signature message only where it holds whichever one a call "
        "meets",
    )


@dataclass(frozen=True)
class ProxySpec:
    """One ``[[tool.rpcsurface.proxy]]`` entry: the RPC name is the attribute called on a
    proxy (a Ray actor handle, a worker group) that the callers hold in *receivers*."""

    name: str = _name_key("the proxy tables")
    callers: tuple[str, ...] = _callers_key("calls the proxies")
    receivers: tuple[str, ...] = toml_key(
        "receivers", "receivers", required=True,
        type="list of str (a name or an attribute chain, as written in the callers' code)",
        shown="none; required, not empty",
        help="the expressions in the callers' code that hold proxies",
    )  # fmt: skip
    handlers: tuple[str, ...] = _handlers_key(
        "[`handler-param`](#key-proxy-handler-param)",
        "the classes that may be behind the proxy: each must answer every name called",
    )
    handler_param: str | None = toml_key(
        "handler-param", "identifier", type="str (a parameter of the callers' `__init__`)",
        default=None, shown="none; instead of [`handlers`](#key-proxy-handlers)",
        help="each caller instance's handler is the class its constructor got as this "
        "parameter; group methods are judged where they are called on an instance",
    )  # fmt: skip
    remote: bool = _flag(
        "remote",
        "calls are `<proxy>.<name>.remote(...)` (Ray), not `<proxy>.<name>(...)`",
    )
    own_members: tuple[str, ...] = _classes_key(
        "own-members",
        "classes whose names are the proxy's own attributes, not RPCs",
    )
    exposed_by: str | None = toml_key(
        "exposed-by", "dotted", type="str (fully qualified name of a decorator)", default=None,
        shown="none (every name a handler binds answers)",
        help="only handler methods that carry this decorator answer",
    )  # fmt: skip
    when: str | None = _when_key("proxy")
    key: str = ""  # e.g. "tool.rpcsurface.proxy[0]"


@dataclass(frozen=True)
class Config:
    """A validated ``[tool.rpcsurface]`` table."""

    path: Path  # absolute path of the TOML file
    digest: str  # sha256 hex of a canonical JSON dump of the validated table
    # absolute, os.path.realpath'ed, in the order given
    source_roots: tuple[Path, ...] = toml_key(
        "source-roots", "roots", type="list of str",
        shown='`["."]` (the folder holding the `pyproject.toml`)',
        help="the folders the project's modules live under",
    )  # fmt: skip
    dispatch: tuple[DispatchForm, ...] = toml_key(
        "dispatch", "tables", type="array of tables (`[[tool.rpcsurface.dispatch]]`)",
        shown="none; required, at least one, unless a [`proxy`](#key-proxy) table is present "
        "(a project whose RPCs are all attribute calls on proxies sends none by name)",
        help="the calls that send an RPC by name",
    )  # fmt: skip
    surfaces: tuple[SurfaceSpec, ...] = toml_key(
        "surface", "tables", type="array of tables (`[[tool.rpcsurface.surface]]`)",
        shown="none (no surface: nothing is judged)",
        help="the callers, handlers and registry checked against each other",
    )  # fmt: skip
    # how many helper calls deep broadcasts count
    helper_depth: int = toml_key(
        "helper-depth", "index", type="int (>= 0)", default=_DEFAULT_HELPER_DEPTH,
        help="how many helper calls deep a caller's broadcasts are followed",
    )  # fmt: skip
    # fully qualified names of decorators that keep a handler's signature and reply
    transparent_decorators: tuple[str, ...] = toml_key(
        "transparent-decorators", "dotted-list", type="list of str (fully qualified names)",
        default=DEFAULT_TRANSPARENT_DECORATORS,
        help="decorators that leave a handler's signature and replies as written",
    )  # fmt: skip
    proxies: tuple[ProxySpec, ...] = toml_key(
        "proxy", "tables", type="array of tables (`[[tool.rpcsurface.proxy]]`)", default=(),
        shown="none (no proxy: nothing is judged)",
        help="the proxies whose RPC name is the attribute called",
    )  # fmt: skip

    @property
    def root(self) -> Path:
        """The folder holding the TOML file; relative paths in it start here."""
        return self.path.parent


def _names(cls: type[Any]) -> tuple[str, ...]:
    return tuple(spec.name for spec in keys_of(cls))


# Allowed keys per table, in the order the reference lists them in its tables; the order
# is also the order of the list shown when an unknown key is found.
TOP_KEYS = _names(Config)
DISPATCH_KEYS = _names(DispatchForm)
SURFACE_KEYS = _names(SurfaceSpec)
PROXY_KEYS = _names(ProxySpec)
# The table name of each kind of entry, and the class it fills.
ENTRY_TABLES: tuple[tuple[str, type[Any]], ...] = (
    ("dispatch", DispatchForm),
    ("surface", SurfaceSpec),
    ("proxy", ProxySpec),
)


class ConfigError(Exception):
    """A problem with the configuration, reported as ``file: key: problem`` on one line."""

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        # Passing all three to Exception keeps the error picklable (pickle
        # rebuilds it as ConfigError(*args)), which matters under pylint -j.
        super().__init__(file, key, problem)
        self.file = file
        self.key = key
        self.problem = _one_line(problem)

    def __str__(self) -> str:
        return _one_line(f"{self.file}: {self.key}: {self.problem}")


def key_of_class(spec: SurfaceSpec | ProxySpec, field: str, index: int) -> str:
    """Key path of one class name in a surface, e.g. ``tool.rpcsurface.surface[0].callers[1]``.

    ``field`` is the TOML name: ``callers``, ``handlers``, ``base-handlers`` or ``tables`` (of a
    proxy: ``callers``, ``handlers`` or ``own-members``).
    """
    fields = _PROXY_CLASS_FIELDS if isinstance(spec, ProxySpec) else _CLASS_FIELDS
    if field not in fields:
        raise ValueError(f"field must be one of {', '.join(_CLASS_FIELDS)}, not {field!r}")
    return f"{spec.key}.{field}[{index}]"


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def parse_table(table: object, path: Path) -> Config:
    """Validate an already-parsed ``[tool.rpcsurface]`` table.

    Pure except for checking that source roots exist. ``path`` is the TOML file
    the table came from: errors name it, and relative source roots start at
    its folder.
    """
    file = Path(os.path.abspath(path))
    check = _Checker(file)
    top = check.table(table, _TABLE_KEY, TOP_KEYS)
    source_roots = check.source_roots(top)
    declared = {spec.field: spec for spec in keys_of(Config)}
    helper_depth = check.read(top, declared["helper_depth"], _TABLE_KEY)
    proxies = check.proxies(top)
    dispatch = check.dispatch(top, optional=bool(proxies))
    surfaces = check.surfaces(top)
    check.sent_by_known_methods(surfaces, dispatch)
    transparent = check.read(top, declared["transparent_decorators"], _TABLE_KEY)
    assert isinstance(helper_depth, int)
    assert isinstance(transparent, tuple)
    return Config(
        path=file,
        source_roots=source_roots,
        dispatch=dispatch,
        surfaces=surfaces,
        digest=_digest(
            source_roots, dispatch, surfaces, helper_depth, transparent, proxies=proxies
        ),
        helper_depth=helper_depth,
        transparent_decorators=transparent,
        proxies=proxies,
    )


def existing_table(
    document: dict[str, Any], path: Path
) -> tuple[dict[str, object] | None, tuple[Path, ...]]:
    """The ``[tool.rpcsurface]`` table of a parsed pyproject (None when there is none)
    and its source roots, for ``rpcsurface init`` to add to. The table may lack keys
    (init adds them), but each key it has must have its shape, as :func:`parse_table`
    checks it: the same one line naming the key. Raises ConfigError; a ``tool`` that is
    no table is one too, since no table can be added under it."""
    check = _Checker(Path(os.path.abspath(path)))
    tool = document.get(TABLE[0])
    if tool is not None and not isinstance(tool, dict):
        check.fail(TABLE[0], f"expected a table, got {_describe(tool)}")
    table = None if tool is None else tool.get(TABLE[1])
    if table is None:
        return None, check.source_roots({})
    top = check.table(table, _TABLE_KEY, TOP_KEYS)
    roots = check.source_roots(top)
    for name, cls in ENTRY_TABLES:
        keys = _names(cls)
        key = f"{_TABLE_KEY}.{name}"
        for index, item in enumerate(check.tables(top.get(name, []), key)):
            entry = check.table(item, f"{key}[{index}]", keys)
            fields = {"surface": _CLASS_FIELDS, "proxy": _PROXY_CLASS_FIELDS}.get(name, ())
            for field in fields:
                if field in entry:
                    check.dotted_list(entry[field], f"{key}[{index}].{field}", required=False)
    return top, roots


# A table kind whose entries are told apart by their name.
_Named = TypeVar("_Named", SurfaceSpec, ProxySpec)


class _Checker:
    """Validation steps for one file; each raises ConfigError naming that file."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, key: str, problem: str) -> NoReturn:
        raise ConfigError(self.file, key, problem)

    # -- generic shapes ---------------------------------------------------

    def one_of(self, table: dict[str, object], key: str, first: str, second: str) -> None:
        """Table *key* must set exactly one of the keys *first* and *second*."""
        if first in table and second in table:
            self.fail(f"{key}.{second}", f"expected either {first} or {second}, got both")
        if first not in table and second not in table:
            self.fail(key, f"missing required key '{first}' (or '{second}')")

    def table(self, value: object, key: str, allowed: tuple[str, ...]) -> dict[str, object]:
        """A table whose keys are all in ``allowed``; unknown keys are refused, not ignored,
        because a misspelt optional key would otherwise silently fall back to its default."""
        if not isinstance(value, dict):
            self.fail(key, f"expected a table, got {_describe(value)}")
        for name in value:
            if name not in allowed:
                self.fail(
                    f"{key}.{_key_part(name)}",
                    f"unknown key; allowed keys are: {', '.join(allowed)}",
                )
        return value

    def require(self, table: dict[str, object], name: str, key: str) -> object:
        if name not in table:
            self.fail(key, f"missing required key '{name}'")
        return table[name]

    def array(self, value: object, key: str, *, of: str) -> list[object]:
        if not isinstance(value, list):
            self.fail(key, f"expected an array of {of}, got {_describe(value)}")
        return value

    def tables(self, value: object, key: str) -> list[object]:
        """An array of tables, as written with ``[[...]]``; each item is checked by the caller."""
        return self.array(value, key, of=f"tables ([[{key}]])")

    def identifier(self, value: object, key: str) -> str:
        if not _is_identifier(value):
            self.fail(key, f"expected a Python identifier, got {_describe(value)}")
        assert isinstance(value, str)  # _is_identifier checked it; this tells mypy
        return value

    def dotted(self, value: object, key: str) -> str:
        if not isinstance(value, str) or not _is_dotted(value):
            self.fail(key, f"expected {_DOTTED}, got {_describe(value)}")
        return value

    def dotted_list(self, value: object, key: str, *, required: bool) -> tuple[str, ...]:
        items = self.array(value, key, of="dotted names")
        if required and not items:
            self.fail(key, f"expected a non-empty array of dotted names, got {_describe(items)}")
        names = tuple(self.dotted(item, f"{key}[{index}]") for index, item in enumerate(items))
        self.no_duplicates(names, key)
        return names

    def no_duplicates(self, values: tuple[object, ...], key: str) -> None:
        first_at: dict[object, int] = {}
        for index, value in enumerate(values):
            if value in first_at:
                self.fail(
                    f"{key}[{index}]",
                    f"duplicate entry {_describe(value)}, already listed at "
                    f"{key}[{first_at[value]}]",
                )
            first_at[value] = index

    # -- source-roots -----------------------------------------------------

    def source_roots(self, top: dict[str, object]) -> tuple[Path, ...]:
        folder = self.file.parent
        if "source-roots" not in top:
            return (Path(os.path.realpath(folder)),)
        key = f"{_TABLE_KEY}.source-roots"
        items = self.array(top["source-roots"], key, of="directory paths")
        if not items:
            # An empty list would analyse nothing; saying so beats a silent no-op.
            self.fail(key, "expected a non-empty array of directory paths, got an empty array")
        roots = tuple(
            self.source_root(item, folder, f"{key}[{index}]") for index, item in enumerate(items)
        )
        # Compare resolved paths: "src" and "./src" are the same root.
        self.no_duplicates(roots, key)
        return roots

    def source_root(self, value: object, folder: Path, key: str) -> Path:
        if not isinstance(value, str) or not value:
            self.fail(key, f"expected a non-empty directory path, got {_describe(value)}")
        resolved = Path(os.path.realpath(folder / value))
        if not resolved.is_dir():
            self.fail(
                key,
                f"expected an existing directory, got {_describe(value)} (resolved to {resolved})",
            )
        return resolved

    # -- dispatch ---------------------------------------------------------

    def dispatch(self, top: dict[str, object], *, optional: bool) -> tuple[DispatchForm, ...]:
        """The dispatch forms; required unless a proxy table is present (a project whose
        RPCs are all attribute calls on proxies sends none by name)."""
        key = f"{_TABLE_KEY}.dispatch"
        if "dispatch" not in top and optional:
            return ()
        if "dispatch" not in top:
            self.fail(_TABLE_KEY, f"missing required key 'dispatch' (write [[{key}]] tables)")
        items = self.tables(top["dispatch"], key)
        if not items:
            self.fail(key, f"expected at least one [[{key}]] table, got an empty array")
        forms = tuple(
            self.dispatch_form(item, f"{key}[{index}]") for index, item in enumerate(items)
        )
        self.unique(tuple(f for f in forms if f.method), "method", "method")
        self.unique(tuple(f for f in forms if f.instance_of), "instance_of", "instance-of")
        return forms

    def dispatch_form(self, value: object, key: str) -> DispatchForm:
        """One dispatch table: each key read as declared, then the rules between keys."""
        table = self.table(value, key, DISPATCH_KEYS)
        # Which calls send, a method's or an instance's: both would be a guess.
        self.one_of(table, key, "method", "instance-of")
        read = self.read_all(table, DispatchForm, key)
        name_keyword = read["name_keyword"]
        if isinstance(read["waits"], str) and read["waits"] == name_keyword:
            # One keyword cannot carry both the RPC name and the wait flag.
            self.fail(
                f"{key}.waits",
                f"expected a keyword other than name-keyword, got {_describe(read['waits'])} "
                "for both",
            )
        if "waits-unless" in table:
            if "waits" in table:
                # Two keys saying whether the call waits: which one counts would be a guess.
                self.fail(f"{key}.waits-unless", "expected either waits or waits-unless, got both")
            read["waits"] = True
            if read["waits_unless"] == name_keyword:
                self.fail(
                    f"{key}.waits-unless",
                    "expected a keyword other than name-keyword, got "
                    f"{_describe(read['waits_unless'])} for both",
                )
        if "waits-when-absent" in table and not isinstance(read["waits"], str):
            self.fail(
                f"{key}.waits-when-absent",
                "expected only with waits set to a keyword name, which may be absent",
            )
        if "waited-by" in table and ("waits" in table or "waits-unless" in table):
            self.fail(
                f"{key}.waited-by", "expected waited-by alone, got it with waits or waits-unless"
            )
        taken = {
            "waits": read["waits"] if isinstance(read["waits"], str) else None,
            "name-keyword": name_keyword,
            "waits-unless": read["waits_unless"],
        }
        for name, field in (("args-from", "args_from"), ("kwargs-from", "kwargs_from")):
            carrier = read[field]
            for other, used in taken.items():
                if carrier is not None and used == carrier:
                    # One keyword cannot carry the handler's arguments and something else.
                    self.fail(
                        f"{key}.{name}",
                        f"expected a keyword other than {other}, got {_describe(carrier)} for both",
                    )
            taken[name] = carrier
        # One dict of the call's own keywords: neither the request itself nor a carrier's.
        for other in ("args-from", "kwargs-from", 'key = "type"'):
            if read["handler_args"] == "payload" and (
                other in table or (other.startswith("key") and read["key_by"] == "type")
            ):
                self.fail(f"{key}.handler-args", f'expected "payload" without {other}')
        return DispatchForm(key=key, **read)

    # -- each key, as declared ----------------------------------------------

    def read_all(self, table: dict[str, object], cls: type[Any], key: str) -> dict[str, Any]:
        """Every key declared on *cls*, read from *table* (defaults for those absent), by
        the dataclass field each fills."""
        return {spec.field: self.read(table, spec, key) for spec in keys_of(cls)}

    def read(self, table: dict[str, object], spec: KeySpec, key: str) -> object:
        """The value of the key *spec* declares in *table* (whose key path is *key*),
        checked as its ``kind`` says; its default when it is absent."""
        if spec.name not in table:
            if spec.required:
                self.fail(key, f"missing required key '{spec.name}'")
            return spec.value
        value, at = table[spec.name], f"{key}.{spec.name}"
        if spec.kind == "dotted-list":
            return self.dotted_list(value, at, required=spec.nonempty)
        if spec.kind == "choice":
            return self.choice(value, at, spec.choices)
        readers: dict[str, Callable[[object, str], object]] = {
            "identifier": self.identifier,
            "bool": self.boolean,
            "index": self.index,
            "waits": self.waits,
            "dotted": self.dotted,
            "rpc-names": self.rpc_names,
            "methods": self.methods,
            "receivers": self.receivers,
            "expression": lambda value, at: checked_expression(value, at, self.fail),
            "name": self.surface_name,
        }
        if spec.kind not in readers:
            raise AssertionError(f"{spec.name}: no reader for kind {spec.kind!r}")
        return readers[spec.kind](value, at)

    def choice(self, value: object, key: str, choices: tuple[str, ...]) -> str:
        if value not in choices:
            expected = " or ".join(repr(choice) for choice in choices)
            self.fail(key, f"expected {expected}, got {_describe(value)}")
        assert isinstance(value, str)
        return value

    def boolean(self, value: object, key: str) -> bool:
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {_describe(value)}")
        return value

    def waits(self, value: object, key: str) -> bool | str:
        if isinstance(value, bool):
            return value
        if not _is_identifier(value):
            self.fail(key, f"expected true, false or a keyword name, got {_describe(value)}")
        assert isinstance(value, str)
        return value

    def index(self, value: object, key: str) -> int:
        # bool is refused first: True and False are ints to Python.
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(key, f"expected an integer >= 0, got {_describe(value)}")
        return value

    # -- surface ----------------------------------------------------------

    def surfaces(self, top: dict[str, object]) -> tuple[SurfaceSpec, ...]:
        return self.named_tables(top, "surface", self.surface)

    def surface(self, value: object, key: str) -> SurfaceSpec:
        table = self.table(value, key, SURFACE_KEYS)
        if "handlers" not in table and "tables" not in table:
            self.fail(key, "missing required key 'handlers' (or 'tables')")
        return SurfaceSpec(key=key, **self.read_all(table, SurfaceSpec, key))

    # -- proxy ------------------------------------------------------------

    def proxies(self, top: dict[str, object]) -> tuple[ProxySpec, ...]:
        return self.named_tables(top, "proxy", self.proxy)

    def proxy(self, value: object, key: str) -> ProxySpec:
        table = self.table(value, key, PROXY_KEYS)
        # Two answers to "which class is behind the proxy": which one counts would be a guess.
        self.one_of(table, key, "handlers", "handler-param")
        return ProxySpec(key=key, **self.read_all(table, ProxySpec, key))

    def receivers(self, value: object, key: str) -> tuple[str, ...]:
        """Receiver expressions: a name or a chain of attributes (``self._actors``)."""
        return self.names(
            value,
            key,
            of="expressions such as 'self._actors'",
            nonempty="expressions",
            valid=lambda item: (
                isinstance(item, str) and all(_is_identifier(part) for part in item.split("."))
            ),
            expected="a name or attribute chain such as 'self._actors'",
        )

    def names(  # pylint: disable=too-many-arguments
        self,
        value: object,
        key: str,
        *,
        of: str,
        valid: Callable[[object], bool],
        expected: str,
        nonempty: str = "",
    ) -> tuple[str, ...]:
        """An array of *of*, each item *valid* (else: expected *expected*), with no
        duplicates; with *nonempty*, not empty (else: a non-empty array of *nonempty*)."""
        items = self.array(value, key, of=of)
        if nonempty and not items:
            self.fail(key, f"expected a non-empty array of {nonempty}, got an empty array")
        for index, item in enumerate(items):
            if not valid(item):
                self.fail(f"{key}[{index}]", f"expected {expected}, got {_describe(item)}")
        names = tuple(str(item) for item in items)
        self.no_duplicates(names, key)
        return names

    def methods(self, value: object, key: str) -> tuple[str, ...]:
        """Dispatch methods, by name: a non-empty array of identifiers, no duplicates
        (which dispatch tables they name is checked once every table is read)."""
        return self.names(
            value,
            key,
            of="method names",
            nonempty="method names",
            valid=lambda item: _is_identifier(item) or (isinstance(item, str) and _is_dotted(item)),
            expected="a method name or a dotted class name",
        )

    def sent_by_known_methods(
        self, surfaces: tuple[SurfaceSpec, ...], forms: tuple[DispatchForm, ...]
    ) -> None:
        """Refuse a surface's dispatch method that no dispatch table declares: its calls
        are never read, so the surface would judge nothing it names."""
        known = {form.name for form in forms}
        for surface in surfaces:
            for index, method in enumerate(surface.dispatch):
                if method not in known:
                    declared = ", ".join(repr(m) for m in sorted(known)) or "none"
                    self.fail(
                        f"{surface.key}.dispatch[{index}]",
                        f"expected the method or instance-of of a [[{_TABLE_KEY}.dispatch]] table "
                        f"({declared}), got {_describe(method)}",
                    )

    def rpc_names(self, value: object, key: str) -> tuple[str, ...]:
        """RPC names: any one-line str, since a loop that answers a name itself compares
        it with a literal and never needs it to be an attribute name."""
        return self.names(
            value,
            key,
            of="RPC names (strings)",
            valid=lambda item: isinstance(item, str) and bool(item) and item.isprintable(),
            expected="a non-empty one-line string",
        )

    def surface_name(self, value: object, key: str) -> str:
        # The name is shown in pylint messages, so it must be visible and one line.
        if not isinstance(value, str) or not value.strip() or not value.isprintable():
            self.fail(key, f"expected a non-empty one-line string, got {_describe(value)}")
        return value

    def named_tables(
        self, top: dict[str, object], table: str, read: Callable[[object, str], _Named]
    ) -> tuple[_Named, ...]:
        """The array of tables *table*, each read by *read*, their names unique."""
        key = f"{_TABLE_KEY}.{table}"
        items = self.tables(top.get(table, []), key)
        specs = tuple(read(item, f"{key}[{index}]") for index, item in enumerate(items))
        self.unique(specs, "name", f"{table} name")
        return specs

    def unique(
        self,
        entries: tuple[DispatchForm | SurfaceSpec | ProxySpec, ...],
        attr: str,
        what: str,
    ) -> None:
        """Refuse two entries with the same ``attr``: which one applies would be a guess."""
        first_key: dict[object, str] = {}
        for entry in entries:
            value = getattr(entry, attr)
            if value in first_key:
                self.fail(
                    f"{entry.key}.{attr}",
                    f"duplicate {what} {_describe(value)}, already used by {first_key[value]}",
                )
            first_key[value] = entry.key


def _digest(
    source_roots: tuple[Path, ...],
    dispatch: tuple[DispatchForm, ...],
    surfaces: tuple[SurfaceSpec, ...],
    helper_depth: int = _DEFAULT_HELPER_DEPTH,
    transparent_decorators: tuple[str, ...] = DEFAULT_TRANSPARENT_DECORATORS,
    *,
    proxies: tuple[ProxySpec, ...] = (),
) -> str:
    """Hash the validated table, with defaults filled in and roots resolved.

    Built from the validated values, not the raw TOML, so that comments,
    formatting and key order do not change it, while anything that changes what
    the checker does (including where a relative source root resolves to) does.
    """
    canonical: dict[str, Any] = {
        "source-roots": [str(root) for root in source_roots],
        "helper-depth": helper_depth,
        "transparent-decorators": list(transparent_decorators),
        "dispatch": [_canonical(form) for form in dispatch],
        "surface": [_canonical(spec) for spec in surfaces],
    }
    if proxies:  # absent when there are none: the digests of earlier tables stay as they were
        canonical["proxy"] = [_canonical(spec) for spec in proxies]
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical(entry: DispatchForm | SurfaceSpec | ProxySpec) -> dict[str, Any]:
    """An entry's declared keys and their values, as JSON holds them."""
    return {
        spec.name: list(value) if isinstance(value := getattr(entry, spec.field), tuple) else value
        for spec in keys_of(type(entry))
    }

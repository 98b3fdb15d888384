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

import datetime
import hashlib
import json
import keyword
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

TABLE = ("tool", "rpcsurface")

_TABLE_KEY = ".".join(TABLE)

# Allowed keys per table, in the order the documentation lists them; the order
# is also the order of the list shown when an unknown key is found.
TOP_KEYS = (
    "source-roots",
    "dispatch",
    "surface",
    "helper-depth",
    "transparent-decorators",
    "proxy",
)
DISPATCH_KEYS = (
    "method",
    "waits",
    "name-arg",
    "name-keyword",
    "drops-none",
    "shared-reply-queue",
    "args-from",
    "kwargs-from",
    "unknown-name",
    "waits-unless",
    "waits-when-absent",
    "waited-by",
    "called-as",
)
# What a worker does with a name its handler lacks: skips it (no reply), or raises and
# sends the failure back.
UNKNOWN_NAME_VALUES = ("skipped", "raises")
# How the dispatch is called: ``<expr>.method(...)`` only, or also as a plain ``method(...)``.
CALLED_AS_VALUES = ("method", "function")
_DEFAULT_HELPER_DEPTH = 5
# Decorators that keep a handler's signature and reply: the common ones of engine code.
DEFAULT_TRANSPARENT_DECORATORS = (
    "torch.inference_mode",
    "torch.no_grad",
    "torch.enable_grad",
    "functools.cache",
    "functools.lru_cache",
)
SURFACE_KEYS = (
    "name",
    "callers",
    "handlers",
    "base-handlers",
    "registry",
    "answered-before-lookup",
)
_CLASS_FIELDS = ("callers", "handlers", "base-handlers")
PROXY_KEYS = (
    "name",
    "callers",
    "receivers",
    "handlers",
    "remote",
    "own-members",
    "exposed-by",
)
_PROXY_CLASS_FIELDS = ("callers", "handlers", "own-members")

_DOTTED = "a dotted name such as 'package.module.Class'"
# TOML bare keys; any other key is shown quoted so the path stays unambiguous.
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# Values longer than this are shortened in messages so one bad value cannot
# flood the terminal.
_MAX_SHOWN = 80


@dataclass(frozen=True)
class DispatchForm:
    """One ``[[tool.rpcsurface.dispatch]]`` entry: a call that sends an RPC by name."""

    method: str
    waits: bool | str  # True / False / the keyword whose value says whether it waits
    name_arg: int = 0
    name_keyword: str | None = None
    key: str = ""  # e.g. "tool.rpcsurface.dispatch[0]"
    drops_none: bool = False  # a None reply is never delivered
    shared_reply_queue: bool = False  # replies share one FIFO without request ids
    args_from: str | None = None  # keyword holding the handler's positional args (a tuple)
    kwargs_from: str | None = None  # keyword holding the handler's keyword args (a dict)
    unknown_name: str = "skipped"  # what the worker does with a name it lacks
    waits_unless: str | None = None  # the keyword whose true value means not waited
    waits_when_absent: bool = False  # what a call without the waits keyword means
    waited_by: tuple[str, ...] = ()  # functions whose argument is waited on, e.g. ray.get
    called_as: str = "method"  # "method": <expr>.method(...); "function": method(...) too


@dataclass(frozen=True)
class SurfaceSpec:
    """One ``[[tool.rpcsurface.surface]]`` entry: who calls, who answers, who lists."""

    name: str
    callers: tuple[str, ...]
    handlers: tuple[str, ...]
    base_handlers: tuple[str, ...] = ()
    registry: str | None = None
    key: str = ""  # e.g. "tool.rpcsurface.surface[0]"
    # Names the receiving loop answers itself before it looks the name up on the handlers.
    answered_before_lookup: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProxySpec:
    """One ``[[tool.rpcsurface.proxy]]`` entry: the RPC name is the attribute called on a
    proxy (a Ray actor handle, a worker group) that the callers hold in *receivers*."""

    name: str
    callers: tuple[str, ...]
    receivers: tuple[str, ...]  # expressions as written, e.g. "self._actor_handlers"
    handlers: tuple[str, ...]  # alternatives: each must answer every name called
    remote: bool = False  # calls are <proxy>.<name>.remote(...)
    own_members: tuple[str, ...] = ()  # classes whose names are the proxy's own
    exposed_by: str | None = None  # only methods carrying this decorator answer
    key: str = ""  # e.g. "tool.rpcsurface.proxy[0]"


@dataclass(frozen=True)
class Config:
    """A validated ``[tool.rpcsurface]`` table."""

    path: Path  # absolute path of the TOML file
    source_roots: tuple[Path, ...]  # absolute, os.path.realpath'ed, in the order given
    dispatch: tuple[DispatchForm, ...]
    surfaces: tuple[SurfaceSpec, ...]
    digest: str  # sha256 hex of a canonical JSON dump of the validated table
    helper_depth: int = _DEFAULT_HELPER_DEPTH  # how many helper calls deep broadcasts count
    # fully qualified names of decorators that keep a handler's signature and reply
    transparent_decorators: tuple[str, ...] = DEFAULT_TRANSPARENT_DECORATORS
    proxies: tuple[ProxySpec, ...] = ()

    @property
    def root(self) -> Path:
        """The folder holding the TOML file; relative paths in it start here."""
        return self.path.parent


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

    ``field`` is the TOML name: ``callers``, ``handlers`` or ``base-handlers`` (of a
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
    helper_depth = check.index(
        top.get("helper-depth", _DEFAULT_HELPER_DEPTH), f"{_TABLE_KEY}.helper-depth"
    )
    proxies = check.proxies(top)
    dispatch = check.dispatch(top, optional=bool(proxies))
    surfaces = check.surfaces(top)
    transparent: tuple[str, ...] = DEFAULT_TRANSPARENT_DECORATORS
    if "transparent-decorators" in top:
        transparent = check.dotted_list(
            top["transparent-decorators"],
            f"{_TABLE_KEY}.transparent-decorators",
            required=False,
        )
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
    for name, keys in (
        ("dispatch", DISPATCH_KEYS),
        ("surface", SURFACE_KEYS),
        ("proxy", PROXY_KEYS),
    ):
        key = f"{_TABLE_KEY}.{name}"
        for index, item in enumerate(check.tables(top.get(name, []), key)):
            entry = check.table(item, f"{key}[{index}]", keys)
            fields = {"surface": _CLASS_FIELDS, "proxy": _PROXY_CLASS_FIELDS}.get(name, ())
            for field in fields:
                if field in entry:
                    check.dotted_list(entry[field], f"{key}[{index}].{field}", required=False)
    return top, roots


class _Checker:
    """Validation steps for one file; each raises ConfigError naming that file."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, key: str, problem: str) -> NoReturn:
        raise ConfigError(self.file, key, problem)

    # -- generic shapes ---------------------------------------------------

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
        self.unique(forms, "method", "method")
        return forms

    def dispatch_form(self, value: object, key: str) -> DispatchForm:
        table = self.table(value, key, DISPATCH_KEYS)
        method = self.identifier(self.require(table, "method", key), f"{key}.method")
        waits = self.waits(table.get("waits", False), f"{key}.waits")
        name_arg = self.index(table.get("name-arg", 0), f"{key}.name-arg")
        name_keyword = None
        if "name-keyword" in table:
            name_keyword = self.identifier(table["name-keyword"], f"{key}.name-keyword")
        if isinstance(waits, str) and waits == name_keyword:
            # One keyword cannot carry both the RPC name and the wait flag.
            self.fail(
                f"{key}.waits",
                f"expected a keyword other than name-keyword, got {_describe(waits)} for both",
            )
        waits_unless = None
        if "waits-unless" in table:
            if "waits" in table:
                # Two keys saying whether the call waits: which one counts would be a guess.
                self.fail(f"{key}.waits-unless", "expected either waits or waits-unless, got both")
            waits_unless = self.identifier(table["waits-unless"], f"{key}.waits-unless")
            waits = True
            if waits_unless == name_keyword:
                self.fail(
                    f"{key}.waits-unless",
                    f"expected a keyword other than name-keyword, got {_describe(waits_unless)} "
                    "for both",
                )
        waits_when_absent = self.boolean(
            table.get("waits-when-absent", False), f"{key}.waits-when-absent"
        )
        if "waits-when-absent" in table and not isinstance(waits, str):
            self.fail(
                f"{key}.waits-when-absent",
                "expected only with waits set to a keyword name, which may be absent",
            )
        waited_by: tuple[str, ...] = ()
        if "waited-by" in table:
            if "waits" in table or waits_unless is not None:
                self.fail(
                    f"{key}.waited-by",
                    "expected waited-by alone, got it with waits or waits-unless",
                )
            waited_by = self.dotted_list(table["waited-by"], f"{key}.waited-by", required=True)
        called_as = table.get("called-as", "method")
        if called_as not in CALLED_AS_VALUES:
            self.fail(
                f"{key}.called-as", f"expected 'method' or 'function', got {_describe(called_as)}"
            )
        assert isinstance(called_as, str)
        drops_none = self.boolean(table.get("drops-none", False), f"{key}.drops-none")
        shared = self.boolean(table.get("shared-reply-queue", False), f"{key}.shared-reply-queue")
        taken = {
            "waits": waits if isinstance(waits, str) else None,
            "name-keyword": name_keyword,
            "waits-unless": waits_unless,
        }
        carriers: dict[str, str | None] = {}
        for name in ("args-from", "kwargs-from"):
            carrier = None
            if name in table:
                carrier = self.identifier(table[name], f"{key}.{name}")
                for other, used in taken.items():
                    if used is not None and used == carrier:
                        # One keyword cannot carry the handler's arguments and something else.
                        self.fail(
                            f"{key}.{name}",
                            f"expected a keyword other than {other}, got {_describe(carrier)} "
                            "for both",
                        )
                taken[name] = carrier
            carriers[name] = carrier
        unknown_name = table.get("unknown-name", "skipped")
        if unknown_name not in UNKNOWN_NAME_VALUES:
            self.fail(
                f"{key}.unknown-name",
                f"expected 'skipped' or 'raises', got {_describe(unknown_name)}",
            )
        assert isinstance(unknown_name, str)
        return DispatchForm(
            method,
            waits,
            name_arg,
            name_keyword,
            key,
            drops_none=drops_none,
            shared_reply_queue=shared,
            args_from=carriers["args-from"],
            kwargs_from=carriers["kwargs-from"],
            unknown_name=unknown_name,
            waits_unless=waits_unless,
            waits_when_absent=waits_when_absent,
            waited_by=waited_by,
            called_as=called_as,
        )

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
        key = f"{_TABLE_KEY}.surface"
        items = self.tables(top.get("surface", []), key)
        specs = tuple(self.surface(item, f"{key}[{index}]") for index, item in enumerate(items))
        self.unique(specs, "name", "surface name")
        return specs

    def surface(self, value: object, key: str) -> SurfaceSpec:
        table = self.table(value, key, SURFACE_KEYS)
        name = self.surface_name(self.require(table, "name", key), f"{key}.name")
        callers = self.dotted_list(
            self.require(table, "callers", key), f"{key}.callers", required=True
        )
        handlers = self.dotted_list(
            self.require(table, "handlers", key), f"{key}.handlers", required=True
        )
        base_handlers = self.dotted_list(
            table.get("base-handlers", []), f"{key}.base-handlers", required=False
        )
        registry = None
        if "registry" in table:
            registry = self.dotted(table["registry"], f"{key}.registry")
        answered = self.rpc_names(
            table.get("answered-before-lookup", []), f"{key}.answered-before-lookup"
        )
        return SurfaceSpec(name, callers, handlers, base_handlers, registry, key, answered)

    # -- proxy ------------------------------------------------------------

    def proxies(self, top: dict[str, object]) -> tuple[ProxySpec, ...]:
        key = f"{_TABLE_KEY}.proxy"
        items = self.tables(top.get("proxy", []), key)
        specs = tuple(self.proxy(item, f"{key}[{index}]") for index, item in enumerate(items))
        self.unique(specs, "name", "proxy name")
        return specs

    def proxy(self, value: object, key: str) -> ProxySpec:
        table = self.table(value, key, PROXY_KEYS)
        name = self.surface_name(self.require(table, "name", key), f"{key}.name")
        callers = self.dotted_list(
            self.require(table, "callers", key), f"{key}.callers", required=True
        )
        receivers = self.receivers(self.require(table, "receivers", key), f"{key}.receivers")
        handlers = self.dotted_list(
            self.require(table, "handlers", key), f"{key}.handlers", required=True
        )
        remote = self.boolean(table.get("remote", False), f"{key}.remote")
        own_members = self.dotted_list(
            table.get("own-members", []), f"{key}.own-members", required=False
        )
        exposed_by = None
        if "exposed-by" in table:
            exposed_by = self.dotted(table["exposed-by"], f"{key}.exposed-by")
        return ProxySpec(name, callers, receivers, handlers, remote, own_members, exposed_by, key)

    def receivers(self, value: object, key: str) -> tuple[str, ...]:
        """Receiver expressions: a name or a chain of attributes (``self._actors``)."""
        items = self.array(value, key, of="expressions such as 'self._actors'")
        if not items:
            self.fail(key, "expected a non-empty array of expressions, got an empty array")
        for index, item in enumerate(items):
            parts = item.split(".") if isinstance(item, str) else []
            if not parts or not all(_is_identifier(part) for part in parts):
                self.fail(
                    f"{key}[{index}]",
                    "expected a name or attribute chain such as 'self._actors', got "
                    f"{_describe(item)}",
                )
        names = tuple(str(item) for item in items)
        self.no_duplicates(names, key)
        return names

    def rpc_names(self, value: object, key: str) -> tuple[str, ...]:
        """RPC names: any one-line str, since a loop that answers a name itself compares
        it with a literal and never needs it to be an attribute name."""
        items = self.array(value, key, of="RPC names (strings)")
        for index, item in enumerate(items):
            if not isinstance(item, str) or not item or not item.isprintable():
                self.fail(
                    f"{key}[{index}]",
                    f"expected a non-empty one-line string, got {_describe(item)}",
                )
        names = tuple(str(item) for item in items)
        self.no_duplicates(names, key)
        return names

    def surface_name(self, value: object, key: str) -> str:
        # The name is shown in pylint messages, so it must be visible and one line.
        if not isinstance(value, str) or not value.strip() or not value.isprintable():
            self.fail(key, f"expected a non-empty one-line string, got {_describe(value)}")
        return value

    def unique(
        self,
        entries: tuple[DispatchForm | SurfaceSpec, ...] | tuple[ProxySpec, ...],
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


def _is_identifier(value: object) -> bool:
    """A name Python accepts after a dot or as a keyword argument (so not ``class``)."""
    return isinstance(value, str) and value.isidentifier() and not keyword.iskeyword(value)


def _is_dotted(value: str) -> bool:
    parts = value.split(".")
    return len(parts) >= 2 and all(_is_identifier(part) for part in parts)


def _key_part(name: object) -> str:
    """Show a key as TOML would need it written, so odd keys stay unambiguous."""
    if isinstance(name, str) and _BARE_KEY.fullmatch(name):
        return name
    # A JSON string is a valid TOML basic string.
    return json.dumps(name if isinstance(name, str) else repr(name), ensure_ascii=False)


def _describe(value: object) -> str:  # pylint: disable=too-many-return-statements
    """Describe a value in TOML terms for the 'got ...' half of a message."""
    if isinstance(value, str):
        shown = repr(value)
        return shown if len(shown) <= _MAX_SHOWN else repr(value[: _MAX_SHOWN - 10]) + "..."
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"float {value}"
    if isinstance(value, list):
        return "an empty array" if not value else "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date subclass
        return f"date/time {value.isoformat()}"
    return f"a value of type {type(value).__name__}"


def _one_line(text: str) -> str:
    """Collapse line breaks (of any kind) so an error stays a single line."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


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
        "dispatch": [
            {
                "method": form.method,
                "waits": form.waits,
                "name-arg": form.name_arg,
                "name-keyword": form.name_keyword,
                "drops-none": form.drops_none,
                "shared-reply-queue": form.shared_reply_queue,
                "args-from": form.args_from,
                "kwargs-from": form.kwargs_from,
                "unknown-name": form.unknown_name,
                "waits-unless": form.waits_unless,
                "waits-when-absent": form.waits_when_absent,
                "waited-by": list(form.waited_by),
                "called-as": form.called_as,
            }
            for form in dispatch
        ],
        "surface": [
            {
                "name": spec.name,
                "callers": list(spec.callers),
                "handlers": list(spec.handlers),
                "base-handlers": list(spec.base_handlers),
                "registry": spec.registry,
                "answered-before-lookup": list(spec.answered_before_lookup),
            }
            for spec in surfaces
        ],
    }
    if proxies:  # absent when there are none: the digests of earlier tables stay as they were
        canonical["proxy"] = [
            {
                "name": spec.name,
                "callers": list(spec.callers),
                "receivers": list(spec.receivers),
                "handlers": list(spec.handlers),
                "remote": spec.remote,
                "own-members": list(spec.own_members),
                "exposed-by": spec.exposed_by,
            }
            for spec in proxies
        ]
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

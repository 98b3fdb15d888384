"""The store's one codec: facts and findings to JSON-ready data and back.

Values are the model's frozen dataclasses and plain data (str, int, bool, None, tuples,
frozensets, dicts). Decoding builds nothing else: a value the codec never writes (an
unknown type, nesting deeper than :data:`MAX_DEPTH`, an int beyond 64 bits, a string with
a lone surrogate no file name could give) raises one of :data:`UNREADABLE`, which the
store treats as a miss for that value alone. This module imports neither astroid nor
pylint: the warm path decodes the findings with it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from pylint_rpcsurface import model

__all__ = ["UNREADABLE", "Check", "checker", "decode", "encode", "listed"]

# The types a stored value may hold: nothing else is ever built from a store file.
_FACT_TYPES: tuple[type[Any], ...] = (
    model.Location,
    model.Broadcast,
    model.Sent,
    model.HelperStep,
    model.Answers,
    model.Returns,
    model.Signature,
    model.HandlerMethod,
    model.RegistryElement,
    model.Registry,
    model.Finding,
    model.ProxyCall,
    model.TableEntry,
    model.Table,
)
# By name (reading), each with its fields' names, taken once (dataclasses.fields per
# value was most of what encoding cost).
_TYPES: Mapping[str, tuple[type[Any], tuple[str, ...]]] = MappingProxyType(
    {cls.__name__: (cls, tuple(f.name for f in dataclasses.fields(cls))) for cls in _FACT_TYPES}
)
# By type (writing): its name and its fields' names.
_WRITTEN: Mapping[type[Any], tuple[str, tuple[str, ...]]] = MappingProxyType(
    {cls: (name, names) for name, (cls, names) in _TYPES.items()}
)
# What decoding a stored value may raise (decode's errors, and those of building a
# dataclass from stored fields or hashing what a frozenset holds).
UNREADABLE = (ValueError, TypeError, KeyError, RecursionError, MemoryError)
MAX_DEPTH = 64  # the deepest a fact nests is about 8
_INT_BOUND = 2**63


def encode(value: Any) -> Any:
    """*value* as JSON-ready data; raises TypeError for a value that is not a fact."""
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return value
    written = _WRITTEN.get(type(value))
    if written is not None:
        name, names = written
        return {"type": name, "fields": [encode(getattr(value, field)) for field in names]}
    if isinstance(value, (tuple, list)):
        return [encode(item) for item in value]
    if isinstance(value, frozenset):
        return {"frozenset": sorted(encode(item) for item in value)}
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"not a fact: {type(value).__name__}")


def decode(raw: Any, depth: int = 0) -> Any:
    """The value *raw* encodes; raises one of :data:`UNREADABLE` if it is not exactly what
    :func:`encode` writes."""
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    # The JSON types by exact type first (a run decodes tens of thousands of values); a
    # subclass (a bool is an int) goes the longer way below.
    kind = type(raw)
    if kind is str:
        # Printable: lone surrogates only as a file name's undecodable bytes
        # (surrogateescape), never those a forged "\ud800" escape gives, which would
        # raise far from here, when a message is printed. ASCII holds none.
        if not raw.isascii():
            raw.encode("utf-8", errors="surrogateescape")  # UnicodeEncodeError: ValueError
        return raw
    if kind is list:
        # A list built first: tuple() of a generator costs a third more.
        return tuple([decode(item, depth + 1) for item in raw])  # pylint: disable=consider-using-generator
    if raw is None or isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        raw.encode("utf-8", errors="surrogateescape")
        return raw
    if isinstance(raw, int):
        if -_INT_BOUND <= raw < _INT_BOUND:
            return raw
        raise ValueError("an int the store never writes")
    if isinstance(raw, list):
        return tuple(decode(item, depth + 1) for item in raw)
    if isinstance(raw, dict) and len(raw) <= 2:
        if "fields" in raw and "type" in raw:
            cls, names = _TYPES[raw["type"]]
            values = listed(raw["fields"])
            if len(values) != len(names):
                raise ValueError(f"the fields of {cls.__name__} differ")
            # By position (faster than by name): the fields' order is __init__'s for these
            # types; one that is not an __init__ positional makes it raise (a miss).
            fact = cls(*[decode(v, depth + 1) for v in values])
            for name, check in _FIELD_CHECKS[cls]:
                if not check(getattr(fact, name)):
                    raise ValueError(f"a field of {cls.__name__} of another type")
            return fact
        if "frozenset" in raw and len(raw) == 1:
            return frozenset([decode(item, depth + 1) for item in listed(raw["frozenset"])])
        if "dict" in raw and len(raw) == 1:
            pairs = [decode(pair, depth + 1) for pair in listed(raw["dict"])]
            if not all(isinstance(pair, tuple) and len(pair) == 2 for pair in pairs):
                raise ValueError("a dict of pairs")
            return dict(pairs)
    raise ValueError("a value the store never writes")


Check = Callable[[Any], bool]


def checker(expected: Any) -> Check:
    """A test of whether a value is of the type *expected*, as the facts' annotations
    write types: ``str``, ``int``, ``bool``, ``None``, a fact type, ``X | Y``,
    ``tuple[X, ...]``, ``tuple[X, Y]``, ``frozenset[X]``; ``Any`` takes anything. (An int
    is not a bool, nor a bool an int: JSON tells them apart.) Built once per type, as
    it runs for every field of every fact a run reads from the store."""
    if expected is Any:
        return _anything
    if expected is None or expected is types.NoneType:
        return _is_none
    origin = typing.get_origin(expected)
    arguments = typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        if all(isinstance(option, type) and option not in (int, bool) for option in arguments):
            plain = tuple(arguments)  # X | None, X | Y of plain types: one isinstance
            return lambda value: isinstance(value, plain)
        options = tuple(checker(option) for option in arguments)
        return lambda value: any(check(value) for check in options)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        item = checker(arguments[0])
        return lambda value: isinstance(value, tuple) and all(map(item, value))
    if origin is tuple:
        items = tuple(checker(argument) for argument in arguments)
        return lambda value: (
            isinstance(value, tuple)
            and len(value) == len(items)
            and all(check(item) for check, item in zip(items, value, strict=False))
        )
    if origin is frozenset:
        member = checker(arguments[0])
        return lambda value: isinstance(value, frozenset) and all(map(member, value))
    if expected is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    return lambda value: isinstance(value, expected)


def _anything(_: Any) -> bool:
    return True


def _is_none(value: Any) -> bool:
    return value is None


def listed(raw: Any) -> list[Any]:
    """*raw* if it is a JSON array; raises ValueError otherwise."""
    if not isinstance(raw, list):
        raise ValueError("expected a list")
    return raw


# Each fact type's fields with a test of their declared types, built once: a stored
# field must hold a value of its type (a str line would fail far from here, in a rule).
_FIELD_CHECKS: Mapping[type[Any], tuple[tuple[str, Check], ...]] = MappingProxyType(
    {
        cls: tuple((name, checker(hint)) for name, hint in typing.get_type_hints(cls).items())
        for cls in _FACT_TYPES
    }
)

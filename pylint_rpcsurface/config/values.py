"""How the configuration's messages show what they got: a TOML key, a value, a name."""

from __future__ import annotations

import datetime
import json
import keyword
import re

__all__ = ["describe", "is_dotted", "is_identifier", "key_part", "one_line"]

# TOML bare keys; any other key is shown quoted so the path stays unambiguous.
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# Values longer than this are shortened in messages so one bad value cannot
# flood the terminal.
_MAX_SHOWN = 80


def is_identifier(value: object) -> bool:
    """A name Python accepts after a dot or as a keyword argument (so not ``class``)."""
    return isinstance(value, str) and value.isidentifier() and not keyword.iskeyword(value)


def is_dotted(value: str) -> bool:
    """A dotted name of two parts or more, ``package.module.Class``."""
    parts = value.split(".")
    return len(parts) >= 2 and all(is_identifier(part) for part in parts)


def key_part(name: object) -> str:
    """Show a key as TOML would need it written, so odd keys stay unambiguous."""
    if isinstance(name, str) and _BARE_KEY.fullmatch(name):
        return name
    # A JSON string is a valid TOML basic string.
    return json.dumps(name if isinstance(name, str) else repr(name), ensure_ascii=False)


def describe(value: object) -> str:  # pylint: disable=too-many-return-statements
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


def one_line(text: str) -> str:
    """Collapse line breaks (of any kind) so an error stays a single line."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())

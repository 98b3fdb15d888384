"""Generate the configuration reference's key tables from the key declarations.

Every key of ``[tool.rpcsurface]`` is declared once, on the dataclass field it fills
(``pylint_rpcsurface/config/schema.py``: its name, type, default and one line of help).
From those declarations this writes, in docs/configuration.md:

* the table of keys after each ``<!-- keys: TABLE -->`` marker (up to ``<!-- /keys -->``),
  one row per key: its name (a link to its entry), type, default and help;
* the ``Type`` and ``Default`` lines of each key's own entry (``### `dispatch.waits```).

The prose of each entry stays written by hand. The test suite runs ``--check``, so the
reference can't drift from what the configuration accepts.

    python docs/gen_config.py          # rewrite docs/configuration.md
    python docs/gen_config.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from pylint_rpcsurface.config.schema import ENTRY_TABLES, Config, KeySpec, keys_of

REFERENCE = Path(__file__).resolve().parent / "configuration.md"
WIDTH = 88
# The tables of keys, by the name their marker gives; "top" is [tool.rpcsurface] itself.
TABLES: dict[str, type[Any]] = {"top": Config, **dict(ENTRY_TABLES)}
_MARKED = re.compile(r"(<!-- keys: (?P<table>[a-z]+) -->\n).*?(<!-- /keys -->)", re.S)
_ENTRY = re.compile(
    r"(?P<head>^### `(?P<key>[a-z.-]+)` \{#key-[a-z-]+\}\n\n)"
    r"- \*\*Type:\*\* .*?\n- \*\*Default:\*\* .*?\n(?=\n)",
    re.M | re.S,
)


def qualified(table: str, spec: KeySpec) -> str:
    """The key as the reference names it: ``dispatch.waits``, or ``source-roots``."""
    return spec.name if table == "top" else f"{table}.{spec.name}"


def anchor(table: str, spec: KeySpec) -> str:
    return "key-" + qualified(table, spec).replace(".", "-")


def key_table(table: str) -> str:
    """The markdown table of *table*'s keys."""
    rows = ["| Key | Type | Default | What it says |", "|---|---|---|---|"]
    for spec in keys_of(TABLES[table]):
        cells = (
            f"[`{spec.name}`](#{anchor(table, spec)})",
            spec.type,
            spec.default,
            spec.help,
        )
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def entry_lines(spec: KeySpec) -> str:
    """An entry's ``Type`` and ``Default`` lines, wrapped as the reference wraps them."""
    lines = []
    for label, text in (("Type", spec.type), ("Default", spec.default)):
        wrapped = textwrap.wrap(
            f"- **{label}:** {text}",
            WIDTH,
            subsequent_indent="  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines.extend(wrapped)
    return "\n".join(lines) + "\n"


def render(text: str) -> str:
    """*text* (the reference) with every generated part as the declarations say."""
    text = _MARKED.sub(lambda m: m.group(1) + key_table(m["table"]) + m.group(3), text)
    by_key = {
        qualified(table, spec): spec for table, cls in TABLES.items() for spec in keys_of(cls)
    }

    def entry(match: re.Match[str]) -> str:
        spec = by_key.get(match["key"])
        return match["head"] + entry_lines(spec) if spec is not None else match.group(0)

    return _ENTRY.sub(entry, text)


def main(argv: list[str]) -> int:
    current = REFERENCE.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print(f"{REFERENCE}: stale; run python docs/gen_config.py", file=sys.stderr)
            return 1
        return 0
    if wanted != current:
        REFERENCE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Generate the message pages from the message table and the examples.

Each message gets two pages with the same sections: docs/messages/<symbol>.md for the
docs site, and pylint_rpcsurface/messages/pages/<symbol>.md, which ships with the package
and is what ``rpcsurface explain <symbol>`` prints. They differ only where a terminal
can't follow the site's relative links. docs/messages/index.md lists the messages.

Each message has ``docs/messages/<symbol>/bad.py`` and ``good.py``. An example is saved
as ``app.py`` in a temporary project whose pyproject.toml holds ``example.toml`` (or the
example's own ``bad.toml``/``good.toml``) and linted with real pylint. A line ending in
``# [symbol]`` marks a message the example must give there; good.py must give none.
The pages show the examples and pylint's real output, so they can't drift: the test
suite regenerates them and fails when a committed page differs.

    python docs/gen_messages.py          # rewrite the pages (both kinds)
    python docs/gen_messages.py --check  # exit 1 if a page of either kind is stale
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pylint_rpcsurface.commands.sarif import PROJECT_URL
from pylint_rpcsurface.messages import MESSAGES, PAGES, MessageSpec

DOCS = Path(__file__).resolve().parent / "messages"
# Where a terminal page sends the reader for the keys it names: the site's page, which a
# terminal can't reach by the docs pages' relative links.
CONFIGURATION_URL = f"{PROJECT_URL}/blob/main/docs/configuration.md"
MARKER = re.compile(r"#\s*\[([a-z-]+(?:\s*,\s*[a-z-]+)*)\]\s*$")
CONFIDENCE = {
    "HIGH": "HIGH: the finding follows from what is written, with nothing inferred.",
    "INFERENCE": "INFERENCE: the finding rests on astroid's inference of names, "
    "classes and constants; where inference is not certain, the checker says nothing.",
    "INFERENCE_FAILURE": "INFERENCE_FAILURE: the message reports that inference "
    "could not give one answer, so the checker refused to guess.",
}


@dataclass(frozen=True)
class Reported:
    symbol: str
    line: int
    column: int
    text: str


def expected(source: str) -> set[tuple[str, int]]:
    """The (symbol, line) pairs an example's ``# [symbol]`` markers ask for."""
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found.update((symbol.strip(), number) for symbol in match.group(1).split(","))
    return found


def lint_example(symbol: str, which: str) -> tuple[list[Reported], str]:
    """Lint ``<symbol>/<which>.py`` as app.py; returns the messages and pylint's text."""
    example = DOCS / symbol
    config = example / f"{which}.toml"
    config_text = (config if config.exists() else DOCS / "example.toml").read_text("utf-8")
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as reports:
        project = Path(folder)
        (project / "pyproject.toml").write_text(config_text, "utf-8")
        (project / "app.py").write_text((example / f"{which}.py").read_text("utf-8"), "utf-8")
        command = [
            sys.executable,
            "-m",
            "pylint",
            "--load-plugins=pylint_rpcsurface",
            "--disable=all",
            "--enable=rpcsurface",
            "--persistent=n",
            "--score=n",
            "app.py",
        ]
        # One run prints the text and writes the json2 report outside the project: pylint
        # gives each reporter the same messages.
        report = Path(reports) / "report.json"
        text_run = subprocess.run(
            [*command, f"--output-format=text,json2:{report}"],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
        json_report = json.loads(report.read_text("utf-8"))
    messages = [
        Reported(m["symbol"], m["line"], m["column"], m["message"]) for m in json_report["messages"]
    ]
    # Texts may name the temporary project (a config error names its TOML file).
    shown = text_run.stdout.replace(str(project.resolve()) + "/", "")
    lines = [line for line in shown.splitlines() if not line.startswith("*****")]
    return messages, "\n".join(lines).strip()


def example_config(symbol: str, which: str) -> str:
    """The pyproject.toml an example is linted with, without its leading comment."""
    own = DOCS / symbol / f"{which}.toml"
    text = (own if own.exists() else DOCS / "example.toml").read_text("utf-8")
    lines = text.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    return "\n".join(lines).strip()


def setting_anchor(key: str) -> str:
    """The anchor of a key's entry in docs/configuration.md, e.g. ``key-surface-registry``."""
    return "key-" + key.replace(".", "-")


def render_keys(keys: tuple[str, ...], *, terminal: bool) -> str:
    """*keys*, each linked to its entry in the configuration reference; on a terminal,
    each in backticks and then the reference's address."""
    if terminal:
        names = ", ".join(f"`{key}`" for key in keys)
        return f"{names}. The configuration reference explains each:\n{CONFIGURATION_URL}"
    return ", ".join(f"[`{key}`](../configuration.md#{setting_anchor(key)})" for key in keys) + "."


def render_configuration(spec: MessageSpec, *, terminal: bool) -> str:
    bad_config = example_config(spec.symbol, "bad")
    good_config = example_config(spec.symbol, "good")
    shown = f"```toml\n{bad_config}\n```"
    if good_config != bad_config:
        shown = f"The example:\n\n{shown}\n\nThe fix:\n\n```toml\n{good_config}\n```"
    return f"""Keys of `[tool.rpcsurface]` that decide whether and where this message is given:
{render_keys(spec.settings, terminal=terminal)}

The examples on this page are linted as `app.py` next to this `pyproject.toml`:

{shown}

Like any pylint message it can be turned off with `--disable={spec.symbol}`, or on one
line with `# pylint: disable={spec.symbol}`.
"""


def render(spec: MessageSpec, output: str, *, terminal: bool) -> str:
    """The page of *spec*, showing *output* (pylint's on the bad example): for the docs
    site, or for a terminal (``terminal``), where it is printed as it is."""
    folder = DOCS / spec.symbol
    bad = (folder / "bad.py").read_text("utf-8")
    good = (folder / "good.py").read_text("utf-8")
    template = spec.text.replace("%s", "…")
    # A terminal would print the site's hidden comment; the drift test guards both pages.
    header = (
        ""
        if terminal
        else f"""<!-- Generated by docs/gen_messages.py from the message table in
pylint_rpcsurface/messages/__init__.py and docs/messages/{spec.symbol}/. Do not edit by hand. -->
"""
    )
    return f"""{header}# {spec.symbol} ({spec.msgid})

Message: `{template}`

## What it does

{spec.description}

## Why is this bad?

{spec.rationale}

## Example

```python
{bad.rstrip()}
```

pylint reports (`--disable=all --enable=rpcsurface`):

```text
{output}
```

## Use instead

```python
{good.rstrip()}
```

## Configuration

{render_configuration(spec, terminal=terminal)}
## Confidence

{CONFIDENCE[spec.confidence]}
"""


def render_index() -> str:
    rows = "\n".join(
        f"| {spec.msgid} | [{spec.symbol}]({spec.symbol}.md) | {spec.description} |"
        for spec in MESSAGES
    )
    return f"""<!-- Generated by docs/gen_messages.py. Do not edit by hand. -->
# Messages

The `rpcsurface` checker's messages. Each page shows an example that gives the message
and one that does not; both are run as tests.

| id | symbol | what it reports |
|---|---|---|
{rows}
"""


def pages() -> dict[Path, str]:
    """Every generated file and its text: each message's docs page and shipped page, and
    the index."""
    result = {}
    for spec in MESSAGES:
        _, output = lint_example(spec.symbol, "bad")  # once: it is the slow part
        result[DOCS / f"{spec.symbol}.md"] = render(spec, output, terminal=False)
        result[spec.page] = render(spec, output, terminal=True)
    result[DOCS / "index.md"] = render_index()
    return result


def orphans(generated: dict[Path, str]) -> list[Path]:
    """Shipped pages no message has (a removed or renamed one). The folder holds nothing
    but generated pages, so anything else in it is stale; docs/messages/ also holds the
    examples, and its orphans are found by tests/test_docs.py."""
    return sorted(set(PAGES.iterdir()) - set(generated)) if PAGES.is_dir() else []


def stale(generated: dict[Path, str]) -> list[Path]:
    """The files that are missing or differ from *generated*, and the orphaned pages."""
    differ = [
        path
        for path, text in generated.items()
        if not path.exists() or path.read_text("utf-8") != text
    ]
    return differ + orphans(generated)


def main(argv: list[str]) -> int:
    generated = pages()
    if "--check" in argv:
        found = stale(generated)
        for path in found:
            print(f"{path}: stale; run python docs/gen_messages.py", file=sys.stderr)
        return 1 if found else 0
    PAGES.mkdir(exist_ok=True)
    for path, text in generated.items():
        path.write_text(text, "utf-8")
    for path in orphans(generated):
        path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Generate docs/messages/<symbol>.md from the message table and the examples.

Each message has ``docs/messages/<symbol>/bad.py`` and ``good.py``. An example is saved
as ``app.py`` in a temporary project whose pyproject.toml holds ``example.toml`` (or the
example's own ``bad.toml``/``good.toml``) and linted with real pylint. A line ending in
``# [symbol]`` marks a message the example must give there; good.py must give none.
The pages show the examples and pylint's real output, so they can't drift: the test
suite regenerates them and fails when a committed page differs.

    python docs/gen_messages.py          # rewrite the pages
    python docs/gen_messages.py --check  # exit 1 if a page is stale
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pylint_rpcsurface.messages import MESSAGES, MessageSpec

DOCS = Path(__file__).resolve().parent / "messages"
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
    with tempfile.TemporaryDirectory() as folder:
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
        text_run = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)
        json_run = subprocess.run(
            [*command, "--output-format=json2"],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
    messages = [
        Reported(m["symbol"], m["line"], m["column"], m["message"])
        for m in json.loads(json_run.stdout)["messages"]
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


def render_configuration(spec: MessageSpec) -> str:
    keys = ", ".join(
        f"[`{key}`](../configuration.md#{setting_anchor(key)})" for key in spec.settings
    )
    bad_config = example_config(spec.symbol, "bad")
    good_config = example_config(spec.symbol, "good")
    shown = f"```toml\n{bad_config}\n```"
    if good_config != bad_config:
        shown = f"The example:\n\n{shown}\n\nThe fix:\n\n```toml\n{good_config}\n```"
    return f"""Keys of `[tool.rpcsurface]` that decide whether and where this message is given:
{keys}.

The examples on this page are linted as `app.py` next to this `pyproject.toml`:

{shown}

Like any pylint message it can be turned off with `--disable={spec.symbol}`, or on one
line with `# pylint: disable={spec.symbol}`.
"""


def render(spec: MessageSpec) -> str:
    folder = DOCS / spec.symbol
    bad = (folder / "bad.py").read_text("utf-8")
    good = (folder / "good.py").read_text("utf-8")
    _, output = lint_example(spec.symbol, "bad")
    template = spec.text.replace("%s", "…")
    return f"""<!-- Generated by docs/gen_messages.py from the message table in
pylint_rpcsurface/messages/__init__.py and docs/messages/{spec.symbol}/. Do not edit by hand. -->
# {spec.symbol} ({spec.msgid})

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

{render_configuration(spec)}
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
    result = {DOCS / f"{spec.symbol}.md": render(spec) for spec in MESSAGES}
    result[DOCS / "index.md"] = render_index()
    return result


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in pages().items():
        if check:
            if not path.exists() or path.read_text("utf-8") != text:
                stale.append(path)
        else:
            path.write_text(text, "utf-8")
    for path in stale:
        print(f"{path}: stale; run python docs/gen_messages.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

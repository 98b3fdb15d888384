"""The docs and the README: the configuration reference documents exactly the keys the
configuration accepts (its key tables generated from the declarations), each message's
"Configuration" section names real keys, every page is reachable, every relative link
leads to a file, and the README stays a quick start and a tour, with the reference left
to docs/.

The site itself is built by ``mkdocs build --strict`` in CI (.ci/run), which fails on a
broken link or anchor under docs/; nothing checks README.md's links but the test here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import pytest
from support import run_cli

from pylint_rpcsurface import config as config_module
from pylint_rpcsurface.config.schema import keys_of
from pylint_rpcsurface.messages import MESSAGES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 200
REFERENCE = DOCS / "configuration.md"
# A key's entry: a heading holding the key in backticks and its anchor, e.g.
# ### `surface.registry` {#key-surface-registry}
ENTRY = re.compile(r"^#{2,4} `([a-z.-]+)` \{#(key-[a-z-]+)\}\s*$", re.MULTILINE)


def accepted_keys() -> set[str]:
    """Every key config.py accepts, qualified the way the reference writes it."""
    return (
        set(config_module.TOP_KEYS)
        | {f"dispatch.{key}" for key in config_module.DISPATCH_KEYS}
        | {f"surface.{key}" for key in config_module.SURFACE_KEYS}
        | {f"proxy.{key}" for key in config_module.PROXY_KEYS}
    )


def reference_entries() -> dict[str, str]:
    """key -> the text of its entry, up to the next heading."""
    text = REFERENCE.read_text("utf-8")
    matches = list(ENTRY.finditer(text))
    entries = {}
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        key, anchor = match.groups()
        assert anchor == "key-" + key.replace(".", "-"), match.group(0)
        end = following.start() if following else len(text)
        body = text[match.end() : end].split("\n#", 1)[0]
        entries[key] = body
    return entries


def test_the_reference_documents_exactly_the_keys_config_accepts() -> None:
    assert len(accepted_keys()) >= 11  # the tuples were really read
    assert set(reference_entries()) == accepted_keys()


@pytest.mark.parametrize("key", sorted(accepted_keys()))
def test_every_key_has_a_type_a_default_and_an_explanation(key: str) -> None:
    body = reference_entries().get(key, "")
    assert re.search(r"^- \*\*Type:\*\* \S", body, re.MULTILINE), key
    assert re.search(r"^- \*\*Default:\*\* \S", body, re.MULTILINE), key
    prose = [line for line in body.splitlines() if line.strip() and not line.startswith("- **")]
    assert prose, f"{key}: no explanation"


def test_each_message_names_real_keys_in_its_configuration_section() -> None:
    for spec in MESSAGES:
        assert spec.settings, spec.symbol
        assert set(spec.settings) <= accepted_keys(), spec.symbol


def test_every_page_is_in_the_nav_or_reached_from_the_messages_index() -> None:
    mkdocs = (ROOT / "mkdocs.yml").read_text("utf-8")
    in_nav = set(re.findall(r"^\s*- [^:\n]+: (\S+\.md)\s*$", mkdocs, re.MULTILINE))
    index = (DOCS / "messages" / "index.md").read_text("utf-8")
    linked = {f"messages/{page}" for page in re.findall(r"\]\(([a-z-]+\.md)\)", index)}
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert "messages/index.md" in in_nav
    assert pages == in_nav | linked
    assert linked == {f"messages/{spec.symbol}.md" for spec in MESSAGES}


# ---------------------------------------------------------------------------
# The README: a quick start and a tour; the reference lives once, in docs/.


def table_rows(text: str) -> list[str]:
    """The lines of *text* that are rows of a markdown table."""
    return [line for line in text.splitlines() if line.lstrip().startswith("|")]


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines, more than {README_MAX_LINES}: "
        "move the reference into docs/ and link to it"
    )


def _names_a_key(row: str) -> bool:
    return any(f"`{key}`" in row for key in accepted_keys())


def _names_a_message(row: str) -> bool:
    return any(re.search(rf"\b({spec.msgid}|{re.escape(spec.symbol)})\b", row) for spec in MESSAGES)


def _names_an_option(row: str) -> bool:
    first_cell = row.strip().strip("|").split("|", 1)[0]
    return bool(re.fullmatch(r"\s*`--[a-z-]+[^`]*`\s*", first_cell))


@pytest.mark.parametrize(
    ("reference", "copied"),
    [
        ("docs/configuration.md", _names_a_key),
        ("docs/messages/index.md", _names_a_message),
        ("docs/command-line.md", _names_an_option),
    ],
    ids=["configuration-keys", "messages", "command-line-options"],
)
def test_the_readme_holds_no_copy_of_a_reference_table(
    reference: str, copied: Callable[[str], bool]
) -> None:
    """No table row of the README names a configuration key, a message or an option: each
    of those tables lives in *reference*, which the README links to."""
    assert (ROOT / reference).is_file()
    readme = README.read_text("utf-8")
    assert f"]({reference})" in readme, f"README.md does not link to {reference}"
    rows = [row for row in table_rows(readme) if copied(row)]
    assert rows == [], f"README.md copies rows of {reference}'s table: {rows}"


# ---------------------------------------------------------------------------
# Relative links: mkdocs --strict checks docs/ but not README.md.

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# [text](target "title") or [text](<target with spaces>): the target is group 1 or 2.
INLINE_LINK = re.compile(r"\]\(\s*(?:<([^>\n]*)>|([^)\s]+))(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
HTML_LINK = re.compile(r"""\b(?:href|src)=["']([^"']+)["']""")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|#)", re.IGNORECASE)


def relative_links(text: str) -> list[str]:
    """The relative link targets of markdown *text*, without their #anchor; links inside
    code blocks and code spans are not links."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    targets = [
        next(group for group in match.groups() if group is not None)
        for pattern in (INLINE_LINK, REFERENCE_LINK, HTML_LINK)
        for match in pattern.finditer(prose)
    ]
    return [
        re.split(r"[#?]", target, maxsplit=1)[0] for target in targets if not EXTERNAL.match(target)
    ]


LINKED_PAGES = [README, *sorted(DOCS.glob("*.md"))]


def test_the_link_finder_finds_links_and_skips_code() -> None:
    text = (
        '[a](docs/a.md) [b](<b c.md> "t") ![i](img/x.png#y) [w](https://x.org) [s](#top)\n'
        "[r]: ref.md\n"
        '<a href="h.md">h</a> `[no](code.md)`\n'
        "```md\n[no](fenced.md)\n```\n"
    )
    assert relative_links(text) == ["docs/a.md", "b c.md", "img/x.png", "ref.md", "h.md"]


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_an_existing_file(page: Path) -> None:
    links = relative_links(page.read_text("utf-8"))
    if page == README:
        assert len(links) >= 10, links  # the README links into docs/: the finder works
    broken = []
    for link in links:
        target = (page.parent / unquote(link)).resolve()
        if not target.exists() or not target.is_relative_to(ROOT):
            broken.append(link)
    assert broken == [], f"{page.relative_to(ROOT)} links to what isn't in the repository: {broken}"


def test_the_key_tables_and_entries_are_what_the_declarations_say() -> None:
    """docs/gen_config.py writes the reference's key tables and each entry's Type and
    Default lines from the declarations; a stale reference is a failure."""
    sys.path.insert(0, str(DOCS))
    try:
        import gen_config  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
    finally:
        sys.path.remove(str(DOCS))
    current = REFERENCE.read_text("utf-8")
    assert gen_config.render(current) == current, "stale: run python docs/gen_config.py"
    # Every table's keys are listed, each once, in its generated table.
    for table, cls in gen_config.TABLES.items():
        listed = re.search(rf"<!-- keys: {table} -->\n(.*?)<!-- /keys -->", current, re.S)
        assert listed is not None, table
        rows = [line for line in listed.group(1).splitlines() if line.startswith("| [`")]
        assert [row.split("`")[1] for row in rows] == [s.name for s in keys_of(cls)]


# ---------------------------------------------------------------------------
# Each command's usage line in the command-line reference says what its parser takes.

COMMAND_LINE = DOCS / "command-line.md"
# A bracketed item of a usage line: ``[--format {text,json}]``, ``[--config FILE]``, ``[PATH ...]``.
USAGE_ITEM = re.compile(r"\[([^\[\]]+)\]")


def _usage_items(usage: str) -> dict[str, frozenset[str]]:
    """The items of a usage line: each option with its choices (none for one that takes
    a free value or no value), each positional with nothing; ``-h`` left out. Both
    argparse's ``{a,b}`` and the reference's ``a|b`` are read as choices."""
    items: dict[str, frozenset[str]] = {}
    for item in USAGE_ITEM.findall(" ".join(usage.split())):
        name, _, value = item.partition(" ")
        if name == "-h":
            continue
        choices = value.strip("{}").replace(",", "|").split("|") if name.startswith("--") else []
        items[name] = frozenset(choices) if len(choices) > 1 else frozenset()
    return items


def _documented_usage(command: str) -> str:
    blocks = re.findall(r"^```sh\n(.*?)^```", COMMAND_LINE.read_text("utf-8"), re.M | re.S)
    usages = [block for block in blocks if re.match(rf"rpcsurface {command}( \[|\n)", block)]
    assert len(usages) == 1, f"docs/command-line.md has {len(usages)} usage blocks of {command}"
    return usages[0]


@pytest.mark.parametrize("command", ["check", "report", "fix", "explain", "init", "lsp"])
def test_each_command_s_usage_in_the_reference_is_what_its_parser_takes(command: str) -> None:
    """The reference's usage line names every option, choice and positional that the
    installed command's ``--help`` shows, and nothing else."""
    shown = run_cli(ROOT, command, "--help")
    assert shown.returncode == 0, shown.stderr
    usage = shown.stdout.split("\n\n", 1)[0]
    assert _usage_items(_documented_usage(command)) == _usage_items(usage)


def test_the_reference_documents_every_command_the_program_has() -> None:
    """The commands ``rpcsurface --help`` lists are the reference's ``## rpcsurface`` sections."""
    shown = run_cli(ROOT, "--help").stdout
    listed = set(re.findall(r"^    ([a-z]+) ", shown, re.M))
    documented = set(re.findall(r"^## rpcsurface ([a-z]+)$", COMMAND_LINE.read_text("utf-8"), re.M))
    assert listed
    assert listed == documented

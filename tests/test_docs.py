"""The docs site's sources: the configuration reference documents exactly the keys
config.py accepts, each message's "Configuration" section names real keys, and every
page is reachable.

The site itself is built by ``mkdocs build --strict`` in CI (.ci/run), which fails on a
broken link or anchor.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pylint_rpcsurface import config as config_module
from pylint_rpcsurface.messages import MESSAGES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
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

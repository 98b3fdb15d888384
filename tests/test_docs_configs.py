"""Every TOML block of README.md and docs/*.md loads on the tree it describes.

A block says which tree that is in an HTML comment on the line right before its fence:

- ``<!-- toml: examples/engine -->`` or ``<!-- toml: tests/fixtures/NAME -->``: a
  configuration of that tree. It is written as the ``pyproject.toml`` of a copy of the
  tree (a block without a ``[tool.rpcsurface]`` table, such as a pylint one, is added to
  the tree's own file), and ``rpcsurface check`` must load it with no configuration
  error; a block with ``[tool.pylint...]`` tables is loaded by real pylint too.
- ``<!-- toml: release DIST==VERSION -->``: tables of a released engine, as they are in
  the configuration bench/engines.py runs on that release (bench/engines/*.toml): each
  table of the block is one of that file's tables, key for key (a block of bare keys is
  part of one of them). The ``engines`` test (``pytest -m engines``, by hand, never in
  CI) downloads the release and loads the block there.
- ``<!-- toml: fragment -->``: a piece shown to explain a key, on no tree. It must parse
  and validate as the plugin validates a table; what a piece leaves out to stay short is
  filled in first (a surface's dispatch tables: one per method it names, else
  ``call_func``). ``<!-- toml: fragment TABLE -->`` marks bare keys of a ``dispatch``,
  ``surface`` or ``proxy`` table: each must be a key of that table.

A block with no marker fails: every configuration shown is tied to something a test runs.
docs/messages/ is left out: its examples are generated from examples a test lints with
real pylint (tests/test_message_examples.py).
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, load_bench_script, run_cli, run_pylint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from pylint_rpcsurface.config.schema import (
    DISPATCH_KEYS,
    PROXY_KEYS,
    SURFACE_KEYS,
    ConfigError,
    parse_table,
)

PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
BLOCK = re.compile(r"^```toml\n(.*?)^```", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"^<!-- toml: (.+?) -->$")
RELEASE = re.compile(r"release (\S+)==(\S+)")
FRAGMENT = re.compile(r"fragment(?: (dispatch|surface|proxy))?")
BARE_KEYS = {"dispatch": DISPATCH_KEYS, "surface": SURFACE_KEYS, "proxy": PROXY_KEYS}
EXIT_CONFIG_ERROR = 2  # rpcsurface check's status for a usage or configuration error
PYLINT_FATAL_OR_USAGE = 1 | 32  # pylint's status bits for a fatal message or a bad option
# What pylint says of a configuration it can't load: an option or a plugin it doesn't know,
# and the plugin's own message for a bad [tool.rpcsurface] table.
PYLINT_LOAD_ERRORS = ("unrecognized-option", "bad-plugin-value", "rpcsurface-config-error")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the fence
    marker: str  # what the comment before the fence says; "" without one
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for match in BLOCK.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.match(before)
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(page, line, marker.group(1) if marker else "", match.group(1)))
    return found


def marked(kind: str) -> list[Any]:
    """The blocks whose marker is of *kind* ("tree", "release", "fragment"), as params."""
    chosen = [b for b in blocks() if _kind(b.marker) == kind]
    return [pytest.param(block, id=block.where) for block in chosen]


def _kind(marker: str) -> str:
    if RELEASE.fullmatch(marker):
        return "release"
    if FRAGMENT.fullmatch(marker):
        return "fragment"
    if marker.startswith(("examples/", "tests/fixtures/")):
        return "tree"
    return "unknown"


def rpcsurface_table(document: dict[str, Any]) -> dict[str, Any] | None:
    table = document.get("tool", {}).get("rpcsurface")
    return table if isinstance(table, dict) else None


def completed(table: dict[str, Any]) -> dict[str, Any]:
    """*table* with the dispatch tables a short piece leaves out: one per method its
    surfaces name, else one ``call_func``, when it has neither dispatch nor proxy tables."""
    if "dispatch" in table or "proxy" in table:
        return table
    named = [m for s in table.get("surface", []) for m in s.get("dispatch", [])]
    methods = dict.fromkeys(named or ["call_func"])
    return {**table, "dispatch": [{"method": m, "waits": True} for m in methods]}


def assert_validates(block: Block, table: dict[str, Any]) -> None:
    """*table*, completed, passes the validation the plugin gives a [tool.rpcsurface] table."""
    try:
        parse_table(completed(table), block.page)
    except ConfigError as error:
        pytest.fail(f"{block.where}: {error}")


def release_config(marker: str) -> tuple[Any, str]:
    """The bench engine a ``release`` marker names, and its committed configuration."""
    match = RELEASE.fullmatch(marker)
    assert match, marker
    engines = load_bench_script("engines")
    chosen = [e for e in engines.ENGINES if (e.name, e.version) == match.groups()]
    assert chosen, f"{marker}: not a release bench/engines.py runs"
    (engine,) = chosen
    return engine, engines.config_text(engine.key, proxy=True)


def test_every_block_is_marked_with_the_tree_it_describes() -> None:
    found = blocks()
    assert len(found) >= 20  # the pages were really read
    unmarked = [b.where for b in found if _kind(b.marker) == "unknown"]
    assert not unmarked, f"TOML blocks with no or an unknown <!-- toml: ... --> marker: {unmarked}"
    for block in found:
        if _kind(block.marker) == "tree":
            assert (ROOT / block.marker / "pyproject.toml").is_file(), block.where


@pytest.mark.parametrize("block", marked("tree"))
def test_a_block_tied_to_a_tree_loads_there(block: Block, tmp_path: Path) -> None:
    tree = shutil.copytree(ROOT / block.marker, tmp_path / "tree")
    document = tomllib.loads(block.text)
    pyproject = tree / "pyproject.toml"
    if rpcsurface_table(document) is None:
        pyproject.write_text(pyproject.read_text("utf-8") + "\n" + block.text, "utf-8")
    else:
        pyproject.write_text(block.text, "utf-8")
    checked = run_cli(tree, "check", "--no-cache")
    said = f"{block.where}: {checked.stdout}{checked.stderr}"
    assert checked.returncode != EXIT_CONFIG_ERROR, said
    assert checked.returncode in (0, 1), said
    if "pylint" in document.get("tool", {}):
        linted = run_pylint(tree, f"--enable={','.join(PYLINT_LOAD_ERRORS)}", "--recursive=y", ".")
        assert not linted.returncode & PYLINT_FATAL_OR_USAGE, f"{block.where}: {linted.stderr}"
        assert not linted.stderr.strip(), f"{block.where}: {linted.stderr}"
        refused = [m for m in linted.messages if m.symbol in PYLINT_LOAD_ERRORS]
        assert not refused, f"{block.where}: {refused}"
        assert linted.messages, f"{block.where}: pylint ran without the plugin's findings"


@pytest.mark.parametrize("block", marked("fragment"))
def test_a_fragment_validates_as_the_plugin_validates_a_table(block: Block) -> None:
    document = tomllib.loads(block.text)
    bare = FRAGMENT.fullmatch(block.marker)
    assert bare
    if bare.group(1):
        assert document, block.where
        unknown = set(document) - set(BARE_KEYS[bare.group(1)])
        assert not unknown, f"{block.where}: not keys of a {bare.group(1)} table: {unknown}"
        return
    table = rpcsurface_table(document)
    if table is None:
        # A piece of init's output that is only comments, or a pylint table.
        assert not document or "pylint" in document.get("tool", {}), block.where
        return
    assert_validates(block, table)


@pytest.mark.parametrize("block", marked("release"))
def test_a_release_block_is_that_release_configuration(block: Block) -> None:
    engine, text = release_config(block.marker)
    config = tomllib.loads(text)
    committed = rpcsurface_table(config)
    assert committed is not None, engine.key
    shown = tomllib.loads(block.text)
    table = rpcsurface_table(shown)
    if table is None:  # bare keys of one of the release's tables
        kinds = [t for entries in committed.values() if isinstance(entries, list) for t in entries]
        assert any(shown.items() <= t.items() for t in kinds), (
            f"{block.where}: {shown} is in no table of bench/engines/{engine.key}.toml"
        )
        return
    for kind, entries in table.items():
        for entry in entries:
            assert entry in committed.get(kind, []), (
                f"{block.where}: [[tool.rpcsurface.{kind}]] {entry.get('name')!r} is not "
                f"as bench/engines/{engine.key}.toml has it for {engine.name} {engine.version}"
            )
    assert_validates(block, table)


@pytest.mark.engines
@pytest.mark.parametrize("block", marked("release"))
def test_a_release_block_loads_on_the_release(
    block: Block, tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    """Downloads the release's wheel (kept in pytest's cache folder) and loads the block
    there, or, for bare keys, the release's whole configuration that holds them."""
    engine, text = release_config(block.marker)
    engines = load_bench_script("engines")
    wheels = pytestconfig.cache.mkdir(f"engines-{engine.name}-{engine.version}")
    wheel = engines.download(engine, wheels)
    engines.extract_python(wheel, tmp_path / "src")
    root = engines.package_root(tmp_path / "src", engine.package)
    shown = block.text if rpcsurface_table(tomllib.loads(block.text)) else text
    code, findings, stderr = engines.check(root, shown)
    assert code in (0, 1), f"{block.where}: {stderr}"
    del findings  # what the tables find is bench/engines.py's verdicts' business

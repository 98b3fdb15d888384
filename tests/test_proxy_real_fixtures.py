"""The proxy fixtures from real code (tests/fixtures/proxy_real) and the hand-traced
real-engine sites (bench/engines/proxy_expected): well formed, and what the checker says.

Every fixture module parses, every configured caller and handler names a class or
function that exists in the fixture, and every line of an ``expected.txt`` names a call
at that line and column of an existing file. The ``expected.txt`` files were written by
hand from the code (each fixture's README says why), apart from the checker: the real
``rpcsurface check`` and real pylint on each fixture report exactly those findings."""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from support import run_check, run_cli, run_pylint

from pylint_rpcsurface.rules.proxy_rules import RAY_ACTOR_METHODS

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli is a dependency of the package below 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "proxy_real"
CONFIGS = ROOT / "bench" / "engines"
SHAPES = sorted(p.parent.name for p in FIXTURES.glob("*/pyproject.toml"))
KEYS = {
    "name",
    "callers",
    "receivers",
    "handlers",
    "handler-param",
    "remote",
    "own-members",
    "exposed-by",
}
REQUIRED = {"name", "callers", "receivers"}
# Exactly one of these says which class is behind the receivers.
HANDLER_KEYS = {"handlers", "handler-param"}
EXPECTED_LINE = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<symbol>[a-z-]+)$")
VERDICTS = {"true positive", "false positive", "not a finding", "out of contract", "unreadable"}


def _proxies(text: str) -> list[dict[str, object]]:
    tables = tomllib.loads(text)["tool"]["rpcsurface"].get("proxy", [])
    assert isinstance(tables, list)
    return tables


def _defines(root: Path, qualified: str) -> bool:
    """Whether *qualified* (``pkg.mod.Name``) is a top-level class or function of a module
    under *root*."""
    module, _, name = qualified.rpartition(".")
    path = root.joinpath(*module.split(".")).with_suffix(".py")
    if not path.is_file():
        return False
    tree = ast.parse(path.read_text("utf-8"))
    return any(
        isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name == name
        for node in tree.body
    )


def test_there_is_a_fixture_for_every_hard_proxy_shape() -> None:
    assert {
        "mixin_decorator",
        "remote_impl_ifelse",
        "options_chain",
        "param_then_self",
        "colocated_prefix",
    } <= set(SHAPES)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_module_parses(shape: str) -> None:
    modules = sorted((FIXTURES / shape).rglob("*.py"))
    assert modules
    for module in modules:
        ast.parse(module.read_text("utf-8"), filename=str(module))


@pytest.mark.parametrize("shape", SHAPES)
def test_the_proxy_tables_name_what_the_fixture_defines(shape: str) -> None:
    root = FIXTURES / shape
    tables = _proxies((root / "pyproject.toml").read_text("utf-8"))
    assert tables
    for table in tables:
        assert REQUIRED <= set(table) <= KEYS, table
        assert len(HANDLER_KEYS & set(table)) == 1, table
        for key in ("callers", "handlers", "own-members"):
            for qualified in table.get(key, []):  # type: ignore[attr-defined, unused-ignore]
                assert _defines(root, qualified), f"{shape}: {key} {qualified}"
        decorator = table.get("exposed-by")
        if decorator is not None:
            assert isinstance(decorator, str)
            assert _defines(root, decorator), f"{shape}: exposed-by {decorator}"


@pytest.mark.parametrize("shape", SHAPES)
def test_every_expected_line_is_a_call_in_an_existing_file(shape: str) -> None:
    root = FIXTURES / shape
    lines = (root / "expected.txt").read_text("utf-8").splitlines()
    assert lines
    for text in lines:
        match = EXPECTED_LINE.match(text)
        assert match, f"{shape}: {text!r}"
        path = root / match["path"]
        assert path.is_file(), f"{shape}: {text}"
        line, col = int(match["line"]), int(match["col"])
        assert 1 <= line <= len(path.read_text("utf-8").splitlines()), f"{shape}: {text}"
        # An attribute call, or (a construction's named reason) a call of a class by name.
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Attribute, ast.Name))
            and (node.lineno, node.col_offset) == (line, col)
        ]
        assert calls, f"{shape}: no call at {text}"


def test_the_engines_proxy_tables_parse_appended_to_their_table() -> None:
    extras = sorted(CONFIGS.glob("*.proxy.toml"))
    assert extras
    for extra in extras:
        name = extra.name.removesuffix(".proxy.toml")
        base = (CONFIGS / f"{name}.toml").read_text("utf-8")
        tables = _proxies(base.rstrip("\n") + "\n\n" + extra.read_text("utf-8"))
        assert tables, name
        names = [table["name"] for table in tables]
        assert len(names) == len(set(names)), name
        for table in tables:
            assert REQUIRED <= set(table) <= KEYS, (name, table)
            assert len(HANDLER_KEYS & set(table)) == 1, (name, table)


def test_the_hand_traced_sites_belong_to_a_configured_surface() -> None:
    files = sorted((CONFIGS / "proxy_expected").glob("*.toml"))
    assert files
    for path in files:
        name = path.stem
        configured = {
            table["name"] for table in _proxies((CONFIGS / f"{name}.proxy.toml").read_text("utf-8"))
        }
        data = tomllib.loads(path.read_text("utf-8"))
        surfaces = {surface["name"]: surface for surface in data["surface"]}
        assert set(surfaces) == configured, name
        params = {
            table["name"]: table.get("handler-param")
            for table in _proxies((CONFIGS / f"{name}.proxy.toml").read_text("utf-8"))
        }
        for surface in surfaces.values():
            assert surface.get("handler-param") == params[surface["name"]], surface["name"]
        for site in data["site"]:
            assert site["verdict"] in VERDICTS, site
            assert re.fullmatch(r"[^:\s]+\.py:\d+:\d+", site["at"]), site
            # A named reason the contract gives: at instance calls (handler-param only), or
            # at the site itself when its name can't be read.
            if site["verdict"] == "unreadable":
                assert site["named"] == "rpc-name-uninferable", site
                assert site["named-at"] == [site["at"]], site
            elif "named-at" in site:
                assert site["named"] == "rpc-proxy-handler-unknown", site
                assert "handler-param" in surfaces[site["surface"]], site
            if "named-at" in site:
                assert site["named-why"], site
                for at in site["named-at"]:
                    assert re.fullmatch(r"[^:\s]+\.py:\d+:\d+", at), site
            surface = surfaces[site["surface"]]
            answers = surface["answers"]
            assert set(answers) == set(surface["handlers"]), surface["name"]
            if site["verdict"] == "unreadable":  # the name can't be read: no handler lacks it
                assert site["rpc"].startswith("<"), site
                assert site["missing-on"] == [], site
                continue
            # With handler-param a site is judged against the classes of the instances
            # whose group methods reach it, traced by hand: judged-against.
            judged = surface["handlers"]
            if "handler-param" in surface:
                judged = site["judged-against"]
                assert set(judged) <= set(surface["handlers"]), site
            missing = [h for h in judged if site["rpc"] not in answers[h]]
            assert site["missing-on"] == missing, site
            finding = site["verdict"] in {"true positive", "false positive"}
            if site["verdict"] != "out of contract":
                # Ray's own actor methods answer on every handle, whatever the class lacks.
                answered_by_ray = site["rpc"] in RAY_ACTOR_METHODS
                assert finding == (bool(missing) and not answered_by_ray), site


def _expected(shape: str) -> set[str]:
    lines = (FIXTURES / shape / "expected.txt").read_text("utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("shape", SHAPES)
def test_check_and_pylint_report_what_the_fixture_expects(shape: str, tmp_path: Path) -> None:
    """The hand-derived findings, from `rpcsurface check` (no cache) and from pylint on
    the whole fixture: the same set, at the call's own line and column."""
    root = tmp_path / shape
    shutil.copytree(FIXTURES / shape, root)
    env = {"RPCSURFACE_CACHE_DIR": str(tmp_path / "cache")}
    checked = run_check(root, "--format", "json", "--no-cache", env=env)
    assert checked.returncode in (0, 1), checked.stderr
    linted = run_pylint(root, "--recursive=y", ".", env=env)
    for run in (checked, linted):
        found = {f"{m.path}:{m.line}:{m.column}: {m.symbol}" for m in run.messages}
        assert found == _expected(shape), (shape, run)


# A proxy message starts with the RPC name it is about: "'save_model' is called on ...".
MESSAGE_RPC = re.compile(r"^'(?P<rpc>[^']+)' ")


@pytest.mark.parametrize("shape", SHAPES)
def test_report_shows_each_finding_of_check_on_the_row_of_its_rpc(
    shape: str, tmp_path: Path
) -> None:
    """Each row's verdict of ``rpcsurface report`` holds exactly the symbols of the
    findings ``rpcsurface check`` gives about that RPC name (also those at the call of a
    group method that reaches it, tied to a construction or not), and "ok" without one."""
    root = tmp_path / shape
    shutil.copytree(FIXTURES / shape, root)
    env = {"RPCSURFACE_CACHE_DIR": str(tmp_path / "cache")}
    checked = run_check(root, "--format", "json", env=env)
    assert checked.returncode in (0, 1), checked.stderr
    expected: dict[str, set[str]] = {}
    for message in checked.messages:
        named = MESSAGE_RPC.match(message.text)
        if named is not None:
            expected.setdefault(named["rpc"], set()).add(message.symbol)
    reported = run_cli(root, "report", "--format", "json", env=env)
    assert reported.returncode == 0, reported.stderr
    shown = {
        row["rpc"]: set(row["verdict"]) - {"ok"}
        for table in json.loads(reported.stdout)
        if "proxy" in table
        for row in table["rows"]
        if row["inferred"]
    }
    assert {rpc: symbols for rpc, symbols in shown.items() if symbols} == expected

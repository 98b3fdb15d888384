"""`rpcsurface check --format sarif`: valid SARIF 2.1.0, rules with help URIs, exact regions."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from support import APP, PYPROJECT, project, run_check

from pylint_rpcsurface.commands.sarif import DOCS_URL
from pylint_rpcsurface.messages import BY_SYMBOL, MESSAGES

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
DOCS = Path(__file__).parent.parent / "docs" / "messages"

# Inside Core.run: text with a BMP and an astral character before the RPC name, so the
# UTF-8 byte column, the character column and the UTF-16 column all differ.
PREFIX = '        _ = "é😀"; '
PLANTED = PREFIX + 'self.mgr.call_func("no_such_rpc", wait_out=True)\n'
NAME = '"no_such_rpc"'


def _utf16_column(line: str, index: int) -> int:
    """SARIF's default column: 1-based, in UTF-16 code units."""
    return len(line[:index].encode("utf-16-le")) // 2 + 1


def _sarif(tmp_path: Path) -> tuple[dict[str, object], str]:
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP + PLANTED})
    run = run_check(root, "--format", "sarif", "--no-cache")
    assert run.returncode == 1, run
    return json.loads(run.stdout), str(root.resolve())


def test_output_validates_against_the_sarif_2_1_0_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    log, _ = _sarif(tmp_path)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(log)
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"  # not a SARIF level
    assert not jsonschema.Draft7Validator(schema).is_valid(broken)


def test_rules_cover_every_message_with_its_docs_page(tmp_path: Path) -> None:
    log, _ = _sarif(tmp_path)
    (run,) = log["runs"]  # type: ignore[index]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [m.msgid for m in MESSAGES]
    for rule, spec in zip(rules, MESSAGES, strict=True):
        assert rule["name"] == spec.symbol
        assert rule["helpUri"] == f"{DOCS_URL}/{spec.symbol}.md"
        assert (DOCS / f"{spec.symbol}.md").is_file()  # the page the URI names exists
        assert rule["shortDescription"]["text"] == spec.description


def test_the_result_spans_the_name_in_1_based_utf16_columns(tmp_path: Path) -> None:
    log, root = _sarif(tmp_path)
    (run,) = log["runs"]  # type: ignore[index]
    (result,) = run["results"]
    spec = BY_SYMBOL["rpc-unanswered"]
    assert (result["ruleId"], result["level"]) == (spec.msgid, "error")
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == spec.msgid
    assert "'no_such_rpc'" in result["message"]["text"]
    (location,) = result["locations"]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "app.py", "uriBaseId": "PROJECTROOT"}
    assert run["originalUriBaseIds"]["PROJECTROOT"]["uri"] == Path(root).as_uri() + "/"
    line = PLANTED.rstrip("\n")
    start = line.index(NAME)
    assert physical["region"] == {
        "startLine": APP.count("\n") + 1,
        "startColumn": _utf16_column(line, start),
        "endLine": APP.count("\n") + 1,
        "endColumn": _utf16_column(line, start + len(NAME)),
    }
    # The three column conventions really differ on this line.
    assert _utf16_column(line, start) - 1 != start != len(line[:start].encode())


# --- URIs: names a URI must encode, links outside the roots

# Folder and file names a URI must encode: a space, '#', '%', '?', ':' and non-ASCII
# letters. Folders of source roots may hold any of them; module files only identifiers.
ODD = "in #1 %41 ?x: ü"
FAR = "../far #2 %42 ?y: é"
# A character of a URI reference (RFC 3986): unreserved, sub-delims, ':', '@', '/', '?',
# '#', or a percent-encoded octet. Nothing else may appear raw.
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-F]{2})*")
CALLER = 'class Far:\n    def run(self):\n        self.mgr.call_func("far_rpc", wait_out=True)\n'


def _odd_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project whose files sit in folders named :data:`ODD` (a source root inside the
    project) and :data:`FAR` (one outside it), each with a finding."""
    config = PYPROJECT.replace(
        "[tool.rpcsurface]\n",
        f"[tool.rpcsurface]\nsource-roots = {json.dumps([ODD, FAR])}\n",
    ).replace('callers = ["app.Core"]', 'callers = ["ünï.Core", "far.Far"]')
    config = config.replace('"app.', '"ünï.')
    root = project(
        tmp_path / "proj ü #%",
        {
            "pyproject.toml": config,
            f"{ODD}/ünï.py": APP + PLANTED,
            f"{FAR}/far.py": CALLER,
        },
    )
    return root, root / ODD / "ünï.py", (root / FAR / "far.py").resolve()


def _locations(log: dict[str, Any]) -> list[dict[str, str]]:
    (run,) = log["runs"]
    return [
        result["locations"][0]["physicalLocation"]["artifactLocation"] for result in run["results"]
    ]


def test_uris_are_percent_encoded_and_decode_back_to_the_paths(tmp_path: Path) -> None:
    root, inside, outside = _odd_project(tmp_path)
    run = run_check(root, "--format", "sarif", "--no-cache")
    assert run.returncode == 1, run
    log = json.loads(run.stdout)
    base = log["runs"][0]["originalUriBaseIds"]["PROJECTROOT"]["uri"]
    locations = _locations(log)
    uris = {location["uri"] for location in locations}
    assert len(uris) == 2, locations  # one finding in each file
    for uri in [base, *uris]:
        assert _URI_CHARS.fullmatch(uri), uri  # nothing raw, so a uri-reference
        parts = urlsplit(uri)
        assert (parts.query, parts.fragment) == ("", ""), uri  # '?' and '#' encoded
    relative = [loc for loc in locations if loc.get("uriBaseId") == "PROJECTROOT"]
    absolute = [loc for loc in locations if "uriBaseId" not in loc]
    assert len(relative) >= 1, locations
    assert len(absolute) >= 1, locations
    for location in relative:
        parts = urlsplit(location["uri"])
        assert parts.scheme == "", location  # the ':' in a folder name starts no scheme
        assert unquote(location["uri"]) == inside.relative_to(root).as_posix()
    for location in absolute:
        parts = urlsplit(location["uri"])
        assert parts.scheme == "file", location
        assert unquote(parts.path) == outside.as_posix()
    assert urlsplit(base).scheme == "file"
    assert unquote(urlsplit(base).path) == root.resolve().as_posix() + "/"


def _rfc3986_reference(value: object) -> bool:
    """A focused uri-reference check, for when jsonschema has no checker of its own for
    it: only RFC 3986's characters, and a scheme, if any, of its grammar."""
    if not isinstance(value, str):
        return True
    scheme = urlsplit(value).scheme
    return bool(_URI_CHARS.fullmatch(value)) and (
        not scheme or re.fullmatch(r"[A-Za-z][A-Za-z0-9+.\-]*", scheme) is not None
    )


def test_uris_validate_with_the_schemas_format_checking(tmp_path: Path) -> None:
    """With format checking on. jsonschema checks uri-reference only when
    rfc3986-validator or rfc3987 is installed, which the test extras don't ask for;
    without either, :func:`_rfc3986_reference` stands in for it."""
    jsonschema = pytest.importorskip("jsonschema")
    checker = jsonschema.FormatChecker()
    if "uri-reference" not in checker.checkers:
        checker.checks("uri-reference")(_rfc3986_reference)
    root, _, _ = _odd_project(tmp_path)
    run = run_check(root, "--format", "sarif", "--no-cache")
    log = json.loads(run.stdout)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=checker)
    validator.validate(log)
    raw = json.loads(run.stdout)  # the URI as it was written before: not a uri-reference
    location = _locations(raw)[0]
    location["uri"] = unquote(location["uri"])
    assert not validator.is_valid(raw)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
@pytest.mark.parametrize("via", ["source-root", "project-folder"])
def test_a_symlinked_root_keeps_uris_relative(tmp_path: Path, via: str) -> None:
    """A source root that is a symlink to a folder elsewhere (``src -> ../elsewhere``),
    or a project reached through a link (``--config link/pyproject.toml``): the files
    are under the root as the configuration names it, so their URIs are relative."""
    elsewhere = project(tmp_path / "elsewhere", {"app.py": APP + PLANTED})
    config = PYPROJECT.replace("[tool.rpcsurface]\n", '[tool.rpcsurface]\nsource-roots = ["src"]\n')
    root = project(tmp_path / "proj", {"pyproject.toml": config})
    (root / "src").symlink_to(elsewhere, target_is_directory=True)
    args: tuple[str, ...] = ()
    cwd = root
    if via == "project-folder":
        (tmp_path / "link").symlink_to(root, target_is_directory=True)
        args, cwd = ("--config", str(tmp_path / "link" / "pyproject.toml")), tmp_path
    run = run_check(cwd, "--format", "sarif", "--no-cache", *args)
    assert run.returncode == 1, run
    log = json.loads(run.stdout)
    (location,) = _locations(log)
    assert location == {"uri": "src/app.py", "uriBaseId": "PROJECTROOT"}
    base = log["runs"][0]["originalUriBaseIds"]["PROJECTROOT"]["uri"]
    target = Path(unquote(urlsplit(base + location["uri"]).path))
    assert target.resolve() == (elsewhere / "app.py").resolve()

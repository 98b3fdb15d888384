"""`rpcsurface check --format sarif`: valid SARIF 2.1.0, rules with help URIs, exact regions."""

from __future__ import annotations

import json
from pathlib import Path

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

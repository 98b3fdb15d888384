"""The memo decodes a stored piece when a run asks for it, and writes back a piece it
reused as it was read (``engine.memo``).

A stored piece that does not decode (a type the memo never writes, nested too deeply,
an int out of range, an unknown dataclass) is a miss for its key alone: the other pieces
still hit, the answer is the one of ``--no-cache``, and the bad value is never returned
nor written back. Unit tests on :class:`Memo` with a file, then the engine and the real
``rpcsurface check`` on a small project.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from support import EDITOR_FILES, project, run_check

from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.engine import Facts, Memo, surface_facts
from pylint_rpcsurface.engine.memo import checker
from pylint_rpcsurface.model import Analysis, Answers, Location, Registry, RegistryElement

IDENTITY = "the test's identity"
HERE = Location("core.py", 3, 4, 3, 9)
# One piece of each shape the memo stores: a dataclass nesting others, a frozenset, plain
# tuples.
PIECES: dict[str, Any] = {
    "registry": Registry("registry.FAST", HERE, (RegistryElement("prefill", "'p'", HERE),)),
    "answers": Answers(("runners.Fast",), frozenset({"b", "a"}), True, ()),
    "direct core.py\0d1": frozenset({"runners.py", "registry.py"}),
    "direct runners.py\0d2": frozenset({"base.py", "util.py"}),
    "pragmas": (("rpc-unanswered", 3, None),),
}
# A stored value the memo never writes, each as JSON text: of a type it never writes, an
# object it never writes, nested deeper than any fact, an int out of the 64-bit range, a
# dataclass it does not build, a dataclass with a field too many.
FORGED = {
    "float": "1.5",
    "object": '{"set":["a"]}',
    "deep": "[" * 100 + "]" * 100,
    "big int": str(2**70),
    "unknown type": '{"type":"Popen","fields":["ls"]}',
    "wrong fields": '{"type":"Location","fields":["a",1,2,3,4,5]}',
}


def _not_called() -> Any:
    raise AssertionError("computed, though the piece is stored")


def _saved(file: Path, pieces: dict[str, Any]) -> dict[str, Any]:
    """Write *pieces* as a run that computed them does; the file's facts as JSON."""
    memo = Memo(file, IDENTITY)
    for key, value in pieces.items():
        memo.get(key, lambda value=value: value)
    memo.save()
    facts: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))["facts"]
    assert set(facts) == set(pieces)
    return facts


def _forge(file: Path, texts: dict[str, str]) -> None:
    """Store each piece of *texts* (key to JSON text) as that text, the others unchanged:
    a piece kept under what it read has its newest version's value forged."""
    stored = json.loads(file.read_text(encoding="utf-8"))
    for key, text in texts.items():
        if key in stored["pieces"]:
            stored["pieces"][key][0][1] = json.loads(text)
        else:
            stored["facts"][key] = json.loads(text)
    file.write_text(json.dumps(stored, separators=(",", ":")), encoding="utf-8")


def _facts_text(file: Path) -> dict[str, str]:
    """Each stored piece's JSON text, as the memo writes it."""
    facts = json.loads(file.read_text(encoding="utf-8"))["facts"]
    return {key: json.dumps(value, separators=(",", ":")) for key, value in facts.items()}


# ---------------------------------------------------------------- Memo, with a file


@pytest.mark.parametrize("shape", sorted(FORGED))
def test_a_piece_that_does_not_decode_is_a_miss_for_its_key_only(
    tmp_path: Path, shape: str
) -> None:
    file = tmp_path / "memo.json"
    _saved(file, PIECES)
    _forge(file, {"answers": FORGED[shape]})
    memo = Memo(file, IDENTITY)
    recomputed = Answers(("runners.Fast",), frozenset({"c"}), False, ())
    assert memo.get("answers", lambda: recomputed) is recomputed
    assert memo.get("registry", _not_called) == PIECES["registry"]
    assert memo.get("pragmas", _not_called) == PIECES["pragmas"]
    assert memo.get("answers", _not_called) is recomputed  # once computed, kept


def test_pieces_decode_to_what_was_stored(tmp_path: Path) -> None:
    file = tmp_path / "memo.json"
    _saved(file, PIECES)
    memo = Memo(file, IDENTITY)
    assert {key: memo.get(key, _not_called) for key in PIECES} == PIECES


def test_a_reused_piece_is_written_back_as_it_was_read(tmp_path: Path) -> None:
    """Read as stored, not decoded and encoded again: a frozenset stored unsorted (the
    memo sorts what it encodes) stays unsorted, byte for byte."""
    file = tmp_path / "memo.json"
    _saved(file, PIECES)
    unsorted = {
        "answers": '{"type":"Answers","fields":[["runners.Fast"],{"frozenset":["b","a"]},true,[]]}',
        "direct runners.py\0d2": '{"frozenset":["util.py","base.py"]}',
    }
    _forge(file, unsorted)
    before = _facts_text(file)
    memo = Memo(file, IDENTITY)
    assert memo.get("answers", _not_called) == PIECES["answers"]
    memo.put("direct runners.py\0d2", memo.get("direct runners.py\0d2", _not_called))
    memo.get("registry", _not_called)
    memo.get("new", lambda: ("computed", 1))  # a miss: the memo is written
    memo.save()
    after = _facts_text(file)
    assert set(after) == {"answers", "direct runners.py\0d2", "registry", "new"}
    for key in ("answers", "direct runners.py\0d2", "registry"):
        assert after[key] == before[key], key
    assert after["answers"] == unsorted["answers"]
    assert after["new"] == '["computed",1]'


@pytest.mark.parametrize("shape", sorted(FORGED))
def test_a_piece_that_does_not_decode_is_not_written_back(tmp_path: Path, shape: str) -> None:
    file = tmp_path / "memo.json"
    stored = _saved(file, PIECES)
    _forge(file, dict.fromkeys(("answers", "registry", "pragmas"), FORGED[shape]))
    memo = Memo(file, IDENTITY)
    memo.get("answers", lambda: PIECES["answers"])  # computed again
    memo.get("registry", lambda: PIECES["registry"])
    memo.get("direct core.py\0d1", _not_called)
    memo.save()
    after = json.loads(file.read_text(encoding="utf-8"))["facts"]
    # Not asked for: not kept (as any piece this run did not use); asked for: computed.
    assert set(after) == {"answers", "registry", "direct core.py\0d1"}
    assert after["answers"] == stored["answers"]
    assert after["registry"] == stored["registry"]


def test_a_piece_put_with_another_value_is_written_with_it(tmp_path: Path) -> None:
    """A stored piece that decodes to something else than what the engine puts (a
    frozenset stored as a list): written with the value put."""
    file = tmp_path / "memo.json"
    stored = _saved(file, PIECES)
    _forge(file, {"direct core.py\0d1": '["runners.py"]'})
    memo = Memo(file, IDENTITY)
    assert memo.get("direct core.py\0d1", _not_called) == ("runners.py",)
    memo.put("direct core.py\0d1", PIECES["direct core.py\0d1"])
    memo.save()
    after = json.loads(file.read_text(encoding="utf-8"))["facts"]
    assert after == {"direct core.py\0d1": stored["direct core.py\0d1"]}


def test_a_run_that_only_reuses_writes_nothing(tmp_path: Path) -> None:
    file = tmp_path / "memo.json"
    _saved(file, PIECES)
    os.utime(file, ns=(1, 1))
    memo = Memo(file, IDENTITY)
    for key in PIECES:
        memo.get(key, _not_called)
    memo.save()
    assert file.stat().st_mtime_ns == 1


# ---------------------------------------------------------------- the engine


def _editor_project(root: Path) -> Path:
    """The editor's three modules; the caller imports the other two (its "direct "
    piece lists both) and the registry lacks the one RPC (a finding)."""
    files = {
        **EDITOR_FILES,
        "core.py": "import registry\nimport runners\n" + EDITOR_FILES["core.py"],
        "registry.py": "FAST_RPCS = ()\n",
    }
    return project(Path(os.path.realpath(root)), files)


def _answer(analysis: Analysis) -> tuple[object, ...]:
    return (analysis.config_errors, analysis.all_findings())


def _values(file: Path) -> dict[str, Any]:
    """Each piece the memo file holds, by key: a piece kept under what it read as its
    newest version's value (what it read may be recorded differently when the other
    pieces come from the memo)."""
    stored = json.loads(file.read_text(encoding="utf-8"))
    return {**stored["facts"], **{k: v[0][1] for k, v in stored["pieces"].items()}}


def _kind(key: str) -> str:
    return str(json.loads(key)[0])


def _forged_run(tmp_path: Path, kind: str, text: str) -> tuple[Facts, dict[str, Any]]:
    """A memo of the editor project whose first piece of *kind* is stored as *text*,
    used by a run that must give the answer from nothing; that run's facts, and the
    pieces as the first run stored them."""
    root = _editor_project(tmp_path / "proj")
    config = load_config(root / "pyproject.toml")
    expected = _answer(surface_facts(config).analysis())
    file = tmp_path / "memo.json"
    surface_facts(config, memo=Memo(file, IDENTITY)).analysis()
    stored = _values(file)
    forged = next(key for key in stored if _kind(key) == kind)
    _forge(file, {forged: text})
    facts = surface_facts(config, memo=Memo(file, IDENTITY))
    assert _answer(facts.analysis()) == expected
    return facts, stored


@pytest.mark.parametrize("shape", sorted(FORGED))
def test_the_engine_recomputes_only_the_forged_piece(tmp_path: Path, shape: str) -> None:
    facts, stored = _forged_run(tmp_path, "answers", FORGED[shape])
    file = tmp_path / "memo.json"
    # The forged piece alone is computed again: the names the handler classes bind, read
    # from their module, the one built; every other piece is reused.
    assert [os.path.basename(path) for path in facts.counts.built] == ["runners.py"]
    assert facts.counts.computed == 1
    # Written back: the forged piece as computed again, every other one as stored.
    assert _values(file) == stored


def test_every_stored_piece_is_written_as_the_memo_encodes_it(tmp_path: Path) -> None:
    """What the engine stores decodes, and encodes back to the same JSON: the field
    names the encoder keeps per dataclass are those the decoder builds from."""
    root = _editor_project(tmp_path / "proj")
    config = load_config(root / "pyproject.toml")
    file = tmp_path / "memo.json"
    surface_facts(config, memo=Memo(file, IDENTITY)).analysis()
    before = file.read_bytes()
    text = before.decode()
    for name in ("Broadcast", "Location", "HandlerMethod", "Answers", "Registry"):
        assert f'"type":"{name}"' in text, name
    # Every piece used again, each given as the run that computed it would: one miss.
    memo = Memo(file, IDENTITY)
    stored = json.loads(text)["facts"]
    values = {key: memo.get(key, _not_called) for key in stored}
    memo.get("new", lambda: 1)
    memo.save()
    again = Memo(file, IDENTITY)
    fresh = Memo(tmp_path / "fresh.json", IDENTITY)
    for key, value in values.items():
        assert again.get(key, _not_called) == value
        fresh.get(key, lambda value=value: value)
    fresh.save()
    encoded = json.loads((tmp_path / "fresh.json").read_text(encoding="utf-8"))["facts"]
    assert encoded == stored


# ---------------------------------------------------------------- rpcsurface check


def _memo_file(cache_home: Path) -> Path:
    (found,) = cache_home.glob("*/store-*.json")
    return found


def _check(root: Path, *extra: str, env: dict[str, str] | None = None) -> list[object]:
    run = run_check(root, "--format", "json", *extra, env=env, timeout=120)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    return sorted((m.symbol, m.path, m.line, m.text) for m in run.messages)


@pytest.fixture(scope="module")
def checked_cold(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[object]]:
    """The editor project, the cache folder its cold check filled, and the findings of
    ``--no-cache``: the same first two runs for every forged shape, made once. The
    project is never edited."""
    top = tmp_path_factory.mktemp("forged")
    root = _editor_project(top / "proj")
    home = top / "cache"
    home.mkdir(mode=0o700)
    expected = _check(root, "--no-cache")
    assert expected, "the fixture plants a finding"
    _check(root, env={"RPCSURFACE_CACHE_DIR": str(home)})  # the cold run writes the memo
    return root, home, expected


@pytest.mark.parametrize("shape", ["float", "deep", "big int", "unknown type"])
def test_check_with_a_forged_piece_answers_as_without_the_cache(
    checked_cold: tuple[Path, Path, list[object]], cache_home: Path, shape: str
) -> None:
    """The real console script: a forged piece is computed again and stored as computed,
    and the findings are those of ``--no-cache``."""
    root, home, expected = checked_cold
    shutil.copytree(home, cache_home, dirs_exist_ok=True)  # this test's own copy
    memo_file = _memo_file(cache_home)
    cold = _values(memo_file)
    forged = next(key for key in cold if _kind(key) == "answers")
    _forge(memo_file, {forged: FORGED[shape]})
    # Without its stored findings the run goes to the engine, and the engine to the memo
    # (deleting the file, as this did, took the memo and the forged piece with it).
    stored = json.loads(memo_file.read_text(encoding="utf-8"))
    del stored["findings"]
    memo_file.write_text(json.dumps(stored, separators=(",", ":")), encoding="utf-8")
    assert _check(root) == expected
    after = _values(memo_file)
    assert after[forged] == cold[forged]  # computed again, not the forged value
    assert after == cold


# A stored value that decodes, but is not of the shape its kind of piece has: a string, a
# fact where plain data is kept (and plain data where a fact is), and a fact one of whose
# fields holds a value of another type.
MISSHAPEN = {
    "a str": '"x"',
    "a location": '{"type":"Location","fields":["core.py",1,0,null,null]}',
    "a list of ints": "[1,2,3]",
    "a location with a str line": '{"type":"Location","fields":["core.py","1",0,null,null]}',
}
KINDS = (
    "resolve",
    "registry",
    "lineage",
    "module-callers",
    "broadcasts",
    "answers",
    "handler",
    "pragmas",
    "words-index",
)


@pytest.mark.parametrize("shape", sorted(MISSHAPEN))
@pytest.mark.parametrize("kind", KINDS)
def test_a_piece_of_another_shape_is_computed_again(tmp_path: Path, kind: str, shape: str) -> None:
    """Each kind of piece the engine stores, forged to a value that decodes but has
    another shape: the answer is the one without the memo, never a traceback."""
    facts, _ = _forged_run(tmp_path, kind, MISSHAPEN[shape])
    assert facts.counts.computed == 1  # the forged piece alone
    assert facts.counts.reused  # the memo's other pieces still serve


CHECKED = [
    (1, int, True),
    (True, int, False),  # JSON tells a bool from an int
    (1, bool, False),
    (None, int | None, True),
    ("1", int | None, False),
    (("a", "b"), tuple[str, ...], True),
    (("a", 1), tuple[str, ...], False),
    (("a", 1), tuple[str, int], True),
    (("a",), tuple[str, int], False),
    (frozenset({"a"}), frozenset[str], True),
    (frozenset({1}), frozenset[str], False),
    (["a"], tuple[str, ...], False),
    (HERE, Location, True),
    ("x", Location | None, False),
]


@pytest.mark.parametrize(("value", "hint", "holds"), CHECKED)
def test_checker_tells_each_type_the_facts_use(value: object, hint: Any, holds: bool) -> None:
    assert checker(hint)(value) is holds


def test_a_fact_with_a_field_of_another_type_is_a_miss(tmp_path: Path) -> None:
    """An Answers whose `complete` is 1 decodes as JSON, but is not one: a miss."""
    file = tmp_path / "memo.json"
    _saved(file, {"answers": PIECES["answers"]})
    _forge(
        file, {"answers": '{"type":"Answers","fields":[["runners.Fast"],{"frozenset":["a"]},1,[]]}'}
    )
    memo = Memo(file, IDENTITY)
    assert memo.get("answers", lambda: "computed") == "computed"

"""The fuzz target over file and name shapes, on a bounded budget (docs/reliability.md,
section 9): odd files, encodings, hostile names, starred and conditional bases.

Every example runs the real ``rpcsurface`` console script and pylint (tests/fuzz_shapes.py
has the generator and the oracles): seven to ten runs of about half a second each. The
default run is a fixed set of projects that lay every shape at least once, plus a few
derandomized random ones (the same every run, so CI is reproducible);
``RPCSURFACE_FUZZ_EXAMPLES=N`` draws N fresh random ones. scripts/fuzz.py runs long
campaigns and writes each failure's reproducer to a folder.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import fuzz_shapes as fz
import pytest
from hypothesis import HealthCheck, given, settings

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "fuzz.py"
_BIG = os.environ.get("RPCSURFACE_FUZZ_EXAMPLES")
RANDOM = settings(
    max_examples=int(_BIG) if _BIG else 4,
    deadline=None,
    database=None,
    derandomize=not _BIG,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _explained(spec: fz.Spec, examined: fz.Examined) -> str:
    lines = [f"spec = {spec!r}"] + [f"* {p.kind}: {p.detail}" for p in examined.problems]
    return "\n".join(lines)


def _examine(spec: fz.Spec) -> None:
    with tempfile.TemporaryDirectory() as folder:
        examined = fz.examine(spec, Path(folder) / "project", twin_root=Path(folder) / "twin")
    assert not examined.problems, _explained(spec, examined)


COVERING = fz.covering()


@pytest.mark.parametrize("spec", COVERING, ids=[f"covering-{i}" for i in range(len(COVERING))])
def test_projects_laying_every_shape_keep_every_oracle(spec: fz.Spec) -> None:
    """Each shape not pending a fix on another branch, in at least one of these projects:
    every run ends promptly with a documented status, no traceback, valid JSON, no raw
    control character, pylint's findings equal check's, a second run and the cache agree,
    and the project gives what its twin gives (the relations of tests/fuzz_shapes.py)."""
    _examine(spec)


@pytest.mark.slow  # a random fuzz campaign; the covering projects above stay in the default run
@RANDOM
@given(fz.specs())
def test_random_projects_keep_every_oracle(spec: fz.Spec) -> None:
    """The same oracles on random projects with random shapes."""
    _examine(spec)


# ---------------------------------------------------------------------------
# The fuzzer's own parts: no subprocess, milliseconds.

UNIVERSE = {
    *fz.BASE_FORMS,
    *fz.MODULE_SHAPES,
    *fz.EXTRA_SHAPES,
    *fz.HOSTILE_NAMES,
    *fz.HOSTILE_CLASSES,
    *fz.ALIAS_CHAINS,
    *fz.CACHE_SHAPES,
    *fz.PATCHES,
    *fz.LIVED,
}


def test_the_covering_projects_lay_every_shape_not_pending() -> None:
    laid = set().union(*(spec.shapes for spec in COVERING))
    assert UNIVERSE - fz.PENDING_FIXES - laid == set()
    assert laid & fz.PENDING_FIXES == set()
    every = set().union(*(spec.shapes for spec in fz.covering(frozenset())))
    assert UNIVERSE - every == set()


def test_every_pending_fix_names_a_shape() -> None:
    assert fz.PENDING_FIXES <= UNIVERSE


def _bytes(module: str, text: str, shape: str) -> bytes:
    shaped = fz._shaped(module, text, shape)
    if isinstance(shaped, str):
        return shaped.encode("utf-8")
    assert isinstance(shaped, bytes), shaped
    return shaped


def test_the_shapes_on_the_projects_files_are_what_they_say() -> None:
    """Each module shape gives the bytes it promises, on the module's own text."""
    text = fz._core(COVERING[0])
    assert _bytes("core", text, "module:crlf").count(b"\r\n") == text.count("\n")
    assert b"\n" not in _bytes("core", text, "module:cr")
    assert _bytes("core", text, "module:utf8-bom")[:3] == b"\xef\xbb\xbf"
    assert _bytes("core", text, "module:utf16")[:2] in (b"\xff\xfe", b"\xfe\xff")
    with pytest.raises(UnicodeDecodeError):
        _bytes("core", text, "module:undecodable").decode("utf-8")
    assert b"\x00" in _bytes("core", text, "module:nul")
    small = "# core: written by the fuzzer\nX = 1\n" + fz.TAIL.format(module="core")
    latin = _bytes("core", small, "module:latin1-cookie")
    assert latin.startswith(b"# -*- coding: latin-1 -*-\n")
    assert "café".encode("latin-1") in latin
    assert isinstance(fz._shaped("core", text, "module:fifo"), fz.Fifo)
    for shape in fz.SAME_MODULE:
        decoded = _bytes("core", text, shape).decode("latin-1")
        assert len(re.split(r"\r\n|\r|\n", decoded)) == len(text.split("\n")), shape


@pytest.mark.parametrize("form", fz.BASE_FORMS)
def test_every_base_form_keeps_the_lines_of_the_class_body(form: str) -> None:
    """A form and its twin put every call on the same line, so findings compare as equal."""
    sub = fz.Sub("Sub0", -1, form, (("alpha", True, False),))
    spec = fz.Spec(frozenset(), frozenset(), (), (), False, (sub,))
    plain = fz.Spec(frozenset(), frozenset(), (), (), False, (replace(sub, form="base:plain"),))
    shaped, twin = fz._subs(spec).splitlines(), fz._subs(plain).splitlines()
    assert len(shaped) == len(twin)
    assert [i for i, line in enumerate(shaped) if "call_func" in line] == [
        i for i, line in enumerate(twin) if "call_func" in line
    ]


def test_raw_controls_names_what_a_terminal_would_act_on() -> None:
    assert fz.raw_controls("ok\ttab\nnewline é 🚀") == []
    assert fz.raw_controls("a\x1b[31m") == ["'\\x1b'"]
    assert fz.raw_controls("ad\u202emin") == ["'\\u202e'"]
    assert fz.raw_controls("x\rx\x85\u2028") == ["'\\r'", "'\\u2028'", "'\\x85'"]


def test_a_reproducer_holds_the_project_its_twin_and_what_broke(tmp_path: Path) -> None:
    spec = replace(
        COVERING[1],
        modules=(("subs", "module:fifo"),),
        extras=(fz.Extra("x0.py", "extra:dev-zero", True),),
    )
    problem = fz.Problem("relation: findings differ from the twin's", "here only: ...")
    readme = fz.reproducer(spec, [problem], tmp_path / "01-relation")
    text = readme.read_text(encoding="utf-8")
    assert f"spec = {spec!r}" in text
    assert "* relation: findings differ from the twin's: here only: ..." in text
    assert "rpcsurface check --format json" in text
    project = tmp_path / "01-relation" / "project"
    assert stat.S_ISFIFO((project / "subs.py").lstat().st_mode)
    assert os.readlink(project / "x0.py") == "/dev/zero"
    twin = tmp_path / "01-relation" / "twin"
    assert (twin / "subs.py").read_text(encoding="utf-8") == "# Core\n" + fz.SYNTAX_ERROR


def test_the_campaign_script_runs_and_counts_its_examples(tmp_path: Path) -> None:
    """scripts/fuzz.py on a budget of one example, with a fixed seed."""
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--examples", "1", "--seed", "1", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.startswith("seed 1; pending shapes left out: "), completed.stdout
    assert "\n1 examples (shrinking included) in 1 rounds" in completed.stdout, completed.stdout
    assert ": 0 failure(s)\n" in completed.stdout, completed.stdout
    assert list(tmp_path.iterdir()) == []

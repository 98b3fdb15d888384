"""bench/run.py's checks of each run (exit status, findings) and its report, without timing
anything: the runs here are tiny stand-ins, never pylint over a generated project."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support import load_bench_script

run = load_bench_script("run")

PLANTED = [["rpc-unanswered", "pkg/b.py", 7], ["rpc-unlisted", "pkg/a.py", 3]]


@pytest.fixture
def site(tmp_path: Path) -> object:
    manifest = {"expected_findings": PLANTED, "modules": 10, "lines": 100}
    return run.Site(1.0, tmp_path, manifest)


def json2(site: object, findings: list[list[object]]) -> str:
    messages = [
        {"symbol": s, "absolutePath": str(site.path / p), "line": n}  # type: ignore[attr-defined]
        for s, p, n in findings
    ]
    return json.dumps({"messages": messages, "statistics": {}})


def sample(returncode: int, stdout: str = "", stderr: str = "") -> object:
    return run.Sample(1.0, 1000, returncode, stdout, stderr)


OURS = run.Command("ours", ("python",), "ours")
BASE = run.Command("base", ("python",), "baseline")
CHECK = run.Command("check", ("rpcsurface", "check"), "check")


@pytest.mark.parametrize("code", [2, 4, 6])
def test_pylint_findings_bits_pass(site: object, code: int) -> None:
    run.validate(site, OURS, sample(code, json2(site, PLANTED)))


@pytest.mark.parametrize("code", [1, 5, 32, 36, -9])
def test_pylint_fatal_usage_or_killed_aborts(site: object, code: int) -> None:
    with pytest.raises(run.Abort, match=rf"pylint exited {code};"):
        run.validate(site, OURS, sample(code, json2(site, PLANTED)))


def test_findings_must_equal_the_planted_ones(site: object) -> None:
    with pytest.raises(run.Abort, match=r"missing \[\('rpc-unanswered', 'pkg/b.py', 7\)\]"):
        run.validate(site, OURS, sample(4, json2(site, PLANTED[1:])))
    extra = [*PLANTED, ["rpc-unlisted", "pkg/c.py", 1]]
    with pytest.raises(run.Abort, match=r"extra \[\('rpc-unlisted', 'pkg/c.py', 1\)\]"):
        run.validate(site, OURS, sample(6, json2(site, extra)))


def test_stdin_run_is_compared_in_its_own_file_only(site: object) -> None:
    one = run.Command("stdin", ("python",), "ours", only="pkg/a.py")
    run.validate(site, one, sample(4, json2(site, PLANTED[1:])))
    with pytest.raises(run.Abort, match="missing"):
        run.validate(site, one, sample(0, json2(site, [])))


def test_baseline_findings_are_not_compared(site: object) -> None:
    unused = [["unused-import", "pkg/z.py", 1]]
    run.validate(site, BASE, sample(4, json2(site, unused)))


def test_not_json2_or_a_traceback_aborts(site: object) -> None:
    with pytest.raises(run.Abort, match="not a json2 report"):
        run.validate(site, OURS, sample(4, "************* Module a"))
    crash = "Traceback (most recent call last):\n  ...\nRecursionError: too deep\n"
    with pytest.raises(run.Abort, match=r"crashed .*RecursionError"):
        run.validate(site, OURS, sample(4, json2(site, PLANTED), crash))


def test_check_output_exit_status_and_findings(site: object) -> None:
    lines = [
        f"{site.path / 'pkg/a.py'}:3:8: rpc-unlisted: 'x' is waited on by ...",  # type: ignore[attr-defined]
        "pkg/b.py:7:8: rpc-unanswered: 'y' is broadcast by ...",
    ]
    run.validate(site, CHECK, sample(1, "\n".join(lines)))
    with pytest.raises(run.Abort, match="rpcsurface check exited 2"):
        run.validate(site, CHECK, sample(2, "\n".join(lines)))
    with pytest.raises(run.Abort, match="exited 0 with 2 findings"):
        run.validate(site, CHECK, sample(0, "\n".join(lines)))
    with pytest.raises(run.Abort, match="missing"):
        run.validate(site, CHECK, sample(1, lines[0]))


def test_a_run_is_a_real_child_measured_and_cold_deletes_the_cache(site: object) -> None:
    cache = site.path / run.CACHE  # type: ignore[attr-defined]
    cache.mkdir()
    (cache / "entry").write_text("x", encoding="utf-8")
    grow = "b = bytearray(64 * 1024 * 1024); print(len(b))"
    cold = run.Command("grow", (sys.executable, "-c", grow), "parse", cold=True)
    measured = run.run_once(site, cold)
    assert not cache.exists()
    assert measured.stdout.strip() == str(64 * 1024 * 1024)
    assert measured.rss_kib >= 64 * 1024  # the child's own peak, in KiB
    assert measured.seconds > 0
    failing = run.Command("fail", (sys.executable, "-c", "raise SystemExit(3)"), "parse")
    with pytest.raises(run.Abort, match="exited 3; expected 0"):
        run.run_once(site, failing)


def test_warm_runs_once_unmeasured_after_each_deletion(site: object) -> None:
    counter = site.path / "count"  # type: ignore[attr-defined]
    bump = "import pathlib; p = pathlib.Path('count'); p.write_text(p.read_text() + 'x')"
    counter.write_text("", encoding="utf-8")
    warm = run.Command("warm", (sys.executable, "-c", bump), "parse", warm=True)
    cold = run.Command("cold", (sys.executable, "-c", "pass"), "parse", cold=True)
    run.measure(site, warm)  # never warmed: one unmeasured run first
    assert counter.read_text("utf-8") == "xx"
    run.measure(site, warm)  # still warm
    assert counter.read_text("utf-8") == "xxx"
    run.measure(site, cold)  # deletes the cache
    run.measure(site, warm)
    assert counter.read_text("utf-8") == "xxxxx"


def pair(site: object, modules: int, ours: float, base: float) -> object:
    manifest = {"expected_findings": PLANTED, "modules": modules, "lines": modules * 450}
    where = run.Site(modules / 400, site.path, manifest)  # type: ignore[attr-defined]
    p = run.Pair("tree", where, OURS, BASE, 1.1)
    p.a = [run.Sample(ours, 0, 0, "", "")]
    p.b = [run.Sample(base, 0, 0, "", "")]
    return p


def test_growth_is_judged_by_the_exponent_of_the_overhead(site: object) -> None:
    linear = [pair(site, 400, 11, 10), pair(site, 2800, 77, 70)]  # overhead 1 s -> 7 s
    lines, verdict = run.growth(linear)
    assert verdict.startswith("yes: overhead grows as modules^1.00")
    assert "| 1x | 400 | 180000 | 11.00 | 10.00 | +1.00 | +2.50 |" in lines
    worse = [pair(site, 400, 11, 10), pair(site, 2800, 84, 70)]  # overhead 1 s -> 14 s
    assert run.growth(worse)[1].startswith("**no**: overhead grows as modules^1.36")
    assert run.growth(worse[:1])[1] == "n/a (one scale only)"


def test_table_marks_unmet_targets_and_missing_cli(site: object) -> None:
    met = pair(site, 400, 10.5, 10)
    unmet = pair(site, 400, 13.2, 10)
    absent = run.Pair("check", met.site, None, BASE, 2.0)
    rows = run.table([met, unmet, absent], None)
    assert rows[2].endswith("| 1.05 | ≤ 1.1 | yes |")
    assert rows[3].endswith("| 1.32 | ≤ 1.1 | **no** (by 20%) |")
    assert run.NO_CLI in rows[4]


def test_growth_by_check_takes_the_check_run_itself_as_the_overhead(site: object) -> None:
    # numerator: the cold check; denominator: ast.parse, shown for scale only
    linear = [pair(site, 400, 2, 1), pair(site, 2800, 14, 7)]
    lines, verdict = run.growth(linear, by_check=True)
    assert verdict.startswith("yes: overhead grows as modules^1.00")
    assert "| 1x | 400 | 180000 | 2.00 | 1.00 | +2.00 | +5.00 |" in lines
    worse = [pair(site, 400, 2, 1), pair(site, 2800, 28, 7)]
    assert run.growth(worse, by_check=True)[1].startswith("**no**: overhead grows as modules^1.36")

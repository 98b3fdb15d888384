"""bench/run.py's checks of each run (exit status, findings) and its report, without timing
anything: the runs here are tiny stand-ins, never pylint over a generated project."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import os
import re
import shutil
import sys
import zipfile
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
    just_over = pair(site, 400, 11.012, 10)  # 1.1012: shown as 1.10, over by 0.1%
    absent = run.Pair("check", met.site, None, BASE, 2.0)
    rows = run.table([met, unmet, just_over, absent], None)
    assert rows[2].endswith("| 1.05 | ≤ 1.1 | yes |")
    assert rows[3].endswith("| 1.32 | ≤ 1.1 | **no** (by 20%) |")
    assert rows[4].endswith("| 1.10 | ≤ 1.1 | **no** (by 0.1%) |")
    assert run.NO_CLI in rows[5]


def test_growth_by_check_takes_the_check_run_itself_as_the_overhead(site: object) -> None:
    # numerator: the cold check; denominator: ast.parse, shown for scale only
    linear = [pair(site, 400, 2, 1), pair(site, 2800, 14, 7)]
    lines, verdict = run.growth(linear, by_check=True)
    assert verdict.startswith("yes: overhead grows as modules^1.00")
    assert "| 1x | 400 | 180000 | 2.00 | 1.00 | +2.00 | +5.00 |" in lines
    worse = [pair(site, 400, 2, 1), pair(site, 2800, 28, 7)]
    assert run.growth(worse, by_check=True)[1].startswith("**no**: overhead grows as modules^1.36")


# ---------------------------------------------------------------- the editor's rows

TWO_METHODS = (
    "class A:\n"
    "    def one(self):\n"
    "        return 1\n"
    "\n"
    "    def two(self, x):\n"
    "        return self.call('x', wait_out=True)  # expect: rpc-unlisted\n"
)


def test_edit_text_inserts_a_new_statement_in_a_method_after_the_middle() -> None:
    first, where = run.edit_text(TWO_METHODS, 7)
    assert where == "line 6, in method `two`"
    tree = ast.parse(first)
    [cls] = tree.body
    assert isinstance(cls, ast.ClassDef)
    two = cls.body[1]
    assert isinstance(two, ast.FunctionDef)
    assert two.name == "two"
    assert ast.unparse(two.body[0]) == "edited_7 = 7"  # the first statement of its body
    assert len(two.body) == 2  # and the method's own statement still follows
    assert first.splitlines()[:5] == TWO_METHODS.splitlines()[:5]  # nothing else moved
    second, _ = run.edit_text(first, 8)
    assert second != first  # a different statement every time
    assert "edited_8 = 8" in second
    assert "edited_7 = 7" in second
    # The marker moved down a line, and the expected findings read it there.
    assert run.markers("a.py", TWO_METHODS) == {("rpc-unlisted", "a.py", 6)}
    assert run.markers("a.py", first) == {("rpc-unlisted", "a.py", 7)}
    with pytest.raises(run.Abort, match="no method after the middle"):
        run.edit_text("x = 1\n" * 10 + "def f(self):\n    pass\n" + "y = 2\n" * 30, 1)


@pytest.fixture
def edit_site(tmp_path: Path) -> object:
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "a.py").write_text(TWO_METHODS, encoding="utf-8")
    (project / "pkg" / "h.py").write_text(TWO_METHODS.replace("  # expect: rpc-unlisted", ""))
    manifest = {
        "expected_findings": [["rpc-unlisted", "pkg/a.py", 6]],
        "modules": 2,
        "lines": 12,
        "largest_caller_module": "pkg/a.py",
        "handler_module": "pkg/h.py",
    }
    return run.Site(1.0, project, manifest)


COUNT_EDITS = (  # appends how many edits the file (argv[1]) or stdin ("-") holds
    "import sys, pathlib\n"
    "text = sys.stdin.read() if sys.argv[1] == '-' else pathlib.Path(sys.argv[1]).read_text()\n"
    "with open('../log', 'a') as log:\n"
    "    log.write(str(text.count('edited_')))\n"
)


def test_a_saved_edit_comes_after_an_unmeasured_run_and_is_put_back(edit_site: object) -> None:
    site = edit_site
    log = site.path.parent / "log"  # type: ignore[attr-defined]
    saved = (site.path / "pkg/a.py").read_bytes()  # type: ignore[attr-defined]
    caller = run.Command(
        "c", (sys.executable, "-c", COUNT_EDITS, "pkg/a.py"), "parse", edit="caller"
    )
    handler = run.Command(
        "h", (sys.executable, "-c", COUNT_EDITS, "pkg/h.py"), "parse", edit="handler"
    )
    run.measure(site, caller)
    assert log.read_text("utf-8") == "01"  # the unmeasured run saw the saved file; then 1 edit
    run.measure(site, caller)
    assert log.read_text("utf-8") == "0112"  # one more statement, saved, every time
    run.measure(site, handler)
    assert log.read_text("utf-8") == "011201"
    assert "edited_3 = 3" in (site.path / "pkg/h.py").read_text("utf-8")  # type: ignore[attr-defined]
    assert (site.path / run.EDITED).exists()  # type: ignore[attr-defined]
    # The planted finding is expected where the edits moved it.
    assert site.expected == {("rpc-unlisted", "pkg/a.py", 8)}  # type: ignore[attr-defined]
    assert site.where_edited == {  # type: ignore[attr-defined]
        "caller": "`pkg/a.py`, line 6, in method `two`",
        "handler": "`pkg/h.py`, line 6, in method `two`",
    }
    site.restore()  # type: ignore[attr-defined]
    assert (site.path / "pkg/a.py").read_bytes() == saved  # type: ignore[attr-defined]
    assert "edited_" not in (site.path / "pkg/h.py").read_text("utf-8")  # type: ignore[attr-defined]
    assert not (site.path / run.EDITED).exists()  # type: ignore[attr-defined]
    assert site.expected == {("rpc-unlisted", "pkg/a.py", 6)}  # type: ignore[attr-defined]


def test_a_buffer_edit_sends_a_new_buffer_and_its_baseline_the_same_one(edit_site: object) -> None:
    site = edit_site
    log = site.path.parent / "log"  # type: ignore[attr-defined]
    a = site.path / "pkg/a.py"  # type: ignore[attr-defined]
    argv = (sys.executable, "-c", COUNT_EDITS, "-")
    ours = run.Command("b", argv, "parse", stdin=a, only="pkg/a.py", edit="buffer")
    base = run.Command("s", argv, "parse", stdin=a, same_buffer=True)
    with pytest.raises(run.Abort, match="no buffer was sent before it"):
        run.measure(site, base)
    for _ in range(2):
        run.measure(site, ours)
        run.measure(site, base)
    # Each time: the saved file, unmeasured, then a new buffer with one edit, to both.
    assert log.read_text("utf-8") == "011011"
    assert a.read_text("utf-8") == TWO_METHODS  # the file on disk is never changed
    buffer, text = site.buffer  # type: ignore[attr-defined]
    assert "edited_2 = 2" in text
    assert "edited_1" not in text  # a new buffer, not the previous one edited again
    assert buffer.read_text("utf-8") == text
    assert site.state == 0  # type: ignore[attr-defined]  # nothing saved: warm rows stay warm
    # Its findings are the buffer's: the marker's line in the buffer, not in the file.
    pylint = run.Command("p", ("python",), "ours", stdin=a, only="pkg/a.py", edit="buffer")
    moved = json2(site, [["rpc-unlisted", "pkg/a.py", 7]])
    run.validate(site, pylint, sample(4, moved), text)
    with pytest.raises(run.Abort, match="missing"):
        run.validate(site, pylint, sample(4, json2(site, [["rpc-unlisted", "pkg/a.py", 6]])), text)


def test_cold_deletes_both_caches_and_every_run_names_the_benchmarks_folder(
    site: object,
) -> None:
    own = site.cache_dir  # type: ignore[attr-defined]
    in_project = site.path / run.CACHE  # type: ignore[attr-defined]
    for folder in (own, in_project):
        folder.mkdir()
        (folder / "old-entry").write_text("x", encoding="utf-8")
    fill = (
        "import os, pathlib\n"
        f"folder = pathlib.Path(os.environ[{run.CACHE_DIR_ENV!r}])\n"
        "folder.mkdir(exist_ok=True)\n"
        "(folder / 'entry').write_bytes(b'y' * 3000)\n"
        "print(folder)\n"
    )
    cold = run.Command("cold", (sys.executable, "-c", fill), "parse", cold=True)
    measured = run.run_once(site, cold)
    assert not in_project.exists()  # the old in-project folder: deleted
    assert measured.stdout.strip() == str(own)  # the run was told the benchmark's folder
    assert measured.cache_bytes == 3000  # the one entry the run wrote, after both went
    warm = run.Command("warm", (sys.executable, "-c", "pass"), "parse")
    assert run.run_once(site, warm).cache_bytes == 3000


def test_warm_runs_again_after_a_saved_edit(edit_site: object) -> None:
    site = edit_site
    counter = site.path / "count"  # type: ignore[attr-defined]
    counter.write_text("", encoding="utf-8")
    bump = "import pathlib; p = pathlib.Path('count'); p.write_text(p.read_text() + 'x')"
    warm = run.Command("warm", (sys.executable, "-c", bump), "parse", warm=True)
    run.measure(site, warm)
    run.measure(site, warm)
    assert counter.read_text("utf-8") == "xxx"
    edit = run.Command("e", (sys.executable, "-c", "pass"), "parse", edit="handler")
    run.measure(site, edit)
    run.measure(site, warm)  # the handler changed: the cache must be filled again first
    assert counter.read_text("utf-8") == "xxxxx"


def test_rows_editor_are_every_row_but_the_whole_tree_runs(site: object) -> None:
    site.manifest["largest_caller_module"] = "pkg/a.py"  # type: ignore[attr-defined]
    every = run.pairs_at(site, "rpcsurface", primary=True)
    editor = run.select(every, "editor")
    trees = [p for p in every if p not in editor]
    assert trees
    # The row measured right after a whole-tree run is as slow as one: with them.
    after_tree = "one file (the caller module) right after a cold whole-tree -j 2 run"
    assert all(p.measure.startswith(("whole tree", after_tree)) for p in trees)
    assert any(p.measure.startswith(after_tree) for p in trees)
    for pair in editor:
        for command in (pair.numerator, pair.denominator):
            assert "--recursive=y" not in command.argv
    names = " / ".join(p.measure for p in editor)
    for row in (
        "after a comment appended to the buffer",
        "after a body edit of the buffer",
        "after an interface edit of the buffer",
        "after a body edit saved in the handler module",
        "after an RPC name changed to another answered name",
        "after an RPC name mistyped",
        "pylint -j 2 on two files",
        "truly cold",
        "rpcsurface check, cold",
        "after a one-file body edit",
        "pre-commit hook",
    ):
        assert row in names
    assert all(p.measure.startswith("rpcsurface check") for p in run.select(every, "check"))
    assert run.select(every, "all") == every
    # The hook row runs what .pre-commit-hooks.yaml's pylint-rpcsurface hook runs.
    hook = next(p for p in every if p.measure.startswith("pre-commit hook"))
    hooks = (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text("utf-8")
    args = re.search(r"id: pylint-rpcsurface\n(?:.*\n)*?\s+args: \[(.*)\]", hooks)
    assert args is not None
    assert set(args[1].split(", ")) <= set(hook.numerator.argv)
    assert hook.numerator.argv[-1] == "pkg/a.py"
    assert hook.denominator.argv[-1] == "pkg/a.py"
    assert "--enable=unused-import" in hook.denominator.argv


def test_cache_size_rows_compare_the_cache_with_the_source(site: object) -> None:
    site.source = 4 * 1024 * 1024  # type: ignore[attr-defined]
    check = run.Pair("rpcsurface check, cold ÷ x", site, CHECK, BASE, 2.0)
    check.a = [run.Sample(1, 0, 0, "", "", n * 1024 * 1024) for n in (1, 2, 9)]
    other = run.Pair("stdin", site, OURS, BASE, 2.0)
    other.b = [run.Sample(1, 0, 0, "", "", 3 * 1024 * 1024)]
    after_cold, largest = run.size_rows(site, [check, other])
    assert after_cold.startswith("| cache on disk after a cold `rpcsurface check` ÷ source")
    assert "| 2.00 MiB | 4.00 MiB | 0.50 |" in after_cold  # the median
    assert "| 9.00 MiB | 4.00 MiB | 2.25 |" in largest  # the largest after any run
    assert run.size_rows(site, [other]) == [
        largest.replace("9.00 MiB", "3.00 MiB").replace("2.25", "0.75")
    ]


def test_prepare_regenerates_a_project_left_edited_or_of_another_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    scale = 0.01
    first = run.prepare(tmp_path, scale, 0)
    assert "generated" in capsys.readouterr().out
    assert run.prepare(tmp_path, scale, 0).path == first.path
    assert "reused" in capsys.readouterr().out
    (first.path / run.EDITED).write_text("", encoding="utf-8")
    run.prepare(tmp_path, scale, 0)
    assert "generated" in capsys.readouterr().out
    classic = run.prepare(tmp_path, scale, 0, run.gen.SHAPES["classic"])
    assert classic.path != first.path
    assert "generated" in capsys.readouterr().out
    handler = first.manifest["handler_module"]
    real_lines = (first.path / handler).read_text("utf-8").count("\n")
    classic_lines = (classic.path / handler).read_text("utf-8").count("\n")
    assert real_lines >= 5000 > classic_lines
    # A shape whose lengths changed since (same name, same folder) is generated again.
    monkeypatch.setitem(run.gen.SHAPES, "real", run.gen.Shape(5300, 1250))
    again = run.prepare(tmp_path, scale, 0)
    assert again.path == first.path
    assert "generated" in capsys.readouterr().out
    assert (again.path / handler).read_text("utf-8").count("\n") >= 5300


def test_bytecode_is_compiled_before_measuring_as_an_install_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A package with no .pyc (an editable install under PYTHONDONTWRITEBYTECODE=1) is
    # compiled once; Python then finds a .pyc it loads for every module, and a second call
    # has nothing left to do. A source edited afterwards is stale again.
    package = tmp_path / "measured_pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "deep.py").write_text("def f():\n    return 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sources = sorted(package.rglob("*.py"))
    assert run.compile_bytecode(("measured_pkg",)) == ["measured_pkg"]
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        assert cached.read_bytes()[:4] == importlib.util.MAGIC_NUMBER, source
    assert run.compile_bytecode(("measured_pkg",)) == []
    deep = package / "sub" / "deep.py"
    deep.write_text("def f():\n    return 3  # edited\n")
    os.utime(deep, (deep.stat().st_atime, deep.stat().st_mtime + 5))
    assert run._needs_bytecode(package)
    assert run.compile_bytecode(("measured_pkg",)) == ["measured_pkg"]
    assert not run._needs_bytecode(package)


# ------------------------------------------------- real trees: the one-file edits and their rows

CALL_FUNC = (
    run.Dispatch("call_func", waits="wait_out"),
    run.Dispatch("collective_rpc", waits=True),
)


def test_a_call_waits_as_its_dispatch_table_says() -> None:
    def call(text: str) -> ast.Call:
        node = ast.parse(text).body[0]
        assert isinstance(node, ast.Expr)
        assert isinstance(node.value, ast.Call)
        return node.value

    by_keyword, always = CALL_FUNC
    assert by_keyword.waited(call("m.call_func('x', wait_out=True)"))
    assert not by_keyword.waited(call("m.call_func('x', wait_out=False)"))
    assert not by_keyword.waited(call("m.call_func('x')"))
    assert by_keyword.waited(call("m.call_func('x', wait_out=flag)"))  # not known: maybe
    assert run.Dispatch("call_func", "wait_out", waits_when_absent=True).waited(
        call("m.call_func('x')")
    )
    unless = run.Dispatch("call_func", waits_unless="no_wait")
    assert unless.waited(call("m.call_func('x')"))
    assert not unless.waited(call("m.call_func('x', no_wait=True)"))
    assert always.waited(call("self.collective_rpc('x')"))
    assert always.matches(call("self.collective_rpc('x')"))
    assert not always.matches(call("collective_rpc('x')"))  # a plain call: called-as method
    assert run.Dispatch("collective_rpc", True, function=True).matches(call("collective_rpc('x')"))


def test_the_edits_read_the_dispatch_tables_and_callers_of_the_pyproject(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        "[tool.rpcsurface]\n"
        '[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\nwaits = "wait_out"\n'
        '[[tool.rpcsurface.dispatch]]\nmethod = "run"\nwaits-unless = "no_wait"\n'
        'called-as = "function"\n'
        '[[tool.rpcsurface.surface]]\nname = "a"\ncallers = ["pkg.core.Engine", "pkg.f"]\n'
        'handlers = ["pkg.w.Worker"]\n',
        encoding="utf-8",
    )
    assert run.dispatches_of(pyproject) == (
        run.Dispatch("call_func", waits="wait_out"),
        run.Dispatch("run", waits=False, waits_unless="no_wait", function=True),
    )
    assert run.callers_of(pyproject) == {"Engine", "f"}


SENDING = (
    "class Engine:\n"  # 1
    "    def early(self):\n"  # 2: sends, before the middle
    "        return self.mgr.call_func('a', wait_out=True)\n"
    "\n"
    "    def pad(self):\n"
    "        return 0\n"
    "\n"
    "    def quiet(self):\n"  # 8: the first method after the middle (line 8 of 15)
    "        return 1\n"
    "\n"
    "    async def late(\n"  # 11: sends, after the middle; a signature over two lines
    "        self, x\n"
    "    ):\n"
    "        y = self.mgr.collective_rpc('b')\n"
    "        return y\n"
)


def test_a_body_edit_goes_in_a_method_that_sends_when_there_is_one() -> None:
    text, where = run.edit_text(SENDING, 4, CALL_FUNC)
    assert where == "line 14, in method `late`"  # after the middle, sending, async, multi-line
    late = ast.parse(text).body[0].body[3]  # type: ignore[attr-defined]
    assert isinstance(late, ast.AsyncFunctionDef)
    assert ast.unparse(late.body[0]) == "edited_4 = 4"
    # Without a sending method after the middle, the first one that sends anywhere.
    early_only = SENDING.replace("self.mgr.collective_rpc('b')", "2")
    assert run.edit_text(early_only, 1, CALL_FUNC)[1] == "line 3, in method `early`"
    # Without any, today's choice: the first method after the middle.
    assert run.edit_text(SENDING, 1)[1] == "line 9, in method `quiet`"


def test_a_comment_edit_appends_one_line() -> None:
    text, where = run.comment_text(SENDING, 3)
    assert text == SENDING + "# a bench comment 3\n"
    assert where == "line 16, a comment appended"
    assert run.comment_text("x = 1", 4)[0] == "x = 1\n# a bench comment 4\n"


INTERFACE = (
    "class Helper:\n"
    "    def run(self):\n"
    "        return self.mgr.call_func('helper_rpc', wait_out=True)\n"
    "\n"
    "\n"
    "class Engine(Base):\n"
    "    def fire(self):\n"
    "        self.mgr.call_func('fired')\n"  # not waited: never copied
    "\n"
    "    def planted(self):\n"
    "        self.mgr.call_func('typo', wait_out=True)  # expect: rpc-unanswered\n"
    "\n"
    "    def start(self):\n"
    "        meta = self.mgr.call_func(\n"
    "            RPC_META,\n"
    "            wait_out=True,\n"
    "        )\n"
    "        return meta\n"
)


def test_an_interface_edit_adds_a_caller_method_that_waits_on_a_name_it_sends() -> None:
    text, where = run.interface_text(INTERFACE, 5, CALL_FUNC, frozenset({"Engine"}))
    assert where == (
        "line 20, method `bench_interface_5` added to class `Engine`, a copy of the call at line 14"
    )
    assert text.startswith(INTERFACE)  # added at the end of the class, nothing else moved
    engine = ast.parse(text).body[1]
    assert isinstance(engine, ast.ClassDef)
    added = engine.body[-1]
    assert isinstance(added, ast.FunctionDef)
    assert added.name == "bench_interface_5"
    assert ast.unparse(added.body[0]) == "return self.mgr.call_func(RPC_META, wait_out=True)"
    assert run.markers("a.py", text) == run.markers("a.py", INTERFACE)  # no marker copied
    # No configured caller in the file: the first waited call of any class.
    first, _ = run.interface_text(INTERFACE, 6, CALL_FUNC)
    helper = ast.parse(first).body[0]
    assert isinstance(helper, ast.ClassDef)
    assert ast.unparse(helper.body[-1]).endswith("call_func('helper_rpc', wait_out=True)")
    with pytest.raises(run.Abort, match="no waited dispatch call"):
        run.interface_text(INTERFACE, 1, (run.Dispatch("other", True),))
    # The first call in the text, whatever the order classes are walked in.
    nested = (
        "class Outer:\n"
        "    class Inner:\n"
        "        def f(self):\n"
        "            return self.m.call_func('inner', wait_out=True)\n"
        "\n"
        "\n"
        "class Later:\n"
        "    def g(self):\n"
        "        return self.m.call_func('later', wait_out=True)\n"
    )
    assert "class `Inner`" in run.interface_text(nested, 2, CALL_FUNC)[1]


def test_the_new_rows_have_the_new_targets_and_the_whole_tree_names_every_file(
    edit_site: object,
) -> None:
    site = edit_site
    (site.path / "ns" / "deep").mkdir(parents=True)  # type: ignore[attr-defined]
    (site.path / "ns" / "deep" / "m.py").write_text("x = 1\n")  # type: ignore[attr-defined]
    (site.path / run.CACHE).mkdir()  # type: ignore[attr-defined]
    (site.path / run.CACHE / "junk.py").write_text("")  # type: ignore[attr-defined]
    every = run.pairs_at(site, "rpcsurface", primary=True)
    targets = {p.measure.split(":")[0].split(" ÷ ")[0]: p.target for p in every}
    assert targets == {
        "whole tree (every file named), cold": 1.1,
        "whole tree (every file named), warm": 1.1,
        "stdin (IDE), unchanged, warm": 1.25,
        "stdin (IDE), after a comment appended to the buffer": 1.2,
        "stdin (IDE), after a body edit of the buffer (in a method that sends)": 1.2,
        "stdin (IDE), after an interface edit of the buffer (a new method of the caller class "
        "waiting on a name it sends)": 1.5,
        "stdin (IDE) on the caller, after a body edit saved in the handler module": 1.5,
        "stdin (IDE), truly cold (no cache)": 2.0,
        "whole tree, rpcsurface": 0.65,
        "rpcsurface check, cold": 1.0,
        "rpcsurface check, warm": 0.5,
        "rpcsurface check, after a one-file body edit (saved)": 0.3,
        "pre-commit hook (pylint-rpcsurface) on a commit touching one caller file": 1.25,
        "stdin (IDE), after an RPC name changed to another answered name (at a send every "
        "caller class inherits)": 1.2,
        "stdin (IDE), after an RPC name mistyped (that send, a new name each keystroke)": 1.2,
        "pylint -j 2 on two files (the caller and the handler module) after a warm "
        "`rpcsurface check`": 1.25,
        "one file (the caller module) right after a cold whole-tree -j 2 run": 1.25,
    }
    edits = {p.numerator.edit for p in every if p.numerator is not None}
    assert edits == {
        None, "comment", "buffer", "interface", "handler", "caller", "name", "mistyped"
    }  # fmt: skip
    for pair in every[:2]:
        assert pair.numerator.argv[-3:] == ("ns/deep/m.py", "pkg/a.py", "pkg/h.py")
        assert pair.numerator.files == 3
        assert "EVERY_FILE (3 .py files)" in pair.numerator.shown(site.path)  # type: ignore[attr-defined]
    rss = run.report(
        command="c", seconds=1.0, options=run._arguments().parse_args([]), sites=[site],
        pairs=every, curve=[],
    )  # fmt: skip
    assert any(line.startswith("| peak RSS") and "| ≤ 1.2 |" in line for line in rss)


FAKE_CHECK = (  # rpcsurface check --format json: a finding on every line that says SEND
    "import json, os, pathlib, sys\n"
    "assert sys.argv[1:] == ['check', '--no-cache', '--format', 'json'], sys.argv\n"
    "assert os.environ.get('RPCSURFACE_NO_CACHE') == '1'\n"
    "found = []\n"
    "for p in sorted(pathlib.Path('.').rglob('*.py')):\n"
    "    for n, line in enumerate(p.read_text().splitlines(), 1):\n"
    "        if 'SEND' in line:\n"
    "            found.append({'symbol': 'rpc-unanswered', 'path': p.as_posix(), 'line': n,\n"
    "                          'absolutePath': str(p.resolve())})\n"
    "print(json.dumps(found))\n"
    "sys.exit(1 if found else 0)\n"
)
FAKE_PYLINT = (  # pylint --from-stdin FILE: the same findings in the buffer, as json2
    "import json, os, sys\n"
    "path = sys.argv[sys.argv.index('--from-stdin') + 1]\n"
    "text = sys.stdin.read()\n"
    "found = [n for n, line in enumerate(text.splitlines(), 1) if 'SEND' in line]\n"
    "if not os.environ.get('RPCSURFACE_NO_CACHE') and os.path.exists('../lie'):\n"
    "    found = found[:-1] if 'bench_interface' in text else found  # a mode that misses one\n"
    "messages = [{'symbol': 'rpc-unanswered', 'absolutePath': path, 'line': n} for n in found]\n"
    "print(json.dumps({'messages': messages}))\n"
    "sys.exit(2 if found else 0)\n"
)
TREE_CALLER = (
    "class Engine:\n"
    "    def __init__(self):\n"
    "        self.n = 0\n"
    "\n"
    "    def step(self):\n"
    "        return self.mgr.call_func('SEND', wait_out=True)\n"
)


@pytest.fixture
def real_tree(tmp_path: Path) -> tuple[Path, str]:
    tree = tmp_path / "engine" / "src"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "core.py").write_text(TREE_CALLER, encoding="utf-8")
    (tree / "pkg" / "worker.py").write_text(TREE_CALLER.replace("SEND", "x"), encoding="utf-8")
    (tree / "pyproject.toml").write_text(
        '[tool.rpcsurface]\n[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\n'
        'waits = "wait_out"\n',
        encoding="utf-8",
    )
    cli = tmp_path / "fake-rpcsurface"
    cli.write_text(f"#!{sys.executable}\n{FAKE_CHECK}", encoding="utf-8")
    cli.chmod(0o755)
    return tree, str(cli)


def test_a_real_tree_is_copied_and_its_expected_findings_are_the_oracles(
    real_tree: tuple[Path, str], tmp_path: Path
) -> None:
    tree, cli = real_tree
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    work = tmp_path / "work"
    site = run.prepare_tree(work, tree, "pkg/core.py", "pkg/worker.py", cli=cli)
    assert site.path == work / "tree-engine-src"
    assert site.path != tree
    assert site.oracle == {("rpc-unanswered", "pkg/core.py", 6)}
    assert site.expected == site.oracle
    assert site.dispatch == (run.Dispatch("call_func", waits="wait_out"),)
    caller = run.Command("c", (sys.executable, "-c", "pass"), "parse", edit="caller")
    run.measure(site, caller)  # a saved edit: the oracle runs again, the finding moved
    assert "edited_1 = 1" in (site.path / "pkg/core.py").read_text("utf-8")
    assert site.expected == {("rpc-unanswered", "pkg/core.py", 7)}
    site.restore()
    assert site.expected == {("rpc-unanswered", "pkg/core.py", 6)}
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before
    # Made again on the next run; --config replaces its pyproject.toml.
    config = tmp_path / "engine.toml"
    config.write_text('[tool.rpcsurface]\nsource-roots = ["."]\n', encoding="utf-8")
    again = run.prepare_tree(work, tree, "pkg/core.py", "pkg/worker.py", config=config, cli=cli)
    assert "edited_" not in (again.path / "pkg/core.py").read_text("utf-8")
    assert (again.path / "pyproject.toml").read_text("utf-8") == config.read_text("utf-8")
    assert (tree / "pyproject.toml").read_bytes() == before[tree / "pyproject.toml"]


def test_a_buffer_edit_on_a_real_tree_is_judged_by_a_no_cache_run_on_that_buffer(
    real_tree: tuple[Path, str], tmp_path: Path
) -> None:
    tree, cli = real_tree
    site = run.prepare_tree(tmp_path / "work", tree, "pkg/core.py", "pkg/worker.py", cli=cli)
    stdin_file = site.path / "pkg/core.py"
    argv = (sys.executable, "-c", FAKE_PYLINT, "--from-stdin", str(stdin_file))
    body = run.Command("b", argv, "ours", stdin=stdin_file, only="pkg/core.py", edit="buffer")
    run.measure(site, body)  # the statement lands before the line that sends
    assert site.buffer_expected == {("rpc-unanswered", "pkg/core.py", 7)}
    interface = dataclasses.replace(body, edit="interface")
    run.measure(site, interface)  # the copied call sends too: two findings in the buffer
    assert site.buffer_expected == {
        ("rpc-unanswered", "pkg/core.py", 6),
        ("rpc-unanswered", "pkg/core.py", 9),
    }
    (tmp_path / "work" / "lie").write_text("", encoding="utf-8")
    with pytest.raises(
        run.Abort,
        match=r"b on the copy of .*: findings differ from the oracle's "
        r"\(a pylint run on the same buffer, RPCSURFACE_NO_CACHE=1\): missing "
        r"\[\('rpc-unanswered', 'pkg/core.py', 9\)\], extra \[\]",
    ):
        run.measure(site, interface)


def test_a_tree_the_benchmark_cannot_use_aborts_with_a_clear_message(
    real_tree: tuple[Path, str], tmp_path: Path
) -> None:
    tree, cli = real_tree
    work = tmp_path / "work"
    with pytest.raises(run.Abort, match=r"--caller pkg/none.py: no such file"):
        run.prepare_tree(work, tree, "pkg/none.py", "pkg/worker.py", cli=cli)
    (tree / "pyproject.toml").write_text("[tool.other]\n", encoding="utf-8")
    with pytest.raises(run.Abort, match=r"no \[tool.rpcsurface\] table"):
        run.prepare_tree(work, tree, "pkg/core.py", "pkg/worker.py", cli=cli)
    (tree / "pyproject.toml").unlink()
    with pytest.raises(run.Abort, match=r"no pyproject.toml \(give one with --config FILE\)"):
        run.prepare_tree(work, tree, "pkg/core.py", "pkg/worker.py", cli=cli)
    mine = run.tree_folder(work, tree)
    shutil.rmtree(mine)
    mine.mkdir()
    (mine / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(run.Abort, match="is no copy the benchmark made"):
        run.prepare_tree(work, tree, "pkg/core.py", "pkg/worker.py", cli=cli)
    assert (mine / "keep.txt").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tree", "t"], "--tree: --caller and --handler name"),
        (["--tree", "t", "--caller", "a.py", "--handler", "b.py", "--scales", "1"], "--scales"),
        (["--caller", "a.py"], "only with --tree DIR"),
        (["--config", "x.toml"], "only with --tree DIR"),
    ],
)
def test_tree_options_go_together(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def went_on(*args: object) -> None:
        raise AssertionError("the options were taken: the benchmark would start")

    monkeypatch.setattr(run, "compile_bytecode", went_on)
    with pytest.raises(SystemExit) as exit_info:
        run.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_repeat_5_is_the_median_of_5_interleaved_pairs(
    site: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    seconds = iter([5, 1, 4, 1, 3, 1, 2, 1, 1, 1])

    def measured(where: object, command: object) -> object:
        order.append(command.label)  # type: ignore[attr-defined]
        return run.Sample(float(next(seconds)), 0, 0, "", "")

    one = run.Pair("whole tree (every file named), cold: x", site, OURS, BASE, 1.1)  # type: ignore[arg-type]
    monkeypatch.setattr(run, "pairs_at", lambda *a, **k: [one])
    monkeypatch.setattr(run, "measure", measured)
    options = run._arguments().parse_args(["--repeat", "5", "--growth", "tree"])
    pairs, _ = run.run_all([site], "rpcsurface", options)  # type: ignore[list-item]
    assert order == ["ours", "base"] * 5
    assert [s.seconds for s in pairs[0].a] == [5, 4, 3, 2, 1]
    assert run.table(pairs, None)[2].startswith("| whole tree (every file named), cold: x | 3.00 s")


def test_trees_fetches_a_wheel_once_unpacks_only_python_and_writes_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    trees = load_bench_script("trees")
    tree = trees.TREES["vllm"]
    fetched: list[object] = []

    def download(engine: object, into: Path) -> Path:  # what pip download would leave
        fetched.append(engine)
        wheel = into / "vllm-0.7.3-cp38-abi3-manylinux1_x86_64.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            for name in ("vllm/__init__.py", tree.caller, tree.handler):
                archive.writestr(name, "raise SystemExit('imported')\n")
            archive.writestr("vllm/_C.abi3.so", "\0")
            archive.writestr("vllm-0.7.3.dist-info/RECORD", "")
        return wheel

    monkeypatch.setattr(trees.engines, "download", download)
    assert trees.main([str(tmp_path / "out"), "--engines", "vllm"]) == 0
    root = tmp_path / "out" / "vllm" / "src"
    assert fetched == [tree.engine]
    unpacked = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert unpacked == sorted(["pyproject.toml", "vllm/__init__.py", tree.caller, tree.handler])
    config = (trees.engines.CONFIGS / "vllm.toml").read_text("utf-8")
    assert (root / "pyproject.toml").read_text("utf-8") == config
    printed = capsys.readouterr().out
    assert (
        f"python bench/run.py --tree {root} --caller vllm/v1/executor/multiproc_executor.py "
        "--handler vllm/v1/worker/gpu_worker.py\n"
    ) in printed
    (root / tree.caller).write_text("edited\n", encoding="utf-8")
    (root / "vllm" / "stale.py").write_text("left over\n", encoding="utf-8")
    assert trees.main([str(tmp_path / "out"), "--engines", "vllm"]) == 0
    assert fetched == [tree.engine]  # the wheel already there is reused
    assert (root / tree.caller).read_text("utf-8") != "edited\n"  # unpacked again, afresh
    assert not (root / "vllm" / "stale.py").exists()
    with pytest.raises(SystemExit):
        trees.main([str(tmp_path / "out"), "--engines", "nope"])
    # LMDeploy's caller and handler: the executor and the worker wrapper modules its
    # configuration names.
    lmdeploy = (trees.engines.CONFIGS / "lmdeploy.toml").read_text("utf-8")
    mp = trees.TREES["lmdeploy"]
    assert mp.caller.removesuffix(".py").replace("/", ".") + ".MPExecutor" in lmdeploy
    assert "WorkerWrapper" in lmdeploy
    assert mp.handler.endswith("executor/base_worker.py")


# ------------------------------------------------- issue 47's rows: RPC names, -j 2, after a tree

NAMES = (
    "class Helper:\n"  # 1: no caller: its sends are never judged, its names never taken
    "    def go(self):\n"
    "        return self.mgr.call_func('helper_only', wait_out=True)\n"
    "\n"
    "\n"
    "class Base:\n"  # 6: every caller class derives from it
    "    def __init__(self, mgr):\n"
    "        self.mgr = mgr\n"
    '        self.mgr.call_func("load_model", wait_out=True)\n'  # 9
    "\n"
    "    def step(self):\n"
    "        self.mgr.call_func('typo', wait_out=True)  # expect: rpc-unanswered\n"  # 12
    "        return self.mgr.call_func('forward', wait_out=True)\n"  # 13
    "\n"
    "    def sync(self, x):\n"
    "        return self.mgr.call_func('sync_kv', x, wait_out=True)\n"  # another shape
    "\n"
    "    def flush(self):\n"
    "        return self.mgr.call_func('flush_cache', wait_out=True)\n"
    "\n"
    "\n"
    "class Engine(Base):\n"  # 22: the configured caller
    "    def run(self):\n"
    "        return self.mgr.call_func('engine_run', wait_out=True)\n"
    "\n"
    "\n"
    "class Other(Engine):\n"  # a caller too, by deriving from one
    "    pass\n"
)
HANDLER_METHODS = (
    "class Runner:\n"
    "    def ping(self):\n"
    "        return 1\n"
    "\n"
    "    def need(self, x):\n"
    "        return x\n"
    "\n"
    "    def _private(self):\n"
    "        return 0\n"
    "\n"
    "    def opt(self, x=1, *args, y=2, **kwargs):\n"
    "        return x\n"
    "\n"
    "    @property\n"
    "    def prop(self):\n"
    "        return 2\n"
)


def test_a_name_edit_is_at_a_send_every_caller_class_inherits_and_cycles_answered_names() -> None:
    callers = frozenset({"Engine"})
    send = run.name_send(NAMES, CALL_FUNC, callers, frozenset({12}))
    assert send.name == "load_model"  # the base's __init__, before any other method
    assert send.where == "class `Base`, method `__init__`"
    # The same arguments, sent by a caller class or its base, on no flagged line.
    assert send.answered == ("forward", "flush_cache", "engine_run")
    texts = [run.name_text(NAMES, send, n, mistyped=False) for n in (1, 2, 3, 4)]
    assert [t.splitlines()[8] for t, _ in texts] == [
        '        self.mgr.call_func("forward", wait_out=True)',
        '        self.mgr.call_func("flush_cache", wait_out=True)',
        '        self.mgr.call_func("engine_run", wait_out=True)',
        '        self.mgr.call_func("forward", wait_out=True)',
    ]
    for text, _ in texts:  # nothing else changed
        changed = [a for a, b in zip(text.splitlines(), NAMES.splitlines(), strict=True) if a != b]
        assert len(changed) == 1
    assert texts[0][1] == (
        "line 9, class `Base`, method `__init__`: 'load_model' changed to 'forward' "
        "(another answered name)"
    )
    mistyped = [run.name_text(NAMES, send, n, mistyped=True)[0] for n in (1, 2, 27)]
    assert [t.splitlines()[8].split('"')[1] for t in mistyped] == [
        "load_modela", "load_modelb", "load_modelaa"
    ]  # fmt: skip
    # Its line flagged (a finding is expected there): the base's next send.
    assert run.name_send(NAMES, CALL_FUNC, callers, frozenset({9, 12})).name == "forward"
    # Its __init__ first, wherever it is; the base first, wherever the callers are.
    init = NAMES.index("    def __init__")
    step, end = NAMES.index("    def step"), NAMES.index("    def sync")
    init_later = NAMES[:init] + NAMES[step:end] + NAMES[init:step] + NAMES[end:]
    assert run.name_send(init_later, CALL_FUNC, callers).name == "load_model"
    engine = NAMES.index("class Engine")
    callers_first = NAMES[engine:] + "\n\n" + NAMES[:engine]
    assert run.name_send(callers_first, CALL_FUNC, callers).name == "load_model"
    no_init_send = callers_first.replace('self.mgr.call_func("load_model", wait_out=True)', "1")
    assert run.name_send(no_init_send, CALL_FUNC, callers).name == "typo"  # Base.step's
    # A typo's line is never a source of answered names.
    assert "typo" not in run.name_send(NAMES, CALL_FUNC, callers, frozenset({12})).answered


def test_a_send_with_no_other_name_of_its_shape_takes_the_handler_methods_needing_nothing() -> None:
    alone = (
        "class Engine(Executor):\n"  # a caller by its base, configured in another module
        "    def check(self):\n"
        "        self.collective_rpc('check_health', timeout=10)\n"
        "\n"
        "    def load(self, x):\n"
        "        self.collective_rpc('load', x)\n"
    )
    table = (run.Dispatch("collective_rpc", True, payload=("args", "kwargs")),)
    send = run.name_send(alone, table, frozenset({"Executor"}), handler_text=HANDLER_METHODS)
    assert send.name == "check_health"
    assert send.answered == ("ping", "opt")
    # A send with a payload is answered by no method needing nothing: no name edit there.
    with_payload = alone.replace("'check_health', timeout=10", "'check_health', args=(1,)")
    with pytest.raises(run.Abort, match="no send with its RPC name as a string literal"):
        run.name_send(with_payload, table, frozenset({"Executor"}), handler_text=HANDLER_METHODS)


ANSWERED = ("load_model", "forward", "flush_cache", "engine_run", "sync_kv")


def name_oracle(refused_at_9: str = "") -> str:
    """A stand-in for pylint and ``rpcsurface check``: rpc-unanswered at each call_func of
    no answered name (and at line 9, the base's __init__, of *refused_at_9* too), in the
    stdin buffer (``--from-stdin FILE``), the files named, or every file (``check``);
    nothing for pylint alone (unused-import)."""
    return (
        "import json, os, pathlib, re, sys\n"
        "args = sys.argv[1:]\n"
        "if '--from-stdin' in args:\n"
        "    texts = {args[args.index('--from-stdin') + 1]: sys.stdin.read()}\n"
        "else:\n"
        "    named = sorted(pathlib.Path('.').rglob('*.py')) if args[:1] == ['check'] else [\n"
        "        a for a in args if a.endswith('.py')]\n"
        "    texts = {str(p): pathlib.Path(p).read_text() for p in named}\n"
        f"answered = {ANSWERED!r}\n"
        "found = [(path, n) for path, text in texts.items()\n"
        "         for n, line in enumerate(text.splitlines(), 1)\n"
        "         for name in re.findall(r'call_func\\([\\'\"](\\w+)', line)\n"
        "         if name not in answered and not name.startswith('helper')\n"
        f"         or (name, n) == ({refused_at_9!r}, 9)]\n"
        "if '--enable=unused-import' in args:\n"
        "    found = []\n"
        "if args[:1] == ['check']:\n"
        "    print('\\n'.join(f'{p}:{n}:1: rpc-unanswered: not answered' for p, n in found))\n"
        "    sys.exit(1 if found else 0)\n"
        "messages = [{'symbol': 'rpc-unanswered', 'absolutePath': os.path.abspath(p), 'line': n}\n"
        "            for p, n in found]\n"
        "print(json.dumps({'messages': messages}))\n"
        "sys.exit(4 if found else 0)\n"
    )


@pytest.fixture
def name_site(edit_site: object) -> object:
    site = edit_site
    (site.path / "pkg" / "a.py").write_text(NAMES, encoding="utf-8")  # type: ignore[attr-defined]
    site.manifest["expected_findings"] = [["rpc-unanswered", "pkg/a.py", 12]]  # type: ignore[attr-defined]
    site.dispatch = CALL_FUNC  # type: ignore[attr-defined]
    site.callers = frozenset({"Engine"})  # type: ignore[attr-defined]
    return site


def test_the_name_rows_send_new_buffers_judged_by_a_no_cache_run_on_each(name_site: object) -> None:
    site = name_site
    a = site.path / "pkg/a.py"  # type: ignore[attr-defined]
    argv = (sys.executable, "-c", name_oracle(), "--from-stdin", str(a))
    answered = run.Command("n", argv, "ours", stdin=a, only="pkg/a.py", edit="name")
    mistyped = dataclasses.replace(answered, label="m", edit="mistyped")
    sent = []
    for command in (answered, answered, mistyped, mistyped):
        run.measure(site, command)
        sent.append(site.buffer[1].splitlines()[8].split('"')[1])  # type: ignore[attr-defined]
    assert sent == ["forward", "flush_cache", "load_modela", "load_modelb"]
    assert a.read_text("utf-8") == NAMES  # the file on disk is never changed
    # The mistyped name's finding is expected: the no-cache run on the buffer says so.
    assert site.buffer_expected == {  # type: ignore[attr-defined]
        ("rpc-unanswered", "pkg/a.py", 9),
        ("rpc-unanswered", "pkg/a.py", 12),
    }
    assert site.where_edited["mistyped"].endswith("found there: rpc-unanswered")  # type: ignore[attr-defined]
    assert site.where_edited["name"].endswith("found there: nothing")  # type: ignore[attr-defined]
    # An "answered" name the no-cache run flags there: the row would measure another edit.
    refusing = name_oracle(refused_at_9="forward")
    flagged = dataclasses.replace(
        answered, argv=(sys.executable, "-c", refusing, "--from-stdin", str(a))
    )
    run.measure(site, flagged)  # 'engine_run', the third answered name
    with pytest.raises(run.Abort, match=r"'forward' \(another .* is not answered there"):
        run.measure(site, flagged)


def test_a_row_measured_right_after_another_run_runs_it_unmeasured_first(
    edit_site: object,
) -> None:
    site = edit_site
    log = site.path.parent / "log"  # type: ignore[attr-defined]
    note = "import sys; open('../log', 'a').write(sys.argv[1])"
    cold = run.Command("tree", (sys.executable, "-c", note, "T"), "parse", cold=True)
    warm = run.Command("check", (sys.executable, "-c", note, "C"), "parse", warm=True)
    after_cold = run.Command("f", (sys.executable, "-c", note, "f"), "parse", before=cold)
    after_warm = run.Command("j", (sys.executable, "-c", note, "j"), "parse", before=warm)
    run.measure(site, after_cold)
    run.measure(site, after_cold)  # the cold run again, each time
    assert log.read_text("utf-8") == "TfTf"
    run.measure(site, after_warm)  # the warm run: once after the cache was deleted
    run.measure(site, after_warm)
    assert log.read_text("utf-8") == "TfTfCjj"
    run.measure(site, after_cold)  # deletes the cache: the warm run must run again
    run.measure(site, after_warm)
    assert log.read_text("utf-8") == "TfTfCjjTfCj"
    assert "right after an unmeasured `tree` run, each time" in after_cold.shown(site.path)  # type: ignore[attr-defined]


def test_the_two_file_and_after_tree_rows_run_what_they_say(edit_site: object) -> None:
    site = edit_site
    every = run.pairs_at(site, "rpcsurface", primary=True)

    def row(start: str) -> object:
        return next(p for p in every if p.measure.startswith(start))

    two = row("pylint -j 2 on two files")
    assert two.numerator.argv[-4:] == ("-j", "2", "pkg/a.py", "pkg/h.py")
    assert two.denominator.argv[-4:] == ("-j", "2", "pkg/a.py", "pkg/h.py")
    assert "--enable=unused-import" in two.denominator.argv
    assert two.numerator.within == ("pkg/a.py", "pkg/h.py")
    assert two.numerator.before.argv == ("rpcsurface", "check")
    assert two.numerator.before.warm
    after = row("one file (the caller module) right after a cold whole-tree -j 2 run")
    assert after.numerator.argv[-1] == "pkg/a.py"
    assert after.numerator.before.cold
    assert after.numerator.before.argv[-4:] == ("-j", "2", "pkg/a.py", "pkg/h.py")
    assert after.numerator.before.files == 2  # every .py file of the tree
    assert after.denominator.argv[-1] == "pkg/a.py"
    assert "--enable=unused-import" in after.denominator.argv
    # Findings of a run on two files are compared in those two files only.
    ours = dataclasses.replace(two.numerator, argv=("python",), before=None)
    planted = [["rpc-unlisted", "pkg/a.py", 6]]
    run.validate(site, ours, sample(4, json2(site, planted)))
    site.manifest["expected_findings"] = [*planted, ["rpc-unlisted", "pkg/z.py", 1]]  # type: ignore[attr-defined]
    run.validate(site, ours, sample(4, json2(site, planted)))
    with pytest.raises(run.Abort, match="missing"):
        run.validate(site, ours, sample(0, json2(site, [])))
    # Without the rpcsurface script, the row after a warm check can't run.
    absent = next(p for p in run.pairs_at(site, None, primary=True) if p.measure == two.measure)
    assert absent.numerator is None


def test_each_new_row_runs_and_gives_a_ratio(
    name_site: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = name_site
    cli = tmp_path / "fake-rpcsurface"
    cli.write_text(f"#!{sys.executable}\n{name_oracle()}", encoding="utf-8")
    cli.chmod(0o755)
    stand_in = (sys.executable, "-c", name_oracle())

    def faked(command: object) -> object:  # pylint's argv with the stand-in instead
        argv = command.argv  # type: ignore[attr-defined]
        if argv[1:3] == ("-m", "pylint"):
            argv = (*stand_in, *argv[3:])
        before = command.before  # type: ignore[attr-defined]
        return dataclasses.replace(
            command, argv=argv, before=None if before is None else faked(before)
        )  # type: ignore[type-var]

    new = (
        "stdin (IDE), after an RPC name changed",
        "stdin (IDE), after an RPC name mistyped",
        "pylint -j 2 on two files",
        "one file (the caller module) right after",
    )
    rows = [
        dataclasses.replace(p, numerator=faked(p.numerator), denominator=faked(p.denominator))
        for p in run.pairs_at(site, str(cli), primary=True)
        if p.measure.startswith(new)
    ]
    assert len(rows) == 4
    monkeypatch.setattr(run, "pairs_at", lambda *a, **k: rows)
    options = run._arguments().parse_args(["--repeat", "2", "--growth", "tree"])
    pairs, _ = run.run_all([site], str(cli), options)  # type: ignore[list-item]
    lines = run.table(pairs, None)[2:]
    assert len(lines) == 4
    for line in lines:
        ratio = float(line.split(" | ")[3])
        assert ratio > 0, line
    assert site.where_edited["name"].startswith(  # type: ignore[attr-defined]
        "`pkg/a.py`, line 9, class `Base`, method `__init__`: 'load_model' changed to 'flush_cache'"
    )
    assert (
        "'load_modelb' (mistyped); found there: rpc-unanswered"
        in site.where_edited[  # type: ignore[attr-defined]
            "mistyped"
        ]
    )

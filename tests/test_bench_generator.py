"""The benchmark's project generator: the shape of what it writes, its figures, and the
planted findings, which real pylint must report exactly."""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from support import assert_no_crash, describe_run, load_bench_script, run_check, run_pylint

from pylint_rpcsurface.store import CACHE_DIR_ENV, STATS_ENV

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

gen = load_bench_script("generate_project")

SMALL = 0.03  # a few dozen modules: pylint runs over it in seconds
Finding = tuple[str, str, int]


def python_files(project: Path) -> dict[str, str]:
    return {
        p.relative_to(project).as_posix(): p.read_text("utf-8")
        for p in sorted(project.rglob("*.py"))
    }


def marked(project: Path) -> set[Finding]:
    """The (symbol, path, line) of every ``# expect: symbol`` marker in the project's text."""
    found = set()
    for path, text in python_files(project).items():
        for number, line in enumerate(text.splitlines(), start=1):
            match = re.search(r"# expect: ([a-z-]+)\s*$", line)
            if match:
                found.add((match[1], path, number))
    return found


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    out = tmp_path_factory.mktemp("bench") / "project"
    return out, gen.write(out, SMALL, 0)


def test_real_pylint_reports_exactly_the_planted_findings(
    small: tuple[Path, dict[str, object]],
) -> None:
    project, manifest = small
    expected = marked(project)
    assert {symbol for symbol, _, _ in expected} == {"rpc-unlisted", "rpc-unanswered"}
    assert {tuple(f) for f in manifest["expected_findings"]} == expected  # type: ignore[attr-defined]
    # The default shape is a real engine's: these findings come from that project.
    assert lines_of(project, manifest["handler_module"]) >= 5000  # type: ignore[arg-type]
    run = run_pylint(project, "--recursive=y", ".")
    assert_no_crash(run)
    assert run.keys() == expected, describe_run(run)
    assert len(run.messages) == len(expected), describe_run(run)  # each reported once
    # rpcsurface check, the real trees' oracle, reports the same (through the import graph).
    check = run_check(project, "--no-cache", "--format", "json")
    assert check.returncode == 1, check.stderr
    assert {(m.symbol, m.path, m.line) for m in check.messages} == expected
    assert len(check.messages) == len(expected)


def lines_of(project: Path, path: str) -> int:
    return (project / path).read_text("utf-8").count("\n")


REAL_HANDLER_AT_LEAST = 5000  # a handler module of at least 5k lines, as in real engines
REAL_CALLER_AT_LEAST = 1200  # and a caller module of at least 1.2k


def test_the_real_shape_has_a_real_engines_surface_modules_at_every_scale(
    small: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    project, manifest = small
    handler, caller = manifest["handler_module"], manifest["caller_module"]
    assert isinstance(handler, str)
    assert isinstance(caller, str)
    # The manifest names the configured classes' modules, which the pyproject names.
    table = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    [surface] = table["surface"]
    assert surface["handlers"] == [
        handler.removesuffix(".py").replace("/", ".") + ".DisaggModelRunner"
    ]
    assert surface["callers"] == [
        caller.removesuffix(".py").replace("/", ".") + ".DisaggEngineCore"
    ]
    assert manifest["largest_caller_module"] == caller  # the stdin file is the caller module
    at_1x = tmp_path / "1x"
    gen.write(at_1x, 1.0, 0)
    for where in (project, at_1x):  # a few dozen modules, and the 1x project
        assert lines_of(where, handler) >= REAL_HANDLER_AT_LEAST
        assert lines_of(where, caller) >= REAL_CALLER_AT_LEAST
    # The classic shape is another length: the knob is what sets it.
    classic = tmp_path / "classic"
    gen.write(classic, SMALL, 0, gen.SHAPES["classic"])
    assert lines_of(classic, handler) < 1000
    # The same planted findings, in the same files (the caller's at another line).
    assert {(s, p) for s, p, _ in marked(classic)} == {(s, p) for s, p, _ in marked(project)}
    # The manifest says which shape it is (bench/run.py reuses a project by it).
    assert manifest["shape"] == {"handler_lines": 5100, "caller_lines": 1250}
    assert gen.read_manifest(classic)["shape"] == {"handler_lines": None, "caller_lines": None}  # type: ignore[index]


def test_handler_and_caller_lines_set_either_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "project"
    argv = [str(out), "--scale", str(SMALL), "--handler-lines", "900", "--caller-lines", "700"]
    assert gen.main(argv) == 0
    printed = capsys.readouterr().out
    manifest = gen.read_manifest(out)
    assert manifest is not None
    handler, caller = manifest["handler_module"], manifest["caller_module"]
    # At least N, and no more than one filler method (<= 20 lines) beyond.
    assert 900 <= lines_of(out, handler) <= 920
    assert 700 <= lines_of(out, caller) <= 720
    assert f"handler module: {handler}: {lines_of(out, handler)} lines\n" in printed
    assert f"caller module: {caller}: {lines_of(out, caller)} lines\n" in printed
    assert manifest["expected_findings"] == sorted([list(f) for f in marked(out)])
    # One length alone keeps the shape's other one.
    alone = tmp_path / "alone"
    assert gen.main([str(alone), "--scale", str(SMALL), "--caller-lines", "700"]) == 0
    assert lines_of(alone, handler) >= REAL_HANDLER_AT_LEAST
    capsys.readouterr()
    for option in ("--handler-lines", "--caller-lines"):
        with pytest.raises(SystemExit) as exit_info:
            gen.main([str(tmp_path / "bad"), "--scale", str(SMALL), option, "0"])
        assert exit_info.value.code == 2
        error = capsys.readouterr().err
        assert f"{option}: expected a positive number of lines, got 0" in error
    assert not (tmp_path / "bad").exists()


def test_shape(small: tuple[Path, dict[str, object]]) -> None:
    project, manifest = small
    files = python_files(project)
    # Every folder on the way to a module is a package, regular or namespace.
    folders = {
        "/".join(path.split("/")[:depth])
        for path in files
        for depth in range(1, path.count("/") + 1)
    }
    regular = {f for f in folders if f"{f}/__init__.py" in files}
    namespace = folders - regular
    assert "infer" in namespace  # the top-level package itself
    assert len(namespace) >= 3
    assert len(regular) >= 3
    # pylint --recursive=y never lints a folder without __init__.py inside a regular package.
    for folder in namespace:
        parents = [folder.rsplit("/", n)[0] for n in range(1, folder.count("/") + 1)]
        assert not set(parents) & regular, folder
    assert sorted(manifest["namespace_packages"]) == sorted(namespace)  # type: ignore[arg-type]
    for text in files.values():
        ast.parse(text)

    callers = manifest["caller_modules"]
    assert isinstance(callers, list)
    caller_text = "\n".join(files[c] for c in callers)
    assert re.search(r'\.call_func\("\w+", wait_out=True\)', caller_text.replace("'", '"'))
    assert re.search(r"\.call_func\(RPC_\w+, wait_out=True\)", caller_text)
    assert ".call_func_with_aggregation(" in caller_text
    assert re.search(r"import DisaggEngineCore as (\w+)\n", caller_text)  # an alias import
    # Two levels deep: a subclass of a subclass of the configured caller.
    assert "class PrefillEngineCore(DisaggEngineCore):" in caller_text
    assert "class ChunkedPrefillEngineCore(PrefillEngineCore):" in caller_text
    # The single-file figures' module: the longest caller module.
    lines = {c: files[c].count("\n") for c in callers}
    assert lines[manifest["largest_caller_module"]] == max(lines.values())  # type: ignore[index]
    # Dispatches on receivers that are no callers, outside the caller modules.
    others = [p for p, t in files.items() if p not in callers and ".pool.call_func(" in t]
    assert others


def test_pyproject_names_classes_that_exist(small: tuple[Path, dict[str, object]]) -> None:
    project, _ = small
    table = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    surface = table["surface"][0]
    for qualname in [*surface["callers"], *surface["handlers"], *surface["base-handlers"]]:
        module, name = qualname.rsplit(".", 1)
        text = (project / (module.replace(".", "/") + ".py")).read_text("utf-8")
        assert re.search(rf"^class {name}\b", text, re.MULTILINE), qualname
    module, name = surface["registry"].rsplit(".", 1)
    tree = ast.parse((project / (module.replace(".", "/") + ".py")).read_text("utf-8"))
    [registry] = [
        n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and [ast.unparse(t) for t in n.targets] == [name]
    ]
    assert isinstance(registry, ast.Tuple)  # a tuple constant of str
    assert registry.elts
    assert all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in registry.elts)
    assert {d["method"] for d in table["dispatch"]} == {"call_func", "call_func_with_aggregation"}


def figures_of(path: Path) -> int:
    return path.read_text("utf-8").count("\n")


def figures(project: Path) -> tuple[int, int]:
    files = python_files(project)
    return len(files), sum(text.count("\n") for text in files.values())


def test_figures_scale_with_s_and_1x_is_big_enough(tmp_path: Path) -> None:
    measured = {}
    for scale in (0.1, 0.2, 1.0):
        manifest = gen.write(tmp_path / str(scale), scale, 0)
        measured[scale] = figures(tmp_path / str(scale))
        assert (manifest["modules"], manifest["lines"]) == measured[scale]
    modules, lines = measured[1.0]
    assert modules >= 400
    assert lines >= 180_000
    # At 1x the largest handler module is thousands of lines long.
    handlers = manifest["handler_modules"]
    assert isinstance(handlers, list)
    longest = max(figures_of(tmp_path / "1.0" / h) for h in handlers)
    assert longest >= 2000
    ratio = measured[0.2][1] / measured[0.1][1]
    assert 1.6 <= ratio <= 2.4, measured


def test_deterministic_per_seed(tmp_path: Path) -> None:
    first, again, other = (tmp_path / name for name in ("first", "again", "other"))
    gen.write(first, SMALL, 0)
    gen.write(again, SMALL, 0)
    gen.write(other, SMALL, 1)
    assert python_files(first) == python_files(again)
    assert python_files(first) != python_files(other)


def test_cli_prints_figures_and_refuses_a_folder_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "project"
    assert gen.main([str(out), "--scale", str(SMALL)]) == 0
    printed = capsys.readouterr().out
    modules, lines = figures(out)
    assert f"modules: {modules}\n" in printed
    assert f"lines: {lines}\n" in printed
    assert "largest caller module: infer/" in printed
    assert f"expected findings: {len(marked(out))}\n" in printed

    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine", encoding="utf-8")
    for args in ([str(busy)], [str(busy), "--force"]):
        assert gen.main([*args, "--scale", str(SMALL)]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1
        assert str(busy) in error
    assert (busy / "keep.txt").exists()
    # --force replaces a generated project.
    assert gen.main([str(out), "--scale", str(SMALL), "--force", "--seed", "1"]) == 0


def module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def import_graph(project: object) -> tuple[dict[str, set[str]], dict[str, ast.Module]]:
    """Module -> the modules its module-level imports name (an imported name that is a
    module: that module; else the module it comes from), and every module's tree."""
    trees = {module_name(m.path): ast.parse(m.text) for m in project.modules}  # type: ignore[attr-defined]
    graph: dict[str, set[str]] = {name: set() for name in trees}
    for name, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in trees}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    dotted = f"{node.module}.{alias.name}"
                    target = dotted if dotted in trees else node.module
                    if target in trees:
                        graph[name].add(target)
    return graph, trees


def components(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of *graph* (Kosaraju, without recursion)."""
    order: list[str] = []
    seen: set[str] = set()
    for start, targets in graph.items():
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(targets)))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                order.append(node)
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(sorted(graph[child]))))
    reverse: dict[str, set[str]] = {name: set() for name in graph}
    for name, targets in graph.items():
        for target in targets:
            reverse[target].add(name)
    found: list[set[str]] = []
    assigned: set[str] = set()
    for start in reversed(order):
        if start in assigned:
            continue
        component, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node in assigned:
                continue
            assigned.add(node)
            component.add(node)
            todo += [n for n in reverse[node] if n not in assigned]
        found.append(component)
    return found


def test_the_import_graph_is_a_real_trees() -> None:
    project, manifest = gen.build(0.5, 0)
    graph, trees = import_graph(project)
    modules = len(graph)
    # One strongly connected component holds most of the tree.
    largest = max(components(graph), key=len)
    assert len(largest) >= 0.6 * modules, (len(largest), modules)
    # Most modules import the caller module; none defines a class of its own on it.
    caller = module_name(str(manifest["caller_module"]))
    importers = {name for name, targets in graph.items() if caller in targets}
    assert len(importers) >= 0.55 * modules, (len(importers), modules)
    assert manifest["import_graph"]["caller_importers"] <= len(importers)  # type: ignore[index]
    # Package __init__.py files import their submodules.
    inits = [m.path for m in project.modules if m.path.endswith("/__init__.py")]
    importing = [p for p in inits if graph[module_name(p)]]
    assert len(importing) >= 0.8 * len(inits), importing
    # infer/engine/__init__.py imports the caller module lazily: in a module-level
    # __getattr__, and nowhere at module level.
    engine = "infer.engine"
    assert caller not in graph[engine]
    [getattr_def] = [
        n for n in trees[engine].body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"
    ]
    lazy = [n for n in ast.walk(getattr_def) if isinstance(n, ast.Import)]
    assert [a.name for n in lazy for a in n.names] == [caller]
    assert manifest["import_graph"]["lazy_getattr"] == "infer/engine/__init__.py"  # type: ignore[index]
    # Some import it through that __getattr__ (from infer.engine import core).
    through = [
        name
        for name, tree in trees.items()
        if any(
            isinstance(n, ast.ImportFrom) and n.module == engine
            and any(a.name == "core" for a in n.names)
            for n in tree.body
        )
    ]  # fmt: skip
    assert len(through) >= 10


def _stats_of_check(project: Path, stats: Path) -> dict[str, Any]:
    """What one cached ``rpcsurface check`` in *project* did, as its stats line says."""
    env = {CACHE_DIR_ENV: str(project.parent / "cache"), STATS_ENV: str(stats)}
    check = run_check(project, "--format", "json", env=env)
    assert check.returncode == 1, check.stderr  # the planted findings
    record: dict[str, Any] = json.loads(stats.read_text("utf-8").splitlines()[-1])
    return record


def test_the_surface_modules_reach_the_standard_library_as_a_real_engines_do(
    small: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    """A cold check builds modules outside the project on a real engine (22 on vLLM 0.7.3,
    7 on LMDeploy 0.7.3 at 691cdf0), and so does a body edit of the caller module:
    astroid's transforms and the inference of ``self`` build the bases' modules, and
    following ``self.x.y(...)`` in a dispatching method builds ``threading`` and ``queue``.
    The generated surface modules must cost the same kind of work, or a row met on the
    generated tree says nothing of the real ones.

    ``functools`` is reached only through ``self._record = partial(self._put_output,
    ...)``, a partial of a plain method, which the helper search proves no helper
    without inferring it, on any tree (tests/test_helper_filter_hand_back.py): it is not
    counted."""
    project = tmp_path / "project"
    shutil.copytree(small[0], project)
    reached = {
        line.split()[1].split(".")[0]
        for line in gen.STDLIB_REACH
        if line.split()[0] in {"import", "from"}
    }
    assert reached >= {"abc", "dataclasses", "enum", "queue", "threading", "typing"}
    reached.discard("functools")
    stats = tmp_path / "stats.jsonl"
    cold = _stats_of_check(project, stats)
    assert cold["other_modules_built"] >= len(reached), cold
    # A statement added in the caller's dispatching method: its pieces follow the same
    # calls again. On the real engines such an edit now builds no module outside the
    # project (bench/recompute.py at 776549d: LMDeploy 0.7.3 and vLLM 0.7.3, 0 each), so
    # the generated tree's edit must cost at least that: its caller module is built again
    # and its pieces computed, whatever it reaches.
    bench = load_bench_script("run")
    caller = project / str(small[1]["caller_module"])
    edited, _ = bench.edit_text(
        caller.read_text("utf-8"), 1, bench.dispatches_of(project / "pyproject.toml")
    )
    caller.write_text(edited, "utf-8")
    after_edit = _stats_of_check(project, stats)
    assert caller.relative_to(project).as_posix() in after_edit["modules_built"]
    assert after_edit["pieces_computed"] > 0, after_edit

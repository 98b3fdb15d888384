"""End to end: a configuration problem is one ``rpcsurface-config-error`` per linted module.

Each test builds a tiny project in ``tmp_path`` (a ``pyproject.toml`` with a
``[tool.rpcsurface]`` table and a module or two), runs real pylint on it, and checks
what docs/configuration.md and ``pylint_plugin.py`` promise: the message is E7709 on line 1 of every
linted module the configuration applies to, its one-line text is
``<TOML file>: <key path>: <what was expected>``, pylint's exit status has the error
bit (2) set, nothing crashes, and a broken surface is never judged half-way (no other
``rpc-*`` message comes from it).

The module ``app.py`` below carries a planted finding (an RPC nobody answers) in most
tests: if a broken surface were judged anyway, that finding would show up.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from support import (
    APP,
    APP_PLANTED,
    ERROR_BIT,
    PLANTED_LINE,
    PYPROJECT,
    PylintRun,
    Reported,
    assert_no_crash,
    describe_run,
    project,
    run_cli,
    run_pylint,
)

CONFIG_ERROR = "rpcsurface-config-error"


def edit(text: str, old: str, new: str) -> str:
    """Replace *old*, which must occur exactly once in *text*, with *new*."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def assert_config_errors(
    run: PylintRun,
    toml: Path,
    expected: dict[str, str],
    *,
    modules: tuple[str, ...] = ("app.py",),
    others: frozenset[tuple[str, str, int]] = frozenset(),
) -> list[Reported]:
    """Exactly the config errors *expected* (key path -> part of the 'expected' text), each
    on line 1 of every module in *modules*, and besides them exactly *others*."""
    assert_no_crash(run)
    assert run.returncode & ERROR_BIT, describe_run(run)
    errors = [m for m in run.messages if m.symbol == CONFIG_ERROR]
    rest = {(m.symbol, m.path, m.line) for m in run.messages if m.symbol != CONFIG_ERROR}
    assert rest == others, describe_run(run)
    assert sorted((m.path, m.line) for m in errors) == sorted(
        (module, 1) for module in modules for _ in expected
    ), describe_run(run)
    for module in modules:
        texts = sorted(m.text for m in errors if m.path == module)
        keys = []
        for text in texts:
            # <path to the TOML file>: <key path>: <what was expected>, on one line.
            assert "\n" not in text
            assert text.startswith(f"{toml}: "), text
            assert toml.name in text
            key = text[len(f"{toml}: ") :].split(": ", 1)[0]
            keys.append(key)
            assert expected[key] in text, text
        assert sorted(keys) == sorted(expected), describe_run(run)
    assert all(m.confidence == "HIGH" for m in errors), describe_run(run)
    return errors


# ---------------------------------------------------------------------------
# The base case: the configuration above is valid, so the errors below are real.


def test_valid_configuration_is_silent_then_reports_the_planted_finding(tmp_path: Path) -> None:
    clean = project(tmp_path / "clean", {"pyproject.toml": PYPROJECT, "app.py": APP})
    run = run_pylint(clean, "app.py")
    assert_no_crash(run)
    assert run.messages == (), describe_run(run)
    assert run.returncode == 0, describe_run(run)

    planted = project(tmp_path / "planted", {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    run = run_pylint(planted, "app.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-unanswered", "app.py", PLANTED_LINE)}, describe_run(run)
    assert run.returncode & ERROR_BIT


# ---------------------------------------------------------------------------
# Problems found when the table is validated: (old text, new text, key path, expected).

TABLE_CASES = {
    "unknown-top-level-key": (
        "[tool.rpcsurface]\n",
        "[tool.rpcsurface]\nfoo = 1\n",
        "tool.rpcsurface.foo",
        "unknown key; allowed keys are: source-roots, dispatch, surface, helper-depth",
    ),
    "unknown-dispatch-key": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\nwait = true\n',
        "tool.rpcsurface.dispatch[0].wait",
        "unknown key; allowed keys are: method, waits, name-arg, name-keyword, drops-none, "
        "shared-reply-queue, args-from, kwargs-from",
    ),
    "unknown-surface-key": (
        'registry = "app.FAST_RPCS"',
        'registery = "app.FAST_RPCS"',
        "tool.rpcsurface.surface[0].registery",
        "unknown key; allowed keys are: name, callers, handlers, base-handlers, registry",
    ),
    "callers-is-a-string": (
        'callers = ["app.Core"]',
        'callers = "app.Core"',
        "tool.rpcsurface.surface[0].callers",
        "expected an array of dotted names, got 'app.Core'",
    ),
    "name-arg-is-a-boolean": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\nname-arg = true\n',
        "tool.rpcsurface.dispatch[0].name-arg",
        "expected an integer >= 0, got boolean true",
    ),
    "waits-is-an-integer": (
        'waits = "wait_out"',
        "waits = 3",
        "tool.rpcsurface.dispatch[0].waits",
        "expected true, false or a keyword name, got integer 3",
    ),
    "drops-none-is-a-string": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\ndrops-none = "yes"\n',
        "tool.rpcsurface.dispatch[0].drops-none",
        "expected true or false, got 'yes'",
    ),
    "shared-reply-queue-is-an-integer": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\nshared-reply-queue = 1\n',
        "tool.rpcsurface.dispatch[0].shared-reply-queue",
        "expected true or false, got integer 1",
    ),
    "args-from-is-not-an-identifier": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\nargs-from = "the args"\n',
        "tool.rpcsurface.dispatch[0].args-from",
        "expected a Python identifier, got 'the args'",
    ),
    "kwargs-from-is-the-wait-keyword": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\nkwargs-from = "wait_out"\n',
        "tool.rpcsurface.dispatch[0].kwargs-from",
        "expected a keyword other than waits, got 'wait_out' for both",
    ),
    "kwargs-from-is-args-from": (
        'waits = "wait_out"\n',
        'waits = "wait_out"\nargs-from = "args"\nkwargs-from = "args"\n',
        "tool.rpcsurface.dispatch[0].kwargs-from",
        "expected a keyword other than args-from, got 'args' for both",
    ),
    "helper-depth-is-negative": (
        "[tool.rpcsurface]\n",
        "[tool.rpcsurface]\nhelper-depth = -1\n",
        "tool.rpcsurface.helper-depth",
        "expected an integer >= 0, got integer -1",
    ),
    "helper-depth-is-a-boolean": (
        "[tool.rpcsurface]\n",
        "[tool.rpcsurface]\nhelper-depth = true\n",
        "tool.rpcsurface.helper-depth",
        "expected an integer >= 0, got boolean true",
    ),
    "handlers-missing": (
        'handlers = ["app.FastRunner"]\n',
        "",
        "tool.rpcsurface.surface[0]",
        "missing required key 'handlers'",
    ),
    "caller-does-not-resolve": (
        'callers = ["app.Core"]',
        'callers = ["app.Kore"]',
        "tool.rpcsurface.surface[0].callers[0]",
        "expected a class or a module-level function under the source roots, but 'app' has "
        "no attribute 'Kore' that infers to one class or module-level function",
    ),
    "handler-module-missing": (
        'handlers = ["app.FastRunner"]',
        'handlers = ["nowhere.Runner"]',
        "tool.rpcsurface.surface[0].handlers[0]",
        "no module of 'nowhere.Runner' is found under the source roots",
    ),
    "registry-module-missing": (
        'registry = "app.FAST_RPCS"',
        'registry = "nowhere.FAST_RPCS"',
        "tool.rpcsurface.surface[0].registry",
        "expected a module-level constant under the source roots, "
        "but module 'nowhere' is not found",
    ),
}


@pytest.mark.parametrize(("old", "new", "key", "expected"), TABLE_CASES.values(), ids=TABLE_CASES)
def test_table_problem_is_one_config_error(
    tmp_path: Path, old: str, new: str, key: str, expected: str
) -> None:
    # APP_PLANTED: if the broken surface were judged anyway, its rpc-unanswered would show.
    root = project(tmp_path, {"pyproject.toml": edit(PYPROJECT, old, new), "app.py": APP_PLANTED})
    run = run_pylint(root, "app.py")
    assert_config_errors(run, root / "pyproject.toml", {key: expected})


def test_config_error_is_reported_in_every_linted_module(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "pyproject.toml": edit(
                PYPROJECT, "[tool.rpcsurface]\n", "[tool.rpcsurface]\nfoo = 1\n"
            ),
            "app.py": APP_PLANTED,
            "helpers.py": "def helper():\n    return 1\n",
        },
    )
    run = run_pylint(root, "app.py", "helpers.py")
    assert_config_errors(
        run,
        root / "pyproject.toml",
        {"tool.rpcsurface.foo": "unknown key"},
        modules=("app.py", "helpers.py"),
    )


def test_toml_syntax_error_names_the_file_and_the_place(tmp_path: Path) -> None:
    broken = edit(PYPROJECT, 'name = "fast"', 'name = "fast')  # an unterminated string
    line = broken.splitlines().index('name = "fast') + 1
    root = project(
        tmp_path, {"pyproject.toml": broken, "app.py": APP_PLANTED, "pylintrc": "[MAIN]\n"}
    )
    # pylint itself reads pyproject.toml for its own options, and prints its own complaint
    # about the broken file to stdout, before the json report. An explicit rcfile keeps
    # pylint out of it, so only the plugin reads the broken file here.
    run = run_pylint(root, "--rcfile=pylintrc", "app.py")
    (error,) = assert_config_errors(
        run, root / "pyproject.toml", {"tool.rpcsurface": "invalid TOML"}
    )
    # tomllib's own message says where: "... (at line 8, column 13)".
    assert re.search(rf"invalid TOML: .*\(at line {line}, column \d+\)$", error.text), error.text


def test_registry_constant_missing_is_registry_invalid_not_config_error(tmp_path: Path) -> None:
    """A registry module that exists but lacks the constant is the registry's problem, not the
    configuration's: rpc-registry-invalid, in the registry module. There is no node to attach
    it to (the name is bound nowhere), so read_registry reports it at the module itself, line
    1 column 0, where the user opens the file to add the constant. The surface is still
    judged, but with an unreadable registry nothing is compared against it: no rpc-unlisted
    for the waited 'fast_step', and no finding in app.py."""
    root = project(
        tmp_path,
        {
            "pyproject.toml": edit(
                PYPROJECT, 'registry = "app.FAST_RPCS"', 'registry = "names.FAST_RPC"'
            ),
            "app.py": APP,
            "names.py": '"""The RPC registry."""\n\nFAST_RPCS = ("fast_step",)\n',
        },
    )
    run = run_pylint(root, "app.py", "names.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-registry-invalid", "names.py", 1)}, describe_run(run)
    (message,) = run.messages
    assert message.column == 0
    assert message.text == "'names.FAST_RPC' is not defined in module names"
    assert run.returncode & ERROR_BIT


def test_handler_module_with_syntax_error_is_config_error_in_the_linted_caller(
    tmp_path: Path,
) -> None:
    """Only the caller module is linted, so pylint never reports the syntax error itself;
    the plugin must say why the handlers don't resolve: the file and the line."""
    runners = "class Runner:\n    def step(self):\n        return 1\n\n\nclass FastRunner(Runner:\n"
    syntax_line = 6
    config = edit(
        edit(PYPROJECT, 'handlers = ["app.FastRunner"]', 'handlers = ["runners.FastRunner"]'),
        'base-handlers = ["app.Runner"]',
        'base-handlers = ["runners.Runner"]',
    )
    root = project(
        tmp_path, {"pyproject.toml": config, "app.py": APP_PLANTED, "runners.py": runners}
    )
    run = run_pylint(root, "app.py")
    where = f"{root / 'runners.py'}:{syntax_line}: syntax error"
    assert_config_errors(
        run,
        root / "pyproject.toml",
        {
            "tool.rpcsurface.surface[0].handlers[0]": where,
            "tool.rpcsurface.surface[0].base-handlers[0]": where,
        },
    )


# ---------------------------------------------------------------------------
# Where the configuration comes from


def test_explicit_config_option_is_used(tmp_path: Path) -> None:
    # The project's own pyproject.toml has no table: only the option can configure it.
    conf = edit(PYPROJECT, "[tool.rpcsurface]\n", '[tool.rpcsurface]\nsource-roots = [".."]\n')
    root = project(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "demo"\n',
            "conf/rpc.toml": conf,
            "app.py": APP_PLANTED,
        },
    )
    without = run_pylint(root, "app.py")
    assert_no_crash(without)
    assert without.messages == (), describe_run(without)
    assert without.returncode == 0

    run = run_pylint(root, "--rpcsurface-config=conf/rpc.toml", "app.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-unanswered", "app.py", PLANTED_LINE)}, describe_run(run)
    assert run.returncode & ERROR_BIT


def test_explicit_config_option_naming_a_missing_file(tmp_path: Path) -> None:
    # The project's own table is valid: the option must override it, not fall back to it.
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": APP_PLANTED})
    run = run_pylint(root, "--rpcsurface-config=conf/missing.toml", "app.py")
    assert_config_errors(
        run,
        root / "conf" / "missing.toml",
        {"tool.rpcsurface": "cannot read the file: No such file or directory"},
    )


def test_upward_search_does_not_depend_on_the_working_directory(tmp_path: Path) -> None:
    root = project(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT.replace('"app.', '"pkg.sub.mod.'),
            # Nearer to the file, but without the table: the search must go past it.
            "pkg/pyproject.toml": "[tool.black]\nline-length = 100\n",
            "pkg/sub/mod.py": APP_PLANTED,
        },
    )
    module = root / "pkg" / "sub" / "mod.py"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    from_elsewhere = run_pylint(elsewhere, str(module))
    assert_no_crash(from_elsewhere)
    assert from_elsewhere.keys() == {("rpc-unanswered", module.as_posix(), PLANTED_LINE)}, (
        describe_run(from_elsewhere)
    )

    from_root = run_pylint(root, "pkg/sub/mod.py")
    assert_no_crash(from_root)

    def unit(run: PylintRun) -> list[tuple[str, int, int, str]]:
        return [(m.symbol, m.line, m.column, m.text) for m in run.messages]

    assert unit(from_root) == unit(from_elsewhere), describe_run(from_root)
    assert from_root.returncode == from_elsewhere.returncode != 0


def test_no_table_above_the_file_is_silent(tmp_path: Path) -> None:
    # The comment puts the table's name in the file's text, so the cheap byte search passes;
    # parsing then finds no table, and the plugin must stay silent.
    root = project(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "demo"\n# tool.rpcsurface lives elsewhere\n',
            "app.py": APP_PLANTED,
        },
    )
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.messages == (), describe_run(run)
    assert run.returncode == 0, describe_run(run)


def test_table_spelled_with_a_quoted_key_is_found(tmp_path: Path) -> None:
    # In TOML, [tool."rpcsurface"] is the same table as [tool.rpcsurface].
    quoted = PYPROJECT.replace("[tool.rpcsurface", '[tool."rpcsurface"')
    assert "tool.rpcsurface" not in quoted
    root = project(tmp_path, {"pyproject.toml": quoted, "app.py": APP_PLANTED})

    explicit = run_pylint(root, "--rpcsurface-config=pyproject.toml", "app.py")
    assert explicit.keys() == {("rpc-unanswered", "app.py", PLANTED_LINE)}, describe_run(explicit)

    run = run_pylint(root, "app.py")  # found by the upward search: the same finding
    assert_no_crash(run)
    assert run.keys() == {("rpc-unanswered", "app.py", PLANTED_LINE)}, describe_run(run)


def test_broken_surface_does_not_silence_a_good_one(tmp_path: Path) -> None:
    # Judged from what does resolve (its handler and registry), the broken surface would
    # report the listed 'fast_step' as rpc-listed-unanswered (Runner doesn't answer it); it
    # must not be judged at all, while the good surface's finding still is reported.
    broken_surface = textwrap.dedent(
        """
        [[tool.rpcsurface.surface]]
        name = "broken"
        callers = ["app.Kore"]
        handlers = ["app.Runner"]
        registry = "app.FAST_RPCS"
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT + broken_surface, "app.py": APP_PLANTED})
    run = run_pylint(root, "app.py")
    assert_config_errors(
        run,
        root / "pyproject.toml",
        {"tool.rpcsurface.surface[1].callers[0]": "'app' has no attribute 'Kore'"},
        others=frozenset({("rpc-unanswered", "app.py", PLANTED_LINE)}),
    )
    (finding,) = [m for m in run.messages if m.symbol == "rpc-unanswered"]
    assert finding.text.startswith("'no_such_rpc' is broadcast by Core,"), finding.text


# Each a configuration that names what the code doesn't have, or a registry that can't be
# used as written: no surface is fully judged, so every command exits 2, never 1 or 0.
BROKEN = {
    "class-missing": ('handlers = ["app.FastRunner"]', 'handlers = ["app.NoRunner"]', ""),
    "registry-module-missing": ('registry = "app.FAST_RPCS"', 'registry = "nowhere.RPCS"', ""),
    "registry-constant-missing": (
        'registry = "app.FAST_RPCS"',
        'registry = "app.NO_RPCS"',
        "'app.NO_RPCS' is not defined in module app",
    ),
    "registry-unreadable": (
        'registry = "app.FAST_RPCS"',
        'registry = "names.RPCS"',
        "'names.RPCS' can't be evaluated statically",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_every_kind_of_configuration_error_exits_2_in_every_command(
    tmp_path: Path, case: str
) -> None:
    old, new, finding = BROKEN[case]
    root = project(
        tmp_path,
        {
            "pyproject.toml": edit(PYPROJECT, old, new),
            "app.py": APP,
            "names.py": "RPCS = tuple(sorted(open('names.txt')))\n",
        },
    )
    for args in (("check", "--no-cache"), ("report",), ("fix",), ("fix", "--diff")):
        run = run_cli(root, *args)
        assert run.returncode == 2, (args, run)
        assert "Traceback" not in run.stderr, run.stderr
        if finding and args[0] == "check":
            assert finding in run.stdout, run  # the finding is printed all the same
    linted = run_pylint(root, "app.py", "names.py")
    assert linted.returncode & ERROR_BIT, describe_run(linted)


def test_a_wrong_registry_element_is_a_finding_not_a_configuration_error(tmp_path: Path) -> None:
    # One element listed twice: the registry is read and judged, so check exits 1.
    root = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "app.py": APP.replace('("fast_step",)', '("fast_step", "fast_step")'),
        },
    )
    run = run_cli(root, "check", "--no-cache")
    assert run.returncode == 1, run
    assert "'fast_step' is listed twice in app.FAST_RPCS" in run.stdout, run
    assert run_cli(root, "report").returncode == 0

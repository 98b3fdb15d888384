"""End to end: odd, broken or adversarial projects never crash the plugin.

Every test runs real pylint on a tiny project in ``tmp_path`` and asserts two things: no
traceback or crash message anywhere, and exactly the ``rpc-*`` messages the documented
rules give for that input (each test says why that expectation is right).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from support import (
    APP,
    APP_PLANTED,
    ERROR_BIT,
    HANDLERS,
    PLANTED_LINE,
    PYPROJECT,
    assert_no_crash,
    describe_run,
    line_of,
    only,
    project,
    run_pylint,
)

# ---------------------------------------------------------------------------
# Syntax errors


def test_syntax_error_in_an_unrelated_module(tmp_path: Path) -> None:
    """broken.py mentions Core, so the subclass search parses it and must cope with the
    failure. The analysis of the rest is unaffected: the planted finding is reported.
    The plugin never reports the syntax error itself; pylint does, as E0001 syntax-error,
    but only when it lints broken.py, and it still does under --disable=all
    --enable=rpcsurface (checked here: E0001 on broken.py's line 2)."""
    root = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "app.py": APP_PLANTED,
            "broken.py": "# a Core subclass was meant to go here\ndef (:\n",
        },
    )
    finding = ("rpc-unanswered", "app.py", PLANTED_LINE)

    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {finding}, describe_run(run)

    whole = run_pylint(root, "--recursive=y", ".")
    assert_no_crash(whole)
    assert whole.keys() == {finding, ("syntax-error", "broken.py", 2)}, describe_run(whole)
    (syntax,) = only(whole, "syntax-error")
    assert "invalid syntax" in syntax
    assert whole.returncode & ERROR_BIT


def test_caller_subclass_module_with_syntax_error(tmp_path: Path) -> None:
    """sub.py holds a subclass of Core but can't be parsed, so Sub is unknown to the plugin:
    its waited 'sub_rpc', which nobody answers, would be rpc-unanswered in sub.py if sub.py
    parsed, and is not reported. app.py (green) stays silent. Linting both gives exactly
    pylint's own syntax-error for sub.py, on the unclosed parenthesis' line, and nothing from
    the plugin: no crash, no guess."""
    sub = textwrap.dedent(
        """\
        from app import Core


        class Sub(Core):
            def extra(self):
                self.mgr.call_func("sub_rpc", wait_out=True)

            def broken(self:
                pass
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": APP, "sub.py": sub})

    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.messages == (), describe_run(run)
    assert run.returncode == 0, describe_run(run)

    both = run_pylint(root, "app.py", "sub.py")
    assert_no_crash(both)
    assert both.keys() == {("syntax-error", "sub.py", line_of(sub, "def broken"))}, describe_run(
        both
    )


def test_unparseable_caller_subclass_does_not_make_registry_entries_unwaited(
    tmp_path: Path,
) -> None:
    """'sub_rpc' is answered only by FastRunner and listed, and Sub waits on it: with sub.py
    parseable the project is silent. With a syntax error further down sub.py, whether
    anyone waits on 'sub_rpc' is unknown, so the registry entry must not be called
    unwaited (derive.py: a finding that would rest on something unknown is not made)."""
    app = APP.replace('FAST_RPCS = ("fast_step",)', 'FAST_RPCS = ("fast_step", "sub_rpc")', 1)
    app = app.replace(
        '        return "fast"\n',
        '        return "fast"\n\n    def sub_rpc(self):\n        return 1\n',
        1,
    )
    sub = textwrap.dedent(
        """\
        from app import Core


        class Sub(Core):
            def extra(self):
                self.mgr.call_func("sub_rpc", wait_out=True)
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app, "sub.py": sub})
    clean = run_pylint(root, "app.py")
    assert_no_crash(clean)
    assert clean.messages == (), describe_run(clean)

    (root / "sub.py").write_text(sub + "\n    def broken(self:\n        pass\n", encoding="utf-8")
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert only(run, "rpc-listed-unwaited") == [], describe_run(run)


# ---------------------------------------------------------------------------
# Class hierarchies Python itself would refuse


def test_inconsistent_mro_among_caller_subclasses(tmp_path: Path) -> None:
    """``class Weird(Base, Core)`` with ``Core(Base)`` has no C3 MRO (Python raises TypeError
    at import; note ``Weird(Core, Base)`` would be fine). astroid's mro() raises, and
    ClassIndex.linearize() falls back to the depth-first order, as its docstring says, so Weird
    still counts as a Core subclass: its own unanswered 'weird_rpc' is reported naming Weird,
    and Core's inherited 'no_such_rpc' names both classes. No crash, no guess beyond that."""
    app = HANDLERS + textwrap.dedent(
        """\


        class Base:
            pass


        class Core(Base):
            def run(self):
                self.mgr.call_func("fast_step", wait_out=True)
                self.mgr.call_func("no_such_rpc", wait_out=True)


        class Weird(Base, Core):
            def odd(self):
                self.mgr.call_func("weird_rpc", wait_out=True)
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {
        ("rpc-unanswered", "app.py", line_of(app, '"no_such_rpc"')),
        ("rpc-unanswered", "app.py", line_of(app, '"weird_rpc"')),
    }, describe_run(run)
    texts = sorted(only(run, "rpc-unanswered"))
    assert texts[0].startswith("'no_such_rpc' is broadcast by Core and Weird,"), texts
    assert texts[1].startswith("'weird_rpc' is broadcast by Weird,"), texts


def test_cyclic_inheritance_in_one_module(tmp_path: Path) -> None:
    """``class A(B)`` / ``class B(A, Core)``: a cycle astroid sees (Python would fail with
    NameError). astroid cuts the cycle: B's ancestors are A and Core, A's are none. So B is a
    Core subclass and runs its own 'b_rpc', A's 'a_rpc' (inherited) and Core's 'no_such_rpc';
    A is not a caller. Each unanswered name is reported once, naming who runs it."""
    app = HANDLERS + textwrap.dedent(
        """\


        class Core:
            def run(self):
                self.mgr.call_func("fast_step", wait_out=True)
                self.mgr.call_func("no_such_rpc", wait_out=True)


        class A(B):
            def a(self):
                self.mgr.call_func("a_rpc")


        class B(A, Core):
            def b(self):
                self.mgr.call_func("b_rpc")
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {
        ("rpc-unanswered", "app.py", line_of(app, '"no_such_rpc"')),
        ("rpc-unanswered", "app.py", line_of(app, '"a_rpc"')),
        ("rpc-unanswered", "app.py", line_of(app, '"b_rpc"')),
    }, describe_run(run)
    assert sorted(text.split(", but ")[0] for text in only(run, "rpc-unanswered")) == [
        "'a_rpc' is broadcast by B",
        "'b_rpc' is broadcast by B",
        "'no_such_rpc' is broadcast by B and Core",
    ], describe_run(run)


def test_caller_rebound_to_its_own_subclass(tmp_path: Path) -> None:
    """``class Loop(Core)`` then ``Core = Loop``: after import, ``app.Core`` *is* Loop, and the
    configured name resolves to its last binding, like Python. Loop is then the one caller,
    running its own 'loop_rpc' and the inherited 'no_such_rpc'; the rebinding makes no
    cycle. No crash."""
    app = HANDLERS + textwrap.dedent(
        """\


        class Core:
            def run(self):
                self.mgr.call_func("fast_step", wait_out=True)
                self.mgr.call_func("no_such_rpc", wait_out=True)


        class Loop(Core):
            def loop(self):
                self.mgr.call_func("loop_rpc")


        Core = Loop
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {
        ("rpc-unanswered", "app.py", line_of(app, '"no_such_rpc"')),
        ("rpc-unanswered", "app.py", line_of(app, '"loop_rpc"')),
    }, describe_run(run)
    assert all(" is broadcast by Loop, " in text for text in only(run, "rpc-unanswered"))


def test_diamond_reports_the_shared_broadcast_once(tmp_path: Path) -> None:
    """Core's call is one site, run by Core, Left, Right and Bottom: one finding, on that
    site, naming all four (names_list sorts them and joins the last with 'and')."""
    app = APP_PLANTED + textwrap.dedent(
        """\


        class Left(Core):
            pass


        class Right(Core):
            pass


        class Bottom(Left, Right):
            pass
        """
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert [(m.symbol, m.path, m.line) for m in run.messages] == [
        ("rpc-unanswered", "app.py", PLANTED_LINE)
    ], describe_run(run)
    (text,) = only(run, "rpc-unanswered")
    assert text.startswith("'no_such_rpc' is broadcast by Bottom, Core, Left and Right,"), text


# ---------------------------------------------------------------------------
# Registries that are not literals


def test_registry_returned_by_an_inferable_function(tmp_path: Path) -> None:
    """``FAST_RPCS = make()`` where make returns a tuple literal: astroid infers the call to
    that very tuple, so the registry is evaluated and its elements keep their places. The
    extra entry, answered by no handler, is rpc-listed-unanswered on its own line inside
    make(); 'fast_step' is read too, or the waited call would be rpc-unlisted."""
    registry = textwrap.dedent(
        """\
        def make():
            return (
                "fast_step",
                "extra_rpc",
            )


        FAST_RPCS = make()
        """
    )
    app = registry + APP.replace('FAST_RPCS = ("fast_step",)\n', "", 1)
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-listed-unanswered", "app.py", line_of(app, '"extra_rpc"'))}, (
        describe_run(run)
    )
    (message,) = run.messages
    assert message.column == 8
    assert message.text.startswith("'extra_rpc' is listed in app.FAST_RPCS, but no handler")


def test_registry_returned_by_an_uninferable_call(tmp_path: Path) -> None:
    """The value comes from the environment at run time: it can't be evaluated statically,
    so the registry is rpc-registry-invalid, on the registry's name in its assignment.
    Nothing is compared against it, so the waited 'fast_step' is not called unlisted."""
    registry = textwrap.dedent(
        """\
        import os


        def load_from_env():
            return tuple(os.environ["FAST_RPCS"].split(","))


        FAST_RPCS = load_from_env()
        """
    )
    app = registry + APP.replace('FAST_RPCS = ("fast_step",)\n', "", 1)
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    line = line_of(app, "FAST_RPCS = load_from_env()")
    assert run.keys() == {("rpc-registry-invalid", "app.py", line)}, describe_run(run)
    (message,) = run.messages
    assert (message.column, message.end_column) == (0, len("FAST_RPCS"))
    assert message.text.startswith("'app.FAST_RPCS' can't be evaluated statically: "), message
    assert run.returncode & ERROR_BIT


def test_registry_with_a_non_str_element(tmp_path: Path) -> None:
    """A non-str element is rpc-registry-invalid on that element; the str one is still
    compared (so no rpc-unlisted for the waited 'fast_step')."""
    registry = 'FAST_RPCS = ("fast_step", 3)\n'
    app = registry + APP.replace('FAST_RPCS = ("fast_step",)\n', "", 1)
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": app})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-registry-invalid", "app.py", 1)}, describe_run(run)
    (message,) = run.messages
    assert message.column == registry.index("3")
    assert message.text == "'3' in app.FAST_RPCS is not a str"


# ---------------------------------------------------------------------------
# Encodings


def test_latin1_caller_module_with_coding_cookie(tmp_path: Path) -> None:
    """Not UTF-8 at all (0xE9 is invalid UTF-8): read through its PEP 263 cookie, the RPC
    name is the str 'café', and the message shows it decoded."""
    text = (
        "# -*- coding: latin-1 -*-\n"
        '"""Déjà vu."""\n' + APP + '        self.mgr.call_func("café", wait_out=True)  # é\n'
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": text.encode("latin-1")})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-unanswered", "app.py", line_of(text, '"café"'))}, describe_run(run)
    (message,) = run.messages
    assert message.text.startswith("'café' is broadcast by Core,"), message.text
    assert message.column == text.splitlines()[-1].index('"café"')


def test_registry_module_with_utf8_bom(tmp_path: Path) -> None:
    """The registry module starts with a BOM, on the registry's own line. It is read:
    'fast_step' is listed (no rpc-unlisted for it), and the extra entry nobody answers is
    rpc-listed-unanswered at its exact place on line 1, the BOM not counted as a column."""
    names = 'FAST_RPCS = ("fast_step", "extra_rpc")\n'
    config = PYPROJECT.replace('registry = "app.FAST_RPCS"', 'registry = "names.FAST_RPCS"')
    root = project(
        tmp_path,
        {
            "pyproject.toml": config,
            "app.py": APP,
            "names.py": b"\xef\xbb\xbf" + names.encode("utf-8"),
        },
    )
    run = run_pylint(root, "app.py", "names.py")
    assert_no_crash(run)
    assert run.keys() == {("rpc-listed-unanswered", "names.py", 1)}, describe_run(run)
    (message,) = run.messages
    assert message.column == names.index('"extra_rpc"')
    assert message.text.startswith("'extra_rpc' is listed in names.FAST_RPCS,"), message.text


# ---------------------------------------------------------------------------
# Editors


def test_from_stdin_outside_every_project_is_silent(tmp_path: Path) -> None:
    """No pyproject.toml with a table is above outside/mod.py (the project's is beside it,
    not above), so the buffer is not the plugin's to judge, whatever it holds. The same
    buffer under the project's path gives the planted finding, so the silence is real."""
    root = project(tmp_path / "proj", {"pyproject.toml": PYPROJECT, "app.py": APP})
    outside = tmp_path / "outside" / "mod.py"
    outside.parent.mkdir()

    run = run_pylint(root, "--from-stdin", str(outside), stdin=APP_PLANTED)
    assert_no_crash(run)
    assert run.messages == (), describe_run(run)
    assert run.returncode == 0, describe_run(run)

    inside = run_pylint(root, "--from-stdin", "app.py", stdin=APP_PLANTED)
    assert_no_crash(inside)
    assert inside.keys() == {("rpc-unanswered", "app.py", PLANTED_LINE)}, describe_run(inside)


def test_columns_are_utf8_byte_offsets_of_the_name_literal(tmp_path: Path) -> None:
    """pylint reports UTF-8 byte columns; the message must span exactly the literal even
    when non-ASCII text comes earlier on the line."""
    line = '        ünïcode = "façade"; return self.mgr.call_func("no_such_rpc", wait_out=True)\n'
    root = project(tmp_path, {"pyproject.toml": PYPROJECT, "app.py": APP + line})
    run = run_pylint(root, "app.py")
    assert_no_crash(run)
    (message,) = run.messages
    encoded = line.encode("utf-8")
    start = encoded.index(b'"no_such_rpc"')
    assert (message.symbol, message.line) == ("rpc-unanswered", APP.count("\n") + 1)
    assert (message.column, message.end_column) == (start, start + len(b'"no_such_rpc"'))
    assert message.end_line == message.line
    assert start != line.index('"no_such_rpc"')  # the text really has multi-byte characters


def test_two_surfaces_are_judged_each_against_its_own_registry(tmp_path: Path) -> None:
    """A second surface with its own callers, handlers and registry: each registry is
    measured only against its own surface, and a name one surface lists is not
    'unlisted' for the other."""
    second = """
[[tool.rpcsurface.surface]]
name = "slow"
callers = ["slow.SlowCore"]
handlers = ["slow.SlowRunner"]
registry = "slow.SLOW_RPCS"
"""
    slow = (
        'SLOW_RPCS = ("slow_step",)\n'
        "\n\n"
        "class SlowRunner:\n"
        "    def slow_step(self):\n"
        "        return 1\n"
        "\n"
        "    def fast_step(self):\n"
        "        return 1\n"
        "\n\n"
        "class SlowCore:\n"
        "    def go(self):\n"
        '        self.mgr.call_func("slow_step", wait_out=True)\n'
        '        return self.mgr.call_func("fast_step", wait_out=True)\n'
    )
    root = project(tmp_path, {"pyproject.toml": PYPROJECT + second, "app.py": APP, "slow.py": slow})
    run = run_pylint(root, "app.py", "slow.py")
    assert_no_crash(run)
    # 'fast_step' is listed in app.FAST_RPCS, but the slow surface's registry lacks it
    # and only its handler answers it (no base handlers): unlisted there, and only there.
    line = (
        slow.splitlines().index('        return self.mgr.call_func("fast_step", wait_out=True)') + 1
    )
    assert run.keys() == {("rpc-unlisted", "slow.py", line)}, describe_run(run)
    (message,) = run.messages
    assert "slow.SLOW_RPCS" in message.text

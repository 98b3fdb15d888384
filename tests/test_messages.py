"""The message contract: ids in the plugin range, unused by pylint, texts that start
with the quoted name, a confidence on every message, and pylint's help for each."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pylint.extensions
from pylint import interfaces
from pylint.lint import PyLinter
from support import HANDLERS, PYPROJECT, clean_environment, project, run_check, run_pylint

from pylint_rpcsurface.messages import BY_SYMBOL, CHECKER_ID, CHECKER_NAME, MESSAGES
from pylint_rpcsurface.pylint_plugin import RpcSurfaceChecker


def builtin_linter() -> PyLinter:
    """A linter with every built-in checker and every bundled extension registered."""
    linter = PyLinter()
    linter.load_default_plugins()
    extensions = [
        f"pylint.extensions.{module.name}"
        for module in pkgutil.iter_modules(pylint.extensions.__path__)
        if not module.name.startswith("_")
    ]
    assert len(extensions) > 20  # the scan really found pylint's extensions
    linter.load_plugin_modules(extensions)
    return linter


def test_our_checker_id_is_in_the_plugin_range_and_unused_by_pylint() -> None:
    assert 51 <= int(CHECKER_ID) <= 99
    linter = builtin_linter()
    used = {message.msgid[1:3] for checker in linter.get_checkers() for message in checker.messages}
    assert {"55", "56", "60", "90"} <= used  # pylint's own extensions' ids
    assert CHECKER_ID not in used


def test_our_symbols_and_ids_register_next_to_all_of_pylint() -> None:
    linter = builtin_linter()
    known = {m.symbol for c in linter.get_checkers() for m in c.messages}
    assert not known & {spec.symbol for spec in MESSAGES}
    linter.register_checker(RpcSurfaceChecker(linter))  # raises on any clash
    for spec in MESSAGES:
        (definition,) = linter.msgs_store.get_message_definitions(spec.symbol)
        assert definition.msgid == spec.msgid
        assert definition.checker_name == CHECKER_NAME


def test_every_message_uses_our_id_starts_with_a_quoted_name_and_has_a_confidence() -> None:
    names = {level.name for level in interfaces.CONFIDENCE_LEVELS}
    for spec in MESSAGES:
        assert spec.msgid[1:3] == CHECKER_ID
        assert spec.confidence in names
        if spec.symbol == "rpc-name-uninferable":  # the name's source, quoted by the rule
            assert spec.template.startswith("%s ")
        elif spec.symbol != "rpcsurface-config-error":  # its text is a file and a key
            assert spec.template.startswith("'%s'")
    assert len({spec.msgid for spec in MESSAGES}) == len(MESSAGES)


def test_pylint_help_msg_shows_the_text_with_its_pointer_and_the_description(
    tmp_path: Path,
) -> None:
    spec = BY_SYMBOL["rpc-unlisted"]
    helped = subprocess.run(
        [
            sys.executable,
            "-m",
            "pylint",
            "--load-plugins=pylint_rpcsurface",
            f"--help-msg={spec.symbol}",
        ],
        cwd=tmp_path,
        env=clean_environment(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert (helped.returncode, helped.stderr) == (0, ""), helped.stdout
    first, *rest = helped.stdout.splitlines()
    assert first == f":{spec.symbol} ({spec.msgid}): *{spec.text}*"
    assert first.endswith(f"({spec.pointer})*")
    # pylint wraps the description to its own width.
    assert " ".join(spec.description.split()) in " ".join(" ".join(rest).split())


def test_an_uninferable_name_is_shown_as_written_and_quoted_once(tmp_path: Path) -> None:
    # An f-string is shown as written, its own quotes the only ones; a call is quoted.
    root = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "app.py": HANDLERS
            + "\n\nclass Core:\n"
            + "    def run(self, phase, name):\n"
            + "        self.mgr.call_func(f'profile_{phase}', wait_out=True)\n"
            + "        self.mgr.call_func(self.pick(), wait_out=True)\n",
        },
    )
    tail = (
        " does not infer to one str, so the RPC that Core broadcasts with call_func() "
        "can't be checked"
    )
    wanted = {"f'profile_{phase}'" + tail, "'self.pick()'" + tail}
    checked = run_check(root, "--format", "json", "--no-cache")
    assert {m.text for m in checked.messages if m.symbol == "rpc-name-uninferable"} == wanted
    linted = run_pylint(root, "app.py")
    assert {m.text for m in linted.messages if m.symbol == "rpc-name-uninferable"} == wanted

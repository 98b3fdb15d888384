"""Run real pylint with the plugin in a subprocess and read its json2 report.

Every end-to-end test goes through here, so each one exercises exactly what a
user runs: ``pylint --load-plugins=pylint_rpcsurface``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ONLY_OUR_CHECKER = ("--disable=all", "--enable=rpcsurface")

# The `rpcsurface` command as the package installs it; without an installed script, the
# same entry point with the working folder taken off sys.path again, as the script has it.
_SCRIPT = Path(sys.executable).parent / ("rpcsurface.exe" if os.name == "nt" else "rpcsurface")
CONSOLE_SCRIPT: tuple[str, ...] = (
    (str(_SCRIPT),)
    if _SCRIPT.exists()
    else (
        sys.executable,
        "-c",
        "import sys; del sys.path[0]; "
        "from pylint_rpcsurface.commands.main import main; sys.exit(main())",
    )
)
# Each of our texts ends with " (see docs/messages/<symbol>.md)"; tests compare the text
# before it, and tests/test_message_examples.py checks the pointer itself.
_POINTER = re.compile(r" \(see (docs/messages/[a-z0-9-]+\.md)\)$")


@dataclass(frozen=True)
class Reported:
    """One message as pylint reported it, reduced to what tests compare."""

    symbol: str
    path: str  # relative to the project folder, with forward slashes
    line: int
    column: int
    end_line: int | None
    end_column: int | None
    text: str  # without the trailing pointer to the docs page, which is in `page`
    confidence: str
    page: str = ""  # the docs page the text points to, "" when it points to none


def _split_pointer(message: str) -> tuple[str, str]:
    match = _POINTER.search(message)
    if match is None:
        return message, ""
    return message[: match.start()], match.group(1)


@dataclass(frozen=True)
class PylintRun:
    returncode: int
    messages: tuple[Reported, ...]
    stdout: str
    stderr: str

    def keys(self) -> set[tuple[str, str, int]]:
        """The (symbol, path, line) of every message, the acceptance table's unit."""
        return {(m.symbol, m.path, m.line) for m in self.messages}


def _relative(absolute: str, project: Path) -> str:
    try:
        return Path(absolute).resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return Path(absolute).as_posix()


def run_pylint(
    project: Path,
    *args: str,
    stdin: str | None = None,
    only_ours: bool = True,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> PylintRun:
    """Run ``python -m pylint`` in *project* with the plugin loaded.

    *args* are the files or extra options. json2 output is parsed; if pylint
    printed something that is not json2 (a crash), the test sees it in
    ``stdout``/``stderr`` and ``messages`` is empty.
    """
    command = [
        sys.executable,
        "-m",
        "pylint",
        "--load-plugins=pylint_rpcsurface",
        "--output-format=json2",
        "--persistent=n",
        "--score=n",
        *(ONLY_OUR_CHECKER if only_ours else ()),
        *args,
    ]
    environment = clean_environment(env)
    completed = subprocess.run(
        command,
        cwd=project,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=environment,
        check=False,
    )
    messages: tuple[Reported, ...] = ()
    try:
        report = json.loads(completed.stdout)
    except json.JSONDecodeError:
        report = None
    if isinstance(report, dict):
        messages = _reported(report["messages"], project)
    return PylintRun(completed.returncode, messages, completed.stdout, completed.stderr)


def clean_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """The test process's environment, without what would change how the plugin runs."""
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    environment.pop("RPCSURFACE_NO_CACHE", None)
    environment.update(env or {})
    return environment


def _reported(items: list[dict[str, Any]], project: Path) -> tuple[Reported, ...]:
    """pylint's json2 messages, or ``rpcsurface check --format json``'s (same keys)."""
    found = []
    for m in items:
        text, page = _split_pointer(m["message"])
        found.append(
            Reported(
                symbol=m["symbol"],
                path=_relative(m["absolutePath"], project),
                line=m["line"],
                column=m["column"],
                end_line=m.get("endLine"),
                end_column=m.get("endColumn"),
                text=text,
                confidence=m["confidence"],
                page=page,
            )
        )
    return tuple(sorted(found, key=lambda r: (r.path, r.line, r.column, r.symbol, r.text)))


@dataclass(frozen=True)
class CheckRun:
    """One run of the ``rpcsurface check`` command line."""

    returncode: int
    messages: tuple[Reported, ...]  # from --format json; empty for text output
    stdout: str
    stderr: str


def run_cli(
    project: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``rpcsurface ARGS`` in *project*, as a user does.

    The installed console script is what runs: ``python -m`` would put the working folder
    first on sys.path, which the command a user types does not, and imports would then
    resolve as they never do for the user.
    """
    return subprocess.run(
        [*CONSOLE_SCRIPT, *args],
        cwd=project,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=clean_environment(env),
        check=False,
    )


def run_check(
    project: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> CheckRun:
    """Run ``rpcsurface check ARGS`` in *project* (see :func:`run_cli`).

    With ``--format json`` among *args*, the findings are parsed into the same
    :class:`Reported` records as pylint's, so the two can be compared directly.
    """
    completed = run_cli(project, "check", *args, env=env, timeout=timeout)
    messages: tuple[Reported, ...] = ()
    if "json" in args and completed.returncode in (0, 1):
        messages = _reported(json.loads(completed.stdout), project)
    return CheckRun(completed.returncode, messages, completed.stdout, completed.stderr)

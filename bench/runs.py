"""One measured run of bench/run.py: the edit before it, the fresh process, its exit
status and findings checked against what is expected (a failing run aborts)."""

from __future__ import annotations

import compileall
import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from edits import comment_text, edit_text, interface_text, name_send, name_text
from sites import (
    BUFFER_EDITS,
    CACHE,
    CACHE_DIR_ENV,
    EDITED,
    EDITS,
    NAME_EDITS,
    Abort,
    Command,
    Finding,
    Sample,
    Site,
    cache_bytes,
    markers,
    oracle_env,
    relative,
    tree_oracle,
)

CHECK_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<symbol>[a-z][a-z0-9-]*): ")
PYLINT_FINDINGS_BITS = 2 | 4  # error, warning; 1 fatal and 32 usage error must never be set


def apply_edit(site: Site, command: Command) -> None:
    """Make *command*'s edit: a new buffer for stdin, or a statement saved in a module.

    On a real tree (no markers), and after a name edit on any tree, the findings
    expected after it are computed again: a ``--no-cache`` pylint run on the new buffer,
    or ``rpcsurface check --no-cache`` on the tree as saved now.
    """
    assert command.edit in EDITS, command.edit
    site.edits += 1
    if command.edit in BUFFER_EDITS:
        assert command.stdin is not None
        assert command.only is not None
        saved = command.stdin.read_text("utf-8")
        if command.edit == "comment":
            text, where = comment_text(saved, site.edits)
        elif command.edit == "interface":
            text, where = interface_text(saved, site.edits, site.dispatch, site.callers)
        elif command.edit in NAME_EDITS:
            text, where, line = name_edit(site, command, saved)
        else:
            text, where = edit_text(saved, site.edits, site.dispatch)
        folder = site.path.with_name(site.path.name + ".buffers")
        folder.mkdir(exist_ok=True)
        buffer = folder / f"buffer-{site.edits}.py"
        buffer.write_text(text, encoding="utf-8")
        site.buffer = (buffer, text)
        site.where_edited[command.edit] = f"`{command.only}`, {where}"
        if site.oracle is not None or command.edit in NAME_EDITS:
            site.buffer_expected = buffer_oracle(site, command, buffer)
        if command.edit in NAME_EDITS:
            there = sorted(s for s, _, n in site.buffer_expected if n == line)
            if command.edit == "name" and there:
                raise Abort(
                    f"{command.label}: {where}, but the new name is not answered there: "
                    f"a pylint run on the buffer under RPCSURFACE_NO_CACHE=1 reports {there}"
                )
            site.where_edited[command.edit] += f"; found there: {', '.join(there) or 'nothing'}"
        return
    # The caller edit goes to the stdin file, the largest caller module.
    path = site.manifest["handler_module" if command.edit == "handler" else "largest_caller_module"]
    assert isinstance(path, str)
    target = site.path / path
    (site.path / EDITED).write_text("an edit is saved; rerun to regenerate\n", "utf-8")
    site.originals.setdefault(path, target.read_bytes())
    text, where = edit_text(target.read_text("utf-8"), site.edits, site.dispatch)
    target.write_text(text, encoding="utf-8")
    site.edited[path] = text
    site.saved_edits += 1
    site.where_edited[command.edit] = f"`{path}`, {where}"
    if site.oracle is not None:
        site.oracle = tree_oracle(site)


def name_edit(site: Site, command: Command, saved: str) -> tuple[str, str, int]:
    """*saved* with an RPC name edit (*command*'s: another answered name, or mistyped),
    where, and the edited line."""
    assert command.edit in NAME_EDITS
    assert command.only is not None
    handler = site.manifest.get("handler_module")
    handler_text = (site.path / handler).read_text("utf-8") if isinstance(handler, str) else ""
    flagged = frozenset(n for _, path, n in site.expected if path == command.only)
    send = name_send(saved, site.dispatch, site.callers, flagged, handler_text)
    count = site.edits_of[command.edit] = site.edits_of.get(command.edit, 0) + 1
    text, where = name_text(saved, send, count, mistyped=command.edit == "mistyped")
    return text, where, send.literal.lineno


def buffer_oracle(site: Site, command: Command, buffer: Path) -> set[Finding]:
    """The findings of *command* (a pylint stdin run) on *buffer*, without any cache."""
    with buffer.open("rb") as source:
        done = subprocess.run(
            command.argv, cwd=site.path, stdin=source, capture_output=True,
            env=oracle_env(site), check=False,
        )  # fmt: skip
    sample = Sample(0.0, 0, done.returncode, done.stdout.decode("utf-8", "replace"),
                    done.stderr.decode("utf-8", "replace"))  # fmt: skip
    oracle = dataclasses.replace(command, label=f"the oracle of {command.label}", edit=None)
    validate(site, dataclasses.replace(oracle, kind="baseline"), sample)  # its exit status
    return {f for f in pylint_findings(site, oracle, sample) if f[1] == command.only}


def run_once(site: Site, command: Command) -> Sample:
    if command.cold:
        shutil.rmtree(site.path / CACHE, ignore_errors=True)
        shutil.rmtree(site.cache_dir, ignore_errors=True)
        site.deletions += 1
    env = dict(os.environ)
    for name in ("PYTHONPATH", "RPCSURFACE_NO_CACHE"):
        env.pop(name, None)
    env[CACHE_DIR_ENV] = str(site.cache_dir)
    stdin = command.stdin
    buffer = None
    if command.edit in BUFFER_EDITS or command.same_buffer:
        if site.buffer is None:
            raise Abort(f"{command.label}: no buffer was sent before it")
        stdin, buffer = site.buffer
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        (stdin or Path(os.devnull)).open("rb") as source,
    ):
        start = time.perf_counter()
        process = subprocess.Popen(
            command.argv, cwd=site.path, stdin=source, stdout=out, stderr=err, env=env
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    sample = Sample(seconds, rss, process.returncode, stdout, stderr, cache_bytes(site))
    validate(site, command, sample, buffer)
    if command.warm or not command.cold:
        site.warmed[command.label] = site.state
    return sample


def pylint_findings(site: Site, command: Command, sample: Sample) -> set[Finding]:
    try:
        report = json.loads(sample.stdout)
        messages = report["messages"]
        return {(m["symbol"], relative(site, m["absolutePath"]), int(m["line"])) for m in messages}
    except (ValueError, KeyError, TypeError) as error:
        raise Abort(
            f"{command.label}: pylint's output is not a json2 report ({error}): "
            f"{sample.stdout[:200]!r}"
        ) from None


def check_findings(site: Site, sample: Sample) -> set[Finding]:
    found = set()
    for line in sample.stdout.splitlines():
        match = CHECK_LINE.match(line)
        if match:
            found.add((match["symbol"], relative(site, match["path"]), int(match["line"])))
    return found


def validate(site: Site, command: Command, sample: Sample, buffer: str | None = None) -> None:
    """Abort unless the run exited as it should and reported exactly the planted findings.

    With *buffer* (the text sent on stdin for the file ``command.only``), that file's
    findings are the markers of the buffer.
    """
    where = (
        f"{command.label} at scale {site.scale:g} ({site.path})"
        if site.tree is None
        else f"{command.label} on the copy of {site.tree} ({site.path})"
    )
    tail = sample.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
    if "Traceback (most recent call last)" in sample.stderr:
        raise Abort(f"{where}: crashed (exit {sample.returncode}): {tail[0]}")
    code = sample.returncode
    if command.kind in ("ours", "baseline"):
        if code < 0 or code & ~PYLINT_FINDINGS_BITS:
            raise Abort(
                f"{where}: pylint exited {code}; expected 0 or the findings bits 2/4 "
                f"(1 = fatal, 32 = usage error): {tail[0]}"
            )
    elif command.kind == "check":
        if code not in (0, 1):
            raise Abort(f"{where}: rpcsurface check exited {code}; expected 0 or 1: {tail[0]}")
    elif code != 0:
        raise Abort(f"{where}: exited {code}; expected 0: {tail[0]}")
    if command.kind not in ("ours", "check"):
        return
    if command.kind == "ours":
        found = pylint_findings(site, command, sample)
    else:
        found = check_findings(site, sample)
    expected = {
        f
        for f in site.expected
        if command.only in (None, f[1]) and (not command.within or f[1] in command.within)
    }
    if buffer is not None and command.only is not None:
        expected = (
            site.buffer_expected
            if site.oracle is not None or command.edit in NAME_EDITS
            else markers(command.only, buffer)
        )
    if found != expected:
        missing = sorted(expected - found)
        extra = sorted(found - expected)
        if buffer is not None and (site.oracle is not None or command.edit in NAME_EDITS):
            whose = "the oracle's (a pylint run on the same buffer, RPCSURFACE_NO_CACHE=1)"
        elif site.oracle is None:
            whose = "the planted ones"
        else:
            whose = "the oracle's (rpcsurface check --no-cache on the tree as saved)"
        raise Abort(f"{where}: findings differ from {whose}: missing {missing}, extra {extra}")
    if command.kind == "check" and bool(code) != bool(expected):
        raise Abort(f"{where}: exited {code} with {len(found)} findings")


def measure(site: Site, command: Command) -> Sample:
    before = command.before
    if before is not None and (not before.warm or site.warmed.get(before.label) != site.state):
        run_once(site, before)  # unmeasured: what the row measures right after
    if command.edit is not None:
        # Unmeasured, on what is saved now: fills the cache; then the edit.
        run_once(site, dataclasses.replace(command, edit=None, label=f"{command.label} (before)"))
        apply_edit(site, command)
    elif command.warm and site.warmed.get(command.label) != site.state:
        run_once(site, command)  # unmeasured: fills the cache
    return run_once(site, command)


MEASURED_PACKAGES = ("pylint_rpcsurface", "pylint", "astroid")


def compile_bytecode(packages: tuple[str, ...] = MEASURED_PACKAGES) -> list[str]:
    """Compile the measured packages' bytecode, as pip does when it installs them; the
    packages whose files needed it, by name.

    A run is meant to start as it does for a user: pip writes every module's ``.pyc`` at
    install, so an installed plugin is never compiled at start-up. An editable install
    under ``PYTHONDONTWRITEBYTECODE=1`` (a checkout's virtualenv) would otherwise compile
    the plugin's ~12k lines in every measured run (about 37 ms on the reference machine)
    and not pylint's, which its installer compiled: a cost no user's run has.
    """
    compiled: list[str] = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        stale = [f for f in folders if _needs_bytecode(Path(f))]
        for folder in stale:
            if not compileall.compile_dir(folder, quiet=1):
                raise Abort(f"could not compile {name}'s bytecode in {folder}")
        if stale:
            compiled.append(name)
    return compiled


def _needs_bytecode(folder: Path) -> bool:
    """Whether a module under *folder* has no ``.pyc`` Python would load for it: none,
    another interpreter's, or one whose header records another mtime or size."""
    for source in folder.rglob("*.py"):
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            header = cached.read_bytes()[:16]
            stat = source.stat()
        except OSError:
            return True
        if header[:4] != importlib.util.MAGIC_NUMBER:
            return True
        if int.from_bytes(header[4:8], "little"):
            continue  # checked by the source's hash, not its mtime: Python checks it
        recorded = (int.from_bytes(header[8:12], "little"), int.from_bytes(header[12:16], "little"))
        if recorded != (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF):
            return True
    return False

"""``rpcsurface lsp`` SIGKILLed and started again, as an editor restarts a server that died:
once in the middle of its first analysis, once in the middle of writing the store.

The real console script, driven by pytest-lsp's client, on an engine-shaped project with
a store folder of its own (``RPCSURFACE_CACHE_DIR``). After each kill, a new server on the
same project and store publishes, for the caller module and for a module whose unsaved
buffer mistypes an RPC name, what ``rpcsurface check --no-cache`` says of that text; then
``rpcsurface check`` with the store says what ``--no-cache`` says, within a timeout far
below the store lock's wait: nothing is left locked, and nothing left behind is trusted.

Where each kill lands is made sure of, not hoped for:

* mid-analysis: the kill follows the ``$/progress`` begin notification, sent as the first
  analysis starts, and the analysis (of a generated engine that takes seconds) has then
  not finished: it never appended its ``RPCSURFACE_STATS`` record, which comes after the
  analysis and its store write and before any diagnostics;
* mid-write: a ``sitecustomize`` given to that server alone stops it in the store's
  write, one byte short of the end or before the rename, and says so in a file; the kill
  comes then, deterministically. What it was writing is the store file's next version
  (the identity it holds is the store's), and the store file must be, byte for byte, the
  one written before.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client
from support import (
    CONSOLE_SCRIPT,
    clean_environment,
    load_bench_script,
    real_layout_copy,
    run_check,
    stats_env,
    stats_records,
)
from test_lsp import (
    ENGINE_CORE,
    MODEL_RUNNER,
    Said,
    _answered,
    _checked,
    _open,
    _published,
    _serve,
    _uri,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

# The store lock's wait (store/lock.py) is minutes: a check still running after this
# long is waiting for a lock nobody will release.
UNLOCKED_WITHIN = 60.0
GENERATED_SCALE = 0.03  # a few dozen modules; the first analysis takes seconds
GENERATED_CALLER = "infer/engine/core.py"
GENERATED_SUBCLASS = "infer/engine/roles/prefill.py"
RLHF_CORE = "engine/model_engine/rlhf/core.py"
# A waited send site: the generated project's names come from its seed.
_WAITED_SITE = re.compile(r"""call_func\((["'])([a-z_]+)\1.*wait_out=True""")

# Given (as sitecustomize.py) to the server to kill in its store write, and to no other
# process: at the point RPCSURFACE_TEST_PAUSE names, it creates the file
# RPCSURFACE_TEST_PAUSED names and sleeps until it is killed.
#   bytes:  all but the last byte written of any file opened for writing in the cache folder;
#   rename: as a temporary file is about to be renamed over a file of the cache folder.
PAUSING = """\
import builtins
import io
import os
import time

_POINT = os.environ["RPCSURFACE_TEST_PAUSE"]
_FOLDER = os.path.realpath(os.environ["RPCSURFACE_CACHE_DIR"]) + os.sep
_open = io.open
_replace = os.replace


def _pause():
    _open(os.environ["RPCSURFACE_TEST_PAUSED"], "w").close()
    while True:
        time.sleep(60)


def _in_cache(file):
    if isinstance(file, int):
        file = os.readlink(f"/proc/self/fd/{file}")
    return os.path.realpath(os.fspath(file)).startswith(_FOLDER)


class _Halting:
    def __init__(self, stream):
        self._stream = stream

    def __enter__(self):
        return self

    def __exit__(self, *raised):
        return self._stream.__exit__(*raised)

    def write(self, data):
        self._stream.write(data[:-1])
        self._stream.flush()
        _pause()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _opening(file, mode="r", *args, **kwargs):
    stream = _open(file, mode, *args, **kwargs)
    if _POINT == "bytes" and "w" in mode and _in_cache(file):
        return _Halting(stream)
    return stream


def _replacing(source, target, *args, **kwargs):
    if _POINT == "rename" and _in_cache(target):
        _pause()
    return _replace(source, target, *args, **kwargs)


io.open = builtins.open = _opening
os.replace = _replacing
"""


def _generated(tmp_path: Path) -> Path:
    """bench/generate_project.py's engine at a small scale: a 5,100-line handler module
    and a 1,250-line caller module, as a real engine's."""
    project = tmp_path / "proj"
    load_bench_script("generate_project").write(project, GENERATED_SCALE, 0)
    return project


def _store_folder(project: Path) -> Path:
    """The cache folder :func:`stats_env` gives runs in *project*."""
    return project.parent / "cache"


def _store_files(project: Path) -> dict[str, bytes]:
    """Each store file of the project's cache folder, by name, with its bytes."""
    return {p.name: p.read_bytes() for p in _store_folder(project).glob("*/store-*.json")}


def _mistyped(text: str, name: str) -> str:
    """*text* with the one send site of *name* sending it one letter short."""
    sent = re.compile(rf"""(?<=call_func\((["'])){name}(?=\1)""")
    assert len(sent.findall(text)) == 1, name
    return sent.sub(name[:-1], text)


def _identity(written: bytes) -> object:
    """The identity a store file's bytes hold, read from its start: they may be cut short."""
    text = written.decode("utf-8")
    key = '"identity":'
    assert text.count(key) == 1
    return json.JSONDecoder().raw_decode(text, text.index(key) + len(key))[0]


async def _killed(
    project: Path, caller: Path, *, at: str, env: dict[str, str], cwd: Path
) -> LanguageClient:
    """Start ``rpcsurface lsp`` on *project*, open *caller*, and SIGKILL the server once
    *at* is reached: ``"progress"`` (its first analysis has begun) or ``"paused"`` (the
    sitecustomize in *env* stopped it). The client, its server dead."""
    client = make_test_lsp_client()
    await client.start_io(*CONSOLE_SCRIPT, "lsp", env=clean_environment(env), cwd=cwd)
    await client.initialize_session(
        types.InitializeParams(
            # Declares window.workDoneProgress: the server shows its first analysis.
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=_uri(project),
            workspace_folders=[types.WorkspaceFolder(uri=_uri(project), name="proj")],
        )
    )
    begun = client.protocol.wait_for_notification_async(types.PROGRESS)
    _open(client, caller)
    if at == "progress":
        await asyncio.wait_for(begun, timeout=60)
    else:
        paused = Path(env["RPCSURFACE_TEST_PAUSED"])
        deadline = time.monotonic() + 60
        while not paused.exists():
            assert time.monotonic() < deadline, "the server never reached the store's write"
            await asyncio.sleep(0.01)
    server = client._server  # pylint: disable=protected-access  # the process pytest-lsp started
    assert server is not None
    server.send_signal(signal.SIGKILL)
    assert await server.wait() == -signal.SIGKILL
    await client.stop()
    return client


def _restarted_says_what_check_says(project: Path, caller: str, other: str, sent: str) -> None:
    """A new server on the same project and store: the caller module opened as saved and
    *other*'s buffer with *sent* mistyped, unsaved; their diagnostics are what
    ``check --no-cache`` says of those texts. Then ``check`` with the store, which must not
    wait for a lock, says what ``--no-cache`` says of the saved files."""
    edited = _mistyped((project / other).read_text("utf-8"), sent)

    async def scenario(client: LanguageClient) -> set[Said]:
        _open(client, project / caller)
        _open(client, project / other)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=_uri(project / other), version=2
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )
        await _answered(client, project / caller)
        return _published(client, project)

    published = _serve(project, scenario)
    copy = project.parent / "saved" / "proj"
    shutil.copytree(project, copy)
    (copy / other).write_text(edited, "utf-8")
    expected = {said for said in _checked(copy) if said[1] in (caller, other)}
    assert {said for said in _checked(project) if said[1] in (caller, other)} != expected
    assert published == expected

    try:
        stored = run_check(
            project, "--format", "json", env=stats_env(project), timeout=UNLOCKED_WITHIN
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"check with the store still waits after {UNLOCKED_WITHIN} s: a lock is held")
    fresh = run_check(project, "--format", "json", "--no-cache")
    assert stored.returncode == fresh.returncode, stored.stderr
    assert json.loads(stored.stdout) == json.loads(fresh.stdout)


def test_a_server_killed_in_its_first_analysis_is_restarted_with_nothing_wrong(
    tmp_path: Path,
) -> None:
    project = _generated(tmp_path)
    caller = project / GENERATED_CALLER

    client = asyncio.run(
        _killed(project, caller, at="progress", env=stats_env(project), cwd=tmp_path)
    )
    # The kill landed mid-analysis: it had begun, and it never finished.
    (token,) = client.progress_reports
    assert [type(v).__name__ for v in client.progress_reports[token]] == ["WorkDoneProgressBegin"]
    assert stats_records(project) == []
    assert client.diagnostics == {}
    assert _store_files(project) == {}

    waited = _WAITED_SITE.search((project / GENERATED_SUBCLASS).read_text("utf-8"))
    assert waited is not None
    _restarted_says_what_check_says(project, GENERATED_CALLER, GENERATED_SUBCLASS, waited[2])


@pytest.mark.skipif(sys.platform != "linux", reason="the pause reads /proc/self/fd")
@pytest.mark.parametrize("point", ["bytes", "rename"])
def test_a_server_killed_writing_the_store_leaves_it_whole(tmp_path: Path, point: str) -> None:
    project = real_layout_copy(tmp_path)
    caller = project / ENGINE_CORE
    warm = run_check(project, "--format", "json", env=stats_env(project))
    assert warm.returncode in (0, 1), warm.stderr
    before = _store_files(project)
    assert len(before) == 1
    # A handler renamed behind the store's back: the server computes, then writes.
    handlers = project / MODEL_RUNNER
    handlers.write_text(
        handlers.read_text("utf-8").replace("def forward(", "def forwards("), "utf-8"
    )
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(PAUSING, "utf-8")
    env = {
        **stats_env(project),
        # Its own working folder: a folder the server was started in is no part of the
        # store's identity, so the server writes the store check reads.
        "PYTHONPATH": str(shim),
        "RPCSURFACE_TEST_PAUSE": point,
        "RPCSURFACE_TEST_PAUSED": str(tmp_path / "paused"),
    }

    asyncio.run(_killed(project, caller, at="paused", env=env, cwd=shim))
    # The server's analysis was done (its diagnostics are published before the store is
    # written, and may have reached the client): the kill cut its write short.
    assert len(stats_records(project)) == 2
    assert _store_files(project) == before  # the store written before, byte for byte
    (cut_short,) = _store_folder(project).glob("*/.tmp-*")
    (stored,) = before.values()
    assert _identity(cut_short.read_bytes()) == json.loads(stored)["identity"]

    _restarted_says_what_check_says(project, ENGINE_CORE, RLHF_CORE, "sync_weights")

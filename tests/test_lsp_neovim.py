"""`rpcsurface lsp` in a real editor: Neovim's built-in LSP client (Debian's package),
headless, runs a user's session (tests/editors/neovim_session.lua) on a copy of the
real_layout fixture: the squiggle of a mistyped RPC name comes and goes, go to definition
reaches the handler, and a rename saved everywhere leaves ``rpcsurface check`` finding
what it found before, under the new name. Skipped where ``nvim`` is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support import CONSOLE_SCRIPT, real_layout_copy, run_check

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim (nvim)"),
]

SESSION = Path(__file__).parent / "editors" / "neovim_session.lua"
CALLER = "engine/model_engine/engine_core.py"
HANDLER = "engine/model_engine/model_runner.py"


def test_a_neovim_session_squiggles_jumps_and_renames(tmp_path: Path) -> None:
    root = real_layout_copy(tmp_path)
    before = run_check(root, "--format", "json", "--no-cache")
    text = (root / CALLER).read_text(encoding="utf-8")
    line = text[: text.index('"load_model"')].count("\n") + 1
    handler_line = (root / HANDLER).read_text(encoding="utf-8").split("\n").index(
        "    def load_model(self):"
    ) + 1
    env = {
        **os.environ,
        "RPCSURFACE_CACHE_DIR": str(tmp_path / "cache"),
        "RPCSURFACE_NVIM_ROOT": str(root),
        "RPCSURFACE_NVIM_FILE": str(root / CALLER),
        "RPCSURFACE_NVIM_LINE": str(line),
        "RPCSURFACE_NVIM_NAME": "load_model",
        "RPCSURFACE_NVIM_NEW": "load_weights",
        "RPCSURFACE_NVIM_CMD": CONSOLE_SCRIPT[0],
    }
    done = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-c", f"luafile {SESSION}"],
        cwd=root, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    said = (done.stdout + done.stderr).replace("\r", "\n")
    shown = dict(
        part.split(": ", 1)
        for part in said.split("\n")
        if part.startswith(("opened", "mistyped", "typed"))
    )
    squiggles = {key: set(value.strip("[]").split(",")) - {""} for key, value in shown.items()}
    assert squiggles["opened"] == {
        f"{m.symbol}@{m.line}" for m in before.messages if m.path == CALLER
    }
    assert squiggles["mistyped"] - squiggles["opened"] == {f"rpc-unanswered@{line}"}, said
    assert squiggles["typed back"] == squiggles["opened"], said
    assert f"definition: {root / HANDLER}:{handler_line}" in said, said
    assert "renamed" in said, said
    after = run_check(root, "--format", "json", "--no-cache")
    assert '"load_model"' not in (root / CALLER).read_text(encoding="utf-8")
    assert "def load_weights(self):" in (root / HANDLER).read_text(encoding="utf-8")
    assert [(m.symbol, m.path, m.line) for m in after.messages] == [
        (m.symbol, m.path, m.line) for m in before.messages
    ]

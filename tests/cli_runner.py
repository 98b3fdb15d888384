"""Run any ``rpcsurface`` subcommand in a subprocess, as a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(project: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    environment.pop("RPCSURFACE_NO_CACHE", None)
    return subprocess.run(
        [sys.executable, "-m", "pylint_rpcsurface.cli", *args],
        cwd=project,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=environment,
        check=False,
    )

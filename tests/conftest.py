"""Make tests/support.py (and the case modules) importable, keep pytest out of the fixtures,
and give every test a cache folder of its own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# The fixture engine is linted, never imported: its modules raise on import.
collect_ignore = ["fixtures"]


@pytest.fixture(autouse=True)
def cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fact cache's folder for this test, never the user's own: every run the test
    starts inherits RPCSURFACE_CACHE_DIR (tests/support.py passes the environment on)."""
    folder = tmp_path_factory.mktemp("rpcsurface-cache")
    monkeypatch.setenv("RPCSURFACE_CACHE_DIR", str(folder))
    return folder

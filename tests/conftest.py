"""Make tests/support.py (and the case modules) importable, keep pytest out of the fixtures,
and give every test a cache folder of its own."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# The fixture engine is linted, never imported: its modules raise on import.
collect_ignore = ["fixtures"]


@pytest.fixture(autouse=True, scope="session")
def _session_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The cache folder of the module- and session-scoped fixtures' runs, which start
    before any test's own (higher scopes are set up first): never the user's."""
    folder = tmp_path_factory.mktemp("rpcsurface-cache-session")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RPCSURFACE_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def cache_home(
    _session_cache_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """The fact cache's folder for this test, never the user's own: every run the test
    starts inherits RPCSURFACE_CACHE_DIR (tests/support.py passes the environment on)."""
    folder = tmp_path_factory.mktemp("rpcsurface-cache")
    monkeypatch.setenv("RPCSURFACE_CACHE_DIR", str(folder))
    return folder

"""Make tests/support.py (and the case modules) importable, keep pytest out of the fixtures,
compile the package's bytecode once, and give every test a cache folder of its own."""

from __future__ import annotations

import compileall
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# The fixture engine is linted, never imported: its modules raise on import.
collect_ignore = ["fixtures"]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Write the package's ``.pyc`` files beside its sources, as pip does at install (and
    bench/run.py before measuring): an editable install under PYTHONDONTWRITEBYTECODE=1
    (this checkout's virtualenv, CI's copy) would otherwise compile the plugin's modules
    again in every pylint and ``rpcsurface`` process the tests start, a cost no user's run
    has. Up-to-date files are left alone; copies of the package leave bytecode out
    (support.package_sources), and an edited source makes its ``.pyc`` stale, which
    Python then ignores."""
    import pylint_rpcsurface  # noqa: PLC0415  # the package the tests' processes import

    for folder in pylint_rpcsurface.__path__:
        compileall.compile_dir(folder, quiet=1)


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

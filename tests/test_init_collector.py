"""init's discovery runs with the cyclic garbage collector paused (issue 50, item 4), as
the checker's analysis does, and leaves it as it was."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

import pytest
from support import ROOT

from pylint_rpcsurface import discovery
from pylint_rpcsurface.discovery.core import Discovery
from pylint_rpcsurface.discovery.reading import Proposal


def _fixture(tmp_path: Path) -> Path:
    folder = Path(
        shutil.copytree(ROOT / "tests" / "fixtures" / "init_vllm", tmp_path / "init_vllm")
    )
    (folder / "pyproject.toml").unlink()
    return folder


@pytest.mark.parametrize("enabled", [True, False])
def test_discovery_reads_with_the_collector_paused_and_leaves_it_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    """Paused while init builds and reads the project (the collector's walks of astroid's
    growing trees were most of a run), then as it was: after a run, and after one that
    failed."""
    folder = _fixture(tmp_path)
    seen_during: list[bool] = []
    run = Discovery.run

    def watching(self: Discovery) -> Proposal:
        seen_during.append(gc.isenabled())
        return run(self)

    def failing(self: Discovery) -> Proposal:
        raise RuntimeError("a discovery that fails")

    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        monkeypatch.setattr(Discovery, "run", watching)
        proposal = discovery.discover(folder, (folder,))
        assert proposal.dispatch  # the fixture's dispatch, read as ever
        assert gc.isenabled() is enabled
        monkeypatch.setattr(Discovery, "run", failing)
        with pytest.raises(RuntimeError):
            discovery.discover(folder, (folder,))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen_during == [False]

"""init reads each module-level constant once when it looks for a surface's registry
(issue 50, item 4): every surface asks of every constant, and reading one infers what its
syntax does not show (on vLLM 0.11.2, the second surface's search took as long as the
first's)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from astroid import nodes
from support import asked_of, init_engine

from pylint_rpcsurface import discovery
from pylint_rpcsurface.discovery import registries
from pylint_rpcsurface.discovery.registries import Registries
from pylint_rpcsurface.model import Registry


def test_each_constant_is_read_once_however_many_surfaces_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = init_engine(tmp_path / "p")
    reads: Counter[tuple[str, str]] = Counter()
    read, choice = registries.read_registry, Registries.choice
    asked: list[set[str]] = []

    def counted(module: nodes.Module, attribute: str, qualname: str, *rest: Any) -> Registry:
        reads[(module.name, attribute)] += 1
        return read(module, attribute, qualname, *rest)

    def recorded(self: Registries, answered: set[str]) -> object:
        asked.append(answered)
        return choice(self, answered)

    monkeypatch.setattr(registries, "read_registry", counted)
    monkeypatch.setattr(Registries, "choice", recorded)
    proposal = discovery.discover(folder, (folder,))
    assert len(asked) == 2  # two surfaces, each looking for its registry
    assert any(s.registry is not None and s.registry.value for s in proposal.surfaces)
    assert reads  # the constants were read
    assert set(reads.values()) == {1}, reads


CONSTANTS = """\
import logging
import threading
from typing import cast


def get_logger(name):
    logger = logging.getLogger(name)
    return logger


logger = get_logger(__name__)
LOCK = threading.Lock()
PHASES = cast(tuple, ("prefill", "decode"))
KINDS = frozenset(("forward", "transfer_kv"))
"""


def _read_constants(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[set[str], discovery.Proposal]:
    """The constants init reads on *folder*, and what it proposes."""
    names = asked_of(
        monkeypatch, registries, "read_registry", lambda _m, _a, qualname, *_: qualname
    )
    proposal = discovery.discover(folder, (folder,))
    return set(names), proposal


def test_a_constant_the_standard_library_makes_of_nothing_of_the_project_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A logger from the project's function returning logging.getLogger(name), and a
    # lock, list no name the project sends, whatever astroid infers them to; a call
    # given the project's strings (typing.cast gives them back) is read.
    folder = init_engine(tmp_path / "p", {"seedengine/consts.py": CONSTANTS})
    read, proposal = _read_constants(folder, monkeypatch)
    assert {"seedengine.consts.PHASES", "seedengine.consts.KINDS"} <= read
    assert "seedengine.config.RAPIDSERVE_RPCS" in read
    assert not {"seedengine.consts.logger", "seedengine.consts.LOCK"} & read
    # The oracle: every constant read, the same proposal.
    monkeypatch.setattr(Registries, "_made_without_the_project", lambda self, value: False)
    everything, unfiltered = _read_constants(folder, monkeypatch)
    assert {"seedengine.consts.logger", "seedengine.consts.LOCK"} <= everything
    assert unfiltered == proposal

"""init asks whether an attribute passed as the RPC name is an enum member only for a
dispatch none of whose call sites passes a string literal (issue 50, item 4): the
literals are the sites then, and inferring the attributes (which builds their modules)
could not change them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import asked_of, init_engine

from pylint_rpcsurface import discovery
from pylint_rpcsurface.discovery import core

# Read before the engine cores (the files are read in order of their paths): an
# attribute at the name's position of call_func, ahead of every literal.
RELAY = """\
class Relay:
    def __init__(self, mgr, settings):
        self.mgr = mgr
        self.settings = settings

    def again(self):
        return self.mgr.call_func(self.settings.last_rpc, wait_out=True)
"""


def test_attributes_are_not_inferred_where_literals_name_the_rpcs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = init_engine(tmp_path / "p", {"seedengine/a_relay.py": RELAY})
    asked = asked_of(monkeypatch, core, "enum_member_key")
    proposal = discovery.discover(folder, (folder,))
    assert "call_func" in [d.method for d in proposal.dispatch]
    # The literal names are still the surface's: the RapidServe runner answers them.
    assert any("RapidServeModelRunner" in h for s in proposal.surfaces for h, _ in s.handlers)
    assert asked == []

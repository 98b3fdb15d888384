"""bench/init_reach.py: the share of a tree an ``init`` led by the text would build, on a
project whose every file's part is known from its text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import astroid
from astroid import nodes
from support import load_bench_script, project

from pylint_rpcsurface.discovery.reading import Sender

init_reach = load_bench_script("init_reach")

FILES = {
    "eng/__init__.py": "",
    # The sender (its parameter reaches put) and its call sites, in one file.
    "eng/client.py": """\
import queue


class Client:
    def __init__(self):
        self.requests = queue.Queue()

    def call(self, method):
        self.requests.put(method)

    def record(self, entry):
        self.requests.put(entry)

    def run(self):
        self.call("load")
        self.call("save")
""",
    # The handlers: no send, no lookup; a namesake of the sender, defined, never called.
    "eng/worker.py": """\
class Worker:
    def call(self):
        return 0

    def load(self):
        return 1

    def save(self):
        return 2
""",
    # The sender's name as a word, never called.
    "eng/mention.py": 'ENTRY = "call"  # what the client sends through\n',
    # A call of a sender no call site passes a literal name to (record).
    "eng/journal.py": "def note(client, entry):\n    client.record(entry)\n",
    "eng/constants.py": "".join(f"VALUE_{i} = {i}\n" for i in range(40)),
}


def _percent(root: Path, names: list[str]) -> str:
    sizes = {name: len((root / name).read_text("utf-8")) for name in FILES}
    return f"{100 * sum(sizes[n] for n in names) / sum(sizes.values()):.0f}%"


def test_each_share_is_of_the_files_its_column_names(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", FILES)
    row = init_reach.reach("proj", root).strip("|").split("|")
    cells = [cell.strip() for cell in row]
    assert cells[:2] == ["proj", str(len(FILES))]
    client = "eng/client.py"
    assert cells[4] == _percent(root, [client])  # a send or a lookup
    any_name = [client, "eng/mention.py", "eng/worker.py", "eng/journal.py"]
    assert cells[5] == _percent(root, any_name)  # any sender's name
    assert cells[6] == _percent(root, [client])  # calling a sender with call sites
    assert cells[7] == _percent(root, [client])


def test_files_lists_those_of_columns_1_and_3(tmp_path: Path, capsys: Any) -> None:
    root = project(tmp_path / "proj", FILES)
    assert init_reach.main(["--tree", str(root), "--files"]) == 0
    assert capsys.readouterr().out.splitlines() == ["eng/client.py"]


def test_a_constant_name_looked_up_is_no_lookup() -> None:
    assert not init_reach.sends_or_looks_up('getattr(obj, "name")', set())
    assert init_reach.sends_or_looks_up("getattr(obj, name)()", set())
    assert init_reach.sends_or_looks_up("channel.send_pyobj(message)", set())
    assert init_reach.sends_or_looks_up("run_method(worker, name)", {"run_method"})
    assert not init_reach.sends_or_looks_up("send(message)", set())  # a function, no method
    assert init_reach.sends_or_looks_up("def broken(:", set())  # unread: it may


def test_the_senders_leading_to_a_call_site_go_down_every_layer() -> None:
    def sender(name: str, reach: str) -> Sender:
        function = astroid.extract_node(f"def {name}(method): pass")
        assert isinstance(function, nodes.FunctionDef)
        return Sender(function, "method", 0, reach, forwards_only=True)

    senders = [
        sender("top", "a.py:1: method is forwarded to middle()"),
        sender("middle", "a.py:5: method is forwarded to bottom()"),
        sender("bottom", "a.py:9: method reaches q.put()"),
        sender("aside", "a.py:12: method is forwarded to bottom()"),
    ]
    assert init_reach.leading(senders, {"top"}) == {"top", "middle", "bottom"}
    assert init_reach.leading(senders, {"middle"}) == {"middle", "bottom"}

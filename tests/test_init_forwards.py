"""A sender found by forwarding is one whose name lands where another sender takes its
name, in a call proven to call that sender (``discovery.forwards``), not merely a call of
a function with the sender's name.

The bug this pins, from sglang 0.5.23: ``build_sse_content(..., role=None, ...)`` packs
its arguments into a struct and passes it to ``_stream_encoder.encode(chunk)``, msgspec's
JSON encoder. The project has a sender named ``encode`` (a tokenizer that puts prompts
on a queue), so every parameter of ``build_sse_content`` was a sender; one call site
passes ``role="assistant"``, a method of the interpreter's handlers, and init wrote an
active ``[[dispatch]] method = "build_sse_content"``.

A call site of a sender is likewise no call that astroid proves calls no function of the
project: sglang 0.5.23's tokenizer ``encode()`` had "172 call sites" in init's note, among
them every ``text.encode("utf-8")``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import astroid
import pytest
from astroid import nodes
from support import asked_of, discovered, project, run_cli

from pylint_rpcsurface.discovery import forwards

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ENGINE = {
    "eng/__init__.py": "",
    "eng/tokenizer.py": """\
import asyncio


class BatchTokenizer:
    def __init__(self):
        self._queue = asyncio.Queue()

    def encode(self, prompt):
        self._queue.put_nowait(prompt)
""",
    "eng/sse.py": """\
import msgspec

_encoder = msgspec.json.Encoder()


class Delta:
    def __init__(self, role, content):
        self.role = role
        self.content = content


def build_chunk(index, role=None, content=None):
    delta = Delta(role, content)
    return _encoder.encode(delta)
""",
    "eng/serving.py": """\
from eng.sse import build_chunk


def stream(text):
    yield build_chunk(0, role="assistant")
    yield build_chunk(0, content=text)
""",
    "eng/lang.py": """\
class Interpreter:
    def call(self, method, *args):
        return getattr(self, method)(*args)

    def assistant(self):
        return "a"

    def user(self):
        return "u"

    def system(self):
        return "s"


class Program:
    def __init__(self):
        self.interpreter = Interpreter()

    def run(self):
        self.interpreter.call("system")
        self.interpreter.call("user")
        self.interpreter.call("assistant")
""",
}


def test_data_passed_to_a_namesake_of_a_sender_is_no_dispatch(tmp_path: Path) -> None:
    folder = project(tmp_path, {**ENGINE, "pyproject.toml": '[project]\nname = "x"\n'})
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    table = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["tool"]["rpcsurface"]
    # The interpreter's own dispatch is still proposed; the SSE builder is not one.
    assert [d["method"] for d in table["dispatch"]] == ["call"]
    assert "build_chunk" not in written.stderr


SENDERS = {
    "svc/__init__.py": "",
    "svc/queue_io.py": """\
def send(queue, message):
    queue.put(message)
""",
    "svc/worker.py": """\
import json

from svc.queue_io import send


class Submitter:
    def __init__(self, queue):
        self.queue = queue

    def submit(self, method, payload):
        print(payload)
        self.queue.put(method)


class Wire:
    def __init__(self, queue):
        self.queue = queue

    def encode(self, message):
        self.queue.put(message)


class Client:
    def __init__(self, queue):
        self.submitter = Submitter(queue)
        self.queue = queue
        self.json = json.JSONEncoder()

    def swapped(self, name, data):
        return self.submitter.submit(data, name)

    def by_keyword(self, name, data):
        return self.submitter.submit(payload=data, method=name)

    def packed(self, name, *rest):
        arguments = (name, *rest)
        return self.submitter.submit(*arguments)

    def imported(self, name):
        return send(self.queue, name)

    def encoded(self, name):
        return self.json.encode(name)

    def through_self(self, name):
        return self.forward(name)

    def through_self_in_a_comprehension(self, name):
        return [self.forward(name) for _ in range(2)]

    def forward(self, name):
        raise NotImplementedError


class QueueClient(Client):
    def forward(self, name):
        return self.submitter.submit(name, None)

    def through_the_base(self, name, data):
        return Client.swapped(self, data, name)
""",
}


def _senders(tmp_path: Path) -> dict[str, set[str]]:
    root = project(tmp_path / "proj", SENDERS)
    with discovered(root) as found:
        senders = found.senders(dict(found.run_method_helpers()))
        by_function: dict[str, set[str]] = {}
        for sender in senders:
            by_function.setdefault(sender.function.name, set()).add(sender.param)
    return by_function


def test_a_forward_counts_only_where_the_sender_takes_its_name(tmp_path: Path) -> None:
    senders = _senders(tmp_path)
    assert senders["submit"] == {"method"}
    # submit(data, name): the data lands on submit's name, the name on its payload.
    assert senders["swapped"] == {"data"}
    assert senders["by_keyword"] == {"name"}
    # Client.swapped(self, data, name): the instance comes first, then swapped's own.
    assert senders["through_the_base"] == {"name"}


def test_a_forward_whose_position_the_call_does_not_tell_counts(tmp_path: Path) -> None:
    assert _senders(tmp_path)["packed"] == {"name"}


def test_a_forward_counts_where_the_call_is_proven_to_call_the_sender(tmp_path: Path) -> None:
    senders = _senders(tmp_path)
    assert senders["imported"] == {"name"}  # send, imported from svc.queue_io
    # self.forward(name) reaches the subclass's definition, which sends.
    assert senders["through_self"] == {"name"}
    # A comprehension is a scope of its own, but its self is still the method's.
    assert senders["through_self_in_a_comprehension"] == {"name"}


def test_a_call_of_a_namesake_outside_the_project_is_no_forward(tmp_path: Path) -> None:
    senders = _senders(tmp_path)
    assert senders["encode"] == {"message"}  # Wire.encode, the project's
    # self.json is the standard library's JSONEncoder: its encode is not Wire's.
    assert "encoded" not in senders


CHAIN = {
    "svc/__init__.py": "",
    "svc/chain.py": """\
def bottom(queue, name):
    queue.put(name)


def third(queue, name):
    return bottom(queue, name)


def second(queue, name):
    return third(queue, name)


def first(queue, name):
    return second(queue, name)


def unrelated(queue, name):
    return print(queue, name)
""",
}


def test_each_round_finds_the_layer_above_the_senders_found_last(tmp_path: Path) -> None:
    # A round reads again only the functions calling a name that got senders in the
    # round before: each layer of this chain is found one round after the one below.
    root = project(tmp_path / "proj", CHAIN)
    with discovered(root) as found:
        senders = found.senders(dict(found.run_method_helpers()))
        names = {(s.function.name, s.param) for s in senders}
    assert names == {(f, "name") for f in ("bottom", "third", "second", "first")}


SITES = {
    "svc/__init__.py": "",
    "svc/tokens.py": """\
import json
import queue


class Tokenizer:
    def __init__(self):
        self.requests = queue.Queue()

    def encode(self, prompt):
        self.requests.put(prompt)


class Other:
    def encode(self, text):
        return text


class Channel:
    def __init__(self, name):
        self.requests = queue.Queue()
        self.requests.put(name)


class Named(Channel):
    def __init__(self):
        super().__init__("kept_by_a_subclass")


class Elsewhere(Exception):
    def __init__(self):
        super().__init__("an exception's message")


class Client:
    def __init__(self, outside):
        self.tokenizer = Tokenizer()
        self.outside = outside

    def run(self):
        text = "a prompt"
        self.tokenizer.encode("kept_proven")
        self.outside.encode("kept_unknown")
        text.encode("utf-8")
        "literal".encode("ascii")
        Other().encode("kept_a_namesake")
        json.JSONEncoder().encode("a_library_method")
""",
}


def test_a_call_proven_to_call_no_function_of_the_project_is_no_call_site(
    tmp_path: Path,
) -> None:
    # text.encode("utf-8") and "literal".encode("ascii") call str.encode, and the
    # JSONEncoder's encode is the standard library's: none is a site of Tokenizer.encode.
    # A namesake of the project (Other.encode) may pass the name on by a path no forward
    # proves, and an object astroid can't infer may hold a sender: those are kept.
    root = project(tmp_path / "proj", SITES)
    with discovered(root) as found:
        groups = found.groups(found.senders(dict(found.run_method_helpers())))
        sites = {g.method: sorted(s.name for s in g.sites) for g in groups}
    assert sites["encode"] == ["kept_a_namesake", "kept_proven", "kept_unknown"]


def test_a_dunder_sender_is_no_dispatch_method(tmp_path: Path) -> None:
    # Channel.__init__ sends its name, and a subclass passes a literal to it; but a class
    # is built by its own name (Channel("x")), so the few calls naming __init__ are no
    # sample of the names sent: no group, and no note saying it is not a dispatch.
    root = project(tmp_path / "proj", SITES)
    with discovered(root) as found:
        senders = found.senders(dict(found.run_method_helpers()))
        groups = {g.method for g in found.groups(senders)}
    assert "__init__" in {s.function.name for s in senders}
    assert "__init__" not in groups
    assert "encode" in groups


ALIKE = {
    "svc/__init__.py": "",
    "svc/layers.py": "".join(
        f"class Layer{i}:\n"
        "    def __init__(self, queue):\n"
        "        self.queue = queue\n\n"
        "    def forward(self, x):\n"
        "        self.queue.put(x)\n\n\n"
        for i in range(5)
    )
    + "class Caller:\n"
    "    def __init__(self, queue):\n"
    "        self.layer = Layer4(queue)\n\n"
    "    def call(self, name):\n"
    "        return self.layer.forward(name)\n\n"
    "    def given(self, layer, name):\n"
    "        return layer.forward(name)\n",
}


def test_where_a_name_lands_is_read_once_for_the_senders_taking_it_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Five classes' forward(self, x) take the name alike: where a call passes it is read
    # once each time the call is asked of them, not once a class.
    root = project(tmp_path / "proj", ALIKE)
    read = asked_of(monkeypatch, forwards, "name_passed", lambda call, _shape: call.as_string())
    asked = asked_of(monkeypatch, forwards.Forwards, "to", lambda _f, call, *_: call.as_string())
    with discovered(root) as found:
        senders = found.senders(dict(found.run_method_helpers()))
    forwarded = {(s.function.name, s.param) for s in senders if s.function.parent.name == "Caller"}
    # self.layer is a Layer4, whose forward sends what it is given; a layer passed in
    # is none the code proves.
    assert forwarded == {("call", "name")}
    for call in ("self.layer.forward(name)", "layer.forward(name)"):
        assert asked.count(call) >= 1
        assert read.count(call) == asked.count(call), call


def test_whether_two_classes_are_of_one_hierarchy_is_read_once() -> None:
    module = astroid.parse("class Base: pass\nclass Derived(Base): pass\nclass Other: pass\n")
    base, derived, other = (module.body[i] for i in range(3))
    orders = {id(base): [base], id(derived): [derived, base], id(other): [other]}
    asked: list[str] = []

    def order(cls: nodes.ClassDef) -> list[nodes.ClassDef]:
        asked.append(cls.name)
        return orders[id(cls)]

    reader = forwards.Forwards(order, lambda _node: True)
    for _ in range(3):
        assert reader._related(derived, base)  # pylint: disable=protected-access
        assert not reader._related(base, other)  # pylint: disable=protected-access
    # Derived's order holds Base at once; Base's and Other's each hold neither.
    assert asked == ["Derived", "Base", "Other"]

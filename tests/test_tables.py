"""Handler tables (a surface's ``tables``): a dict literal whose keys are the names a
worker answers and whose values name the handlers. Each form of table and of entry is a
small project written here, analysed in-process; what each must give is written by hand
beside it. The end-to-end modes run on tests/fixtures/real_layout (tests/test_modes.py),
whose ``utility`` surface answers from a table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import line_of, project, run_check

from pylint_rpcsurface import engine
from pylint_rpcsurface.config import ConfigError, load_config
from pylint_rpcsurface.model import Analysis

PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "send"
waits = true

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = true

[[tool.rpcsurface.surface]]
name = "utility"
callers = ["pkg.engine.Engine"]
tables = ["{table}"]
{extra}
"""

# The caller sends a, b (with one argument) and c.
ENGINE = """\
class Engine:
    def __init__(self, client):
        self.client = client

    def run(self):
        self.client.send("a")
        self.client.send("b", 1)
        return self.client.send("c")
"""


def _analysed(tmp_path: Path, files: dict[str, str]) -> tuple[Analysis, Path]:
    """The in-process analysis of the project *files* make under *tmp_path*, and its root."""
    root = Path(os.path.realpath(project(tmp_path / "proj", files)))
    return engine.surface_facts(load_config(root / "pyproject.toml")).analysis(), root


def _analyse(tmp_path: Path, handlers: str, table: str, extra: str = "") -> tuple[Analysis, Path]:
    files = {
        "pyproject.toml": PYPROJECT.format(table=table, extra=extra),
        "pkg/__init__.py": "",
        "pkg/engine.py": ENGINE,
        "pkg/handlers.py": handlers,
    }
    return _analysed(tmp_path, files)


def _found(analysis: Analysis, root: Path) -> set[tuple[str, int, str]]:
    return {
        (os.path.relpath(f.location.path, root), f.location.line, f.symbol)
        for f in analysis.all_findings()
    }


UNANSWERED_C = ("pkg/engine.py", 8, "rpc-unanswered")

FORMS = {
    "class attribute, str values": (
        """\
        from typing import ClassVar


        class Handler:
            TABLE: ClassVar[dict[str, str]] = {"a": "on_a", "b": "on_b"}

            def on_a(self):
                return 1

            def on_b(self, x):
                return x
        """,
        "pkg.handlers.Handler.TABLE",
        {UNANSWERED_C},
    ),
    "a str naming a method the class inherits": (
        """\
        class Base:
            def on_a(self):
                return 1


        class Handler(Base):
            TABLE = {"a": "on_a", "b": "on_b", "c": "on_c"}

            def on_b(self, x):
                return x

            def on_c(self):
                return 3
        """,
        "pkg.handlers.Handler.TABLE",
        set(),
    ),
    "a str naming a method the class lacks": (
        """\
        class Handler:
            TABLE = {
                "a": "on_a",
                "b": "on_bee",
            }

            def on_a(self):
                return 1
        """,
        "pkg.handlers.Handler.TABLE",
        {UNANSWERED_C, ("pkg/handlers.py", 4, "rpc-table-handler-missing")},
    ),
    "methods defined in the class body, by name": (
        """\
        class Handler:
            def on_a(self):
                return 1

            def on_b(self):
                return 2

            TABLE = {"a": on_a, "b": on_b, "c": on_a}
        """,
        "pkg.handlers.Handler.TABLE",
        # b is sent one argument, but on_b takes none.
        {("pkg/engine.py", 7, "rpc-handler-signature")},
    ),
    "an instance attribute of bound methods, made in __init__": (
        """\
        class Handler:
            def __init__(self):
                self.table = {"a": self.on_a, "c": self.on_c}

            def on_a(self):
                return 1

            def on_c(self):
                return 3
        """,
        "pkg.handlers.Handler.table",
        {("pkg/engine.py", 7, "rpc-unanswered")},
    ),
    "a method that binds each key with one call": (
        """\
        class Manager:
            def bind_func(self, key, handler):
                return key, handler


        class Handler:
            def _bind(self):
                manager = Manager()
                manager.bind_func("a", self.on_a)
                manager.bind_func("b", self.on_b)
                return manager

            def on_a(self):
                return 1

            def on_b(self, x):
                return x
        """,
        "pkg.handlers.Handler._bind",
        {UNANSWERED_C},
    ),
    "a module constant of functions and Class.method references": (
        """\
        def on_a():
            return 1


        class Other:
            def on_b(self, x):
                return x


        TABLE = {"a": on_a, "b": Other.on_b}
        """,
        "pkg.handlers.TABLE",
        {UNANSWERED_C},
    ),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_a_table_answers_its_keys(tmp_path: Path, form: str) -> None:
    handlers, table, expected = FORMS[form]
    analysis, root = _analyse(tmp_path, handlers, table)
    assert analysis.config_errors == ()
    assert _found(analysis, root) == expected


REFUSED = {
    "built by a comprehension": (
        'NAMES = ("a", "b")\nTABLE = {n: "on_" + n for n in NAMES}\n',
        "neither a dict literal nor a call of a list of (key, handler) pairs",
    ),
    "an item assigned later": (
        'def on_a():\n    return 1\n\n\nTABLE = {"a": on_a}\nTABLE["b"] = on_a\n',
        "is changed after it is made, at line 6",
    ),
    "updated by a method": (
        'def on_a():\n    return 1\n\n\nTABLE = {"a": on_a}\n\n\ndef grow():\n'
        "    TABLE.update(b=on_a)\n",
        "is changed after it is made, at line 9",
    ),
    "a key that is no str literal": (
        'def on_a():\n    return 1\n\n\nKEY = "a"\nTABLE = {KEY: on_a}\n',
        "has a key that is neither a str literal, an enum member nor a class at line 6",
    ),
    "unpacking another mapping": (
        'def on_a():\n    return 1\n\n\nBASE = {"a": on_a}\nTABLE = {**BASE, "b": on_a}\n',
        "unpacks another mapping at line 6",
    ),
    "a str value outside a class": (
        'TABLE = {"a": "on_a"}\n',
        "by a str at line 1",
    ),
    "bound twice": (
        'def on_a():\n    return 1\n\n\nTABLE = {"a": on_a}\nTABLE = {"b": on_a}\n',
        "is bound 2 times in module pkg.handlers (lines 5, 6)",
    ),
    "a value that names no handler": (
        'TABLE = {"a": 1}\n',
        "that is not a method's name, a method or a module-level function",
    ),
    "a function binding a key under a condition": (
        'def on_a():\n    return 1\n\n\ndef TABLE(manager, flag):\n    manager.bind("b", on_a)\n'
        '    if flag:\n        manager.bind("a", on_a)\n',
        "binds 'a' at line 8 inside a block or an expression",
    ),
    "a function binding with two methods": (
        'def on_a():\n    return 1\n\n\ndef TABLE(manager):\n    manager.bind("a", on_a)\n'
        '    manager.register("b", on_a)\n',
        "binds with bind() and with register() (line 7)",
    ),
    "a function that binds no key": (
        "def TABLE(manager, pairs):\n    for key, handler in pairs:\n"
        "        manager.bind(key, handler)\n",
        "is a function that neither binds a key",
    ),
    "not defined": ('OTHER = {"a": 1}\n', "is not defined in module pkg.handlers"),
}


@pytest.mark.parametrize("shape", list(REFUSED))
def test_a_table_that_cant_be_read_is_a_configuration_error_naming_the_entry(
    tmp_path: Path, shape: str
) -> None:
    handlers, phrase = REFUSED[shape]
    analysis, _ = _analyse(tmp_path, handlers, "pkg.handlers.TABLE")
    (error,) = analysis.config_errors
    assert error.key == "tool.rpcsurface.surface[0].tables[0]", error
    assert "but 'pkg.handlers.TABLE' " in error.problem, error.problem
    assert phrase in error.problem, error.problem


# LMDeploy 0.18.0's AsyncRPCServer.methods: an empty dict that a registering method fills,
# called in a loop over the worker class's functions (zmq_rpc.py:127, :154;
# zmq_engine.py:173-178).
REGISTERED_AT_RUN_TIME = """\
import inspect


class Worker:
    def a(self):
        return 1


class Server:
    def __init__(self):
        self.methods = {}

    def register_method(self, name, func):
        self.methods[name] = ("default", func)


def serve(server, worker):
    for name, value in inspect.getmembers(Worker):
        if not name.startswith("_"):
            server.register_method(name, getattr(worker, name))
"""


def test_a_table_registered_in_a_loop_at_run_time_is_a_configuration_error(
    tmp_path: Path,
) -> None:
    analysis, _ = _analyse(tmp_path, REGISTERED_AT_RUN_TIME, "pkg.handlers.Server.methods")
    (error,) = analysis.config_errors
    assert error.key == "tool.rpcsurface.surface[0].tables[0]", error
    line = line_of(REGISTERED_AT_RUN_TIME, 'self.methods[name] = ("default", func)')
    assert (
        f"but 'pkg.handlers.Server.methods' is changed after it is made, at line {line}"
    ) in error.problem, error.problem


HANDLER_CLASS = """\
class Handler:
    TABLE = {"a": "on_a", "b": "on_b", "c": "on_c"}

    def on_a(self):
        return 1

    def on_b(self, x):
        return x

    def on_c(self):
        return 3
"""


def test_a_surface_judges_only_the_dispatch_methods_it_names(tmp_path: Path) -> None:
    engine_text = ENGINE.replace(
        '        return self.client.send("c")\n',
        '        self.client.call_func("forward")\n        return self.client.send("c")\n',
    )
    files = {
        "pyproject.toml": PYPROJECT.format(table="pkg.handlers.Handler.TABLE", extra=""),
        "pkg/__init__.py": "",
        "pkg/engine.py": engine_text,
        "pkg/handlers.py": HANDLER_CLASS,
    }
    root = Path(os.path.realpath(project(tmp_path / "every", files)))
    analysis = engine.surface_facts(load_config(root / "pyproject.toml")).analysis()
    # Without dispatch, the call_func call is this surface's too: the table lacks it.
    assert _found(analysis, root) == {("pkg/engine.py", 8, "rpc-unanswered")}
    files["pyproject.toml"] = PYPROJECT.format(
        table="pkg.handlers.Handler.TABLE", extra='dispatch = ["send"]'
    )
    root = Path(os.path.realpath(project(tmp_path / "send", files)))
    assert (
        _found(engine.surface_facts(load_config(root / "pyproject.toml")).analysis(), root) == set()
    )


def test_a_dispatch_method_no_dispatch_table_declares_is_a_configuration_error(
    tmp_path: Path,
) -> None:
    files = {
        "pyproject.toml": PYPROJECT.format(
            table="pkg.handlers.Handler.TABLE", extra='dispatch = ["send", "sned"]'
        ),
        "pkg/handlers.py": HANDLER_CLASS,
    }
    root = project(tmp_path / "proj", files)
    with pytest.raises(ConfigError) as raised:
        load_config(root / "pyproject.toml")
    assert raised.value.key == "tool.rpcsurface.surface[0].dispatch[1]"
    assert "'call_func', 'send'" in raised.value.problem


def test_a_surface_needs_handlers_or_tables(tmp_path: Path) -> None:
    text = PYPROJECT.format(table="x.Y", extra="").replace('tables = ["x.Y"]\n', "")
    root = project(tmp_path / "proj", {"pyproject.toml": text})
    with pytest.raises(ConfigError) as raised:
        load_config(root / "pyproject.toml")
    assert raised.value.key == "tool.rpcsurface.surface[0]"
    assert "'handlers' (or 'tables')" in raised.value.problem


def test_the_store_gives_the_cold_answer_after_the_table_is_edited(tmp_path: Path) -> None:
    """The table is read from its module's body: an entry renamed must be seen warm."""
    handlers = HANDLER_CLASS.replace('"c": "on_c"', '"c": "on_see"')
    files = {
        "pyproject.toml": PYPROJECT.format(table="pkg.handlers.Handler.TABLE", extra=""),
        "pkg/__init__.py": "",
        "pkg/engine.py": ENGINE,
        "pkg/handlers.py": handlers,
    }
    root = project(tmp_path / "proj", files)
    first = run_check(root)
    assert first.returncode == 1, first
    assert "rpc-table-handler-missing" in first.stdout, first
    (root / "pkg" / "handlers.py").write_text(HANDLER_CLASS, encoding="utf-8")
    warm, cold = run_check(root), run_check(root, "--no-cache")
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout) == (0, "")
    # And back: the method renamed away again.
    (root / "pkg" / "handlers.py").write_text(
        HANDLER_CLASS.replace("def on_c(", "def on_cc("), encoding="utf-8"
    )
    warm, cold = run_check(root), run_check(root, "--no-cache")
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)
    assert "rpc-table-handler-missing" in warm.stdout


KINDS = """\
import enum


class Kind(enum.Enum):
    A = enum.auto()
    B = enum.auto()
    C = enum.auto()

    def describe(self):
        return self.name
"""

ENUM_ENGINE = """\
from pkg.kinds import Kind


class Engine:
    def __init__(self, client):
        self.client = client

    def run(self):
        self.client.send(Kind.A)
        self.client.send(Kind.B, 1)
        return self.client.send(Kind.C)
"""

ENUM_HANDLERS = """\
from pkg.kinds import Kind


class Handler:
    TABLE = {Kind.A: "on_a", Kind.B: "on_b"}

    def on_a(self):
        return 1

    def on_b(self, x):
        return x
"""


def enum_files(
    engine: str = ENUM_ENGINE, handlers: str = ENUM_HANDLERS, extra: str = ""
) -> dict[str, str]:
    """The enum-keyed project: the caller sends Kind's members, a table keys two."""
    return {
        "pyproject.toml": PYPROJECT.format(table="pkg.handlers.Handler.TABLE", extra=extra),
        "pkg/__init__.py": "",
        "pkg/kinds.py": KINDS,
        "pkg/engine.py": engine,
        "pkg/handlers.py": handlers,
    }


def _enum_project(tmp_path: Path, extra: str = "", **files: str) -> tuple[Analysis, Path]:
    return _analysed(tmp_path, {**enum_files(extra=extra), **files})


def test_an_enum_keyed_table_answers_the_members_sent(tmp_path: Path) -> None:
    analysis, root = _enum_project(tmp_path)
    assert analysis.config_errors == ()
    assert _found(analysis, root) == {("pkg/engine.py", 11, "rpc-unanswered")}
    (unanswered,) = analysis.all_findings()
    assert unanswered.args[0] == "pkg.kinds.Kind.C"  # the member, by its enum's full name


def test_an_enum_member_sent_to_handler_classes_stays_unknown(tmp_path: Path) -> None:
    """A handler class is looked up by a str: which one a member stands for is not read."""
    text = PYPROJECT.format(table="x", extra="").replace(
        'tables = ["x"]', 'handlers = ["pkg.handlers.Handler"]'
    )
    analysis, root = _enum_project(tmp_path, **{"pyproject.toml": text})
    assert _found(analysis, root) == {
        ("pkg/engine.py", line, "rpc-name-uninferable") for line in (9, 10, 11)
    }


def test_a_method_of_the_enum_is_no_key(tmp_path: Path) -> None:
    handlers = ENUM_HANDLERS.replace("Kind.B: ", "Kind.describe: ")
    analysis, _ = _enum_project(tmp_path, **{"pkg/handlers.py": handlers})
    (error,) = analysis.config_errors
    assert (
        "has a key that is neither a str literal, an enum member nor a class at line 5"
        in error.problem
    )


def test_no_registry_of_names_is_asked_to_list_an_enum_member(tmp_path: Path) -> None:
    kinds = KINDS + "\n\nLISTED = ()\n"
    analysis, root = _enum_project(
        tmp_path, extra='registry = "pkg.kinds.LISTED"', **{"pkg/kinds.py": kinds}
    )
    assert _found(analysis, root) == {("pkg/engine.py", 11, "rpc-unanswered")}


def test_the_store_gives_the_cold_answer_after_the_enum_is_edited(tmp_path: Path) -> None:
    """The keys are read through the enum's module: a member renamed there must be seen
    warm, in the table's piece and in the callers'."""
    root = project(tmp_path / "proj", enum_files())
    first = run_check(root)
    assert first.returncode == 1, first
    answers = {(first.returncode, first.stdout, first.stderr)}
    for edit in (
        KINDS.replace("    C = ", "    D = "),
        KINDS.replace("    B = ", "    Bee = "),
        KINDS,
    ):
        (root / "pkg" / "kinds.py").write_text(edit, encoding="utf-8")
        warm, cold = run_check(root), run_check(root, "--no-cache")
        answer = (cold.returncode, cold.stdout, cold.stderr)
        assert (warm.returncode, warm.stdout, warm.stderr) == answer, edit
        answers.add(answer)
    # C gone: its send can't be read; B renamed: the table's key is no member; then back.
    assert len(answers) == 3


TYPE_PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
method = "send_pyobj"
key = "type"

[[tool.rpcsurface.surface]]
name = "requests"
callers = ["pkg.client.Client"]
tables = ["{table}"]
"""

REQUESTS = """\
class AbortReq:
    pass


class SubAbort(AbortReq):
    pass


class FlushReq:
    pass


class Missing:
    pass
"""

TYPE_SERVER = """\
from pkg.reqs import AbortReq, FlushReq


class Dispatcher:
    def __init__(self, mapping):
        self.mapping = mapping


class Server:
    def __init__(self):
        self._dispatcher = Dispatcher([(AbortReq, self.abort), (FlushReq, self.flush)])

    def abort(self, req):
        return req

    def flush(self):
        return None


TABLE = {AbortReq: Server.abort}
"""

# One line per shape of request sent (the expected finding at each, by hand, in SENT).
TYPE_CLIENT = """\
from pkg.reqs import AbortReq, FlushReq, Missing, SubAbort


class Client:
    def __init__(self, sock):
        self.sock = sock

    def abort(self):
        self.sock.send_pyobj(AbortReq())

    def sub_abort(self):
        req = SubAbort()
        self.sock.send_pyobj(req)

    def flush(self, obj: FlushReq):
        self.sock.send_pyobj(obj)

    def missing(self):
        self.sock.send_pyobj(Missing())

    def forward(self, obj):
        self.sock.send_pyobj(obj)

    def either(self, obj: "AbortReq | FlushReq"):
        self.sock.send_pyobj(obj)
"""

SENT = {
    # flush() takes no request: the handler is given the request itself.
    ("pkg/client.py", 16, "rpc-handler-signature"),
    ("pkg/client.py", 19, "rpc-unanswered"),  # no pair for Missing
    ("pkg/client.py", 25, "rpc-name-uninferable"),  # a union: not one class
    # AbortReq() answered; SubAbort by its base's pair, as isinstance answers; forward's
    # unannotated parameter is a forwarding layer, not judged.
}


def _type_project(tmp_path: Path, table: str) -> tuple[Analysis, Path]:
    files = {
        "pyproject.toml": TYPE_PYPROJECT.format(table=table),
        "pkg/__init__.py": "",
        "pkg/reqs.py": REQUESTS,
        "pkg/server.py": TYPE_SERVER,
        "pkg/client.py": TYPE_CLIENT,
    }
    return _analysed(tmp_path, files)


def test_a_dispatcher_built_from_type_pairs_answers_by_type(tmp_path: Path) -> None:
    analysis, root = _type_project(tmp_path, "pkg.server.Server._dispatcher")
    assert analysis.config_errors == ()
    assert _found(analysis, root) == SENT


def test_a_dict_keyed_by_classes_answers_by_type(tmp_path: Path) -> None:
    analysis, root = _type_project(tmp_path, "pkg.server.TABLE")
    assert analysis.config_errors == ()
    # Only AbortReq (and SubAbort, through it) is answered; flush's FlushReq is not.
    assert _found(analysis, root) == {
        ("pkg/client.py", 16, "rpc-unanswered"),
        ("pkg/client.py", 19, "rpc-unanswered"),
        ("pkg/client.py", 25, "rpc-name-uninferable"),
    }


INSTANCE_PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.dispatch]]
instance-of = "pkg.client.Communicator"
key = "type"
waits = true

[[tool.rpcsurface.surface]]
name = "requests"
callers = ["pkg.client.Client"]
tables = ["pkg.server.Server._dispatcher"]
"""

INSTANCE_CLIENT = """\
from pkg.reqs import AbortReq, FlushReq, Missing


class Communicator:
    def __init__(self, sock):
        self.sock = sock

    async def __call__(self, obj):
        self.sock.send(obj)
        return await self.sock.recv()


class Fanout(Communicator):
    pass


class Client:
    def __init__(self, sock):
        self.flush_communicator = Communicator(sock)
        self.missing_communicator = Fanout(sock)
        self.other = len

    async def flush(self, obj: FlushReq):
        return await self.flush_communicator(obj)

    async def missing(self):
        return await self.missing_communicator(Missing())

    async def abort(self):
        local = Communicator(None)
        return await local(AbortReq())

    def not_one(self):
        return self.other([1])
"""


def test_any_call_of_an_instance_of_the_class_sends(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": INSTANCE_PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/reqs.py": REQUESTS,
        "pkg/server.py": TYPE_SERVER,
        "pkg/client.py": INSTANCE_CLIENT,
    }
    analysis, root = _analysed(tmp_path, files)
    assert analysis.config_errors == ()
    # flush: FlushReq's handler takes no request; missing: a subclass's instance sends too,
    # and Missing has no pair; abort: a local instance, answered; len() sends nothing.
    assert _found(analysis, root) == {
        ("pkg/client.py", 24, "rpc-handler-signature"),
        ("pkg/client.py", 27, "rpc-unanswered"),
    }


@pytest.mark.parametrize(
    ("form", "key", "problem"),
    [
        (
            'method = "send"\ninstance-of = "pkg.client.Communicator"',
            "tool.rpcsurface.dispatch[0].instance-of",
            "expected either method or instance-of, got both",
        ),
        (
            "waits = true",
            "tool.rpcsurface.dispatch[0]",
            "missing required key 'method' (or 'instance-of')",
        ),
    ],
)
def test_a_dispatch_needs_a_method_or_an_instance_class_but_not_both(
    tmp_path: Path, form: str, key: str, problem: str
) -> None:
    text = f"[tool.rpcsurface]\n\n[[tool.rpcsurface.dispatch]]\n{form}\n"
    root = project(tmp_path / "proj", {"pyproject.toml": text})
    with pytest.raises(ConfigError) as raised:
        load_config(root / "pyproject.toml")
    assert raised.value.key == key
    assert raised.value.problem == problem


BRANCHES = """\
from pkg.reqs import AbortReq, FlushReq, Missing


class Server:
    def process(self, recv_reqs):
        for recv_req in recv_reqs:
            if isinstance(recv_req, (AbortReq, FlushReq)):
                payload = recv_req
                if isinstance(payload, Missing):  # a test inside a branch: its handling
                    continue
                self.handle(recv_req)
            else:
                raise ValueError(recv_req)

    def handle(self, req):
        return req

    def by_match(self, obj):
        match obj:
            case FlushReq():
                return 1
            case _:
                raise ValueError(obj)
"""


@pytest.mark.parametrize(
    ("table", "answered"),
    [
        # if/elif isinstance branches (a tuple of classes), inside the receiving loop.
        ("pkg.server.Server.process", {"AbortReq", "FlushReq"}),
        ("pkg.server.Server.by_match", {"FlushReq"}),  # match arms; case _ is the default
    ],
)
def test_a_function_answers_the_types_its_branches_test(
    tmp_path: Path, table: str, answered: set[str]
) -> None:
    files = {
        "pyproject.toml": TYPE_PYPROJECT.format(table=table),
        "pkg/__init__.py": "",
        "pkg/reqs.py": REQUESTS,
        "pkg/server.py": BRANCHES,
        "pkg/client.py": TYPE_CLIENT,
    }
    analysis, root = _analysed(tmp_path, files)
    assert analysis.config_errors == ()
    # The client sends AbortReq (line 9), SubAbort (13, an AbortReq), FlushReq (16),
    # Missing (19) and a union (25); a branch is no method: no signature is judged.
    sent = {9: "AbortReq", 13: "AbortReq", 16: "FlushReq", 19: "Missing"}
    unanswered = {
        ("pkg/client.py", line, "rpc-unanswered")
        for line, kind in sent.items()
        if kind not in answered
    }
    assert _found(analysis, root) == unanswered | {("pkg/client.py", 25, "rpc-name-uninferable")}


def test_a_type_test_that_is_no_class_is_a_configuration_error(tmp_path: Path) -> None:
    server = BRANCHES.replace("(AbortReq, FlushReq)", "KINDS")
    files = {
        "pyproject.toml": TYPE_PYPROJECT.format(table="pkg.server.Server.process"),
        "pkg/__init__.py": "",
        "pkg/reqs.py": REQUESTS,
        "pkg/server.py": server,
        "pkg/client.py": TYPE_CLIENT,
    }
    (error,) = _analysed(tmp_path, files)[0].config_errors
    assert "answers by type at line 7, but 'KINDS' is not a class" in error.problem


def test_an_enum_member_sent_by_type_is_keyed_by_its_enum(tmp_path: Path) -> None:
    """astroid's enum brain gives each member a class of its own that does not derive
    from the enum: the member, written E.M or through a name, is of its enum's type."""
    client = (
        KINDS
        + """

class Client:
    def __init__(self, sock):
        self.sock = sock

    def direct(self):
        self.sock.send_pyobj(Kind.A)

    def through(self):
        kind = Kind.B
        self.sock.send_pyobj(kind)
"""
    )
    server = (
        "from pkg.client import Kind\n\n\ndef handle(kind):\n    return kind\n\n\n"
        "TABLE = {Kind: handle}\n"
    )
    files = {
        "pyproject.toml": TYPE_PYPROJECT.format(table="pkg.server.TABLE"),
        "pkg/__init__.py": "",
        "pkg/server.py": server,
        "pkg/client.py": client,
    }
    analysis, root = _analysed(tmp_path, files)
    assert analysis.config_errors == ()
    assert _found(analysis, root) == set()
    # A table keyed by another class answers neither member.
    files["pkg/server.py"] = files["pkg/server.py"].replace(
        "TABLE = {Kind:", "class Other:\n    pass\n\n\nTABLE = {Other:"
    )
    analysis, root = _analysed(tmp_path / "other", files)
    assert _found(analysis, root) == {
        ("pkg/client.py", 18, "rpc-unanswered"),
        ("pkg/client.py", 22, "rpc-unanswered"),
    }

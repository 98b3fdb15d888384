"""``handler-param``: a proxy table whose caller is one group class for every role, the
class behind its receivers a constructor parameter. What each group method needs is
judged where it is called on an instance whose construction is known, against the class
that construction passed; what can't be tied to a construction is not judged, and when
its receiver is shown to be a group it is named (rpc-proxy-handler-unknown).

The projects are small and written here; the engine runs in-process, with and without
its memo, and the two must agree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import project

from pylint_rpcsurface import engine, store
from pylint_rpcsurface.config import load_config
from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.model import Analysis

PYPROJECT = """\
[tool.rpcsurface]

[[tool.rpcsurface.proxy]]
name = "groups"
callers = ["{pkg}.group.Group"]
receivers = ["self._actors"]
handler-param = "actor_type"
remote = true
"""

ROLES = """\
class Base:
    def ready(self):
        return True


class Trainer(Base):
    def fit(self, batch, steps=1):
        return batch

    def save(self):
        return None


class Critic(Base):
    def fit(self):
        return None


class Reference(Base):
    pass
"""

GROUP = """\
import ray


class Group:
    def __init__(self, n, actor_type, *, pg=None):
        self._actors = [actor_type.options(pg=pg).remote() for _ in range(n)]
        self._wait()

    def _wait(self):
        return ray.get([a.ready.remote() for a in self._actors])

    def fit(self, batch):
        return [a.fit.remote(batch) for a in self._actors]

    def save(self):
        return [a.save.remote() for a in self._actors]

    def save_all(self):
        # Reaches save through self, and itself again: the walk must end.
        if False:
            self.save_all()
        return self.save()
"""


def _analyse(tmp_path: Path, pkg: str, main: str, **extra: str) -> tuple[Analysis, Path]:
    files = {
        "pyproject.toml": PYPROJECT.format(pkg=pkg),
        f"{pkg}/__init__.py": "",
        f"{pkg}/roles.py": ROLES,
        f"{pkg}/group.py": extra.pop("group", GROUP),
        f"{pkg}/main.py": main.replace("PKG", pkg),
        **{f"{pkg}/{name}.py": text for name, text in extra.items()},
    }
    root = Path(os.path.realpath(project(tmp_path / "proj", files)))
    config = load_config(root / "pyproject.toml")
    return engine.surface_facts(config).analysis(), root


def _found(analysis: Analysis, root: Path) -> set[tuple[str, int, str]]:
    return {
        (os.path.relpath(f.location.path, root), f.location.line, f.symbol)
        for f in analysis.all_findings()
    }


def _texts(analysis: Analysis, symbol: str) -> list[str]:
    return [
        BY_SYMBOL[symbol].template % f.args for f in analysis.all_findings() if f.symbol == symbol
    ]


def test_each_instance_is_judged_against_the_class_it_was_built_with(tmp_path: Path) -> None:
    main = """\
from PKG.group import Group
from PKG.roles import Critic, Reference, Trainer


def train(flag):
    trainer = Group(2, Trainer)
    critic = Group(2, actor_type=Critic)
    if flag:
        ref = None
    else:
        ref = Group(1, Reference)
    trainer.fit(1)
    trainer.save()
    critic.save()
    if ref is not None:
        ref.save_all()
"""
    analysis, root = _analyse(tmp_path, "grp_a", main)
    assert analysis.config_errors == ()
    assert _found(analysis, root) == {
        ("grp_a/main.py", 14, "rpc-proxy-unanswered"),  # critic.save()
        ("grp_a/main.py", 16, "rpc-proxy-unanswered"),  # ref.save_all(), through self.save
    }
    texts = sorted(_texts(analysis, "rpc-proxy-unanswered"))
    assert texts == [
        "'save' is called on self._actors by Group.save, but Critic (the handler of the "
        "Group built at grp_a/main.py:7) has no method 'save'",
        "'save' is called on self._actors by Group.save, but Reference (the handler of the "
        "Group built at grp_a/main.py:11) has no method 'save'",
    ]


def test_a_signature_is_judged_only_against_classes_whose_group_method_is_called(
    tmp_path: Path,
) -> None:
    """Critic.fit() takes no batch, but no Critic group runs Group.fit: no finding. A
    Trainer group does, and Trainer.fit takes it."""
    main = """\
from PKG.group import Group
from PKG.roles import Critic, Trainer


def train():
    trainer = Group(2, Trainer)
    critic = Group(2, Critic)
    trainer.fit(1)
    return critic
"""
    analysis, root = _analyse(tmp_path, "grp_b", main)
    assert _found(analysis, root) == set()
    called = main.replace("    return critic\n", "    critic.fit(2)\n")
    analysis, root = _analyse(tmp_path / "called", "grp_b2", called)
    assert _found(analysis, root) == {("grp_b2/group.py", 13, "rpc-handler-signature")}


JUDGED = {"rpc-proxy-unanswered"}
NAMED = {"rpc-proxy-handler-unknown"}


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("Group(2, Critic).save()", JUDGED),  # the construction itself
        ("g = Group(2, Critic)\n    g.save()", JUDGED),
        ("g = Group(2, actor_type=Critic)\n    g.save()", JUDGED),
        # *args or **kwargs hides the class bound: built, but with no known handler, named.
        ("args = (2, Critic)\n    g = Group(*args)\n    g.save()", NAMED),
        ("kw = {'actor_type': Critic}\n    g = Group(2, **kw)\n    g.save()", NAMED),
        # A loop variable over a list of groups: tied to no construction, named.
        ("groups = [Group(2, Critic)]\n    for g in groups:\n        g.save()", NAMED),
        ("g = Group(2, Critic)\n    g = make()\n    g.save()", set()),  # g is None there
        ("g = Group(2, pick())\n    g.save()", NAMED),  # the class does not infer
    ],
)
def test_what_ties_a_call_to_a_construction(tmp_path: Path, code: str, expected: set[str]) -> None:
    main = f"""\
from PKG.group import Group
from PKG.roles import Critic


def make():
    return None


def pick():
    return Critic if make() else int


def train():
    {code}
"""
    analysis, root = _analyse(tmp_path, "grp_c", main)
    found = {symbol for _, _, symbol in _found(analysis, root)}
    assert found == expected, code


def test_a_group_passed_as_a_parameter_is_named_not_judged(tmp_path: Path) -> None:
    main = """\
from PKG.group import Group
from PKG.roles import Reference


def save(group):
    return group.save()


def train():
    save(Group(1, Reference))
"""
    analysis, root = _analyse(tmp_path, "grp_d", main)
    assert _found(analysis, root) == {("grp_d/main.py", 6, "rpc-proxy-handler-unknown")}
    (finding,) = analysis.all_findings()
    assert (finding.location.line, finding.location.col) == (6, 11)
    assert finding.confidence == "INFERENCE_FAILURE"
    assert _texts(analysis, "rpc-proxy-handler-unknown") == [
        "'save' is called on self._actors by Group.save, which group.save() runs, but the "
        "Group it is called on is tied to no construction here, so which handler answers "
        "can't be checked"
    ]


@pytest.mark.parametrize(
    ("code", "line"),
    [
        # A parameter a call of the function passes a group as (by keyword too).
        ("def run(g):\n    g.save()\n\n\nrun(g=Group(1, Critic))\n", 6),
        # A loop variable over a list groups are appended to, through zip and enumerate.
        (
            "def run(names):\n    gs = []\n    for _ in names:\n"
            "        gs.append(Group(1, Critic))\n"
            "    for g, _ in zip(gs, names):\n        g.save()\n",
            10,
        ),
        (
            "def run():\n    gs = [Group(1, Critic)]\n    for _, g in enumerate(gs):\n"
            "        g.save()\n",
            8,
        ),
        # An attribute: astroid infers it to the group.
        (
            "class Holder:\n    def __init__(self):\n        self.group = Group(1, Critic)\n\n"
            "    def run(self):\n        return self.group.save()\n",
            10,
        ),
        # Bound to a construction on one path, to a parameter on another.
        (
            "def run(flag, given):\n    if flag:\n        g = Group(1, Trainer)\n    else:\n"
            "        g = given\n    g.save()\n",
            10,
        ),
        # A method reaching the proxy call through self.save().
        ("def run(g):\n    g.save_all()\n\n\nrun(Group(1, Critic))\n", 6),
    ],
)
def test_a_group_call_tied_to_no_construction_is_named(
    tmp_path: Path, code: str, line: int
) -> None:
    main = f"""\
from PKG.group import Group
from PKG.roles import Critic, Trainer


{code}"""
    analysis, root = _analyse(tmp_path, "grp_u", main)
    assert _found(analysis, root) == {("grp_u/main.py", line, "rpc-proxy-handler-unknown")}


@pytest.mark.parametrize(
    "code",
    [
        # A parameter no call passes a group as: not shown to be one.
        "def run(g):\n    g.save()\n",
        "def run(g):\n    g.save()\n\n\nrun(Other())\n",
        # An object of another class with a method of the same name.
        "def run():\n    Other().save()\n    o = Other()\n    o.save()\n",
        # A group method that reaches no proxy call.
        "def run(g):\n    g.helper()\n\n\nrun(Group(1, Critic))\n",
        # A loop over a list of other objects.
        "def run():\n    for o in [Other()]:\n        o.save()\n",
    ],
)
def test_a_call_not_shown_to_be_on_a_group_is_not_named(tmp_path: Path, code: str) -> None:
    group = GROUP + "\n    def helper(self):\n        return len(self._actors)\n"
    main = f"""\
from PKG.group import Group
from PKG.roles import Critic


class Other:
    def save(self):
        return None


{code}"""
    analysis, root = _analyse(tmp_path, "grp_n", main, group=group)
    assert _found(analysis, root) == set()


def test_self_calls_in_the_group_are_requirements_not_named(tmp_path: Path) -> None:
    """Group.save_all calls self.save() and __init__ self._wait(), also in a nested
    function: requirements of the method, never a call tied to no construction."""
    group = GROUP + (
        "\n    def later(self):\n        def inner():\n            return self.save()\n\n"
        "        return inner()\n"
    )
    main = """\
from PKG.group import Group
from PKG.roles import Trainer


def train():
    g = Group(1, Trainer)
    g.save_all()
    g.later()
"""
    analysis, root = _analyse(tmp_path, "grp_s", main, group=group)
    assert _found(analysis, root) == set()


def test_one_message_per_call_naming_the_first_name_and_the_others(tmp_path: Path) -> None:
    group = GROUP + (
        "\n    def both(self):\n        self.save()\n"
        "        return [a.fit.remote(1) for a in self._actors]\n"
    )
    main = """\
from PKG.group import Group
from PKG.roles import Critic


def run(g):
    return g.both()


run(Group(1, Critic))
"""
    analysis, root = _analyse(tmp_path, "grp_m", main, group=group)
    assert _found(analysis, root) == {("grp_m/main.py", 6, "rpc-proxy-handler-unknown")}
    assert _texts(analysis, "rpc-proxy-handler-unknown") == [
        "'fit' is called on self._actors by Group.both, which g.both() runs (and 1 more "
        "name: save), but the Group it is called on is tied to no construction here, so "
        "which handler answers can't be checked"
    ]


def test_init_is_judged_at_each_construction(tmp_path: Path) -> None:
    roles = ROLES.replace("class Reference(Base):\n    pass", "class Reference:\n    pass")
    main = """\
from PKG.group import Group
from PKG.roles import Reference, Trainer


def train():
    Group(1, Trainer)
    return Group(1, Reference)
"""
    analysis, root = _analyse(tmp_path, "grp_e", main, roles=roles)
    assert _found(analysis, root) == {("grp_e/main.py", 7, "rpc-proxy-unanswered")}
    assert (
        "'ready' is called on self._actors by Group._wait"
        in _texts(analysis, "rpc-proxy-unanswered")[0]
    )


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        (
            GROUP.replace(
                "def __init__(self, n, actor_type, *, pg=None)", "def __init__(self, n)"
            ).replace("actor_type.options", "list"),
            "tool.rpcsurface.proxy[0].handler-param: expected every caller to be a class whose "
            "__init__ takes 'actor_type', but grp_f.group.Group's __init__ has no such parameter",
        ),
        (
            "class Group:\n    def run(self):\n        return self._actors\n",
            "tool.rpcsurface.proxy[0].handler-param: expected every caller to be a class whose "
            "__init__ takes 'actor_type', but grp_f.group.Group's __init__ is object's",
        ),
        (
            "def Group(actor_type):\n    _actors = actor_type\n    return _actors\n",
            "tool.rpcsurface.proxy[0].handler-param: expected every caller to be a class whose "
            "__init__ takes 'actor_type', but grp_f.group.Group is a function",
        ),
    ],
)
def test_a_caller_without_the_parameter_is_a_configuration_error(
    tmp_path: Path, group: str, expected: str
) -> None:
    pyproject = PYPROJECT.format(pkg="grp_f")
    if "def Group" in group:
        pyproject = pyproject.replace('receivers = ["self._actors"]', 'receivers = ["_actors"]')
    files = {
        "pyproject.toml": pyproject,
        "grp_f/__init__.py": "",
        "grp_f/group.py": group,
        "grp_f/roles.py": ROLES,
    }
    root = Path(os.path.realpath(project(tmp_path / "proj", files)))
    analysis = engine.surface_facts(load_config(root / "pyproject.toml")).analysis()
    assert [str(error).split(": ", 1)[1] for error in analysis.config_errors] == [expected]
    assert analysis.all_findings() == ()


def test_the_memo_gives_what_a_run_without_it_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warm, and after the construction's class changes in the file that builds it: the
    group's own module is unchanged, so the finding appears through the use's piece."""
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    main = """\
from PKG.group import Group
from PKG.roles import Critic, Trainer


def train():
    g = Group(2, Trainer)
    g.save()
"""
    analysis, root = _analyse(tmp_path, "grp_g", main)
    config = load_config(root / "pyproject.toml")
    assert _found(analysis, root) == set()
    assert store.analyse_with_cache(config, {}) == analysis
    assert store.analyse_with_cache(config, {}) == analysis
    (root / "grp_g" / "main.py").write_text(
        main.replace("PKG", "grp_g").replace("Group(2, Trainer)", "Group(2, Critic)"), "utf-8"
    )
    edited = store.analyse_with_cache(config, {})
    assert edited == engine.surface_facts(config).analysis()
    assert _found(edited, root) == {("grp_g/main.py", 7, "rpc-proxy-unanswered")}
    # The handler's module changes instead: Critic gains save.
    roles = root / "grp_g" / "roles.py"
    roles.write_text(
        roles.read_text("utf-8").replace(
            "class Critic(Base):\n",
            "class Critic(Base):\n    def save(self):\n        return 1\n\n",
        ),
        "utf-8",
    )
    again = store.analyse_with_cache(config, {})
    assert again == engine.surface_facts(config).analysis()
    assert _found(again, root) == set()
    # A group method's body changes what it calls on self, and nothing else: Group.fit,
    # reached now, sends Critic.fit() an argument it does not take.
    (root / "grp_g" / "main.py").write_text(
        main.replace("PKG", "grp_g").replace("Group(2, Trainer)", "Group(2, Critic)")
        + "    g.save_all()\n",
        "utf-8",
    )
    assert _found(store.analyse_with_cache(config, {}), root) == set()
    group = root / "grp_g" / "group.py"
    group.write_text(
        group.read_text("utf-8").replace("return self.save()", "return self.fit(1)"), "utf-8"
    )
    last = store.analyse_with_cache(config, {})
    assert last == engine.surface_facts(config).analysis()
    assert _found(last, root) == {("grp_g/group.py", 13, "rpc-handler-signature")}


def test_the_memo_gives_what_a_run_without_it_gives_for_untied_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The named reason, warm, then gone when no call passes a group any more, then back
    when the group method that reached nothing reaches a proxy call."""
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    main = """\
from PKG.group import Group
from PKG.roles import Critic


def run(g):
    g.save()
    g.count()


run(Group(1, Critic))
"""
    group = GROUP + "\n    def count(self):\n        return len(self._actors)\n"
    analysis, root = _analyse(tmp_path, "grp_h", main, group=group)
    config = load_config(root / "pyproject.toml")
    named = ("grp_h/main.py", 6, "rpc-proxy-handler-unknown")
    assert _found(analysis, root) == {named}
    assert store.analyse_with_cache(config, {}) == analysis
    assert store.analyse_with_cache(config, {}) == analysis
    path = root / "grp_h" / "main.py"
    path.write_text(path.read_text("utf-8").replace("run(Group(1, Critic))", "run(None)"), "utf-8")
    edited = store.analyse_with_cache(config, {})
    assert edited == engine.surface_facts(config).analysis()
    assert _found(edited, root) == set()
    path.write_text(path.read_text("utf-8").replace("run(None)", "run(Group(1, Critic))"), "utf-8")
    grp = root / "grp_h" / "group.py"
    grp.write_text(
        grp.read_text("utf-8").replace("return len(self._actors)", "return self.save()"),
        "utf-8",
    )
    last = store.analyse_with_cache(config, {})
    assert last == engine.surface_facts(config).analysis()
    assert _found(last, root) == {named, ("grp_h/main.py", 7, "rpc-proxy-handler-unknown")}


def test_the_memo_follows_a_group_made_in_another_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The receiver is a group through a call to another module's function: when that
    function stops building one, the warm run drops the message as a cold one does."""
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    main = """\
from PKG.helpers import make


def run(g):
    g.save()


run(make())
"""
    helpers = (
        "from grp_x.group import Group\nfrom grp_x.roles import Critic\n\n\n"
        "def make():\n    return Group(1, Critic)\n"
    )
    analysis, root = _analyse(tmp_path, "grp_x", main, helpers=helpers)
    config = load_config(root / "pyproject.toml")
    assert _found(analysis, root) == {("grp_x/main.py", 5, "rpc-proxy-handler-unknown")}
    assert store.analyse_with_cache(config, {}) == analysis
    assert store.analyse_with_cache(config, {}) == analysis
    path = root / "grp_x" / "helpers.py"
    path.write_text(path.read_text("utf-8").replace("return Group(1, Critic)", "return None"))
    edited = store.analyse_with_cache(config, {})
    assert edited == engine.surface_facts(config).analysis()
    assert _found(edited, root) == set()

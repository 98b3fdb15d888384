"""``handler-param``: a proxy table whose caller is one group class for every role, the
class behind its receivers a constructor parameter. What each group method needs is
judged where it is called on an instance whose construction is known, against the class
that construction passed; what can't be tied to a construction is not judged.

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
    return engine.analyse(config), root


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


@pytest.mark.parametrize(
    ("code", "judged"),
    [
        ("Group(2, Critic).save()", True),  # the construction itself
        ("g = Group(2, Critic)\n    g.save()", True),
        ("g = Group(2, actor_type=Critic)\n    g.save()", True),
        ("args = (2, Critic)\n    g = Group(*args)\n    g.save()", False),  # *args hides it
        ("kw = {'actor_type': Critic}\n    g = Group(2, **kw)\n    g.save()", False),
        ("groups = [Group(2, Critic)]\n    for g in groups:\n        g.save()", False),
        ("g = Group(2, Critic)\n    g = make()\n    g.save()", False),  # another binding
        ("g = Group(2, pick())\n    g.save()", False),  # the class does not infer
    ],
)
def test_what_ties_a_call_to_a_construction(tmp_path: Path, code: str, judged: bool) -> None:
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
    assert found == ({"rpc-proxy-unanswered"} if judged else set()), code


def test_a_group_passed_as_a_parameter_is_not_judged(tmp_path: Path) -> None:
    main = """\
from PKG.group import Group
from PKG.roles import Reference


def save(group):
    return group.save()


def train():
    save(Group(1, Reference))
"""
    analysis, root = _analyse(tmp_path, "grp_d", main)
    assert _found(analysis, root) == set()


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
    analysis = engine.analyse(load_config(root / "pyproject.toml"))
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
    assert edited == engine.analyse(config)
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
    assert again == engine.analyse(config)
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
    assert last == engine.analyse(config)
    assert _found(last, root) == {("grp_g/group.py", 13, "rpc-handler-signature")}

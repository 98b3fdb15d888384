"""The ``[[tool.rpcsurface.proxy]]`` table: its keys, their shapes, and what it changes
in the rest of the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from pylint_rpcsurface.config import Config, ConfigError, ProxySpec, load_config

PROXY = """\
[[tool.rpcsurface.proxy]]
name = "train-actors"
callers = ["pkg.group.TrainGroup"]
receivers = ["self._actor_handlers"]
handlers = ["pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"]
"""


def parse(tmp_path: Path, text: str) -> Config:
    toml = tmp_path / "pyproject.toml"
    toml.write_text(text, "utf-8")
    return load_config(toml)


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as raised:
        parse(tmp_path, text)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_a_proxy_table_alone_needs_no_dispatch(tmp_path: Path) -> None:
    config = parse(tmp_path, "[tool.rpcsurface]\n" + PROXY)
    assert config.dispatch == ()
    (spec,) = config.proxies
    assert spec == ProxySpec(
        "train-actors",
        ("pkg.group.TrainGroup",),
        ("self._actor_handlers",),
        ("pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"),
        key="tool.rpcsurface.proxy[0]",
    )
    assert spec.remote is False
    assert spec.own_members == ()
    assert spec.exposed_by is None


def test_without_a_proxy_table_dispatch_is_still_required(tmp_path: Path) -> None:
    message = error(tmp_path, '[tool.rpcsurface]\nsource-roots = ["."]\n')
    assert "tool.rpcsurface: missing required key 'dispatch'" in message


def test_every_key_is_read(tmp_path: Path) -> None:
    text = PROXY + (
        'remote = true\nown-members = ["pkg.group.WorkerGroup"]\n'
        'exposed-by = "pkg.decorator.register"\n'
    )
    (spec,) = parse(tmp_path, "[tool.rpcsurface]\n" + text).proxies
    assert spec.remote is True
    assert spec.own_members == ("pkg.group.WorkerGroup",)
    assert spec.exposed_by == "pkg.decorator.register"


@pytest.mark.parametrize(
    ("old", "new", "key", "expected"),
    [
        ('name = "train-actors"\n', "", "tool.rpcsurface.proxy[0]", "missing required key 'name'"),
        (
            'receivers = ["self._actor_handlers"]',
            'receivers = ["self._actor_handlers()"]',
            "tool.rpcsurface.proxy[0].receivers[0]",
            "expected a name or attribute chain",
        ),
        (
            'receivers = ["self._actor_handlers"]',
            "receivers = []",
            "tool.rpcsurface.proxy[0].receivers",
            "expected a non-empty array",
        ),
        (
            'handlers = ["pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"]',
            "handlers = []",
            "tool.rpcsurface.proxy[0].handlers",
            "expected a non-empty array of dotted names",
        ),
        (
            'name = "train-actors"\n',
            'name = "train-actors"\nremote = 1\n',
            "tool.rpcsurface.proxy[0].remote",
            "expected true or false, got integer 1",
        ),
        (
            'name = "train-actors"\n',
            'name = "train-actors"\nexposed-by = "register"\n',
            "tool.rpcsurface.proxy[0].exposed-by",
            "expected a dotted name",
        ),
        (
            'name = "train-actors"\n',
            'name = "train-actors"\nwaits = true\n',
            "tool.rpcsurface.proxy[0].waits",
            "unknown key; allowed keys are: name, callers, receivers, handlers, handler-param, "
            "remote, own-members, exposed-by",
        ),
        (
            'name = "train-actors"\n',
            'name = "train-actors"\nhandler-param = "ray_actor_type"\n',
            "tool.rpcsurface.proxy[0].handler-param",
            "expected either handlers or handler-param, got both",
        ),
        (
            'handlers = ["pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"]\n',
            "",
            "tool.rpcsurface.proxy[0]",
            "missing required key 'handlers' (or 'handler-param')",
        ),
        (
            'handlers = ["pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"]\n',
            'handler-param = "ray-actor-type"\n',
            "tool.rpcsurface.proxy[0].handler-param",
            "expected a Python identifier, got 'ray-actor-type'",
        ),
    ],
)
def test_a_bad_key_is_one_line_naming_it(
    tmp_path: Path, old: str, new: str, key: str, expected: str
) -> None:
    assert old in PROXY
    message = error(tmp_path, "[tool.rpcsurface]\n" + PROXY.replace(old, new, 1))
    assert f": {key}: " in message, message
    assert expected in message, message


def test_handler_param_stands_in_for_handlers(tmp_path: Path) -> None:
    text = PROXY.replace(
        'handlers = ["pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"]',
        'handler-param = "ray_actor_type"',
    )
    (spec,) = parse(tmp_path, "[tool.rpcsurface]\n" + text).proxies
    assert (spec.handlers, spec.handler_param) == ((), "ray_actor_type")
    (plain,) = parse(tmp_path, "[tool.rpcsurface]\n" + PROXY).proxies
    assert plain.handler_param is None


def test_two_proxy_tables_may_not_share_a_name(tmp_path: Path) -> None:
    message = error(tmp_path, "[tool.rpcsurface]\n" + PROXY + PROXY)
    assert ": tool.rpcsurface.proxy[1].name: duplicate proxy name 'train-actors'" in message


def test_the_digest_covers_the_proxy_tables(tmp_path: Path) -> None:
    base = parse(tmp_path, "[tool.rpcsurface]\n" + PROXY).digest
    remote = parse(tmp_path, "[tool.rpcsurface]\n" + PROXY + "remote = true\n").digest
    other = parse(
        tmp_path, "[tool.rpcsurface]\n" + PROXY.replace("self._actor_handlers", "self.actors")
    ).digest
    param = parse(
        tmp_path,
        "[tool.rpcsurface]\n"
        + PROXY.replace(
            'handlers = ["pkg.megatron.MegatronActor", "pkg.fsdp.FSDPActor"]',
            'handler-param = "ray_actor_type"',
        ),
    ).digest
    assert len({base, remote, other, param}) == 4

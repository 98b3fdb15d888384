"""The engine configuration keys: dispatch unknown-name and transparent-decorators."""

from __future__ import annotations

from pathlib import Path

import pytest

from pylint_rpcsurface.config import Config, ConfigError, load_config

DISPATCH = '[tool.rpcsurface]\n{top}[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\n{extra}'


def _load(tmp_path: Path, top: str = "", extra: str = "") -> Config:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "pyproject.toml"
    path.write_text(DISPATCH.format(top=top, extra=extra), encoding="utf-8")
    return load_config(path)


def _error(tmp_path: Path, top: str = "", extra: str = "") -> str:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, top, extra)
    return str(caught.value)


def test_defaults(tmp_path: Path) -> None:
    config = _load(tmp_path)
    (form,) = config.dispatch
    assert form.unknown_name is None  # unset: read from the receive side
    assert config.transparent_decorators == (
        "torch.inference_mode",
        "torch.no_grad",
        "torch.enable_grad",
        "functools.cache",
        "functools.lru_cache",
    )


def test_both_keys_are_read_and_change_the_digest(tmp_path: Path) -> None:
    # One folder: the digest also covers the source roots, which must not differ here.
    plain = _load(tmp_path)
    raises = _load(tmp_path, extra='unknown-name = "raises"\n')
    listed = _load(tmp_path, top='transparent-decorators = ["mylib.cached"]\n')
    assert raises.dispatch[0].unknown_name == "raises"
    assert listed.transparent_decorators == ("mylib.cached",)
    digests = {c.digest for c in (plain, raises, listed)}
    assert len(digests) == 3


@pytest.mark.parametrize(
    ("top", "extra", "key", "problem"),
    [
        ("", 'unknown-name = "ignored"\n', "dispatch[0].unknown-name", "'skipped' or 'raises'"),
        ("", "unknown-name = true\n", "dispatch[0].unknown-name", "got boolean true"),
        ('transparent-decorators = "torch.no_grad"\n', "", "transparent-decorators", "array"),
        ('transparent-decorators = ["no_grad"]\n', "", "transparent-decorators[0]", "dotted"),
    ],
)
def test_bad_values_are_refused_naming_the_key(
    tmp_path: Path, top: str, extra: str, key: str, problem: str
) -> None:
    message = _error(tmp_path, top, extra)
    assert f": tool.rpcsurface.{key}: " in message
    assert problem in message


def test_the_wait_and_call_keys_are_read(tmp_path: Path) -> None:
    unless = _load(tmp_path, extra='waits-unless = "non_block"\ncalled-as = "function"\n')
    (form,) = unless.dispatch
    assert (form.waits, form.waits_unless, form.called_as) == (True, "non_block", "function")
    absent = _load(tmp_path, extra='waits = "wait"\nwaits-when-absent = true\n')
    (form,) = absent.dispatch
    assert (form.waits, form.waits_when_absent, form.waits_unless) == ("wait", True, None)
    plain = _load(tmp_path)
    (form,) = plain.dispatch
    assert (form.waits_unless, form.waits_when_absent, form.called_as) == (None, False, "method")
    assert len({c.digest for c in (unless, absent, plain)}) == 3


@pytest.mark.parametrize(
    ("extra", "key", "problem"),
    [
        ('waits = true\nwaits-unless = "non_block"\n', "waits-unless", "either waits or"),
        ('waits-unless = "m"\nname-keyword = "m"\n', "waits-unless", "other than name-keyword"),
        ('waits-unless = "m"\nargs-from = "m"\n', "args-from", "other than waits-unless"),
        ("waits-unless = 1\n", "waits-unless", "Python identifier"),
        ("waits = true\nwaits-when-absent = true\n", "waits-when-absent", "keyword name"),
        ('waits = "w"\nwaits-when-absent = "yes"\n', "waits-when-absent", "true or false"),
        ('called-as = "attribute"\n', "called-as", "'method' or 'function'"),
    ],
)
def test_bad_wait_and_call_keys_are_refused(
    tmp_path: Path, extra: str, key: str, problem: str
) -> None:
    message = _error(tmp_path, extra=extra)
    assert f": tool.rpcsurface.dispatch[0].{key}: " in message
    assert problem in message


def test_waited_by_is_read_and_stands_alone(tmp_path: Path) -> None:
    config = _load(tmp_path, extra='waited-by = ["ray.get"]\n')
    assert config.dispatch[0].waited_by == ("ray.get",)
    assert config.digest != _load(tmp_path).digest
    for extra in (
        'waits = true\nwaited-by = ["ray.get"]\n',
        'waits-unless = "n"\nwaited-by = ["ray.get"]\n',
    ):
        message = _error(tmp_path, extra=extra)
        assert ": tool.rpcsurface.dispatch[0].waited-by: expected waited-by alone" in message
    message = _error(tmp_path, extra="waited-by = []\n")
    assert "non-empty array" in message

"""The configuration keys of issue 13: dispatch unknown-name and transparent-decorators."""

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
    assert form.unknown_name == "skipped"
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

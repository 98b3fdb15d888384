"""bench/engines.py's own parts that need no download: unpacking only .py files, safely,
and a table that refuses findings without a verdict and verdicts without a finding."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from support import load_bench_script

engines = load_bench_script("engines")


def _wheel(tmp_path: Path, members: dict[str, str]) -> Path:
    wheel = tmp_path / "e-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return wheel


def test_only_python_files_are_unpacked(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path,
        {
            "e/__init__.py": "",
            "e/core.py": "X = 1\n",
            "e/_c.so": "\0",
            "e-1.0.dist-info/RECORD": "",
        },
    )
    assert engines.extract_python(wheel, tmp_path / "src") == 2
    unpacked = sorted(
        p.relative_to(tmp_path / "src").as_posix()
        for p in (tmp_path / "src").rglob("*")
        if p.is_file()
    )
    assert unpacked == ["e/__init__.py", "e/core.py"]
    assert engines.package_root(tmp_path / "src", "e") == tmp_path / "src"


@pytest.mark.parametrize("name", ["../evil.py", "/abs/evil.py", "e/../../evil.py"])
def test_a_path_leaving_the_folder_is_refused(tmp_path: Path, name: str) -> None:
    wheel = _wheel(tmp_path, {name: "X = 1\n"})
    with pytest.raises(ValueError, match="refusing"):
        engines.extract_python(wheel, tmp_path / "src")
    assert not (tmp_path / "evil.py").exists()


def test_the_table_needs_a_verdict_for_every_finding_and_a_finding_for_every_verdict() -> None:
    engine = engines.Engine("e", "1.0", "e")
    found = [
        engines.Found("e", "e/core.py", 3, "rpc-unanswered", "'x' is ... (rpcsurface explain x)")
    ]
    verdicts = {"e": {"e/core.py:9:rpc-unanswered": {"verdict": "true positive", "why": "w"}}}
    table, problems = engines.render((engine,), found, verdicts)
    assert "| e 1.0 | `e/core.py:3` `rpc-unanswered` | 'x' is ... | UNCLASSIFIED |" in table
    assert problems == [
        "e: no verdict for e/core.py:3:rpc-unanswered",
        "e: a verdict for e/core.py:9:rpc-unanswered, which is no longer found",
    ]
    verdicts = {"e": {"e/core.py:3:rpc-unanswered": {"verdict": "true positive", "why": "w"}}}
    table, problems = engines.render((engine,), found, verdicts)
    assert problems == []
    assert "| true positive | w |" in table


def test_every_engine_has_a_committed_configuration() -> None:
    for engine in engines.ENGINES:
        assert (engines.CONFIGS / f"{engine.key}.toml").is_file(), engine.key
    assert set(engines.load_verdicts()) <= {engine.key for engine in engines.ENGINES}


def test_the_proxy_tables_are_appended_only_with_proxy() -> None:
    plain = engines.config_text("openrlhf", proxy=False)
    assert plain == (engines.CONFIGS / "openrlhf.toml").read_text("utf-8")
    assert "[[tool.rpcsurface.proxy]]" not in plain
    merged = engines.config_text("openrlhf", proxy=True)
    assert merged.startswith(plain.rstrip("\n"))
    assert "[[tool.rpcsurface.proxy]]" in merged
    only = [engine.name for engine in engines.ENGINES if engine.proxy_only]
    assert only == ["verl", "areal", "trinity-rft"]
    for name in only:  # the whole configuration is in <name>.proxy.toml
        table = engines.tomllib.loads(engines.config_text(name, proxy=False))["tool"]["rpcsurface"]
        assert table == {}
        merged_table = engines.tomllib.loads(engines.config_text(name, proxy=True))
        assert merged_table["tool"]["rpcsurface"]["proxy"]


def test_the_hand_traced_proxy_findings_stand_in_for_verdicts() -> None:
    expected = engines.expected_proxy_verdicts()
    assert set(expected) == {"verl", "openrlhf", "areal", "trinity-rft"}
    key = "verl/single_controller/ray/base.py:207:rpc-proxy-unanswered"
    assert expected["verl"][key]["verdict"] == "true positive"
    # The generic group judged per instance (handler-param): OpenRLHF gives no finding,
    # only the named reason at the reward-model loop variable's call, and the one at the
    # getattr whose name is a parameter.
    named = "openrlhf/cli/train_ppo_ray.py:170:rpc-proxy-handler-unknown"
    unreadable = "openrlhf/trainer/ray/launcher.py:360:rpc-name-uninferable"
    assert set(expected["openrlhf"]) == {named, unreadable}
    assert expected["openrlhf"][unreadable]["verdict"] == engines.NAMED_REASON
    assert expected["openrlhf"][named]["verdict"] == engines.NAMED_REASON
    assert "zip(reward_models" in expected["openrlhf"][named]["why"]
    # Ray's own actor methods answer on every handle: no finding stands in for a verdict.
    assert "areal/infra/scheduler/ray.py:661:rpc-proxy-unanswered" not in expected["areal"]
    assert all(
        key.endswith((engines.PROXY_SUFFIX, ":rpc-proxy-handler-unknown", ":rpc-name-uninferable"))
        for t in expected.values()
        for key in t
    )


def test_a_named_reason_stands_in_for_a_verdict_whatever_the_sites_own(tmp_path: Path) -> None:
    (tmp_path / "eng.toml").write_text(
        "[[site]]\n"
        'at = "pkg/a.py:3:4"\n'
        'verdict = "not a finding"\n'
        'why = "answered"\n'
        'named = "rpc-proxy-handler-unknown"\n'
        'named-at = ["pkg/b.py:9:8", "pkg/c.py:2:0"]\n'
        'named-why = "a parameter"\n'
        "[[site]]\n"
        'at = "pkg/a.py:5:4"\n'
        'verdict = "true positive"\n'
        'why = "lacks it"\n',
        encoding="utf-8",
    )
    expected = engines.expected_proxy_verdicts(tmp_path)
    reason = {"verdict": "named reason", "why": "a parameter"}
    assert expected == {
        "eng": {
            "pkg/b.py:9:rpc-proxy-handler-unknown": reason,
            "pkg/c.py:2:rpc-proxy-handler-unknown": reason,
            "pkg/a.py:5:rpc-proxy-unanswered": {"verdict": "true positive", "why": "lacks it"},
        }
    }


def test_a_kept_wheel_is_not_fetched_again(tmp_path: Path) -> None:
    # No index serves "e==1.0": a pip download would fail the test.
    wheel = _wheel(tmp_path, {"e/__init__.py": ""})
    assert engines.download(engines.Engine("e", "1.0", "e"), tmp_path) == wheel


def test_proxy_verdicts_wait_only_for_tables_kept_apart(tmp_path: Path) -> None:
    (tmp_path / "apart.toml").write_text("[tool.rpcsurface]\n", encoding="utf-8")
    (tmp_path / "apart.proxy.toml").write_text("[[tool.rpcsurface.proxy]]\n", encoding="utf-8")
    (tmp_path / "inline.toml").write_text("[[tool.rpcsurface.proxy]]\n", encoding="utf-8")
    verdict = {"verdict": "true positive", "why": "w"}
    proxy_key = "p/a.py:3" + engines.PROXY_SUFFIX
    plain_key = "p/a.py:4:rpc-unanswered"
    verdicts = {
        "apart": {proxy_key: verdict, plain_key: verdict},
        "inline": {proxy_key: verdict, plain_key: verdict},
    }
    assert engines.without_unread_proxy_verdicts(verdicts, tmp_path) == {
        "apart": {plain_key: verdict},
        "inline": {proxy_key: verdict, plain_key: verdict},
    }

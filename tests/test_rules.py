"""Unit tests of the rules: hand-made facts in, findings out, no astroid involved."""

from __future__ import annotations

from dataclasses import replace

from pylint_rpcsurface import rules
from pylint_rpcsurface.messages import render
from pylint_rpcsurface.model import (
    Answers,
    Broadcast,
    CallerBroadcast,
    Location,
    Registry,
    RegistryElement,
    SurfaceFacts,
)
from pylint_rpcsurface.rules.text import names_list

ROOT = "/project"
CORE = f"{ROOT}/engine_core.py"
CONFIG = f"{ROOT}/config.py"
PREFILL = "eng.engine_core.PrefillEngineCore"
DECODE = "eng.engine_core.DecodeEngineCore"


def at(path: str, line: int, col: int = 4) -> Location:
    return Location(path, line, col, line, col + 10)


def site(
    rpc: str | None, line: int, waited: bool | None = True, callers: tuple[str, ...] = (PREFILL,)
) -> CallerBroadcast:
    return CallerBroadcast(
        Broadcast(
            call=at(CORE, line, 8),
            name_at=at(CORE, line),
            method="call_func",
            rpc=rpc,
            name_source=repr(rpc) if rpc else "f'x_{kind}'",
            waited=waited,
            wait_at=at(CORE, line, 40) if waited is None else None,
            wait_source="wait_out=flag" if waited is None else None,
        ),
        callers,
    )


def registry(*names: str | None, start: int = 2) -> Registry:
    return Registry(
        "eng.config.RPCS",
        at(CONFIG, 1, 0),
        tuple(
            RegistryElement(name, repr(name), at(CONFIG, start + offset))
            for offset, name in enumerate(names)
        ),
    )


def surface(
    broadcasts: list[CallerBroadcast],
    reg: Registry | None,
    handlers: set[str] | None = None,
    bases: set[str] | None = None,
) -> SurfaceFacts:
    return SurfaceFacts(
        name="rapid",
        callers=(DECODE, PREFILL),
        callers_complete=True,
        broadcasts=tuple(broadcasts),
        handlers=Answers(
            ("eng.runner.RapidRunner",),
            frozenset(handlers if handlers is not None else {"forward", "prefill", "decode"}),
            True,
        ),
        base_handlers=Answers(
            ("eng.runner.Runner",), frozenset(bases if bases is not None else {"forward"}), True
        ),
        registry=reg,
        root=ROOT,
    )


def symbols(facts: SurfaceFacts) -> list[tuple[str, int]]:
    return [(f.symbol, f.location.line) for f in rules.findings([facts])]


def test_a_consistent_surface_has_no_findings() -> None:
    facts = surface(
        [site("prefill", 10), site("decode", 11), site("forward", 12)],
        registry("prefill", "decode"),
    )
    assert rules.findings([facts]) == []


def test_a_waited_name_only_the_handlers_answer_must_be_listed() -> None:
    facts = surface([site("prefill", 10), site("decode", 11)], registry("decode"))
    assert symbols(facts) == [("rpc-unlisted", 10)]


def test_an_unwaited_name_need_not_be_listed() -> None:
    facts = surface([site("prefill", 10, waited=False), site("decode", 11)], registry("decode"))
    assert symbols(facts) == []


def test_a_name_the_base_answers_need_not_be_listed() -> None:
    facts = surface([site("forward", 10)], registry())
    assert symbols(facts) == []


def test_registry_element_precedence_unanswered_then_in_base_then_unwaited() -> None:
    # 'forward' is answered by the base only when the handlers don't list it either;
    # here the handlers answer nothing the base doesn't, so precedence decides.
    facts = surface(
        [site("decode", 20)],
        registry("ghost", "forward", "prefill", "decode"),
        handlers={"forward", "prefill", "decode"},
    )
    assert symbols(facts) == [
        ("rpc-listed-unanswered", 2),
        ("rpc-listed-in-base", 3),
        ("rpc-listed-unwaited", 4),
    ]


def test_a_name_neither_handler_answers_wins_over_in_base() -> None:
    # answered by the base only, not by the handlers: unanswered has precedence
    facts = surface([], registry("legacy"), handlers=set(), bases={"legacy"})
    assert symbols(facts) == [("rpc-listed-unanswered", 2)]


def test_unwaited_detail_names_the_unwaited_site() -> None:
    facts = surface([site("prefill", 30, waited=False)], registry("prefill"))
    (finding,) = rules.findings([facts])
    assert finding.symbol == "rpc-listed-unwaited"
    assert "only broadcast without waiting, by PrefillEngineCore at engine_core.py:30" in (
        render(finding.symbol, finding.args)
    )
    facts = surface([], registry("prefill"))
    (finding,) = rules.findings([facts])
    assert finding.args[-1] == "it is never broadcast"


def test_unanswered_says_what_happens_for_each_wait_state() -> None:
    facts = surface(
        [site("nope", 10), site("nope", 11, waited=False), site("nope", 12, waited=None)],
        None,
    )
    texts = {(f.location.line, f.symbol): render(f.symbol, f.args) for f in rules.findings([facts])}
    assert "blocks forever" in texts[10, "rpc-unanswered"]
    assert "skip it silently" in texts[11, "rpc-unanswered"]
    # an unknown flag gets its own message, and the unanswered one says both outcomes
    assert "a caller that waits blocks forever" in texts[12, "rpc-unanswered"]
    assert (12, "rpc-wait-uninferable") in texts
    assert len(texts) == 4


def test_every_text_starts_with_the_quoted_name() -> None:
    facts = surface(
        [site("nope", 10), site(None, 11), site("prefill", 12, waited=None), site("decode", 13)],
        registry("ghost", "forward", "x", "x", None),
    )
    findings = rules.findings([facts])
    assert len(findings) >= 6
    for finding in findings:
        assert render(finding.symbol, finding.args).startswith("'")


def test_an_unknown_name_is_reported_and_never_judged_against_the_registry() -> None:
    facts = surface([site(None, 10)], registry())
    assert symbols(facts) == [("rpc-name-uninferable", 10)]


def test_no_entry_is_called_unwaited_while_a_waited_name_is_unknown() -> None:
    facts = surface([site(None, 10)], registry("prefill"))
    assert symbols(facts) == [("rpc-name-uninferable", 10)]
    # an unwaited unknown name can't be waited on: the entry is judged again
    facts = surface([site(None, 10, waited=False)], registry("prefill"))
    assert symbols(facts) == [("rpc-listed-unwaited", 2), ("rpc-name-uninferable", 10)]


def test_a_name_with_an_unknown_flag_is_not_called_unwaited() -> None:
    facts = surface([site("prefill", 10, waited=None)], registry("prefill"))
    assert symbols(facts) == [("rpc-wait-uninferable", 10)]


def test_duplicates_and_non_str_elements_are_invalid_and_judged_once() -> None:
    facts = surface([site("prefill", 10)], registry("prefill", "prefill", None))
    assert symbols(facts) == [("rpc-registry-invalid", 3), ("rpc-registry-invalid", 4)]


def test_an_unreadable_registry_is_reported_at_its_assignment_and_nothing_is_compared() -> None:
    broken = replace(registry(), problem="can't be evaluated statically: make() is a call")
    facts = surface([site("prefill", 10)], broken)
    assert symbols(facts) == [("rpc-registry-invalid", 1)]


def test_unknown_handler_ancestry_suppresses_unanswered_claims() -> None:
    facts = surface([site("nope", 10)], registry("ghost"))
    facts = replace(facts, handlers=replace(facts.handlers, complete=False))
    assert symbols(facts) == [("rpc-listed-unwaited", 2)]


def test_unknown_caller_ancestry_suppresses_unwaited_claims() -> None:
    facts = replace(surface([], registry("prefill")), callers_complete=False)
    assert symbols(facts) == []


def test_a_site_shared_by_two_surfaces_gets_one_uninferable_finding_naming_all_callers() -> None:
    first = surface([site(None, 10, callers=(PREFILL,))], None)
    second = replace(first, name="other", broadcasts=(site(None, 10, callers=(DECODE,)),))
    findings = rules.findings([first, second])
    assert [f.symbol for f in findings] == ["rpc-name-uninferable"]
    assert findings[0].args[1] == "DecodeEngineCore and PrefillEngineCore"


def test_names_list_qualifies_only_clashing_short_names() -> None:
    assert names_list(["a.A"]) == "A"
    assert names_list(["a.A", "b.B", "c.C"]) == "A, B and C"
    assert names_list(["a.X", "b.X"]) == "a.X and b.X"


def test_findings_are_sorted_by_place_then_symbol() -> None:
    facts = surface([site("nope", 12), site("prefill", 10)], registry("ghost"))
    findings = rules.findings([facts])
    assert findings == sorted(findings)
    assert [f.location.path for f in findings] == [CONFIG, CORE, CORE]

"""Unit tests of the rules: hand-made facts in, findings out, no astroid involved."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_a_name_the_loop_answers_is_answered_and_need_not_be_listed() -> None:
    # answered-before-lookup: the loop answers 'stop' itself, whatever the handler holds;
    # 'prefill' is answered by the handlers, and the registry lacks it.
    loop = frozenset({"stop", "prefill"})
    facts = replace(surface([site("stop", 10), site("prefill", 11)], registry()), loop_answers=loop)
    assert symbols(facts) == []
    assert rules.wanted_registry(facts) == frozenset()
    listed = replace(facts, registry=registry("stop"))
    assert symbols(listed) == [("rpc-listed-in-base", 2)]
    assert symbols(replace(facts, loop_answers=frozenset())) == [
        ("rpc-unanswered", 10),
        ("rpc-unlisted", 11),
    ]


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


def test_every_text_starts_with_the_name_quoted_once() -> None:
    facts = surface(
        [site("nope", 10), site(None, 11), site("prefill", 12, waited=None), site("decode", 13)],
        registry("ghost", "forward", "x", "x", None),
    )
    findings = rules.findings([facts])
    assert len(findings) >= 6
    for finding in findings:
        text = render(finding.symbol, finding.args)
        if finding.symbol == "rpc-name-uninferable":  # an f-string's own quotes, no others
            assert text.startswith("f'x_{kind}' does not infer"), text
        else:
            assert text.startswith("'"), text


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
    # Every caller of the site, then the surfaces that give it (one message for them all).
    assert findings[0].args[2] == (
        "DecodeEngineCore and PrefillEngineCore (in surfaces 'rapid' and 'other')"
    )
    assert findings[0].surfaces == ("rapid", "other")


def test_names_list_qualifies_only_clashing_short_names() -> None:
    assert names_list(["a.A"]) == "A"
    assert names_list(["a.A", "b.B", "c.C"]) == "A, B and C"
    assert names_list(["a.X", "b.X"]) == "a.X and b.X"


def test_findings_are_sorted_by_place_then_symbol() -> None:
    facts = surface([site("nope", 12), site("prefill", 10)], registry("ghost"))
    findings = rules.findings([facts])
    assert findings == sorted(findings)
    assert [f.location.path for f in findings] == [CONFIG, CORE, CORE]


# --- fix writes what these rules ask for ---------------------------------------------------
# ``rpcsurface fix`` writes rules.wanted_registry; the findings about the registry come from
# the same registry equation. So, over any facts: where the wanted names are known, a
# registry holding exactly them draws no registry finding, and a registry holding anything
# else draws at least one; where they can't be known, fix refuses.

REGISTRY_SYMBOLS = {"rpc-unlisted", "rpc-listed-unwaited", "rpc-listed-unanswered"}
REGISTRY_SYMBOLS |= {"rpc-listed-in-base"}
NAMES = st.sampled_from(["prefill", "decode", "forward", "ghost"])
# Mostly known facts, so that most examples reach a registry fix would write.
MOSTLY = st.sampled_from([True, True, True, False])


@st.composite
def surfaces(draw: st.DrawFn) -> SurfaceFacts:
    sites = [
        site(
            draw(NAMES if draw(MOSTLY) else st.none()),
            line,
            draw(st.sampled_from([True, True, False, None])),
        )
        for line in range(10, 10 + draw(st.integers(0, 4)))
    ]
    listed = draw(st.lists(NAMES, unique=True, max_size=4))
    facts = surface(
        sites,
        registry(*listed),
        handlers=draw(st.sets(NAMES)),
        bases=draw(st.sets(NAMES)),
    )
    return replace(
        facts,
        callers_complete=draw(MOSTLY),
        handlers=replace(facts.handlers, complete=draw(MOSTLY)),
        base_handlers=replace(facts.base_handlers, complete=draw(MOSTLY)),
        loop_answers=draw(st.frozensets(NAMES, max_size=2)),
    )


def registry_findings(facts: SurfaceFacts) -> list[str]:
    return [f.symbol for f in rules.findings([facts]) if f.symbol in REGISTRY_SYMBOLS]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(surfaces())
def test_the_registry_fix_writes_is_the_one_the_rules_accept(facts: SurfaceFacts) -> None:
    wanted = rules.wanted_registry(facts)
    if isinstance(wanted, str):  # fix refuses, naming why
        assert wanted == rules.registry_equation(facts).unknowns[0]
        return
    assert wanted is not None  # the surface has a registry
    fixed = replace(facts, registry=registry(*sorted(wanted)))
    assert registry_findings(fixed) == []
    listed = {e.value for e in facts.registry.elements} if facts.registry else set()
    if listed != wanted:
        assert registry_findings(facts) != []


def test_fix_refuses_for_each_unknown_the_rules_refuse_to_judge() -> None:
    known = surface([site("prefill", 10)], registry())
    assert rules.wanted_registry(known) == frozenset({"prefill"})
    assert rules.wanted_registry(replace(known, registry=None)) is None
    unknowns = {
        "name": surface([site(None, 10)], registry()),
        "flag": surface([site("prefill", 10, waited=None)], registry()),
        "callers": replace(known, callers_complete=False),
        "handlers": replace(known, handlers=replace(known.handlers, complete=False)),
        "bases": replace(known, base_handlers=replace(known.base_handlers, complete=False)),
        "element": surface([site("prefill", 10)], registry(None)),
    }
    for why, facts in unknowns.items():
        assert isinstance(rules.wanted_registry(facts), str), why


def test_only_a_registry_that_cant_be_read_at_all_is_unusable() -> None:
    """check and report exit 2 for these: nothing is judged against the registry."""
    for problem in ("is not defined in module config", "is bound 2 times (lines 1, 2)"):
        facts = surface([site("prefill", 10)], replace(registry(), problem=problem))
        (found,) = rules.findings([facts])
        assert rules.unusable_registry(found), problem
    # A non-str element and a duplicate one are the registry's findings, judged as such.
    facts = surface([site("prefill", 10)], registry("prefill", "prefill", None))
    invalid = [f for f in rules.findings([facts]) if f.symbol == "rpc-registry-invalid"]
    assert len(invalid) == 2
    assert not any(rules.unusable_registry(f) for f in invalid)
    assert not any(
        rules.unusable_registry(f) for f in rules.findings([surface([site("x", 10)], registry())])
    )

"""``rpcsurface report``: one table per surface, one row per RPC name.

A row says who waits on the name (each caller and the ``file:line`` of its call), which
handlers answer it, whether the registry lists it, and the verdict: ``ok`` or the symbols
of the findings about that name. The verdicts are the findings of
:func:`pylint_rpcsurface.rules.findings`, the function ``check`` and pylint report from,
so a row's verdict is exactly what ``check`` says at that row's places.

Three renderings: plain text (aligned columns, for pipes and logs), markdown (for pull
request comments), JSON; and a rich table on a terminal when rich is installed. Text,
markdown and rich show every name through ``rules.text.safe_name`` (a control character
in an RPC name is shown escaped, never sent to the terminal), and markdown escapes what
would end a cell or a code span; JSON keeps the names as they are.
"""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TextIO

from pylint_rpcsurface import rules
from pylint_rpcsurface.commands.progress import Progress, analysing, terminal_columns
from pylint_rpcsurface.commands.projects import (
    EXIT_CLEAN,
    EXIT_ERROR,
    configs,
    facts,
    format_option,
    messages_control,
    project_options,
)
from pylint_rpcsurface.model import (
    CallerBroadcast,
    Location,
    ProxyCall,
    ProxyFacts,
    SurfaceFacts,
)
from pylint_rpcsurface.rules.text import LOOP_ANSWERS, names_list, safe_name, where

COLUMNS = ("RPC", "waited by", "answered by", "listed", "verdict")
# A registry that can't be read judges no name: whether one must be listed is unknown, so
# its row says so in "listed" and, with no other finding, in "verdict" (not "no", "ok").
UNKNOWN_LISTING = "? (registry invalid)"
# Findings about a whole module rather than a name: each is a note under the table.
_MODULE_NOTES = frozenset({"rpcsurface-config-error"})
# Plain text's width where no terminal says one (a pipe, a file, a CI log), and the least
# width it wraps to (a narrower terminal gets lines as wide as this).
PIPED_WIDTH = 100
MIN_WIDTH = 20


@dataclass(frozen=True)
class Site:
    callers: tuple[str, ...]
    where: str  # path relative to the project, forward slashes, ":line"
    waited: bool | None
    verbatim: bool = False  # callers are code labels (Class.method), shown as they are
    judged_for: tuple[str, ...] = ()  # a proxy call's: the callers its table judged it for


@dataclass(frozen=True)
class Row:
    rpc: str  # the name, or the source of a name that does not infer
    inferred: bool
    sites: tuple[Site, ...]
    answered_by: str
    listed: str
    verdict: tuple[str, ...]  # each symbol, "(silenced)" after it when pylint drops it
    silenced: tuple[str, ...] = ()  # the symbols a pragma or pylint's configuration drop
    lacking: tuple[str, ...] = ()  # a proxy's row: the handlers without the name

    def cells(self) -> tuple[str, str, str, str, str]:
        """The row as text shows it, every name escaped (``safe_name``)."""
        rpc = safe_name(self.rpc)
        return (
            rpc if self.inferred else f"{rpc} (not inferable)",
            safe_name("; ".join(_site_text(site) for site in self.sites) or "-"),
            safe_name(self.answered_by),
            self.listed,
            ", ".join(self.verdict),
        )

    @property
    def verdict_silenced(self) -> tuple[str, ...]:
        return tuple(f"{symbol} (silenced)" for symbol in self.silenced)


@dataclass(frozen=True)
class SurfaceReport:
    name: str
    registry: str | None
    rows: tuple[Row, ...]
    notes: tuple[str, ...]  # findings about the registry as a whole
    registry_problem: str | None = None  # why the registry can't be read
    proxy: bool = False  # a [[tool.rpcsurface.proxy]] table's: no registry
    when: str | None = None  # the table's condition: it judges the calls that run under it
    one_of: bool = False  # the worker holds one of the handlers, not known which


def _site_text(site: Site) -> str:
    suffix = {True: "", False: ", not waited", None: ", wait unknown"}[site.waited]
    callers = ", ".join(site.callers) if site.verbatim else names_list(site.callers)
    return f"{callers} ({site.where}{suffix})"


HELP = "print each surface's RPC names: who waits, who answers, listed, verdict"
DESCRIPTION = (
    "Print a table per surface: each RPC name, the callers that wait on it "
    "(file:line), the handlers that answer it, whether the registry lists it, and the "
    "verdict (ok, or the symbols of its findings). With paths, report the projects "
    "those paths belong to. Rich tables on a terminal when rich is installed, plain "
    "text otherwise. The facts come from the cache's memo where the code is unchanged "
    "since pylint or check computed them (--no-cache: afresh). Exit status: 0, or 2 "
    "for a usage or configuration error (a registry that can't be read included: the "
    "tables are still printed)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``rpcsurface report`` takes."""
    project_options(parser, "files or folders of projects")
    format_option(parser, ("json", "markdown"), "markdown is for pull request comments")


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Exit status 0, or 2 when a registry can't be used at all (said in its table, which
    is still shown); a usage or configuration error is raised. Progress goes to *err*."""
    reports: list[SurfaceReport] = []
    status = EXIT_CLEAN
    with Progress(err, "rpcsurface report: ") as progress:
        chosen = configs(arguments.paths, arguments.config)
        progress.phases(2 * len(chosen))  # analysing, then building the tables
        for config in chosen:
            progress.phase(analysing(config))
            analysed = facts(config, arguments)
            control = messages_control(config, arguments)
            silenced = frozenset(
                (f.location, f.symbol) for f in analysed.findings if control.silenced(f)
            )
            progress.phase(f"building the tables of {config.root}")
            reports.extend(build(surface, silenced) for surface in analysed.surfaces)
            reports.extend(
                build_proxy(proxy, str(config.root), silenced) for proxy in analysed.proxies
            )
            if any(
                rules.unusable_registry(f) and not control.silenced(f) for f in analysed.findings
            ):
                status = EXIT_ERROR
    if arguments.format == "json":
        render_json(reports, out)
    elif arguments.format == "markdown":
        render_markdown(reports, out)
    elif out.isatty() and rich_available():
        render_rich(reports, out)
    else:
        render_text(reports, out, text_width(out))
    return status


def build(
    surface: SurfaceFacts, silenced: Collection[tuple[Location, str]] = frozenset()
) -> SurfaceReport:
    """*surface*'s table; *silenced* holds the (place, symbol) of each finding that a
    pylint pragma or pylint's configuration drops."""
    findings = rules.findings([surface])
    by_location: dict[Location, set[str]] = defaultdict(set)
    for finding in findings:
        by_location[finding.location].add(finding.symbol)
    sites: dict[tuple[bool, str], list[CallerBroadcast]] = defaultdict(list)
    for site in surface.broadcasts:
        rpc = site.broadcast.rpc
        sites[(rpc is not None, rpc if rpc is not None else site.broadcast.name_source)].append(
            site
        )
    listed: dict[tuple[bool, str], list[Location]] = defaultdict(list)
    registry = surface.registry
    problem = None if registry is None else registry.problem
    notes: list[str] = []
    if registry is not None:
        if registry.problem is not None:
            notes.append(f"{registry.qualname} {registry.problem} (rpc-registry-invalid)")
        for element in registry.elements:
            value = element.value
            listed[(value is not None, value if value is not None else element.source)].append(
                element.location
            )
    # A module that may hold callers and doesn't parse or can't be decoded.
    notes.extend(f"{f.args[0]} ({f.symbol})" for f in findings if f.symbol in _MODULE_NOTES)
    # Each key of a handler table is a row, its entry one of the row's places.
    entries: dict[tuple[bool, str], list[Location]] = defaultdict(list)
    for table in surface.tables:
        for entry in table.entries:
            entries[(True, entry.key)].append(entry.at)
    rows = []
    for key in sorted(set(sites) | set(listed) | set(entries), key=lambda k: (not k[0], k[1])):
        inferred, rpc = key
        places = [site.broadcast.name_at for site in sites.get(key, [])]
        places += [s.broadcast.wait_at for s in sites.get(key, []) if s.broadcast.wait_at]
        places += listed.get(key, [])
        places += entries.get(key, [])
        found = {(place, symbol) for place in places for symbol in by_location.get(place, ())}
        verdict, quiet = _verdict(found, silenced, UNKNOWN_LISTING if problem is not None else "ok")
        rows.append(
            Row(
                rpc=rpc,
                inferred=inferred,
                sites=tuple(
                    Site(s.callers, where(s.broadcast.name_at, surface.root), s.broadcast.waited)
                    for s in sorted(sites.get(key, []), key=lambda s: s.broadcast.name_at)
                ),
                answered_by=_answered_by(surface, rpc if inferred else None),
                listed=UNKNOWN_LISTING
                if problem is not None
                else _listed(registry is not None, len(listed.get(key, []))),
                verdict=verdict,
                silenced=quiet,
            )
        )
    return SurfaceReport(
        surface.name,
        registry.qualname if registry else None,
        tuple(rows),
        tuple(notes),
        problem,
        when=surface.when,
        one_of=surface.one_of,
    )


def build_proxy(
    proxy: ProxyFacts, root: str, silenced: Collection[tuple[Location, str]] = frozenset()
) -> SurfaceReport:
    """*proxy*'s table: a row per name called, its sites (the caller's code and
    ``file:line``, and whether it is waited: "not waited" when its ref never reaches
    ray.get, "wait unknown" when it leaves the function), the handlers that answer it and
    the verdict."""
    by_location = _proxy_symbols_at(proxy)
    judged_for = dict(proxy.callers_at)
    calls: dict[tuple[bool, str], list[ProxyCall]] = defaultdict(list)
    for call in proxy.calls:
        calls[(call.rpc is not None, call.rpc if call.rpc is not None else call.source)].append(
            call
        )
    rows = []
    for key in sorted(calls, key=lambda k: (not k[0], k[1])):
        inferred, rpc = key
        found = {(c.at, symbol) for c in calls[key] for symbol in by_location.get(c.at, ())}
        verdict, quiet = _verdict(found, silenced, "ok")
        judged = {h: None for c in calls[key] for h in proxy.handlers_of(c)}
        answering = [h.qualname for h in judged if rpc in h.names] if inferred else []
        lacking = [h.qualname for h in judged if inferred and h.complete and rpc not in h.names]
        if not inferred:
            answered_by = "?"
        elif rpc in proxy.own_members:
            answered_by = "the proxy itself (own-members)"
        else:
            answered_by = names_list(answering) if answering else "none"
        rows.append(
            Row(
                rpc=rpc,
                inferred=inferred,
                sites=tuple(
                    Site((c.code,), where(c.at, root), c.waited, True, judged_for.get(c.at, ()))
                    for c in sorted(calls[key], key=lambda c: c.at)
                ),
                answered_by=answered_by,
                listed="n/a",
                verdict=verdict,
                silenced=quiet,
                lacking=tuple(lacking),
            )
        )
    return SurfaceReport(proxy.name, None, tuple(rows), (), None, proxy=True, when=proxy.when)


def _verdict(
    found: set[tuple[Location, str]], silenced: Collection[tuple[Location, str]], clean: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A row's verdict from its findings *found* (place, symbol): their symbols, each
    marked silenced when pylint drops every one of the row's findings of that symbol, or
    *clean* when there is none; and the symbols silenced."""
    symbols = {symbol for _, symbol in found}
    quiet = {s for s in symbols if all(k in silenced for k in found if k[1] == s)}
    verdict = tuple(f"{s} (silenced)" if s in quiet else s for s in sorted(symbols))
    return verdict or (clean,), tuple(sorted(quiet))


def _proxy_symbols_at(proxy: ProxyFacts) -> dict[Location, set[str]]:
    """The symbols of *proxy*'s findings by the proxy call whose row shows them."""
    by_location: dict[Location, set[str]] = defaultdict(set)
    found_at: dict[tuple[Location, str], set[str]] = defaultdict(set)
    for finding in rules.proxy_findings(proxy):
        by_location[finding.location].add(finding.symbol)
        found_at[(finding.location, finding.args[0])].add(finding.symbol)
    for use in proxy.uses:
        # With handler-param a name's finding is at the instance call that reaches it: the
        # row of the proxy call shows it too.
        for call in use.calls:
            by_location[call.at] |= found_at.get((use.at, call.rpc or ""), set())
    for untied in proxy.untied:
        # A call tied to no construction is one message, naming the first of the names
        # its method reaches: every one of their rows shows it.
        named = {
            symbol
            for (at, _), symbols in found_at.items()
            if at == untied.at
            for symbol in symbols
            if symbol == "rpc-proxy-handler-unknown"
        }
        for call in untied.calls:
            by_location[call.at] |= named
    return by_location


def _answered_by(surface: SurfaceFacts, rpc: str | None) -> str:
    handlers, bases = surface.handlers, surface.base_handlers
    if rpc is None:
        return "?"
    if rpc in surface.loop_answers:
        return LOOP_ANSWERS
    if rpc in bases.names:
        return f"{names_list(bases.answering(rpc))} (base)"
    if rpc in handlers.names:
        tables = {t.qualname for t in surface.tables}
        classes = [name for name in handlers.answering(rpc) if name not in tables]
        # A table's entry: the table and the handler it names (Class.method or a function).
        entries = [
            f"{t.qualname.rpartition('.')[2]}: "
            + (f"{e.owner.rpartition('.')[2]}.{e.method}" if e.owner else e.method)
            for t in surface.tables
            for e in t.entries
            if e.key == rpc
        ]
        return "; ".join([names_list(classes)] * bool(classes) + entries)
    if not (handlers.complete and bases.complete):
        return "? (a base class does not resolve)"
    return "none"


def _listed(has_registry: bool, count: int) -> str:
    if not has_registry:
        return "n/a"
    if count == 0:
        return "no"
    return "yes" if count == 1 else f"yes ({count} times)"


def _title(report: SurfaceReport) -> str:
    when = f"when {report.when}" if report.when is not None else ""
    if report.proxy:
        return safe_name(f"proxy {report.name}" + (f" ({when})" if when else ""))
    registry = f"registry {report.registry}" if report.registry else "no registry"
    when = f", {when}" if when else ""
    return safe_name(f"surface {report.name} ({registry}{_invalid(report)}{_one_of(report)}{when})")


def _invalid(report: SurfaceReport) -> str:
    return "" if report.registry_problem is None else ", invalid"


def _one_of(report: SurfaceReport) -> str:
    return ", one-of" if report.one_of else ""


def render_text(reports: Sequence[SurfaceReport], out: TextIO, width: int = PIPED_WIDTH) -> None:
    """Aligned columns when a surface's table fits in *width* columns; else each row as
    a block, its name and verdict first, then a line for each other column, wrapped to
    *width*: every name, place and symbol is still shown, on more lines."""
    for number, report in enumerate(reports):
        if number:
            out.write("\n")
        _write_wrapped(out, _title(report), width)
        table = [COLUMNS, *(row.cells() for row in report.rows)]
        widths = [max(len(line[column]) for line in table) for column in range(len(COLUMNS))]
        lines = [
            "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
            for line in table
        ]
        if max(map(len, lines)) <= width:
            out.writelines(line + "\n" for line in lines)
        else:
            for rpc, *middle, verdict in table[1:]:
                _write_wrapped(out, f"{rpc}: {verdict}", width)
                for label, cell in zip(COLUMNS[1:-1], middle, strict=True):
                    _write_wrapped(out, f"{label}: {cell}", width, indent="  ")
        for note in report.notes:
            _write_wrapped(out, f"note: {safe_name(note)}", width)


def _write_wrapped(out: TextIO, text: str, width: int, indent: str = "") -> None:
    """*text* on lines of at most *width* columns, each after the first indented two
    more than *indent*; a word longer than a line is split, never cut."""
    wrapped = textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent + "    ",
        break_on_hyphens=False,
        drop_whitespace=True,
    )
    out.writelines(line + "\n" for line in wrapped or [indent])


def text_width(out: TextIO) -> int:
    """The columns plain text may take on *out* (``progress.terminal_columns``), never
    fewer than ``MIN_WIDTH``; ``PIPED_WIDTH`` on a pipe, a file, a CI log."""
    columns = terminal_columns(out)
    return PIPED_WIDTH if columns is None else max(columns, MIN_WIDTH)


def _markdown_cell(text: str) -> str:
    """Plain *text* as one cell: a backslash, a pipe and what starts a code span, a link
    or an HTML tag escaped, so a name shows as it is and ends no cell."""
    return _MARKDOWN_SPECIAL.sub(r"\\\g<0>", text)


# What markdown would read as markup in a cell: the escape itself, the cell's end, a code
# span, a link or image, an HTML tag, emphasis.
_MARKDOWN_SPECIAL = re.compile(r"[\\|`\[\]<>*_]")
_BACKTICKS = re.compile(r"`+")


def _markdown_code(text: str) -> str:
    """*text* (already through ``safe_name``) as a code span in a table cell: fenced by
    more backticks than it holds in a row, padded when it starts or ends with one, and
    each pipe escaped (GitHub's tables split cells on a pipe even inside a code span)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return fence + padded.replace("|", "\\|") + fence


def _verdict_markdown(verdict: str) -> str:
    """``ok``, or the symbol as code, with what follows it (`` (silenced)``) as text."""
    if verdict in ("ok", UNKNOWN_LISTING):
        return verdict
    symbol, space, rest = verdict.partition(" ")
    return f"`{symbol}`{space}{rest}"


def render_markdown(reports: Sequence[SurfaceReport], out: TextIO) -> None:
    for number, report in enumerate(reports):
        if number:
            out.write("\n")
        registry = (
            f"registry {_markdown_code(safe_name(report.registry))}"
            if report.registry
            else "no registry"
        )
        when = f"when {_markdown_code(safe_name(report.when))}" if report.when else ""
        if report.proxy:
            title = f"### Proxy {_markdown_code(safe_name(report.name))}"
            out.write(f"{title}{f' ({when})' if when else ''}\n\n")
        else:
            title = f"### Surface {_markdown_code(safe_name(report.name))}"
            flags = f"{_invalid(report)}{_one_of(report)}{', ' + when if when else ''}"
            out.write(f"{title} ({registry}{flags})\n\n")
        out.write("| " + " | ".join(c[0].upper() + c[1:] for c in COLUMNS) + " |\n")
        out.write("|" + "---|" * len(COLUMNS) + "\n")
        for row in report.rows:
            rpc, waited, answered, listed, verdict = row.cells()
            rpc_cell = _markdown_code(safe_name(row.rpc))
            if not row.inferred:
                rpc_cell += " (not inferable)"
            verdict_cell = ", ".join(_verdict_markdown(v) for v in row.verdict)
            del rpc, verdict
            cells = [
                rpc_cell,
                *(_markdown_cell(c) for c in (waited, answered, listed)),
                verdict_cell,
            ]
            out.write("| " + " | ".join(cells) + " |\n")
        for note in report.notes:
            out.write(f"\n> {_markdown_cell(safe_name(note))}\n")


def as_json(reports: Sequence[SurfaceReport]) -> list[dict[str, object]]:
    return [_json_of(report) for report in reports]


def _json_of(report: SurfaceReport) -> dict[str, object]:
    if report.proxy:
        return {
            "proxy": report.name,
            "when": report.when,
            "rows": [
                {
                    "rpc": row.rpc,
                    "inferred": row.inferred,
                    "calledBy": [
                        {
                            "code": s.callers[0],
                            "callers": list(s.judged_for),
                            "at": s.where,
                            "waited": s.waited,
                        }
                        for s in row.sites
                    ],
                    "answeredBy": row.answered_by,
                    "lacking": list(row.lacking),
                    "verdict": list(row.verdict),
                    "silenced": list(row.silenced),
                }
                for row in report.rows
            ],
        }
    return {
        "surface": report.name,
        "registry": report.registry,
        "registryProblem": report.registry_problem,
        "when": report.when,
        "oneOf": report.one_of,
        "rows": [
            {
                "rpc": row.rpc,
                "inferred": row.inferred,
                "waitedBy": [
                    {"callers": list(s.callers), "at": s.where, "waited": s.waited}
                    for s in row.sites
                ],
                "answeredBy": row.answered_by,
                "listed": row.listed,
                "verdict": list(row.verdict),
                "silenced": list(row.silenced),
            }
            for row in report.rows
        ],
        "notes": list(report.notes),
    }


def render_json(reports: Sequence[SurfaceReport], out: TextIO) -> None:
    json.dump(as_json(reports), out, indent=2)
    out.write("\n")


def rich_available() -> bool:
    try:
        import rich  # noqa: F401, PLC0415  # pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        return False
    return True


def render_rich(reports: Sequence[SurfaceReport], out: TextIO) -> None:
    """Tables for a terminal (rich is an optional dependency: see ``rich_available``)."""
    from rich.console import Console  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
    from rich.table import Table  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
    from rich.text import Text  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    console = Console(file=out)
    for report in reports:
        table = Table(title=_title(report), title_justify="left")
        for column in COLUMNS:
            table.add_column(column)
        for row in report.rows:
            cells = row.cells()
            style = "green" if set(row.verdict) - {"ok", *row.verdict_silenced} == set() else "red"
            table.add_row(*(Text(cell) for cell in cells[:4]), Text(cells[4], style=style))
        console.print(table)
        for note in report.notes:
            console.print(f"note: {safe_name(note)}", markup=False)

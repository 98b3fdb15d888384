"""bench/run.py's rows: each a Pair of commands (numerator, denominator) and its target,
and which rows --rows selects."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from sites import Command, Sample, Site, python_files

PYLINT = (sys.executable, "-m", "pylint", "--persistent=n", "--score=n", "--output-format=json2")
OURS = ("--load-plugins=pylint_rpcsurface", "--disable=all", "--enable=rpcsurface")
BASELINE = ("--disable=all", "--enable=unused-import")
# Each tree is dropped as soon as it is parsed: keeping them all alive (a list
# comprehension) makes the garbage collector rescan a growing heap and tripled the time.
PARSE_ALL = (
    "import ast, pathlib\n"
    'for p in sorted(pathlib.Path(".").rglob("*.py")):\n'
    "    ast.parse(p.read_bytes(), str(p))"
)


@dataclass
class Pair:
    """A measured ratio: numerator over denominator, the median of each."""

    measure: str
    site: Site
    numerator: Command | None  # None when the command can't run here (CLI not installed)
    denominator: Command
    target: float
    metric: str = "seconds"  # or "rss"
    a: list[Sample] = field(default_factory=list)
    b: list[Sample] = field(default_factory=list)

    def values(self, samples: list[Sample]) -> list[float]:
        if self.metric == "rss":
            return [s.rss_kib / 1024 for s in samples]
        return [s.seconds for s in samples]


def commands(site: Site, cli: str | None) -> dict[str, Command | None]:
    caller = site.manifest["largest_caller_module"]
    handler = site.manifest.get("handler_module")
    assert isinstance(caller, str)
    two = (caller, handler) if isinstance(handler, str) else (caller,)
    stdin_file = site.path / caller
    stdin = ("--from-stdin", str(stdin_file))
    check = None if cli is None else (cli, "check")
    # What the pylint-rpcsurface pre-commit hook runs (.pre-commit-hooks.yaml), on the file.
    hook = (*PYLINT, *OURS, caller)
    # The whole tree: every file named, so that pylint lints each one whatever folder it
    # is in (--recursive=y skips a folder without __init__.py inside a regular package).
    every = python_files(site)
    n = len(every)

    def stdin_row(label: str, **options: object) -> Command:
        return Command(label, (*PYLINT, *OURS, *stdin), "ours", stdin=stdin_file, only=caller,
                       **options)  # type: ignore[arg-type]  # fmt: skip

    return {
        "ours tree cold": Command(
            "ours tree cold", (*PYLINT, *OURS, *every), "ours", cold=True, files=n
        ),
        "ours tree warm": Command(
            "ours tree warm", (*PYLINT, *OURS, *every), "ours", warm=True, files=n
        ),
        "base tree": Command("base tree", (*PYLINT, *BASELINE, *every), "baseline", files=n),
        "ours tree -j 2": Command(
            "ours tree -j 2", (*PYLINT, *OURS, "-j", "2", *every), "ours", cold=True, files=n
        ),
        "ours stdin warm": stdin_row("ours stdin warm", warm=True),
        "ours stdin comment": stdin_row("ours stdin comment", edit="comment"),
        "ours stdin buffer edit": stdin_row("ours stdin buffer edit", edit="buffer"),
        "ours stdin interface": stdin_row("ours stdin interface", edit="interface"),
        "ours stdin name": stdin_row("ours stdin name", edit="name"),
        "ours stdin mistyped": stdin_row("ours stdin mistyped", edit="mistyped"),
        "base stdin same buffer": Command(
            "base stdin same buffer",
            (*PYLINT, *BASELINE, *stdin),
            "baseline",
            stdin=stdin_file,
            same_buffer=True,
        ),
        "ours stdin handler saved": stdin_row("ours stdin handler saved", edit="handler"),
        "ours stdin cold": stdin_row("ours stdin cold", cold=True),
        "base stdin": Command(
            "base stdin", (*PYLINT, *BASELINE, *stdin), "baseline", stdin=stdin_file
        ),
        "check cold": None if check is None else Command("check cold", check, "check", cold=True),
        "check warm": None if check is None else Command("check warm", check, "check", warm=True),
        "check caller saved": (
            None if check is None else Command("check caller saved", check, "check", edit="caller")
        ),
        "hook caller saved": Command("hook caller saved", hook, "ours", only=caller, edit="caller"),
        "base file": Command("base file", (*PYLINT, *BASELINE, caller), "baseline"),
        "ours two files -j 2": (
            None
            if check is None
            else Command(
                "ours two files -j 2",
                (*PYLINT, *OURS, "-j", "2", *two),
                "ours",
                within=two,
                before=Command("check warm", check, "check", warm=True),
            )
        ),
        "base two files -j 2": Command(
            "base two files -j 2", (*PYLINT, *BASELINE, "-j", "2", *two), "baseline"
        ),
        "ours file after tree -j 2": Command(
            "ours file after tree -j 2",
            hook,
            "ours",
            only=caller,
            before=Command(
                "ours tree -j 2",
                (*PYLINT, *OURS, "-j", "2", *every),
                "ours",
                cold=True,
                files=n,
            ),
        ),
        "parse": Command("parse", (sys.executable, "-c", PARSE_ALL), "parse"),
    }


def growth_pair(pairs: list[Pair], by_check: bool) -> Pair | None:
    """The pair of *pairs* the growth curve reads: whole tree, or the cold check."""
    wanted = "rpcsurface check, cold" if by_check else "whole tree (every file named), cold"
    return next((p for p in pairs if p.measure.startswith(wanted)), None)


def whole_tree(pair: Pair) -> bool:
    """Whether the pair runs pylint over the whole tree (the slow rows), measured or
    right before what it measures."""
    run = [c for c in (pair.numerator, pair.denominator) if c is not None]
    return any(" tree" in c.label for c in [*run, *(c.before for c in run if c.before)])


def select(pairs: list[Pair], rows: str) -> list[Pair]:
    """The rows --rows asks for: all, the rpcsurface check rows, an editor's and
    pre-commit's (every row but the whole-tree pylint runs), or only the whole-tree runs
    (and so the peak RSS row they give)."""
    if rows == "check":
        return [p for p in pairs if p.measure.startswith("rpcsurface check")]
    if rows == "editor":
        return [p for p in pairs if not whole_tree(p)]
    if rows == "tree":
        return [p for p in pairs if whole_tree(p)]
    return pairs


def pairs_at(site: Site, cli: str | None, primary: bool, *, by_check: bool = False) -> list[Pair]:
    c = commands(site, cli)

    def cmd(name: str) -> Command:
        found = c[name]
        assert found is not None
        return found

    tree = Pair("whole tree (every file named), cold: rpcsurface ÷ unused-import", site,
                c["ours tree cold"], cmd("base tree"), 1.10)  # fmt: skip
    cold_check = Pair("rpcsurface check, cold ÷ ast.parse of every file", site, c["check cold"],
                      cmd("parse"), 1.0)  # fmt: skip
    if not primary:
        return [cold_check if by_check else tree]
    return [
        tree,
        Pair("whole tree (every file named), warm: rpcsurface ÷ unused-import", site,
             c["ours tree warm"], cmd("base tree"), 1.10),
        Pair("stdin (IDE), unchanged, warm: rpcsurface ÷ unused-import", site,
             c["ours stdin warm"], cmd("base stdin"), 1.25),
        Pair("stdin (IDE), after a comment appended to the buffer: rpcsurface ÷ "
             "unused-import", site, c["ours stdin comment"], cmd("base stdin same buffer"),
             1.2),
        Pair("stdin (IDE), after a body edit of the buffer (in a method that sends): "
             "rpcsurface ÷ unused-import", site, c["ours stdin buffer edit"],
             cmd("base stdin same buffer"), 1.2),
        Pair("stdin (IDE), after an interface edit of the buffer (a new method of the caller "
             "class waiting on a name it sends): rpcsurface ÷ unused-import", site,
             c["ours stdin interface"], cmd("base stdin same buffer"), 1.5),
        Pair("stdin (IDE), after an RPC name changed to another answered name (at a send "
             "every caller class inherits): rpcsurface ÷ unused-import", site,
             c["ours stdin name"], cmd("base stdin same buffer"), 1.2),
        Pair("stdin (IDE), after an RPC name mistyped (that send, a new name each "
             "keystroke): rpcsurface ÷ unused-import", site, c["ours stdin mistyped"],
             cmd("base stdin same buffer"), 1.2),
        Pair("stdin (IDE) on the caller, after a body edit saved in the handler module: "
             "rpcsurface ÷ unused-import", site, c["ours stdin handler saved"],
             cmd("base stdin"), 1.5),
        Pair("stdin (IDE), truly cold (no cache): rpcsurface ÷ unused-import", site,
             c["ours stdin cold"], cmd("base stdin"), 2.0),
        Pair("whole tree, rpcsurface: -j 2 ÷ -j 1 (cold)", site, c["ours tree -j 2"],
             cmd("ours tree cold"), 0.65),
        cold_check,
        Pair("rpcsurface check, warm ÷ ast.parse of every file", site, c["check warm"],
             cmd("parse"), 0.5),
        Pair("rpcsurface check, after a one-file body edit (saved) ÷ ast.parse of every file",
             site, c["check caller saved"], cmd("parse"), 0.3),
        Pair("pre-commit hook (pylint-rpcsurface) on a commit touching one caller file ÷ "
             "pylint with unused-import on that file", site, c["hook caller saved"],
             cmd("base file"), 1.25),
        Pair("pylint -j 2 on two files (the caller and the handler module) after a warm "
             "`rpcsurface check`: rpcsurface ÷ unused-import, both -j 2", site,
             c["ours two files -j 2"], cmd("base two files -j 2"), 1.25),
        Pair("one file (the caller module) right after a cold whole-tree -j 2 run: "
             "rpcsurface ÷ unused-import", site, c["ours file after tree -j 2"],
             cmd("base file"), 1.25),
    ]  # fmt: skip

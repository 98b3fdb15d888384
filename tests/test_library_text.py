"""A call into an installed library is not inferred when no code of the library, nor of
any package it imports in turn, spells a dispatch form's name: nothing there can send
(vLLM 0.7.3's ``version.parse(...)`` built ``packaging``). A library that spells one,
itself or through an import, is followed as before, and its helper's sends count: here,
the name a library's helper sends is listed in the registry, which is not reported
``rpc-listed-unwaited`` while the helper is followed."""

from __future__ import annotations

import os
from pathlib import Path

from support import fast_surface, project, run_check, stats_env, stats_records

from pylint_rpcsurface.analysis.library_text import LibraryText

SENDS = 'def announce(mgr):\n    mgr.call_func("lib_load", wait_out=True)\n'
QUIET = "import dataclasses\n\n\ndef announce(mgr):\n    return mgr\n"


def _locate_in(site: Path):  # type: ignore[no-untyped-def]
    """locate() over *site* alone, as the store's finds a module in the search path."""

    def locate(name: str) -> str | None:
        package = site / name / "__init__.py"
        module = site / f"{name}.py"
        compiled = site / f"{name}.so"
        for found in (package, module, compiled):
            if found.exists():
                return str(found)
        return None

    return locate


def _library(site: Path, files: dict[str, str]) -> LibraryText:
    project(site, files)
    return LibraryText(["call_func"], _locate_in(site), lambda name: name == "app")


def test_a_library_spelling_no_dispatch_word_sends_nothing(tmp_path: Path) -> None:
    text = _library(
        tmp_path,
        {
            "quiet/__init__.py": "from quiet.inner import helper\nimport os, \\\n    other\n",
            "quiet/inner.py": "from . import sibling\n\n\ndef helper():\n    return 1\n",
            "quiet/sibling.py": "import optional_missing\n",
            "quiet/_speedups.so": "",
            "other.py": "from thing import call_func_like\n",
        },
    )
    assert text.sends_nothing("quiet.inner")
    # Every file read is kept for the store, the one behind a continued line included.
    assert set(text.read) == {"quiet", "quiet.inner", "quiet.sibling", "other"}
    assert text.missing == {"optional_missing", "thing"}


def test_a_dispatch_word_anywhere_reachable_keeps_the_inference(tmp_path: Path) -> None:
    files = {
        "direct/__init__.py": SENDS,
        "through/__init__.py": "def relay(x):\n    return x\n\n\nimport direct as d\n",
        "continued/__init__.py": "import os, \\\n    direct\n",
        "project_user/__init__.py": "from app.core import Core\n",
        "named_only/__init__.py": "from direct import announce\n",
    }
    text = _library(tmp_path, files)
    assert not text.sends_nothing("direct")  # its own text
    assert not text.sends_nothing("through")  # an import of a library that sends
    assert not text.sends_nothing("continued")  # the same, behind a continued line
    assert not text.sends_nothing("project_user")  # the project may send anything
    assert not text.sends_nothing("named_only")
    # A word inside another (call_func_like) is not the dispatch's name.
    assert _library(tmp_path / "other", {"lib.py": "x.call_func_like()\n"}).sends_nothing("lib")


FILES = {
    "pkg/__init__.py": "",
    "pkg/runners.py": (
        'RPCS = ("lib_load",)\n\n\nclass Runner:\n    def prefill(self):\n        return 1\n\n\n'
        "class FastRunner(Runner):\n    def lib_load(self):\n        return 2\n"
    ),
    "pkg/core.py": """\
        import lib


        class Core:
            def step(self):
                lib.announce(self.mgr)
                self.mgr.call_func("prefill", wait_out=True)
        """,
    "pyproject.toml": fast_surface(
        "pkg.core.Core", "pkg.runners.FastRunner", "pkg.runners.Runner", "pkg.runners.RPCS"
    ),
}


def _checked(root: Path, library: str, *, call: bool = True) -> tuple[str, int]:
    files = dict(FILES)
    if not call:
        files["pkg/core.py"] = files["pkg/core.py"].replace("        lib.announce(self.mgr)\n", "")
    project(root / "proj", files)
    project(root / "site", {"lib/__init__.py": library})
    env = {**stats_env(root / "proj"), "PYTHONPATH": str(root / "site")}
    cached = run_check(root / "proj", "--format", "json", env=env)
    uncached = run_check(root / "proj", "--format", "json", "--no-cache", env=env)
    assert cached.stdout == uncached.stdout, cached.stderr
    record = stats_records(root / "proj")[0]  # the cached run's
    return cached.stdout, int(record["other_modules_built"])


UNWAITED = '"rpc-listed-unwaited"'


def test_a_call_into_a_quiet_library_builds_nothing_of_it(tmp_path: Path) -> None:
    found, built = _checked(tmp_path / "call", QUIET)
    assert UNWAITED in found, found  # nothing sends lib_load
    _, built_without = _checked(tmp_path / "no-call", QUIET, call=False)
    assert built == built_without


def test_a_library_helper_that_sends_still_counts(tmp_path: Path) -> None:
    found, built = _checked(tmp_path / "call", SENDS)
    assert found == "[]\n", found  # the library's helper waits on lib_load
    found_without, built_without = _checked(tmp_path / "no-call", SENDS, call=False)
    assert UNWAITED in found_without, found_without
    assert built > built_without


def test_the_store_starts_afresh_when_a_library_read_changes(tmp_path: Path) -> None:
    """The library's text told that the call sends nothing; once it sends, a warm run
    answers as a run from nothing does."""
    _checked(tmp_path, QUIET)
    (tmp_path / "site/lib/__init__.py").write_text(SENDS, encoding="utf-8")
    stamp = os.stat(tmp_path / "site/lib/__init__.py")
    os.utime(tmp_path / "site/lib/__init__.py", ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))
    env = {**stats_env(tmp_path / "proj"), "PYTHONPATH": str(tmp_path / "site")}
    warm = run_check(tmp_path / "proj", "--format", "json", env=env)
    fresh = run_check(tmp_path / "proj", "--format", "json", "--no-cache", env=env)
    assert warm.stdout == fresh.stdout == "[]\n", warm.stdout


def test_the_store_starts_afresh_when_a_missing_import_is_installed(tmp_path: Path) -> None:
    """A module the library imports but the import system can't find sends nothing;
    once it is installed and sends, a warm run answers as a run from nothing does."""
    relay = "import later_lib\n\n\ndef announce(mgr):\n    return later_lib.go(mgr)\n"
    found, _ = _checked(tmp_path, relay)
    assert UNWAITED in found, found
    project(tmp_path / "site", {"later_lib/__init__.py": SENDS.replace("announce", "go")})
    env = {**stats_env(tmp_path / "proj"), "PYTHONPATH": str(tmp_path / "site")}
    warm = run_check(tmp_path / "proj", "--format", "json", env=env)
    fresh = run_check(tmp_path / "proj", "--format", "json", "--no-cache", env=env)
    assert warm.stdout == fresh.stdout == "[]\n", warm.stdout


def test_a_library_call_on_the_way_to_the_callee_is_inferred(tmp_path: Path) -> None:
    """``lib.identity(Helpers).send_all(...)``: the library's function hands back what it
    is given, a class of the project, whose staticmethod sends. The library spells no
    dispatch word, but the callee is not its value: the call is inferred, and the
    helper's send counts."""
    core = """\
        import lib


        class Helpers:
            @staticmethod
            def send_all(mgr):
                mgr.call_func("lib_load", wait_out=True)


        class Core:
            def step(self):
                lib.identity(Helpers).send_all(self.mgr)
                self.mgr.call_func("prefill", wait_out=True)
        """
    project(tmp_path / "proj", {**FILES, "pkg/core.py": core})
    project(tmp_path / "site", {"lib/__init__.py": "def identity(x):\n    return x\n"})
    env = {**stats_env(tmp_path / "proj"), "PYTHONPATH": str(tmp_path / "site")}
    cached = run_check(tmp_path / "proj", "--format", "json", env=env)
    assert cached.stdout == "[]\n", cached.stdout  # lib_load is waited on, through Helpers

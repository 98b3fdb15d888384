"""Unit tests for pylint_rpcsurface.config: reading and validating [tool.rpcsurface]."""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pylint_rpcsurface.config import (
    TABLE,
    Config,
    ConfigError,
    ConfigFinder,
    DispatchForm,
    SurfaceSpec,
    declares_rpcsurface,
    key_of_class,
    load_config,
    parse_table,
)
from pylint_rpcsurface.config import discovery as config_module

FULL_EXAMPLE = """\
[project]
name = "atom"

[tool.rpcsurface]
source-roots = ["src"]

[[tool.rpcsurface.dispatch]]
method = "call_func"
waits = "wait_out"

[[tool.rpcsurface.dispatch]]
method = "call_func_with_aggregation"
waits = true

[[tool.rpcsurface.surface]]
name = "rapidserve"
callers = [
    "atom.model_engine.engine_core.PrefillEngineCore",
    "atom.model_engine.engine_core.DecodeEngineCore",
]
handlers = ["atom.model_engine.model_runner.RapidServeModelRunner"]
base-handlers = ["atom.model_engine.model_runner.ModelRunner"]
registry = "atom.config.RAPIDSERVE_RPCS"
"""

DISPATCH = """\
[[tool.rpcsurface.dispatch]]
method = "call_func"
"""

SURFACE_HEAD = """\
[[tool.rpcsurface.surface]]
name = "s"
"""


def write(folder: Path, text: str, name: str = "pyproject.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def load_text(folder: Path, text: str) -> Config:
    return load_config(write(folder, text))


def error_of(folder: Path, text: str) -> ConfigError:
    """Load text that must be refused; check the invariants every error shares."""
    path = write(folder, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return checked(caught.value, path)


def checked(error: ConfigError, path: Path) -> ConfigError:
    message = str(error)
    assert str(path) in message
    assert "\n" not in message
    assert "\r" not in message
    return error


def assert_error(error: ConfigError, key: str, *expected: str) -> None:
    message = str(error)
    assert error.key == key
    assert message.startswith(f"{error.file}: {key}: "), message
    for text in expected:
        assert text in message, message


def surface_with(**fields: str) -> str:
    """A valid dispatch plus one surface; keyword values are raw TOML for the surface keys."""
    values = {
        "name": '"s"',
        "callers": '["pkg.mod.Caller"]',
        "handlers": '["pkg.mod.Handler"]',
    }
    values.update({name.replace("_", "-"): value for name, value in fields.items()})
    lines = [f"{name} = {value}" for name, value in values.items() if value != "<absent>"]
    return DISPATCH + "[[tool.rpcsurface.surface]]\n" + "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# The valid example
# --------------------------------------------------------------------------


def test_full_example_parses_every_field(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    path = write(tmp_path, FULL_EXAMPLE)

    config = load_config(path)

    assert config.path == path
    assert config.path.is_absolute()
    assert config.root == path.parent
    assert config.source_roots == (Path(os.path.realpath(tmp_path / "src")),)
    assert config.dispatch == (
        DispatchForm("call_func", "wait_out", 0, None, "tool.rpcsurface.dispatch[0]"),
        DispatchForm("call_func_with_aggregation", True, 0, None, "tool.rpcsurface.dispatch[1]"),
    )
    assert config.surfaces == (
        SurfaceSpec(
            name="rapidserve",
            callers=(
                "atom.model_engine.engine_core.PrefillEngineCore",
                "atom.model_engine.engine_core.DecodeEngineCore",
            ),
            handlers=("atom.model_engine.model_runner.RapidServeModelRunner",),
            base_handlers=("atom.model_engine.model_runner.ModelRunner",),
            registry="atom.config.RAPIDSERVE_RPCS",
            key="tool.rpcsurface.surface[0]",
        ),
    )
    assert re.fullmatch(r"[0-9a-f]{64}", config.digest)


def test_config_objects_are_frozen(tmp_path: Path) -> None:
    config = load_text(tmp_path, DISPATCH)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.digest = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.dispatch[0].method = "x"  # type: ignore[misc]


def test_optional_surface_fields_default(tmp_path: Path) -> None:
    config = load_text(tmp_path, surface_with())
    (spec,) = config.surfaces
    assert spec.base_handlers == ()
    assert spec.registry is None


@pytest.mark.parametrize("surface", ["", "surface = []\n"])
def test_surface_may_be_absent_or_empty(tmp_path: Path, surface: str) -> None:
    text = "[tool.rpcsurface]\n" + surface + DISPATCH
    assert load_text(tmp_path, text).surfaces == ()


# --------------------------------------------------------------------------
# source-roots
# --------------------------------------------------------------------------


def test_source_roots_default_to_the_toml_folder(tmp_path: Path) -> None:
    config = load_text(tmp_path / "proj", DISPATCH)
    assert config.source_roots == (Path(os.path.realpath(tmp_path / "proj")),)


def test_source_roots_resolve_relative_to_the_toml_folder_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    (project / "b").mkdir(parents=True)
    (project / "a" / "inner").mkdir(parents=True)
    (project / "linked").symlink_to(project / "b", target_is_directory=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # relative to the TOML file, never to the cwd
    text = '[tool.rpcsurface]\nsource-roots = ["a/inner", ".", "linked"]\n' + DISPATCH

    config = load_text(project, text)

    real = Path(os.path.realpath(project))
    assert config.source_roots == (real / "a" / "inner", real, real / "b")


def test_source_root_must_exist(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    text = '[tool.rpcsurface]\nsource-roots = ["src", "lib"]\n' + DISPATCH
    error = error_of(tmp_path, text)
    assert_error(
        error, "tool.rpcsurface.source-roots[1]", "expected an existing directory", "'lib'"
    )


def test_source_root_must_be_a_directory(tmp_path: Path) -> None:
    write(tmp_path, "", name="setup.py")
    text = '[tool.rpcsurface]\nsource-roots = ["setup.py"]\n' + DISPATCH
    error = error_of(tmp_path, text)
    assert_error(error, "tool.rpcsurface.source-roots[0]", "expected an existing directory")


@pytest.mark.parametrize(
    ("value", "key", "expected"),
    [
        ('"src"', "tool.rpcsurface.source-roots", "expected an array of directory paths"),
        ("[]", "tool.rpcsurface.source-roots", "expected a non-empty array"),
        ("[1]", "tool.rpcsurface.source-roots[0]", "expected a non-empty directory path"),
        ('[""]', "tool.rpcsurface.source-roots[0]", "expected a non-empty directory path"),
        ('["src", "./src"]', "tool.rpcsurface.source-roots[1]", "duplicate entry"),
    ],
)
def test_source_roots_shape(tmp_path: Path, value: str, key: str, expected: str) -> None:
    (tmp_path / "src").mkdir()
    text = f"[tool.rpcsurface]\nsource-roots = {value}\n" + DISPATCH
    assert_error(error_of(tmp_path, text), key, expected)


# --------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("waits = true", True),
        ("waits = false", False),
        ('waits = "wait_out"', "wait_out"),
        ("", False),
    ],
)
def test_waits_values(tmp_path: Path, line: str, expected: bool | str) -> None:
    config = load_text(tmp_path, DISPATCH + line + "\n")
    waits = config.dispatch[0].waits
    assert waits == expected
    assert type(waits) is type(expected)


@pytest.mark.parametrize("value", ["1", '"wait out"', '"class"', '""', "[true]"])
def test_waits_rejects_anything_else(tmp_path: Path, value: str) -> None:
    error = error_of(tmp_path, DISPATCH + f"waits = {value}\n")
    assert_error(
        error, "tool.rpcsurface.dispatch[0].waits", "expected true, false or a keyword name"
    )


def test_name_arg_and_name_keyword(tmp_path: Path) -> None:
    config = load_text(tmp_path, DISPATCH + 'name-arg = 2\nname-keyword = "method"\n')
    form = config.dispatch[0]
    assert form.name_arg == 2
    assert form.name_keyword == "method"


def test_name_arg_and_name_keyword_default(tmp_path: Path) -> None:
    form = load_text(tmp_path, DISPATCH).dispatch[0]
    assert form.name_arg == 0
    assert form.name_keyword is None


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ("true", "got boolean true"),
        ("false", "got boolean false"),
        ("-1", "got integer -1"),
        ("1.0", "got float 1.0"),
        ('"0"', "got '0'"),
    ],
)
def test_name_arg_must_be_a_non_negative_int(tmp_path: Path, value: str, got: str) -> None:
    error = error_of(tmp_path, DISPATCH + f"name-arg = {value}\n")
    assert_error(error, "tool.rpcsurface.dispatch[0].name-arg", "expected an integer >= 0", got)


@pytest.mark.parametrize("value", ["3", '"bad-name"', '"for"', "true"])
def test_name_keyword_must_be_an_identifier(tmp_path: Path, value: str) -> None:
    error = error_of(tmp_path, DISPATCH + f"name-keyword = {value}\n")
    assert_error(error, "tool.rpcsurface.dispatch[0].name-keyword", "expected a Python identifier")


@pytest.mark.parametrize("value", ['"call func"', '"3call"', '"def"', "1", '""'])
def test_method_must_be_an_identifier(tmp_path: Path, value: str) -> None:
    text = f"[[tool.rpcsurface.dispatch]]\nmethod = {value}\n"
    error = error_of(tmp_path, text)
    assert_error(error, "tool.rpcsurface.dispatch[0].method", "expected a Python identifier")


def test_waits_keyword_cannot_also_be_the_name_keyword(tmp_path: Path) -> None:
    error = error_of(tmp_path, DISPATCH + 'waits = "method"\nname-keyword = "method"\n')
    assert_error(error, "tool.rpcsurface.dispatch[0].waits", "other than name-keyword")


def test_duplicate_dispatch_method(tmp_path: Path) -> None:
    text = DISPATCH + "waits = true\n" + DISPATCH
    error = error_of(tmp_path, text)
    assert_error(
        error,
        "tool.rpcsurface.dispatch[1].method",
        "duplicate method 'call_func'",
        "tool.rpcsurface.dispatch[0]",
    )


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        (
            '[tool.rpcsurface.dispatch]\nmethod = "call_func"\n',
            "tool.rpcsurface.dispatch",
            "expected an array of tables ([[tool.rpcsurface.dispatch]]), got a table",
        ),
        (
            '[tool.rpcsurface]\ndispatch = "call_func"\n',
            "tool.rpcsurface.dispatch",
            "expected an array of tables",
        ),
        (
            "[tool.rpcsurface]\ndispatch = []\n",
            "tool.rpcsurface.dispatch",
            "expected at least one [[tool.rpcsurface.dispatch]] table",
        ),
        (
            '[tool.rpcsurface]\ndispatch = [{method = "a"}, 1]\n',
            "tool.rpcsurface.dispatch[1]",
            "expected a table, got integer 1",
        ),
    ],
)
def test_dispatch_must_be_a_non_empty_array_of_tables(
    tmp_path: Path, text: str, key: str, expected: str
) -> None:
    assert_error(error_of(tmp_path, text), key, expected)


# --------------------------------------------------------------------------
# Unknown and missing keys
# --------------------------------------------------------------------------


def test_unknown_top_level_key(tmp_path: Path) -> None:
    text = "[tool.rpcsurface]\nfoo = 1\n" + DISPATCH
    error = error_of(tmp_path, text)
    assert_error(
        error, "tool.rpcsurface.foo", "unknown key", "allowed keys are: source-roots, dispatch"
    )


def test_unknown_dispatch_key(tmp_path: Path) -> None:
    text = DISPATCH + '[[tool.rpcsurface.dispatch]]\nmethod = "other"\nwait = true\n'
    error = error_of(tmp_path, text)
    assert_error(
        error,
        "tool.rpcsurface.dispatch[1].wait",
        "unknown key",
        "method, waits, name-arg, name-keyword",
    )


def test_unknown_surface_key(tmp_path: Path) -> None:
    error = error_of(tmp_path, surface_with(caller='["pkg.mod.C"]'))
    assert_error(
        error,
        "tool.rpcsurface.surface[0].caller",
        "unknown key",
        "name, callers, handlers, base-handlers, registry",
    )


def test_unknown_key_that_needs_quoting_is_shown_quoted(tmp_path: Path) -> None:
    text = '[tool.rpcsurface]\n"odd key" = 1\n' + DISPATCH
    assert_error(error_of(tmp_path, text), 'tool.rpcsurface."odd key"', "unknown key")


@pytest.mark.parametrize(
    ("text", "key", "missing"),
    [
        ('[tool.rpcsurface]\nsource-roots = ["."]\n', "tool.rpcsurface", "'dispatch'"),
        ("[[tool.rpcsurface.dispatch]]\nwaits = true\n", "tool.rpcsurface.dispatch[0]", "'method'"),
        (surface_with(name="<absent>"), "tool.rpcsurface.surface[0]", "'name'"),
        (surface_with(callers="<absent>"), "tool.rpcsurface.surface[0]", "'callers'"),
        (surface_with(handlers="<absent>"), "tool.rpcsurface.surface[0]", "'handlers'"),
    ],
)
def test_missing_required_key(tmp_path: Path, text: str, key: str, missing: str) -> None:
    assert_error(error_of(tmp_path, text), key, f"missing required key {missing}")


# --------------------------------------------------------------------------
# surface
# --------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["callers", "handlers", "base-handlers"])
def test_class_list_must_be_an_array(tmp_path: Path, field: str) -> None:
    error = error_of(tmp_path, surface_with(**{field: '"pkg.mod.C"'}))
    assert_error(
        error,
        f"tool.rpcsurface.surface[0].{field}",
        "expected an array of dotted names, got 'pkg.mod.C'",
    )


@pytest.mark.parametrize("field", ["callers", "handlers", "base-handlers"])
def test_class_list_items_must_be_strings(tmp_path: Path, field: str) -> None:
    error = error_of(tmp_path, surface_with(**{field: '["pkg.mod.C", 1]'}))
    assert_error(
        error, f"tool.rpcsurface.surface[0].{field}[1]", "expected a dotted name", "got integer 1"
    )


@pytest.mark.parametrize("field", ["callers", "handlers"])
def test_callers_and_handlers_must_not_be_empty(tmp_path: Path, field: str) -> None:
    error = error_of(tmp_path, surface_with(**{field: "[]"}))
    assert_error(error, f"tool.rpcsurface.surface[0].{field}", "expected a non-empty array")


def test_base_handlers_may_be_empty(tmp_path: Path) -> None:
    config = load_text(tmp_path, surface_with(base_handlers="[]"))
    assert config.surfaces[0].base_handlers == ()


BAD_DOTTED = [
    "Engine",  # a single identifier is not a dotted name
    "atom.Prefill EngineCore",  # space
    "atom.engine.",  # trailing dot
    ".atom.engine",  # leading dot
    "atom..engine",  # empty part
    "atom.1engine.Core",  # part starts with a digit
    "atom.class.Core",  # part is a keyword
    "",
]


@pytest.mark.parametrize("name", BAD_DOTTED)
@pytest.mark.parametrize("field", ["callers", "handlers", "base-handlers"])
def test_bad_dotted_name_in_class_list(tmp_path: Path, field: str, name: str) -> None:
    error = error_of(tmp_path, surface_with(**{field: f'["pkg.mod.Good", "{name}"]'}))
    assert_error(
        error,
        f"tool.rpcsurface.surface[0].{field}[1]",
        f"expected a dotted name such as 'package.module.Class', got {name!r}",
    )


@pytest.mark.parametrize("name", [*BAD_DOTTED, 3])
def test_bad_dotted_registry(tmp_path: Path, name: str | int) -> None:
    value = f'"{name}"' if isinstance(name, str) else str(name)
    error = error_of(tmp_path, surface_with(registry=value))
    assert_error(error, "tool.rpcsurface.surface[0].registry", "expected a dotted name")


def test_answered_before_lookup_is_read_and_defaults_to_none(tmp_path: Path) -> None:
    assert load_text(tmp_path, surface_with()).surfaces[0].answered_before_lookup == ()
    text = surface_with(answered_before_lookup='["stop", "kv-drain"]')
    spec = load_text(tmp_path, text).surfaces[0]
    assert spec.answered_before_lookup == ("stop", "kv-drain")


@pytest.mark.parametrize(
    ("value", "key", "expected"),
    [
        ('"stop"', "", "expected an array of RPC names (strings), got 'stop'"),
        ('["stop", 3]', "[1]", "expected a non-empty one-line string, got integer 3"),
        ('[""]', "[0]", "expected a non-empty one-line string, got ''"),
        ('["a\\nb"]', "[0]", "expected a non-empty one-line string"),
        ('["stop", "stop"]', "[1]", "duplicate entry 'stop'"),
    ],
)
def test_answered_before_lookup_must_be_distinct_names(
    tmp_path: Path, value: str, key: str, expected: str
) -> None:
    error = error_of(tmp_path, surface_with(answered_before_lookup=value))
    assert_error(error, f"tool.rpcsurface.surface[0].answered-before-lookup{key}", expected)


def test_dotted_names_accept_two_parts_and_unicode(tmp_path: Path) -> None:
    config = load_text(tmp_path, surface_with(callers='["mod.C", "pkg.mödul.Klasse"]'))
    assert config.surfaces[0].callers == ("mod.C", "pkg.mödul.Klasse")


def test_error_message_matches_documented_style(tmp_path: Path) -> None:
    text = surface_with(callers='["atom.model_engine.engine_core.PrefillEngineCore", "x"]')
    error = error_of(tmp_path, text)
    path = tmp_path / "pyproject.toml"
    assert str(error) == (
        f"{path}: tool.rpcsurface.surface[0].callers[1]: "
        "expected a dotted name such as 'package.module.Class', got 'x'"
    )


def test_duplicate_inside_one_list(tmp_path: Path) -> None:
    error = error_of(tmp_path, surface_with(handlers='["a.B", "a.C", "a.B"]'))
    assert_error(
        error,
        "tool.rpcsurface.surface[0].handlers[2]",
        "duplicate entry 'a.B'",
        "tool.rpcsurface.surface[0].handlers[0]",
    )


def test_duplicate_surface_names(tmp_path: Path) -> None:
    text = surface_with() + SURFACE_HEAD + 'callers = ["a.B"]\nhandlers = ["a.C"]\n'
    error = error_of(tmp_path, text)
    assert_error(
        error,
        "tool.rpcsurface.surface[1].name",
        "duplicate surface name 's'",
        "tool.rpcsurface.surface[0]",
    )


def test_second_surface_gets_its_own_key(tmp_path: Path) -> None:
    text = surface_with() + SURFACE_HEAD.replace('"s"', '"t"') + 'callers = ["a.B"]\n'
    text += 'handlers = ["a.C", "a.D"]\n'
    spec = load_text(tmp_path, text).surfaces[1]
    assert spec.key == "tool.rpcsurface.surface[1]"
    assert key_of_class(spec, "handlers", 1) == "tool.rpcsurface.surface[1].handlers[1]"


@pytest.mark.parametrize("value", ['""', '"   "', "3", '"two\\nlines"'])
def test_surface_name_must_be_a_visible_string(tmp_path: Path, value: str) -> None:
    error = error_of(tmp_path, surface_with(name=value))
    assert_error(error, "tool.rpcsurface.surface[0].name", "expected a non-empty one-line string")


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        (
            DISPATCH + '[tool.rpcsurface.surface]\nname = "s"\n',
            "tool.rpcsurface.surface",
            "expected an array of tables ([[tool.rpcsurface.surface]]), got a table",
        ),
        (
            '[tool.rpcsurface]\nsurface = "s"\n' + DISPATCH,
            "tool.rpcsurface.surface",
            "expected an array of tables",
        ),
        (
            '[tool.rpcsurface]\nsurface = ["s"]\n' + DISPATCH,
            "tool.rpcsurface.surface[0]",
            "expected a table, got 's'",
        ),
    ],
)
def test_surface_must_be_an_array_of_tables(
    tmp_path: Path, text: str, key: str, expected: str
) -> None:
    assert_error(error_of(tmp_path, text), key, expected)


# --------------------------------------------------------------------------
# Whole-table and file-level problems
# --------------------------------------------------------------------------


def test_rpcsurface_must_be_a_table(tmp_path: Path) -> None:
    error = error_of(tmp_path, "[tool]\nrpcsurface = 3\n")
    assert_error(error, "tool.rpcsurface", "expected a table, got integer 3")


def test_toml_syntax_error_reports_line_and_column(tmp_path: Path) -> None:
    error = error_of(tmp_path, DISPATCH + "waits = \n")
    assert_error(error, "tool.rpcsurface", "invalid TOML", "line 3")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "pyproject.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert_error(checked(caught.value, path), "tool.rpcsurface", "cannot read the file")


def test_directory_instead_of_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.mkdir()
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert_error(checked(caught.value, path), "tool.rpcsurface", "cannot read the file")


def test_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b'[tool.rpcsurface]\nx = "\xff\xfe"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert_error(checked(caught.value, path), "tool.rpcsurface", "not UTF-8")


def test_pyproject_without_the_table(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[project]\nname = "x"\n[tool.black]\nline-length = 100\n')
    assert_error(error, "tool.rpcsurface", "no [tool.rpcsurface] table")


def test_load_config_makes_relative_paths_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, DISPATCH)
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("pyproject.toml"))
    assert config.path == Path(os.path.abspath(tmp_path / "pyproject.toml"))


# --------------------------------------------------------------------------
# parse_table, ConfigError and key_of_class directly
# --------------------------------------------------------------------------


def test_parse_table_accepts_a_plain_dict(tmp_path: Path) -> None:
    path = tmp_path / "any.toml"
    config = parse_table({"dispatch": [{"method": "m", "waits": True}]}, path)
    assert config.path == path
    assert config.dispatch == (DispatchForm("m", True, key="tool.rpcsurface.dispatch[0]"),)


@pytest.mark.parametrize("table", [None, [], "x"])
def test_parse_table_rejects_non_tables(tmp_path: Path, table: object) -> None:
    path = tmp_path / "any.toml"
    with pytest.raises(ConfigError) as caught:
        parse_table(table, path)
    assert_error(checked(caught.value, path), "tool.rpcsurface", "expected a table")


def test_parse_table_rejects_non_string_keys(tmp_path: Path) -> None:
    path = tmp_path / "any.toml"
    with pytest.raises(ConfigError) as caught:
        parse_table({1: "x", "dispatch": [{"method": "m"}]}, path)
    assert_error(checked(caught.value, path), 'tool.rpcsurface."1"', "unknown key")


def test_config_error_is_one_line_and_keeps_its_parts() -> None:
    error = ConfigError("/p/pyproject.toml", "tool.rpcsurface", "bad\nthing\r\n  here")
    assert str(error) == "/p/pyproject.toml: tool.rpcsurface: bad thing here"
    assert (error.file, error.key, error.problem) == (
        "/p/pyproject.toml",
        "tool.rpcsurface",
        "bad thing here",
    )


def test_config_error_survives_pickling() -> None:
    error = ConfigError(Path("/p/pyproject.toml"), "tool.rpcsurface.foo", "unknown key")
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert copy.key == "tool.rpcsurface.foo"


def test_long_values_are_shortened_in_messages(tmp_path: Path) -> None:
    error = error_of(tmp_path, surface_with(registry='"' + "x" * 500 + '"'))
    assert len(str(error)) < len(str(tmp_path)) + 300


def test_key_of_class_and_registry_key() -> None:
    spec = SurfaceSpec("s", ("a.B",), ("a.C",), ("a.D",), "a.R", key="tool.rpcsurface.surface[2]")
    assert key_of_class(spec, "callers", 1) == "tool.rpcsurface.surface[2].callers[1]"
    assert key_of_class(spec, "base-handlers", 0) == "tool.rpcsurface.surface[2].base-handlers[0]"
    with pytest.raises(ValueError, match="base-handlers"):
        key_of_class(spec, "base_handlers", 0)


def test_table_constant() -> None:
    assert TABLE == ("tool", "rpcsurface")


# --------------------------------------------------------------------------
# The reply keys: dispatch drops-none, shared-reply-queue, args-from,
# kwargs-from; top-level helper-depth
# --------------------------------------------------------------------------


def test_reply_keys_default_to_todays_behaviour(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    config = load_config(write(tmp_path, FULL_EXAMPLE))
    assert config.helper_depth == 5
    for form in config.dispatch:
        assert (form.drops_none, form.shared_reply_queue) == (False, False)
        assert (form.args_from, form.kwargs_from) == (None, None)


def test_reply_keys_are_read(tmp_path: Path) -> None:
    text = (
        "[tool.rpcsurface]\nhelper-depth = 0\n"
        '[[tool.rpcsurface.dispatch]]\nmethod = "collective_rpc"\nwaits = true\n'
        'drops-none = true\nshared-reply-queue = true\nargs-from = "args"\n'
        'kwargs-from = "kwargs"\n'
    )
    config = load_text(tmp_path, text)
    assert config.helper_depth == 0
    (form,) = config.dispatch
    assert (form.drops_none, form.shared_reply_queue) == (True, True)
    assert (form.args_from, form.kwargs_from) == ("args", "kwargs")


@pytest.mark.parametrize(
    ("line", "key", "expected"),
    [
        ('drops-none = "true"', "drops-none", "expected true or false, got 'true'"),
        ("shared-reply-queue = 0", "shared-reply-queue", "expected true or false, got integer 0"),
        ("args-from = 1", "args-from", "expected a Python identifier, got integer 1"),
        ('kwargs-from = "class"', "kwargs-from", "expected a Python identifier, got 'class'"),
        ('args-from = "wait_out"', "args-from", "expected a keyword other than waits"),
        ('name-keyword = "m"\nargs-from = "m"', "args-from", "a keyword other than name-keyword"),
    ],
)
def test_reply_keys_refuse_bad_values(tmp_path: Path, line: str, key: str, expected: str) -> None:
    text = '[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\nwaits = "wait_out"\n'
    error = error_of(tmp_path, "[tool.rpcsurface]\n" + text + line + "\n")
    assert_error(error, f"tool.rpcsurface.dispatch[0].{key}", expected)


@pytest.mark.parametrize("value", ["-1", "true", "2.5", '"5"'])
def test_helper_depth_must_be_a_non_negative_integer(tmp_path: Path, value: str) -> None:
    text = (
        f"[tool.rpcsurface]\nhelper-depth = {value}\n"
        '[[tool.rpcsurface.dispatch]]\nmethod = "call_func"\n'
    )
    error = error_of(tmp_path, text)
    assert_error(error, "tool.rpcsurface.helper-depth", "expected an integer >= 0")


# --------------------------------------------------------------------------
# digest
# --------------------------------------------------------------------------


def test_digest_is_equal_for_equal_content(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    one = load_config(write(tmp_path, FULL_EXAMPLE))
    # Same meaning, different comments, spacing, key order and spelled-out defaults.
    reordered = FULL_EXAMPLE.replace(
        'method = "call_func"\nwaits = "wait_out"',
        '# the main one\nwaits="wait_out"\nname-arg = 0\nmethod   = "call_func"',
    )
    two = load_config(write(tmp_path, reordered, name="other.toml"))
    assert one.digest == two.digest


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("waits = true", "waits = false"),
        ('waits = "wait_out"', 'waits = "wait_out"\nname-arg = 1'),
        ('registry = "atom.config.RAPIDSERVE_RPCS"', ""),
        ('name = "rapidserve"', 'name = "rapid"'),
        ('source-roots = ["src"]', 'source-roots = ["."]'),
        ('waits = "wait_out"', 'waits = "wait_out"\ndrops-none = true'),
        ('waits = "wait_out"', 'waits = "wait_out"\nshared-reply-queue = true'),
        ('waits = "wait_out"', 'waits = "wait_out"\nargs-from = "args"'),
        ('waits = "wait_out"', 'waits = "wait_out"\nkwargs-from = "kwargs"'),
        ('source-roots = ["src"]', 'source-roots = ["src"]\nhelper-depth = 2'),
        (
            'registry = "atom.config.RAPIDSERVE_RPCS"',
            'registry = "atom.config.RAPIDSERVE_RPCS"\nanswered-before-lookup = ["stop"]',
        ),
    ],
)
def test_digest_changes_when_content_changes(tmp_path: Path, old: str, new: str) -> None:
    (tmp_path / "src").mkdir()
    assert old in FULL_EXAMPLE
    one = load_config(write(tmp_path, FULL_EXAMPLE))
    two = load_config(write(tmp_path, FULL_EXAMPLE.replace(old, new), name="other.toml"))
    assert one.digest != two.digest


# --------------------------------------------------------------------------
# declares_rpcsurface
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "declares"),
    [
        (DISPATCH, True),
        ("[tool.rpcsurface]\n", True),
        ("[tool.rpcsurface.dispatch]\nmethod = 1\n", True),  # invalid, but declared
        ('[project]\nname = "x"\n', False),
        ("# see tool.rpcsurface some day\n[project]\n", False),  # only a comment
        ("[tool.rpcsurface-other]\nx = 1\n", False),
        ("[tool.rpcsurface\n", True),  # broken TOML: let the load report it
    ],
)
def test_declares_rpcsurface(tmp_path: Path, text: str, declares: bool) -> None:
    assert declares_rpcsurface(write(tmp_path, text)) is declares


def test_declares_rpcsurface_does_not_parse_without_the_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_parsing(_text: str) -> object:
        raise AssertionError("parsed a file that cannot declare the table")

    # config's tomllib is the stdlib module (tomli on 3.10); patch whichever it is.
    monkeypatch.setattr("pylint_rpcsurface.config.discovery.tomllib.loads", no_parsing)
    assert declares_rpcsurface(write(tmp_path, "this is [not TOML\n")) is False


def test_declares_rpcsurface_on_non_files(tmp_path: Path) -> None:
    assert declares_rpcsurface(tmp_path / "missing.toml") is False
    (tmp_path / "pyproject.toml").mkdir()
    assert declares_rpcsurface(tmp_path / "pyproject.toml") is False


# --------------------------------------------------------------------------
# ConfigFinder
# --------------------------------------------------------------------------


def module_in(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mod.py"
    path.write_text("x = 1\n", encoding="utf-8")
    return path


def bump(path: Path, text: str) -> None:
    """Rewrite a file and move its mtime forward, as an editor save would."""
    before = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 5_000_000_000))


def counting(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> list[Path]:  # records each call of config_module.<name>
    calls: list[Path] = []
    original: Callable[[Path], object] = getattr(config_module, name)

    def spy(path: Path) -> object:
        calls.append(path)
        return original(path)

    monkeypatch.setattr(config_module, name, spy)
    return calls


def test_finder_nearest_declaring_pyproject_wins(tmp_path: Path) -> None:
    outer = write(tmp_path / "repo", DISPATCH)
    inner = write(tmp_path / "repo" / "sub", DISPATCH.replace("call_func", "inner_call"))
    finder = ConfigFinder()

    inner_config = finder.config_for(module_in(tmp_path / "repo" / "sub" / "pkg" / "deep"))
    outer_config = finder.config_for(module_in(tmp_path / "repo" / "other"))

    assert inner_config is not None
    assert inner_config.path == inner
    assert inner_config.dispatch[0].method == "inner_call"
    assert outer_config is not None
    assert outer_config.path == outer


def test_finder_skips_a_pyproject_without_the_table(tmp_path: Path) -> None:
    outer = write(tmp_path / "repo", DISPATCH)
    write(tmp_path / "repo" / "sub", '[project]\nname = "sub"\n')
    config = ConfigFinder().config_for(module_in(tmp_path / "repo" / "sub"))
    assert config is not None
    assert config.path == outer


def test_finder_returns_none_without_any_declaring_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "repo", '[project]\nname = "x"\n')
    assert ConfigFinder().config_for(module_in(tmp_path / "repo" / "pkg")) is None


def test_finder_explicit_path_overrides_the_search(tmp_path: Path) -> None:
    write(tmp_path / "repo", DISPATCH)
    explicit = write(tmp_path / "conf", DISPATCH.replace("call_func", "explicit_call"), "rpc.toml")
    finder = ConfigFinder(explicit)

    for file in (module_in(tmp_path / "repo"), module_in(tmp_path / "unrelated")):
        config = finder.config_for(file)
        assert config is not None
        assert config.path == explicit
        assert config.dispatch[0].method == "explicit_call"


def test_finder_explicit_relative_path_is_taken_from_the_start_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    explicit = write(tmp_path / "conf", DISPATCH, "rpc.toml")
    monkeypatch.chdir(tmp_path / "conf")
    finder = ConfigFinder(Path("rpc.toml"))
    monkeypatch.chdir(tmp_path)
    config = finder.config_for(module_in(tmp_path / "x"))
    assert config is not None
    assert config.path == explicit


def test_finder_explicit_errors_are_raised_every_time(tmp_path: Path) -> None:
    explicit = tmp_path / "missing.toml"
    finder = ConfigFinder(explicit)
    file = module_in(tmp_path / "pkg")
    for _ in range(2):
        with pytest.raises(ConfigError) as caught:
            finder.config_for(file)
        assert_error(checked(caught.value, explicit), "tool.rpcsurface", "cannot read the file")

    write(tmp_path, DISPATCH, "missing.toml")  # the file appears: no longer an error
    assert finder.config_for(file) is not None


def test_finder_caches_loaded_configs_and_search_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "repo", DISPATCH)
    write(tmp_path / "repo" / "pkg", '[project]\nname = "tool.rpcsurface-ish"\n')
    loads = counting(monkeypatch, "load_config")
    declares = counting(monkeypatch, "declares_rpcsurface")
    finder = ConfigFinder()
    files = [module_in(tmp_path / "repo" / "pkg" / name) for name in ("a", "b", "a")]

    configs = [finder.config_for(file) for file in files]

    assert configs[0] is configs[1] is configs[2]
    assert len(loads) == 1
    assert len(declares) == 2  # each pyproject.toml examined once


def test_finder_rereads_an_edited_pyproject(tmp_path: Path) -> None:
    pyproject = write(tmp_path, DISPATCH)
    finder = ConfigFinder()
    file = module_in(tmp_path / "pkg")
    first = finder.config_for(file)
    assert first is not None

    bump(pyproject, DISPATCH.replace("call_func", "edited_call"))
    second = finder.config_for(file)

    assert second is not None
    assert second.dispatch[0].method == "edited_call"
    assert second.digest != first.digest


def test_finder_notices_a_pyproject_that_stops_or_starts_declaring(tmp_path: Path) -> None:
    pyproject = write(tmp_path, '[project]\nname = "x"\n')
    finder = ConfigFinder()
    file = module_in(tmp_path / "pkg")
    assert finder.config_for(file) is None

    bump(pyproject, DISPATCH)
    assert finder.config_for(file) is not None

    bump(pyproject, '[project]\nname = "y"\n')
    assert finder.config_for(file) is None


def test_finder_notices_a_new_nearer_pyproject(tmp_path: Path) -> None:
    write(tmp_path, DISPATCH)
    finder = ConfigFinder()
    file = module_in(tmp_path / "pkg")
    assert finder.config_for(file) is not None

    nearer = write(tmp_path / "pkg", DISPATCH.replace("call_func", "nearer"))
    config = finder.config_for(file)
    assert config is not None
    assert config.path == nearer


def test_finder_caches_errors_and_recovers_after_a_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject = write(tmp_path, DISPATCH + "bogus = 1\n")
    loads = counting(monkeypatch, "load_config")
    finder = ConfigFinder()
    file = module_in(tmp_path / "pkg")

    raised = []
    for _ in range(3):
        with pytest.raises(ConfigError) as caught:
            finder.config_for(file)
        assert_error(checked(caught.value, pyproject), "tool.rpcsurface.dispatch[0].bogus")
        raised.append(caught.value)
    assert len(loads) == 1  # the error is cached, not recomputed
    assert raised[0] is not raised[1]  # but raised as a fresh exception each time

    bump(pyproject, DISPATCH)
    assert finder.config_for(file) is not None
    assert len(loads) == 2


def test_finder_reports_broken_toml_instead_of_staying_silent(tmp_path: Path) -> None:
    pyproject = write(tmp_path, "[tool.rpcsurface\n")
    with pytest.raises(ConfigError) as caught:
        ConfigFinder().config_for(module_in(tmp_path / "pkg"))
    assert_error(checked(caught.value, pyproject), "tool.rpcsurface", "invalid TOML")


def test_finders_do_not_share_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, DISPATCH)
    loads = counting(monkeypatch, "load_config")
    file = module_in(tmp_path / "pkg")
    ConfigFinder().config_for(file)
    ConfigFinder().config_for(file)
    assert len(loads) == 2

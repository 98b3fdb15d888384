"""Every private part of pylint and astroid that the package relies on, and the shape it
relies on, checked by using it as the package does.

A release of either may change any of them without notice; the other tests would then
fail far from the cause, or worse pass while the plugin quietly finds less. These fail
first, each naming the hook, the shape the package needs and where it uses it. The
hooks, each marked in the package with a comment that points here:

* ``PyLinter._get_messages_to_set``, wrapped on the linter instance (pylint_plugin.py);
* ``PyLinter._expand_files``, wrapped on the linter instance (pylint_plugin.py);
* ``AstroidManager._mod_file_cache``, seeded and pruned (analysis/modules.py);
* ``AstroidManager._failed_import_hooks``, appended to and removed from (analysis/modules.py);
* ``astroid.interpreter._import.spec``'s ModuleSpec and ModuleType (analysis/modules.py);
* ``bases.UnboundMethod._proxied`` (analysis/helper_calls.py);
* the ``lru_cache`` of ``LookupMixIn.lookup`` (reached as ``nodes.Name.lookup``) and of
  ``ClassDef._metaclass_lookup_attribute``, emptied (analysis/modules.py);
* the ``lru_cache``s of astroid's search for module files (``modutils``, the import
  ``spec`` and ``util`` modules), emptied (analysis/modules.py);
* ``AstroidBuilder._post_build``'s arguments, the rebuilder's ``_delayed_assattr``, the
  builder's ``_apply_transforms``, ``AstroidManager._transform`` and its
  ``TransformVisitor._transform``, ``NodeNG._astroid_fields``, and ``bases._is_property``
  with its ``PROPERTIES`` and ``POSSIBLE_PROPERTIES``,
  ``TreeRebuilder._get_position_info``, and ``astroid.transforms._invalidate_cache``
  with the frame of ``TransformVisitor._transform`` that calls it
  (analysis/lean_build.py).
"""

from __future__ import annotations

import inspect
import os
import sys
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import astroid
import astroid.transforms
import pytest
from astroid import bases, nodes
from astroid.builder import AstroidBuilder
from astroid.manager import AstroidManager
from astroid.rebuilder import TreeRebuilder
from pylint.checkers import BaseChecker
from pylint.lint import PyLinter
from pylint.lint import pylinter as pylinter_module
from pylint.message import MessageDefinition
from pylint.reporters import CollectingReporter
from pylint.typing import ModuleDescriptionDict

from pylint_rpcsurface import pylint_plugin
from pylint_rpcsurface.analysis import helper_calls
from pylint_rpcsurface.messages import MESSAGES
from pylint_rpcsurface.pylint_plugin import RpcSurfaceChecker, register

MANAGER: AstroidManager = astroid.MANAGER
VALUE = 41  # what the probe module assigns, so an inference that reached it says so


def shape(holds: bool, hook: str, relied_on: str, used_in: str) -> None:
    """Fail, naming *hook*, unless the shape the package relies on still *holds*."""
    if not holds:
        pytest.fail(
            f"{hook} has changed shape: pylint-rpcsurface relies on {relied_on} "
            f"(in {used_in}). Adapt that code to the new pylint/astroid, or bound the "
            "dependency below this release in pyproject.toml.",
            pytrace=False,
        )


def _probe_name() -> str:
    """A module name that nothing on sys.path can provide."""
    return f"rpcsurface_probe_{uuid.uuid4().hex}"


@pytest.fixture
def manager() -> Iterator[AstroidManager]:
    """astroid's manager, whose caches and hooks live as long as the process: whatever a
    test adds to them is taken out again, so no other test sees a probe."""
    look_ups = getattr(MANAGER, "_mod_file_cache", None)
    hooks = getattr(MANAGER, "_failed_import_hooks", None)
    saved_look_ups = dict(look_ups) if isinstance(look_ups, dict) else None
    saved_hooks = list(hooks) if isinstance(hooks, list) else None
    saved_modules = dict(MANAGER.astroid_cache)
    yield MANAGER
    MANAGER.astroid_cache.clear()
    MANAGER.astroid_cache.update(saved_modules)
    if isinstance(look_ups, dict) and saved_look_ups is not None:
        look_ups.clear()
        look_ups.update(saved_look_ups)
    if isinstance(hooks, list) and saved_hooks is not None:
        hooks[:] = saved_hooks


def _value_imported_by(manager: AstroidManager, modname: str, where: Path) -> object:
    """What ``from MODNAME import VALUE`` gives, inferred in a fresh module at *where*:
    astroid resolves an import by its absolute name, as it does for every project module."""
    importer = AstroidBuilder(manager).string_build(
        f"from {modname} import VALUE\nVALUE\n", _probe_name(), str(where)
    )
    statement = importer.body[-1]
    assert isinstance(statement, nodes.Expr)
    try:
        values = list(statement.value.infer())
    except astroid.InferenceError:
        return None
    return values[0].value if len(values) == 1 and isinstance(values[0], nodes.Const) else None


# ---------------------------------------------------------------- pylint

GET_MESSAGES = "pylint's PyLinter._get_messages_to_set"
PLUGIN = "pylint_plugin._accept_our_symbols_in_enable_and_disable"
RPC_SYMBOL = MESSAGES[0].symbol


def _without_the_patch() -> PyLinter:
    linter = PyLinter()
    linter.register_checker(RpcSurfaceChecker(linter))  # what register() does, less the patch
    return linter


def _with_the_patch() -> PyLinter:
    linter = PyLinter()
    register(linter)
    return linter


def test_get_messages_to_set_has_the_signature_the_wrapper_copies() -> None:
    """The wrapper takes what pylint's method takes, so pylint's calls bind to it."""
    method = getattr(PyLinter, "_get_messages_to_set", None)
    shape(
        callable(method),
        GET_MESSAGES,
        "a method of PyLinter to wrap on the linter instance",
        PLUGIN,
    )
    theirs = list(inspect.signature(method).parameters.values())[1:]  # without self
    linter = PyLinter()  # no checker: registering one already calls the method
    pylint_plugin._accept_our_symbols_in_enable_and_disable(linter)
    ours = list(inspect.signature(linter._get_messages_to_set).parameters.values())
    described = [(p.name, p.kind, p.default) for p in theirs]
    shape(
        described == [(p.name, p.kind, p.default) for p in ours],
        GET_MESSAGES,
        f"its parameters being the wrapper's {[str(p) for p in ours]} "
        f"(pylint's are now {[str(p) for p in theirs]})",
        PLUGIN,
    )


def test_get_messages_to_set_returns_a_list_of_message_definitions() -> None:
    linter = _without_the_patch()
    symbols = {spec.symbol for spec in MESSAGES}
    other = next(m for m in linter.msgs_store.messages if m.symbol not in symbols)  # pylint's
    for msgid in (other.symbol, MESSAGES[0].msgid):
        found = linter._get_messages_to_set(msgid, False)
        shape(
            isinstance(found, list)
            and bool(found)
            and all(isinstance(m, MessageDefinition) for m in found),
            GET_MESSAGES,
            f"it returning a list of MessageDefinition (for {msgid!r} it returned {found!r})",
            PLUGIN,
        )
    ours = linter.msgs_store.get_message_definitions(RPC_SYMBOL)
    shape(
        [m.symbol for m in ours] == [RPC_SYMBOL],
        "pylint's MessageDefinitionStore.get_message_definitions",
        f"it finding our message by its symbol {RPC_SYMBOL!r} (it found {ours!r})",
        PLUGIN,
    )


def test_pylint_still_ignores_our_symbols_so_the_patch_is_still_needed() -> None:
    """pylint takes any name starting with 'rp' for a report id, so turning one of our
    messages on or off by its symbol does nothing; the day it does, the patch has nothing
    left to fix. (By its id, the same linter obeys.)"""
    for spec in MESSAGES:
        linter = _without_the_patch()
        enabled = linter.is_message_enabled(spec.symbol)
        toggle = linter.disable if enabled else linter.enable
        toggle(spec.symbol)
        if linter.is_message_enabled(spec.symbol) != enabled:
            pytest.fail(
                f"pylint now turns {spec.symbol!r} {'off' if enabled else 'on'} by its "
                f"symbol without our patch of {GET_MESSAGES}: the patch ({PLUGIN}) is no "
                "longer needed and can go, with this test.",
                pytrace=False,
            )
        toggle(spec.msgid)
        assert linter.is_message_enabled(spec.symbol) != enabled, spec.msgid


def test_the_patch_on_the_instance_is_what_pylint_calls() -> None:
    """pylint reaches the method through the instance (self._get_messages_to_set), so
    the wrapper set there decides, for --disable and for pragmas alike."""
    linter = _with_the_patch()
    linter.disable(RPC_SYMBOL)
    shape(
        not linter.is_message_enabled(RPC_SYMBOL),
        GET_MESSAGES,
        "pylint calling it through the linter instance, where the wrapper is set",
        PLUGIN,
    )
    linter.enable(RPC_SYMBOL)
    assert linter.is_message_enabled(RPC_SYMBOL)


EXPAND_FILES = "pylint's PyLinter._expand_files"
LINT_FOLDERS = "pylint_plugin._lint_folders_without_init"
DESCRIPTION_KEYS = {"path", "name", "isarg", "basepath", "basename", "isignored"}


class _Visited(BaseChecker):
    """Records the file of every module pylint lints."""

    name = "rpcsurface-probe"
    msgs = {"W9998": ("probe", "rpcsurface-probe", "never emitted")}  # noqa: RUF012

    def __init__(self, linter: PyLinter) -> None:
        super().__init__(linter)
        self.files: list[str] = []

    def visit_module(self, node: nodes.Module) -> None:
        self.files.append(str(Path(node.file).resolve()))


def _package_with_a_folder_without_init(tmp_path: Path) -> tuple[str, Path]:
    """``PKG/__init__.py``, ``PKG/top.py`` and ``PKG/loose/inner.py`` (no __init__ in
    loose/); returns the package's name and the inner module's file."""
    name = _probe_name()
    inner = tmp_path / name / "loose" / "inner.py"
    inner.parent.mkdir(parents=True)
    (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / name / "top.py").write_text("", encoding="utf-8")
    inner.write_text("", encoding="utf-8")
    return name, inner.resolve()


def _linter_visiting() -> tuple[PyLinter, _Visited]:
    linter = PyLinter()
    linter.set_reporter(CollectingReporter())
    visited = _Visited(linter)
    linter.register_checker(visited)
    return linter, visited


def _adding(linter: PyLinter, path: str, modname: str) -> None:
    """Wrap the linter's _expand_files as the plugin does, adding one module."""
    pylints_own = linter._expand_files

    def expand_files(files_or_modules: Sequence[str]) -> dict[str, ModuleDescriptionDict]:
        expanded = pylints_own(files_or_modules)
        expanded[path] = {
            "path": path,
            "name": modname,
            "isarg": False,
            "basepath": path,
            "basename": modname,
            "isignored": False,
        }
        return expanded

    linter._expand_files = expand_files  # type: ignore[method-assign]


def test_expand_files_takes_the_arguments_and_returns_descriptions_by_path(
    manager: AstroidManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    method = getattr(PyLinter, "_expand_files", None)
    shape(callable(method), EXPAND_FILES, "a method of PyLinter to wrap", LINT_FOLDERS)
    params = list(inspect.signature(method).parameters)
    shape(
        params == ["self", "files_or_modules"],
        EXPAND_FILES,
        f"its parameters being (self, files_or_modules) (they are now {params})",
        LINT_FOLDERS,
    )
    name, _ = _package_with_a_folder_without_init(tmp_path)
    monkeypatch.chdir(tmp_path)
    linter, _ = _linter_visiting()
    expanded = linter._expand_files([name])
    top = os.path.join(name, "top.py")
    shape(
        isinstance(expanded, dict)
        and top in expanded
        and all(set(entry) == DESCRIPTION_KEYS for entry in expanded.values())
        and expanded[top]["path"] == top
        and expanded[top]["name"] == f"{name}.top",
        EXPAND_FILES,
        f"it returning a dict of each module's normalised path to a dict with the keys "
        f"{sorted(DESCRIPTION_KEYS)} (it returned {expanded!r})",
        LINT_FOLDERS,
    )


def test_pylint_still_skips_a_folder_without_init_so_the_hook_is_still_needed(
    manager: AstroidManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pylint lints a package through its folders with __init__.py only (pylint#3944,
    #9187); the day it lints the others too, the hook has nothing left to add."""
    name, inner = _package_with_a_folder_without_init(tmp_path)
    monkeypatch.chdir(tmp_path)
    for recursive in (False, True):
        linter, visited = _linter_visiting()
        linter.config.recursive = recursive
        linter.check([name])
        assert visited.files, "pylint linted nothing at all"
        if str(inner) in visited.files:
            pytest.fail(
                f"pylint now lints {inner.relative_to(tmp_path)} (a folder without "
                f"__init__.py inside a package) by itself, recursive={recursive}: the "
                f"wrapper of {EXPAND_FILES} ({LINT_FOLDERS}) and its option may go.",
                pytrace=False,
            )


def test_the_expand_files_on_the_instance_is_what_check_lints(
    manager: AstroidManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check() reaches _expand_files through the instance, in the one process that lists
    the modules: a module the wrapper adds is linted, and under -j it is among the items
    the parent hands to the workers."""
    name, inner = _package_with_a_folder_without_init(tmp_path)
    monkeypatch.chdir(tmp_path)
    added = os.path.join(name, "loose", "inner.py")
    for recursive in (False, True):
        linter, visited = _linter_visiting()
        linter.config.recursive = recursive
        _adding(linter, added, f"{name}.loose.inner")
        linter.check([name])
        shape(
            visited.files.count(str(inner)) == 1,
            EXPAND_FILES,
            f"check() (recursive={recursive}) linting every module the instance's "
            f"_expand_files returns (it linted {visited.files})",
            LINT_FOLDERS,
        )
    handed: list[str] = []

    def check_parallel(linter: PyLinter, jobs: int, files: Iterator[Any], *args: Any) -> None:
        handed.extend(str(Path(item.filepath).resolve()) for item in files)

    monkeypatch.setattr(pylinter_module, "check_parallel", check_parallel)
    linter, _ = _linter_visiting()
    linter.config.jobs = 2
    _adding(linter, added, f"{name}.loose.inner")
    linter.check([name])
    shape(
        handed.count(str(inner)) == 1,
        EXPAND_FILES,
        "check() under -j listing the modules through the instance's _expand_files in the "
        f"parent and handing them to check_parallel (it handed {handed})",
        LINT_FOLDERS,
    )


# ---------------------------------------------------------------- astroid

MOD_FILE_CACHE = "astroid's AstroidManager._mod_file_cache"
FAILED_IMPORT_HOOKS = "astroid's AstroidManager._failed_import_hooks"
SPEC = "astroid.interpreter._import.spec (ModuleSpec, ModuleType)"
PROXIED = "astroid's bases.UnboundMethod._proxied"
LOOK_UPS = "analysis/modules.py, ModuleStore._point_look_ups_at_the_roots and _forget_look_ups"
HOOKS = "analysis/modules.py, ModuleStore.resolving_imports"


def test_mod_file_cache_is_read_first_under_the_name_and_no_context_file(
    manager: AstroidManager, tmp_path: Path
) -> None:
    """Seed ``(name, None)`` with a file no search would find: an import of that name in
    any module, and a look-up by name, both reach the file."""
    from astroid.interpreter._import.spec import ModuleSpec, ModuleType  # noqa: PLC0415

    look_ups = getattr(manager, "_mod_file_cache", None)
    shape(isinstance(look_ups, dict), MOD_FILE_CACHE, "a dict on the manager", LOOK_UPS)
    assert isinstance(look_ups, dict)
    name = _probe_name()
    target = tmp_path / "nowhere_on_sys_path" / "target.py"
    target.parent.mkdir()
    target.write_text(f"VALUE = {VALUE}\n", encoding="utf-8")
    where = tmp_path / "importer.py"
    assert _value_imported_by(manager, name, where) is None  # unseeded: not found
    shape(
        (name, None) in look_ups,
        MOD_FILE_CACHE,
        "astroid keying each look-up of an import as (module name, None)",
        LOOK_UPS,
    )
    seeded = ModuleSpec(name, ModuleType.PY_SOURCE, str(target))
    look_ups[(name, None)] = seeded
    shape(
        manager.file_from_module_name(name, None) is seeded,
        MOD_FILE_CACHE,
        "file_from_module_name(name, None) returning what (name, None) holds",
        LOOK_UPS,
    )
    shape(
        _value_imported_by(manager, name, where) == VALUE,
        MOD_FILE_CACHE,
        "an import reading the ModuleSpec under (module name, None) before searching",
        LOOK_UPS,
    )
    module = manager.ast_from_module_name(name)
    shape(
        module.file == str(target),
        MOD_FILE_CACHE,
        "ast_from_module_name(name) reading (name, None) before searching",
        LOOK_UPS,
    )
    del look_ups[(name, None)]
    del manager.astroid_cache[name]
    shape(
        _value_imported_by(manager, name, where) is None,
        MOD_FILE_CACHE,
        "deleting a key making astroid search again (how _forget_look_ups forgets)",
        LOOK_UPS,
    )


def test_failed_import_hooks_is_the_list_astroid_consults(manager: AstroidManager) -> None:
    """A hook appended to the list answers an import nothing else resolves; one that
    raises AstroidImportError passes to the next; once removed it is not asked again."""
    hooks = getattr(manager, "_failed_import_hooks", None)
    shape(isinstance(hooks, list), FAILED_IMPORT_HOOKS, "a list on the manager", HOOKS)
    assert isinstance(hooks, list)
    name = _probe_name()
    answer = AstroidBuilder(manager).string_build(f"VALUE = {VALUE}\n", _probe_name())
    asked: list[str] = []

    def declines(modname: str) -> nodes.Module:
        asked.append(modname)
        raise astroid.AstroidImportError(f"{modname} is not mine")

    def answers(modname: str) -> nodes.Module:
        asked.append(modname)
        return answer

    hooks.extend([declines, answers])
    try:
        found = manager.ast_from_module_name(name)
    except astroid.AstroidBuildingError:  # astroid's own hooks (its brain) come first
        found = None
    shape(
        found is answer and asked == [name, name],
        FAILED_IMPORT_HOOKS,
        "astroid asking each hook of the list in turn with the module name, a hook "
        "raising AstroidImportError passing to the next",
        HOOKS,
    )
    hooks.remove(declines)
    hooks.remove(answers)
    with pytest.raises(astroid.AstroidImportError):
        manager.ast_from_module_name(name)
    shape(
        asked == [name, name],
        FAILED_IMPORT_HOOKS,
        "a hook removed from the list not being asked again",
        HOOKS,
    )


def test_module_spec_has_the_fields_and_type_we_construct(
    manager: AstroidManager, tmp_path: Path
) -> None:
    """We build ``ModuleSpec(name, ModuleType.PY_SOURCE, path)``, positionally: it must be
    what astroid itself records for a module file."""
    try:
        from astroid.interpreter._import.spec import ModuleSpec, ModuleType  # noqa: PLC0415
    except ImportError as error:
        shape(False, SPEC, f"the module and both names importing ({error})", LOOK_UPS)
        raise
    shape(hasattr(ModuleType, "PY_SOURCE"), SPEC, "ModuleType.PY_SOURCE for a .py", LOOK_UPS)
    name = _probe_name()
    target = tmp_path / f"{name}.py"
    target.write_text(f"VALUE = {VALUE}\n", encoding="utf-8")
    ours = ModuleSpec(name, ModuleType.PY_SOURCE, str(target))
    shape(
        (ours.name, ours.type, ours.location) == (name, ModuleType.PY_SOURCE, str(target)),
        SPEC,
        "ModuleSpec's first three fields being name, type and location, the others optional",
        LOOK_UPS,
    )
    theirs = manager.file_from_module_name(name, str(tmp_path / "beside.py"))
    shape(
        type(theirs) is ModuleSpec
        and (theirs.type, Path(str(theirs.location)).resolve()) == (ours.type, target.resolve()),
        SPEC,
        f"astroid recording a module file as {ours!r} does (it recorded {theirs!r})",
        LOOK_UPS,
    )


def test_a_classmethod_called_on_its_class_proxies_its_function_as_proxied() -> None:
    """A classmethod helper called on its class (``Tools.reset()``) or through ``cls``
    infers to astroid's BoundMethod, a kind of UnboundMethod; the helper walk needs the
    FunctionDef it wraps, which astroid exposes only as ``_proxied``."""
    module = astroid.parse(
        "class Tools:\n"
        "    @classmethod\n"
        "    def reset(cls):\n"
        "        cls.flush()\n"
        "\n"
        "    @classmethod\n"
        "    def flush(cls):\n"
        "        return 1\n"
        "\n"
        "\n"
        "Tools.reset()\n",
        _probe_name(),
    )
    functions = {f.name: f for f in module.body[0].mymethods()}
    calls = list(module.nodes_of_class(nodes.Call))
    assert [c.func.as_string() for c in calls] == ["cls.flush", "Tools.reset"]
    for call in calls:
        (value,) = call.func.infer()
        wrapped = functions[call.func.attrname]
        shape(
            isinstance(value, bases.UnboundMethod) and getattr(value, "_proxied", None) is wrapped,
            PROXIED,
            f"{call.func.as_string()} inferring to an UnboundMethod (a BoundMethod is "
            f"one) whose _proxied is the FunctionDef (it inferred to {value!r})",
            "analysis/helper_calls.py, _unbound",
        )
        assert helper_calls._unbound(value) is wrapped


INFERENCE_CACHE = "astroid.context._invalidate_cache"
FORGET = "analysis/inference_cache.py, forget_inferences"


def test_invalidate_cache_empties_the_cache_inference_answers_from() -> None:
    """A result astroid cached for a node is what inference returns next time, until
    ``_invalidate_cache()``: then it is inferred again."""
    import astroid.context  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    invalidate = getattr(astroid.context, "_invalidate_cache", None)
    shape(callable(invalidate), INFERENCE_CACHE, "a function of no argument", FORGET)
    assert callable(invalidate)
    module = AstroidBuilder(astroid.MANAGER).string_build(f"X = {VALUE}\nY = X\n", _probe_name())
    name = module.body[1].value
    context = astroid.context.InferenceContext()
    first = next(name.infer(context=context))
    planted = nodes.Const(VALUE + 1)
    key = (name, context.lookupname, context.callcontext, context.boundnode)
    context.inferred[key] = (planted,)  # what a stale earlier inference left
    shape(
        next(name.infer(context=astroid.context.InferenceContext())) is planted,
        INFERENCE_CACHE,
        "inference answering from the cache its contexts share",
        FORGET,
    )
    invalidate()
    again = next(name.infer(context=astroid.context.InferenceContext()))
    shape(
        isinstance(again, nodes.Const) and again.value == VALUE == first.value,
        INFERENCE_CACHE,
        "_invalidate_cache() emptying that cache",
        FORGET,
    )


UNTRUNCATED = "analysis/inference_cache.py, untruncated_inferences"


def test_inference_writes_the_module_s_cache_with_its_context_in_hand() -> None:
    """``InferenceContext.inferred`` is the module global ``_INFERENCE_CACHE``, read when
    asked (so a replacement is what inference writes), and ``NodeNG.infer`` writes it from
    a frame whose local ``context`` holds the budget spent."""
    import astroid.context  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    seen: list[object] = []

    class Watching(dict):  # type: ignore[type-arg]
        def __setitem__(self, key: object, value: object) -> None:
            seen.append(sys._getframe(1).f_locals.get("context"))  # pylint: disable=protected-access
            super().__setitem__(key, value)

    held = astroid.context._INFERENCE_CACHE  # pylint: disable=protected-access
    astroid.context._INFERENCE_CACHE = Watching()  # pylint: disable=protected-access
    try:
        module = AstroidBuilder(astroid.MANAGER).string_build("X = 1\nY = X\n", _probe_name())
        list(module.body[1].value.infer())  # the generator run out: it writes then
    finally:
        astroid.context._INFERENCE_CACHE = held  # pylint: disable=protected-access
    shape(
        bool(seen)
        and all(
            isinstance(context, astroid.context.InferenceContext)
            and isinstance(context.nodes_inferred, int)
            and isinstance(context.max_inferred, int)
            for context in seen
        ),
        "astroid.context._INFERENCE_CACHE",
        "NodeNG.infer writing the module global cache, its InferenceContext the local "
        "'context' with nodes_inferred and max_inferred",
        UNTRUNCATED,
    )


RELEASE = "analysis/modules.py, release_modules"


def test_the_look_up_caches_hold_nodes_until_cleared() -> None:
    """astroid keeps the answers of a name's look-up, and of a class's metaclass
    attribute look-up, in ``lru_cache``s keyed by node: they hold the trees of modules
    dropped from astroid's cache until ``cache_clear()`` empties them."""
    module = AstroidBuilder(astroid.MANAGER).string_build(
        "class Meta(type):\n    pass\n\n\nclass C(metaclass=Meta):\n    pass\n\n\nX = C\n",
        _probe_name(),
    )
    caches = {
        "LookupMixIn.lookup": nodes.Name.lookup,
        "ClassDef._metaclass_lookup_attribute": nodes.ClassDef._metaclass_lookup_attribute,  # pylint: disable=protected-access
    }
    for hook, cache in caches.items():
        shape(
            callable(getattr(cache, "cache_clear", None))
            and callable(getattr(cache, "cache_info", None)),
            hook,
            "a functools.lru_cache (cache_info() and cache_clear())",
            RELEASE,
        )
        cache.cache_clear()
    module.body[2].value.lookup("C")
    classdef = module.body[1]
    with pytest.raises(astroid.AttributeInferenceError):
        classdef.getattr("flavour")  # looked for in the metaclass too, through the cache
    for hook, cache in caches.items():
        shape(cache.cache_info().currsize > 0, hook, "an entry kept per call", RELEASE)
        cache.cache_clear()
        shape(cache.cache_info().currsize == 0, hook, "cache_clear() emptying it", RELEASE)


SEARCHES = "analysis/modules.py, _forget_where_files_are"


def test_the_searches_for_module_files_are_caches_that_clear(tmp_path: Path) -> None:
    """astroid's searches for a module's file keep their answers (a file found, a folder
    without ``__init__.py``) in ``lru_cache``s, which the analysis empties once a module
    outside the project changed: a moved library is then found where it is now."""
    from astroid import modutils  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
    from astroid.interpreter._import import spec as import_spec  # noqa: PLC0415  # pylint: disable=import-outside-toplevel
    from astroid.interpreter._import import util as import_util  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    from pylint_rpcsurface.analysis import modules  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    probe = tmp_path / "probe.py"
    probe.write_text("", encoding="utf-8")
    shape(modutils.cached_os_path_isfile(str(probe)), "cached_os_path_isfile", "a bool", SEARCHES)
    probe.unlink()
    shape(
        modutils.cached_os_path_isfile(str(probe)),
        "astroid's modutils.cached_os_path_isfile",
        "an answer kept after the file is gone",
        SEARCHES,
    )
    modules._forget_where_files_are()  # pylint: disable=protected-access
    shape(
        not modutils.cached_os_path_isfile(str(probe)),
        "astroid's modutils.cached_os_path_isfile",
        "cache_clear() forgetting it",
        SEARCHES,
    )
    for hook, search in {
        "astroid's interpreter._import.spec._find_spec": import_spec._find_spec,  # pylint: disable=protected-access
        "astroid's interpreter._import.util.is_namespace": import_util.is_namespace,
        "astroid's interpreter._import.spec._SPEC_FINDERS": import_spec._SPEC_FINDERS[
            0
        ].find_module,  # pylint: disable=protected-access
    }.items():
        shape(callable(getattr(search, "cache_clear", None)), hook, "an lru_cache", SEARCHES)


LEAN = "analysis/lean_build.py, LeanBuilds"


def test_the_post_build_steps_a_lean_build_leaves_for_later() -> None:
    """``_post_build(module, rebuilder, encoding)`` adds the rebuilder's
    ``_delayed_assattr`` to the classes' members, and walks the transforms only when the
    builder's ``_apply_transforms`` is set; one node's transforms are the manager's
    ``_transform`` visitor's ``_transform(node)``, and the walk follows
    ``_astroid_fields``."""
    parameters = list(inspect.signature(AstroidBuilder._post_build).parameters)  # pylint: disable=protected-access
    shape(parameters == ["self", "module", "builder", "encoding"], "AstroidBuilder._post_build",
          "the arguments (module, builder, encoding)", LEAN)  # fmt: skip
    seen: dict[str, Any] = {}
    post_build = AstroidBuilder._post_build  # pylint: disable=protected-access

    def noting(self: AstroidBuilder, module: nodes.Module, builder: Any, encoding: str) -> Any:
        # The probe's own call comes first: its transforms build enum's module after.
        seen.setdefault("delayed", list(getattr(builder, "_delayed_assattr", None) or ()))
        seen.setdefault("transforms", getattr(self, "_apply_transforms", None))
        return post_build(self, module, builder, encoding)

    AstroidBuilder._post_build = noting  # type: ignore[method-assign]  # pylint: disable=protected-access
    try:
        code = "import enum\nclass K(enum.Enum):\n    A = 1\n    def f(self):\n        self.x = 2\n"
        module = AstroidBuilder(MANAGER).string_build(code, _probe_name())
    finally:
        AstroidBuilder._post_build = post_build  # type: ignore[method-assign]  # pylint: disable=protected-access
    delayed = seen.get("delayed", [])
    shape(len(delayed) == 1 and isinstance(delayed[0], nodes.AssignAttr),
          "TreeRebuilder._delayed_assattr", "the list of the module's attribute assignments",
          LEAN)  # fmt: skip
    shape(seen.get("transforms") is True, "AstroidBuilder._apply_transforms",
          "a bool telling _post_build to walk the transforms", LEAN)  # fmt: skip
    visitor = getattr(MANAGER, "_transform", None)
    one = getattr(visitor, "_transform", None)
    shape(callable(one), "AstroidManager._transform._transform",
          "a method transforming one node", LEAN)  # fmt: skip
    klass = module.body[1]
    fields = getattr(klass, "_astroid_fields", None)
    shape(fields is not None and "body" in fields, "NodeNG._astroid_fields",
          "the names of a node's child fields", LEAN)  # fmt: skip


def test_a_transform_s_return_empties_the_cache_from_the_visitor_s_frame() -> None:
    """``TransformVisitor._transform`` calls the module's ``_invalidate_cache()`` (looked
    up there at each call) when a transform returns a node, with ``node`` (the node it
    was given) and ``ret`` (what the transform returned) in its frame; not when it
    returns None."""
    seen: list[tuple[object, object]] = []

    def noting() -> None:
        frame = sys._getframe(1).f_locals  # pylint: disable=protected-access
        seen.append((frame.get("node"), frame.get("ret")))

    given = astroid.extract_node("41")
    other = astroid.extract_node("42")
    visitor = astroid.transforms.TransformVisitor()
    visitor.register_transform(nodes.Const, lambda node: node, lambda node: node.value == 41)
    visitor.register_transform(nodes.Const, lambda node: other, lambda node: node.value == 40)
    visitor.register_transform(nodes.Const, lambda node: None, lambda node: node.value == 39)
    invalidate = astroid.transforms._invalidate_cache  # pylint: disable=protected-access
    astroid.transforms._invalidate_cache = noting  # type: ignore[attr-defined]  # pylint: disable=protected-access
    try:
        returned = visitor._transform(given)  # pylint: disable=protected-access
        replaced = visitor._transform(astroid.extract_node("40"))  # pylint: disable=protected-access
        visitor._transform(astroid.extract_node("39"))  # pylint: disable=protected-access
    finally:
        astroid.transforms._invalidate_cache = invalidate  # type: ignore[attr-defined]  # pylint: disable=protected-access
    shape(
        returned is given and replaced is other and len(seen) == 2
        and seen[0] == (given, given) and seen[1][1] is other and seen[1][0] is not other,
        "astroid.transforms._invalidate_cache",
        "TransformVisitor._transform calling it, looked up in its module, when a transform "
        "returns a node, with the node given (node) and returned (ret) in its frame",
        LEAN,
    )  # fmt: skip


def test_a_class_s_and_a_function_s_position_is_what_the_rebuilder_s_method_gives() -> None:
    """``TreeRebuilder._get_position_info(node, parent)``, looked up on the class, is how
    the rebuild finds the ``position`` of each class and function: *parent* is the node
    being made, already under its module (named as built), and what it returns
    becomes the node's ``position`` (None left as None)."""
    original = TreeRebuilder.__dict__.get("_get_position_info")
    shape(callable(original), "astroid.rebuilder.TreeRebuilder._get_position_info",
          "a method of the rebuilder", LEAN)  # fmt: skip
    parameters = list(inspect.signature(original).parameters)  # type: ignore[arg-type]
    shape(parameters == ["self", "node", "parent"], "TreeRebuilder._get_position_info",
          "the arguments (node, parent)", LEAN)  # fmt: skip
    asked: list[tuple[str, str]] = []
    name = _probe_name()

    def unplaced(rebuilder: TreeRebuilder, node: Any, parent: Any) -> None:
        asked.append((type(parent).__name__, parent.root().name))

    TreeRebuilder._get_position_info = unplaced  # type: ignore[method-assign]  # pylint: disable=protected-access
    try:
        module = AstroidBuilder(MANAGER).string_build(
            "class A:\n    def f(self):\n        pass\n", name
        )
    finally:
        TreeRebuilder._get_position_info = original  # type: ignore[method-assign]  # pylint: disable=protected-access
    klass = module.body[0]
    # The class is placed once its body is made; another module astroid builds meanwhile
    # (a brain's) is asked too.
    probed = [kind for kind, root in asked if root == name]
    shape(probed == ["FunctionDef", "ClassDef"] and klass.position is None
          and klass.body[0].position is None, "TreeRebuilder._get_position_info",
          "a call for each class and function, under its module, whose answer is the position",
          LEAN)  # fmt: skip
    placed = AstroidBuilder(MANAGER).string_build("class A:\n    pass\n", _probe_name())
    shape(placed.body[0].position is not None, "TreeRebuilder._get_position_info",
          "a position found for a class by astroid's own method", LEAN)  # fmt: skip


def test_is_property_is_what_astroid_asks_a_function_s_decorators() -> None:
    """``bases._is_property(function)`` is how astroid asks whether a function is a
    property (inferring its decorators), looked up in ``bases`` at each call, so that the
    lean build's replacement is what astroid calls; ``bases.PROPERTIES`` and
    ``bases.POSSIBLE_PROPERTIES`` are the names it first tests the decorators' names by."""
    original = getattr(bases, "_is_property", None)
    shape(callable(original), "astroid.bases._is_property",
          "a function of the method asked about", LEAN)  # fmt: skip
    properties = getattr(bases, "PROPERTIES", None)
    possible = getattr(bases, "POSSIBLE_PROPERTIES", None)
    shape(isinstance(properties, (set, frozenset)) and "builtins.property" in properties,
          "astroid.bases.PROPERTIES", "the qualified names of property decorators",
          LEAN)  # fmt: skip
    shape(isinstance(possible, (set, frozenset)) and "cached_property" in possible,
          "astroid.bases.POSSIBLE_PROPERTIES", "the last parts of property-like names",
          LEAN)  # fmt: skip
    asked: list[object] = []

    def noting(method: Any, context: Any = None) -> bool:
        asked.append(method)
        return original(method, context)  # type: ignore[misc]

    bases._is_property = noting  # pylint: disable=protected-access
    try:
        function = astroid.extract_node(
            "class A:\n    @property\n    def f(self):\n        return 1\nA().f  #@\n"
        )
        inferred = next(function.infer())
    finally:
        bases._is_property = original  # pylint: disable=protected-access
    shape(bool(asked) and inferred is not None, "astroid.bases._is_property",
          "a module attribute astroid calls while inferring a decorated method", LEAN)  # fmt: skip

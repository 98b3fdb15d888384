"""The package as users get it: a wheel built with ``python -m build``, its metadata, and
the wheel installed into a fresh virtual environment.

The wheel is built (in build's isolated environment, as a release would be) from a copy of
the checkout in a temporary folder, so nothing is written to the checkout.
"""

from __future__ import annotations

import email.parser
import email.policy
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from support import PACKAGE, ROOT, clean_environment, copy_checkout, package_sources
from trove_classifiers import classifiers

from pylint_rpcsurface.messages import BY_SYMBOL

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - tomli is a dependency on 3.10
    import tomli as tomllib

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    source = copy_checkout(folder / "source")
    dist = folder / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (path,) = dist.glob("*.whl")
    return path


def metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(name).decode("utf-8")
    return email.parser.Parser(policy=email.policy.compat32).parsestr(text)


def test_the_wheel_ships_the_plugin_and_py_typed(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        shipped = {n for n in archive.namelist() if n.startswith(f"{PACKAGE}/")}
    expected = {path.as_posix() for path in package_sources()}
    assert f"{PACKAGE}/py.typed" in expected  # the source really has the marker
    assert shipped == expected


def test_the_wheel_metadata_is_complete(wheel: Path) -> None:
    meta = metadata(wheel)
    assert meta["Name"] == PROJECT["name"]
    assert meta["License-Expression"] == PROJECT["license"]
    assert meta.get_all("License-File") == PROJECT["license-files"]
    assert set(meta.get_all("Classifier")) == set(PROJECT["classifiers"])
    assert "Typing :: Typed" in PROJECT["classifiers"]
    assert meta["Keywords"].split(",") == PROJECT["keywords"]
    urls = dict(entry.split(", ", 1) for entry in meta.get_all("Project-URL"))
    assert urls == PROJECT["urls"]
    assert {"Homepage", "Documentation", "Repository", "Issues", "Changelog"} <= set(urls)
    listed = (Requirement(dep) for dep in meta.get_all("Requires-Dist"))
    required = {dep for dep in listed if "extra" not in str(dep.marker)}  # not the extras'
    assert required == {Requirement(dep) for dep in PROJECT["dependencies"]}
    assert {"pylint", "astroid"} <= {dep.name for dep in required}  # both imported directly
    assert meta["Requires-Python"] == PROJECT["requires-python"]


def test_every_classifier_is_a_known_trove_classifier() -> None:
    assert len(classifiers) > 100  # the list was really loaded
    assert [c for c in PROJECT["classifiers"] if c not in classifiers] == []
    # PEP 639: with a license expression, no "License ::" classifier
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]


def _run(command: list[str], folder: Path, environment: dict[str, str]) -> str:
    """Run *command* in *folder*; its output, once it has succeeded."""
    completed = subprocess.run(
        command,
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="below 3.11 the command needs tomli, and the wheel is installed without it",
)
def test_a_fresh_install_without_dependencies_explains_a_message_far_from_the_checkout(
    wheel: Path, tmp_path: Path
) -> None:
    """What the pointer at the end of every message text promises a user: the page comes
    from the installed package, whatever the folder, with neither pylint nor astroid."""
    environment = clean_environment({"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    environment.pop("VIRTUAL_ENV", None)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, environment)
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    python = str(scripts / "python")
    pip = [python, "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)]
    _run(pip, tmp_path, environment)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert ROOT.resolve() not in elsewhere.resolve().parents

    spec = BY_SYMBOL["rpc-unlisted"]
    explained = _run([str(scripts / "rpcsurface"), "explain", spec.symbol], elsewhere, environment)
    assert explained == spec.page.read_text("utf-8")

    # What answered was the installed copy, without the dependencies it was installed without.
    probe = (
        "import importlib.util, pylint_rpcsurface\n"
        "print(pylint_rpcsurface.__file__)\n"
        "print([name for name in ('pylint', 'astroid') if importlib.util.find_spec(name)])\n"
    )
    module, found = _run([python, "-c", probe], elsewhere, environment).splitlines()
    assert Path(module).resolve().is_relative_to(venv.resolve())
    assert found == "[]"

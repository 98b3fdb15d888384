"""The package as users get it: a wheel built with ``python -m build``, and its metadata.

The wheel is built (in build's isolated environment, as a release would be) from a copy of
the checkout in a temporary folder, so nothing is written to the checkout.
"""

from __future__ import annotations

import email.parser
import email.policy
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement  # build's own dependency
from support import PACKAGE, ROOT, copy_checkout, package_sources
from trove_classifiers import classifiers

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

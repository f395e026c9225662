"""Stubs and the SBOM, against vendoring 1.4.0's own functions run on real directories."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from plait.vendoring_compat.requirements import parse_pins
from plait.vendoring_compat.sbom import sbom_text
from plait.vendoring_compat.stubs import stub_files, vendored_libraries

TREE = {
    "six.py": "x = 1\n",
    "vendor.txt": "six==1.16.0\n",
    "__init__.py": "",
    "README.rst": "readme\n",
    "typed/__init__.py": "",
    "typed/py.typed": "",
    "urllib3/__init__.py": "",
    "urllib3/util/retry.py": "",
    "six-1.16.0.dist-info/METADATA": "",
    "old.pyi": "from old import *",
}
PROTECTED = ["__init__.py", "README.rst", "vendor.txt"]
TYPING_STUBS = {"six": ["six.__init__", "six.moves"]}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file()}


def test_stubs_as_vendoring_writes_them(tmp_path: Path) -> None:
    vendor = pytest.importorskip("vendoring.tasks.vendor")
    stubs_task = pytest.importorskip("vendoring.tasks.stubs")
    _write(tmp_path, TREE)
    libraries = vendor.detect_vendored_libs(tmp_path, PROTECTED)
    assert sorted(vendored_libraries(TREE, PROTECTED)) == sorted(libraries)
    ours = stub_files(vendored_libraries(TREE, PROTECTED), TYPING_STUBS, TREE)
    config = SimpleNamespace(destination=tmp_path, typing_stubs=TYPING_STUBS)
    stubs_task.generate_stubs(config, libraries)
    written = {rel: text for rel, text in _tree(tmp_path).items() if rel not in TREE}
    assert ours == written
    assert ours == {
        "six/__init__.pyi": "from six import *",
        "six/moves.pyi": "from six.moves import *",
        "urllib3.pyi": "from urllib3 import *",
    }


def test_default_stub_without_override() -> None:
    assert stub_files(["six"], {}, ["six.py"]) == {"six.pyi": "from six import *"}


def test_sbom_is_byte_identical_to_vendorings(tmp_path: Path) -> None:
    sbom = pytest.importorskip("vendoring.sbom")
    text = "urllib3==2.2.1\nCacheControl==0.14.0  # note\n    idna==3.7\nrequests==2.31.0\n"
    (tmp_path / "vendor.txt").write_text(text)
    sbom.create_sbom_file("pip._vendor", tmp_path / "vendor.txt", tmp_path / "sbom.json")
    assert sbom_text("pip._vendor", parse_pins(text, path="vendor.txt")) == (tmp_path / "sbom.json").read_text()


def test_sbom_lists_every_pin_once() -> None:
    import json

    document = json.loads(sbom_text("demo._vendor", parse_pins("b==2\na==1\n", path="v")))
    assert [c["name"] for c in document["components"]] == ["demo", "a", "b"]
    assert document["dependencies"][0]["dependsOn"] == ["pkg:pypi/a@1", "pkg:pypi/b@2"]

"""[tool.vendoring] read as vendoring 1.4.0 reads it; its own loader is the oracle where installed."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from plait.errors import PlaitError
from plait.vendoring_compat.config import Substitution, read_vendoring_config

PIP_LIKE = """\
[project]
name = "demo"

[tool.vendoring]
destination = "src/demo/_vendor/"
requirements = "src/demo/_vendor/vendor.txt"
namespace = "demo._vendor"
protected-files = ["__init__.py", "README.rst", "vendor.txt"]
patches-dir = "tools/vendoring/patches"
sbom-file = "vendor.sbom.json"

[tool.vendoring.transformations]
substitute = [
  { match = 'import setuptools', replace = 'import demo._vendor.setuptools' },
]
drop = ["bin/", "*.so", "^pkg_resources/extern/"]

[tool.vendoring.typing-stubs]
six = ["six.__init__", "six.moves"]

[tool.vendoring.license.directories]
setuptools = "pkg_resources"

[tool.vendoring.license.fallback-urls]
webencodings = "http://127.0.0.1:1/LICENSE"
"""


def test_every_key_is_read_typed() -> None:
    config = read_vendoring_config(PIP_LIKE, path="pyproject.toml")
    assert config is not None
    assert config.destination == PurePosixPath("src/demo/_vendor")
    assert config.namespace == "demo._vendor"
    assert config.requirements == PurePosixPath("src/demo/_vendor/vendor.txt")
    assert config.protected_files == ("__init__.py", "README.rst", "vendor.txt")
    assert config.patches_dir == PurePosixPath("tools/vendoring/patches")
    assert config.sbom_file == PurePosixPath("vendor.sbom.json")
    assert config.substitute == (Substitution(match="import setuptools", replace="import demo._vendor.setuptools"),)
    assert config.drop == ("bin/", "*.so", "^pkg_resources/extern/")
    assert config.typing_stubs == {"six": ("six.__init__", "six.moves")}
    assert config.license_directories == {"setuptools": "pkg_resources"}
    assert config.license_fallback_urls == {"webencodings": "http://127.0.0.1:1/LICENSE"}


def test_no_table_is_none() -> None:
    assert read_vendoring_config('[project]\nname = "x"\n', path="pyproject.toml") is None


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ('destinaton = "x"\n', "destinaton"),
        ("[tool.vendoring.transformations]\nreplace = []\n", "replace"),
        ("[tool.vendoring.license]\nurls = {}\n", "urls"),
    ],
)
def test_an_unknown_key_is_named_with_its_line(extra: str, key: str) -> None:
    text = 'x = 1\n[tool.vendoring]\ndestination = "v"\nnamespace = "n"\nrequirements = "v/vendor.txt"\n' + extra
    with pytest.raises(PlaitError) as caught:
        read_vendoring_config(text, path="pyproject.toml")
    expected_line = text.splitlines().index(next(line for line in text.splitlines() if line.startswith(key))) + 1
    assert caught.value.path == "pyproject.toml"
    assert caught.value.line == expected_line
    assert repr(key) in caught.value.message


def test_a_missing_required_key_is_named() -> None:
    with pytest.raises(PlaitError, match="'namespace'"):
        read_vendoring_config('[tool.vendoring]\ndestination = "v"\nrequirements = "r"\n', path="p")


def test_a_substitute_entry_needs_both_keys() -> None:
    text = '[tool.vendoring]\ndestination = "v"\nnamespace = "n"\nrequirements = "r"\n'
    text += '[tool.vendoring.transformations]\nsubstitute = [{ match = "a" }]\n'
    with pytest.raises(PlaitError, match="'match' and 'replace'"):
        read_vendoring_config(text, path="p")


def test_agrees_with_vendorings_own_loader(tmp_path: Path) -> None:
    configuration = pytest.importorskip("vendoring.configuration")
    (tmp_path / "pyproject.toml").write_text(PIP_LIKE)
    theirs = configuration.load_configuration(tmp_path)
    ours = read_vendoring_config(PIP_LIKE, path="pyproject.toml")
    assert ours is not None
    assert str(ours.destination) == str(theirs.destination)
    assert str(ours.requirements) == str(theirs.requirements)
    assert ours.namespace == theirs.namespace
    assert list(ours.protected_files) == theirs.protected_files
    assert str(ours.patches_dir) == str(theirs.patches_dir)
    assert str(ours.sbom_file) == str(theirs.sbom_file)
    assert [{"match": s.match, "replace": s.replace} for s in ours.substitute] == theirs.substitute
    assert list(ours.drop) == theirs.drop_paths
    assert dict(ours.license_directories) == theirs.license_directories
    assert dict(ours.license_fallback_urls) == theirs.license_fallback_urls
    assert {k: list(v) for k, v in ours.typing_stubs.items()} == theirs.typing_stubs
    # and both refuse an unknown key
    (tmp_path / "pyproject.toml").write_text(PIP_LIKE.replace("sbom-file", "sbom"))
    with pytest.raises(configuration.ConfigurationError):
        configuration.load_configuration(tmp_path)
    with pytest.raises(PlaitError, match="'sbom'"):
        read_vendoring_config(PIP_LIKE.replace("sbom-file", "sbom"), path="pyproject.toml")

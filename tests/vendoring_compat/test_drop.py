"""drop patterns, against vendoring 1.4.0's remove_unnecessary_items on real directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from plait.vendoring_compat.drop import drop_paths

FILES = [
    "bin/tool",
    "six.py",
    "_cffi.cpython-311-x86_64-linux-gnu.so",
    "urllib3/__init__.py",
    "urllib3/speedups.so",
    "urllib3/contrib/emscripten/fetch.py",
    "urllib3-2.2.1.dist-info/METADATA",
    "urllib3-2.2.1.dist-info/RECORD",
    "pkg_resources/__init__.py",
    "pkg_resources/extern/__init__.py",
    "setuptools/__init__.py",
    "certifi/cacert.pem",
    "certifi/py.typed",
]


def _theirs(tmp_path: Path, patterns: list[str]) -> list[str]:
    vendor = pytest.importorskip("vendoring.tasks.vendor")
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    vendor.remove_unnecessary_items(tmp_path, patterns)
    return sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    "patterns",
    [
        ["bin/"],
        ["*.so"],
        ["**/*.so"],
        ["*.dist-info", "setuptools"],
        ["^pkg_resources/extern/"],
        ["^urllib3/contrib/emscripten", "certifi/py.typed"],
        ["*/__init__.py"],
        ["urllib3/contrib/*/fetch.py", "[bs]*"],
        ["**/*.py"],
    ],
)
def test_drops_what_vendoring_drops(tmp_path: Path, patterns: list[str]) -> None:
    ours = drop_paths(FILES, patterns)
    assert list(ours.kept) == _theirs(tmp_path, patterns)
    assert sorted(ours.kept + ours.dropped) == sorted(FILES)
    assert ours.unmatched == ()


def test_a_pattern_that_drops_nothing_is_named() -> None:
    result = drop_paths(FILES, ["bin/", "nothere", "*.exe", "^zzz", "bin"])
    assert result.unmatched == ("nothere", "*.exe", "^zzz", "bin")  # the second `bin` found it gone
    assert "bin/tool" in result.dropped

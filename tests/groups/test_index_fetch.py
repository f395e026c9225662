"""A pin fetched by pip itself: wheels and sdists the tests build, from --find-links and a loopback index."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from dist_builders import build_sdist, build_wheel, pip_vendor_group, serve_index

from plait.groups.index import FetchFailed, fetch_distribution
from plait.groups.model import Group, Pin

pytestmark = pytest.mark.slow  # (pip runs as a subprocess: a second or more each)


def _group(tmp_path: Path, *, find_links: tuple[str, ...] = (), index_url: str | None = None) -> Group:
    return pip_vendor_group(tmp_path, find_links=find_links, index_url=index_url)


def test_a_wheel_from_find_links_is_unpacked_with_its_hash_and_top_level(tmp_path: Path, wheelhouse: Path) -> None:
    wheel = build_wheel(wheelhouse, "Urllib3", "2.0.1", {"urllib3/__init__.py": "x = 1\n", "urllib3/util.py": ""})
    fetched = fetch_distribution(_group(tmp_path, find_links=(str(wheelhouse),)), Pin("Urllib3", "2.0.1"))
    assert fetched.name == "urllib3"
    assert fetched.file == wheel.name
    assert fetched.sha256 == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert fetched.top_level == ("urllib3",)
    assert fetched.tree["urllib3/__init__.py"] == "x = 1\n"


def test_top_level_comes_from_the_dist_info_not_the_file_names(tmp_path: Path, wheelhouse: Path) -> None:
    build_wheel(wheelhouse, "odd", "1.0", {"odd_pkg/__init__.py": "", "helper.py": ""}, top_level=("odd_pkg",))
    fetched = fetch_distribution(_group(tmp_path, find_links=(str(wheelhouse),)), Pin("odd", "1.0"))
    assert fetched.top_level == ("odd_pkg",)


def test_an_sdist_only_pin_is_built_by_pip(tmp_path: Path, wheelhouse: Path) -> None:
    build_sdist(wheelhouse, "six", "1.16.0", {"six.py": "PY3 = True\n"})
    fetched = fetch_distribution(_group(tmp_path, find_links=(str(wheelhouse),)), Pin("six", "1.16.0"))
    assert fetched.file == "six-1.16.0.tar.gz"
    assert fetched.tree["six.py"] == "PY3 = True\n"
    assert fetched.top_level == ("six",)


def test_an_sdist_that_does_not_build_is_one_line_naming_the_package(tmp_path: Path, wheelhouse: Path) -> None:
    build_sdist(wheelhouse, "broken", "1.0", {"broken.py": ""}, broken=True)
    with pytest.raises(FetchFailed) as caught:
        fetch_distribution(_group(tmp_path, find_links=(str(wheelhouse),)), Pin("broken", "1.0"))
    assert str(caught.value).startswith("broken==1.0: ")
    assert "\n" not in str(caught.value)


def test_an_unfetchable_pin_names_the_package(tmp_path: Path, wheelhouse: Path) -> None:
    build_wheel(wheelhouse, "idna", "3.0", {"idna/__init__.py": ""})
    with pytest.raises(FetchFailed, match=r"^idna==3\.1: pip could not fetch it: .*idna==3\.1"):
        fetch_distribution(_group(tmp_path, find_links=(str(wheelhouse),)), Pin("idna", "3.1"))


def test_a_loopback_simple_index_is_used_only_because_the_manifest_names_it(tmp_path: Path, isolated_pip: None) -> None:
    served = tmp_path / "served"
    served.mkdir()
    wheel = build_wheel(served, "certifi", "2024.1.1", {"certifi/__init__.py": "where = 1\n"})
    with serve_index(served) as index:
        fetched = fetch_distribution(_group(tmp_path, index_url=index.url), Pin("certifi", "2024.1.1"))
    assert fetched.sha256 == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert "/simple/certifi/" in index.requests
    assert f"/files/{wheel.name}" in index.requests

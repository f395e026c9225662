"""A pin bump merged three ways from real wheels: a local edit carried, a true conflict named, new and dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from dist_builders import build_wheel, pip_vendor_group

from plait.groups.index import fetch_distribution
from plait.groups.merge import merge_member
from plait.groups.model import DistributionContext, Pin

pytestmark = pytest.mark.slow  # (pip fetches each release)

_V1 = "import idna\n\n\ndef get(url):\n    return idna.encode(url)\n\n\ndef retries():\n    return 3\n"
_V2 = _V1.replace("return 3", "return 5") + "\n\ndef head(url):\n    return url\n"


def _release(tmp_path: Path, wheelhouse: Path, version: str, text: str) -> tuple[DistributionContext, dict[str, str]]:
    build_wheel(wheelhouse, "requests", version, {"requests/__init__.py": text, "requests/api.py": "X = 1\n"})
    group = pip_vendor_group(tmp_path, find_links=(str(wheelhouse),))
    fetched = fetch_distribution(group, Pin("requests", version))
    ctx = DistributionContext(group, fetched.name, version, fetched.top_level, frozenset({"requests", "idna"}))
    return ctx, dict(fetched.tree)


def _vendored(ctx: DistributionContext, tree: dict[str, str]) -> dict[str, str]:
    plans = merge_member({}, old=None, new=(ctx, tree))
    return {p.name: p.after for p in plans if p.after is not None}


def test_a_pin_bump_carries_a_local_edit(tmp_path: Path, wheelhouse: Path) -> None:
    old, new = _release(tmp_path, wheelhouse, "1.0", _V1), _release(tmp_path, wheelhouse, "2.0", _V2)
    ours = _vendored(*old)
    assert ours["requests/__init__.py"].startswith("from pip._vendor import idna\n")
    ours["requests/__init__.py"] = ours["requests/__init__.py"].replace("idna.encode(url)", "idna.encode(url.strip())")
    ours["vendor.txt"] = "requests==2.0\n"
    plans = {p.name: p for p in merge_member(ours, old=old, new=new)}
    assert "vendor.txt" not in plans  # the project's own file is no member's
    merged = plans["requests/__init__.py"]
    assert not merged.conflicts
    assert merged.after is not None
    assert "idna.encode(url.strip())" in merged.after and "return 5" in merged.after and "def head" in merged.after
    assert plans["requests/api.py"].after == "X = 1\n" and not plans["requests/api.py"].changes_file


def test_a_true_conflict_is_named_by_member_and_file(tmp_path: Path, wheelhouse: Path) -> None:
    old, new = _release(tmp_path, wheelhouse, "1.0", _V1), _release(tmp_path, wheelhouse, "2.0", _V2)
    ours = _vendored(*old)
    ours["requests/__init__.py"] = ours["requests/__init__.py"].replace("return 3", "return 4")
    plans = {p.name: p for p in merge_member(ours, old=old, new=new)}
    conflicts = plans["requests/__init__.py"].conflicts
    assert conflicts and conflicts[0].file == "requests/__init__.py"
    assert "retries" in conflicts[0].path


def test_a_new_member_is_added_and_a_dropped_one_removed(tmp_path: Path, wheelhouse: Path) -> None:
    old = _release(tmp_path, wheelhouse, "1.0", _V1)
    added = {p.name: p for p in merge_member({}, old=None, new=old)}
    assert {n for n, p in added.items() if p.before is None and p.after is not None} == {
        "requests/__init__.py",
        "requests/api.py",
    }
    ours = _vendored(*old)
    dropped = merge_member(ours, old=old, new=None)
    assert {p.name for p in dropped if p.before is not None and p.after is None} == set(ours)

"""Fetched distributions kept in the store: read back with no network, verified, and a changed hash refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from plait.commit import Transaction
from plait.groups.dists import HashMismatch, check_same_file, load_distribution, stage_distribution
from plait.groups.index import FetchedDistribution
from plait.store import CorruptStore, Store

_FETCHED = FetchedDistribution(
    name="urllib3",
    version="2.0.1",
    file="urllib3-2.0.1-py3-none-any.whl",
    sha256="a" * 64,
    tree={"urllib3/__init__.py": "x = 1\n", "urllib3-2.0.1.dist-info/top_level.txt": "urllib3\n"},
    top_level=("urllib3",),
)


def _stored(tmp_path: Path) -> Store:
    store = Store(tmp_path / ".plait", tmp_path)
    txn = Transaction(store.root)
    stage_distribution(store, txn, _FETCHED)
    txn.commit()
    return store


def test_a_stored_distribution_reads_back_as_fetched(tmp_path: Path) -> None:
    assert load_distribution(_stored(tmp_path), _FETCHED.file, _FETCHED.sha256) == _FETCHED


def test_a_corrupt_object_or_another_hash_is_named(tmp_path: Path) -> None:
    store = _stored(tmp_path)
    with pytest.raises(CorruptStore, match="another file"):
        load_distribution(store, _FETCHED.file, "b" * 64)
    with pytest.raises(CorruptStore, match="does not hold"):
        load_distribution(store, "idna-3.0-py3-none-any.whl", "a" * 64)
    for obj in (tmp_path / ".plait" / "objects").rglob("*"):
        if obj.is_file():
            obj.write_text("tampered")
    with pytest.raises(CorruptStore, match="corrupt"):
        load_distribution(store, _FETCHED.file, _FETCHED.sha256)


def test_the_same_pin_with_another_hash_names_both() -> None:
    with pytest.raises(HashMismatch) as caught:
        check_same_file("pip-vendor/urllib3", "urllib3==2.0.1", "c" * 64, _FETCHED)
    assert "a" * 64 in str(caught.value) and "c" * 64 in str(caught.value)
    check_same_file("pip-vendor/urllib3", "urllib3==2.0.1", "a" * 64, _FETCHED)

"""Fixtures for the `plait init` tests: the real setups of `real_setups`, made fresh per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_setups import Setup, make_setup


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No outer repository (a hook's GIT_DIR) or user config leaks into the test repositories."""
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PLAIT_WORKSPACE", raising=False)


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return make_setup(tmp_path)

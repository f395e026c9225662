"""Fixtures for the store and commit-protocol tests: real git repositories in temporary directories."""

from __future__ import annotations

from pathlib import Path

import pytest
from vendor_builders import Scenario, make_scenario


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No outer repository (a hook's GIT_DIR) or user config leaks into the test repositories."""
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PLAIT_WORKSPACE", raising=False)


@pytest.fixture
def scenario(tmp_path: Path) -> Scenario:
    return make_scenario(tmp_path / "ws")

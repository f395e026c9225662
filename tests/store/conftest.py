"""Fixtures for the store and commit-protocol tests: real git repositories in temporary directories."""

from __future__ import annotations

from pathlib import Path

import pytest
from vendor_builders import Scenario, make_scenario


@pytest.fixture
def scenario(tmp_path: Path) -> Scenario:
    return make_scenario(tmp_path / "ws")

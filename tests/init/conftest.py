"""Fixtures for the `plait init` tests: the real setups of `real_setups`, made fresh per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_setups import Setup, make_setup


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return make_setup(tmp_path)

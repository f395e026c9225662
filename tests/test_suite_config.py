"""How the suite itself runs: hypothesis derandomized unless a deeper search is asked for, and a fast subset."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis_profiles import PROFILE_ENV

ROOT = Path(__file__).resolve().parent.parent


def test_hypothesis_runs_derandomized_unless_the_deep_profile_is_asked_for(request: pytest.FixtureRequest) -> None:
    chosen = request.config.getoption("hypothesis_profile", None) or os.environ.get(PROFILE_ENV, "ci")
    current = settings.default
    if chosen == "deep":
        assert not current.derandomize and current.max_examples == 1000 and current.database is not None
    else:
        assert chosen == "ci"
        # The examples depend on the code alone: no seed, no database of earlier runs, no clock.
        assert current.derandomize and current.database is None and current.deadline is None


def test_ci_asks_for_the_derandomized_profile_by_name() -> None:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert f"export {PROFILE_ENV}=ci" in lines


def test_the_slow_marker_is_registered_and_strict_markers_would_accept_it() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("slow: ") for marker in config["markers"])

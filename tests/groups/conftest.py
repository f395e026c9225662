"""Fixtures for the group tests: a pip that reads no configuration but what a test gives it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def _setuptools_wheel() -> Path | None:
    """setuptools' wheel from pip's cache, so an sdist builds with no network."""
    cache = Path(os.environ.get("PIP_CACHE_DIR", Path.home() / ".cache" / "pip"))
    found = sorted(cache.rglob("setuptools-*-py3-none-any.whl")) if cache.is_dir() else []
    return found[-1] if found else None


@pytest.fixture
def isolated_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip with no config file and no PIP_* setting of the machine: only the test's index or links."""
    for key in list(os.environ):
        if key.startswith("PIP_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")


@pytest.fixture
def wheelhouse(tmp_path: Path, isolated_pip: None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A find-links directory holding setuptools' wheel (for sdist builds); pip consults no index."""
    folder = tmp_path / "wheelhouse"
    folder.mkdir()
    wheel = _setuptools_wheel()
    if wheel is None:
        pytest.skip("no setuptools wheel in pip's cache to build sdists offline")
    shutil.copy(wheel, folder)
    # Through monkeypatch: set on os.environ, it outlived the test and sent every later pip of the
    # worker (the client's own install, the CI recipe's wheel build) to no index at all.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    return folder

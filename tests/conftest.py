"""Shared fixtures for the whole suite.

Each section below belongs to one area; add new fixtures in a section of
their own rather than editing another's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

# The hypothesis profiles, loaded before any test module builds its settings:
# ``ci`` (derandomized, the default) or ``deep`` (see hypothesis_profiles).
import hypothesis_profiles  # noqa: F401
import pytest

# ---------------------------------------------------------------------------
# Embedding backends (client tests, probe, conformance)
#
#   embedding_server      a real HTTP server on 127.0.0.1:<ephemeral>; pick a
#                         behaviour per call with embedding_server.url("nan"),
#                         per text with url("by-text") + "status-500|text", or
#                         switch /embed with .default_behaviour.
#   uds_embedding_server  the same server listening on a unix socket
#                         (.unix_path); URLs are http://localhost/<behaviour>.
#   closed_url            an http URL on 127.0.0.1 where connecting is refused.
# ---------------------------------------------------------------------------
from plait.conformance.servers import EmbeddingServer, closed_port  # noqa: E402


@pytest.fixture(scope="session")
def _shared_embedding_server() -> Iterator[EmbeddingServer]:
    # One server for the session: starting one per test costs little, but
    # a shared one also proves it keeps serving after every kind of abuse.
    with EmbeddingServer(slow_seconds=1.0) as server:
        yield server


@pytest.fixture
def embedding_server(_shared_embedding_server: EmbeddingServer) -> EmbeddingServer:
    """The session's embedding server, reset to its defaults for this test."""
    server = _shared_embedding_server
    server.default_behaviour = "ok"
    server.api_key = ""
    server.clear_requests()
    return server


@pytest.fixture
def uds_embedding_server() -> Iterator[EmbeddingServer]:
    """An embedding server on a fresh unix socket (short path: sun_path is ~108 bytes)."""
    directory = tempfile.mkdtemp(prefix="plait-uds-", dir="/tmp")
    try:
        with EmbeddingServer(unix_path=os.path.join(directory, "embed.sock")) as server:
            yield server
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def closed_url() -> Iterator[str]:
    """A URL whose port refuses connections for the duration of the test."""
    with closed_port() as url:
        yield url


# ---------------------------------------------------------------------------
# Real git repositories (vendor, store, init, onboarding)
#
#   (autouse)      no outer repository (a hook's GIT_DIR), user or system git
#                  configuration, or PLAIT_WORKSPACE leaks into the test's
#                  repositories; HOME is the test's own.  For every test under
#                  the folders of GIT_FOLDERS.
# ---------------------------------------------------------------------------
GIT_FOLDERS = ("vendor", "store", "init", "onboarding")


@pytest.fixture(autouse=True)
def _isolated_git(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if Path(request.path).relative_to(Path(__file__).parent).parts[0] not in GIT_FOLDERS:
        return
    tmp_path: Path = request.getfixturevalue("tmp_path")
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PLAIT_WORKSPACE", raising=False)

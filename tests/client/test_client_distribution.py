"""The client is a distribution of its own: installed alone, it brings httpx and nothing of plait.

A service that uses the client as a library installs ``client/`` with pip in
a fresh virtual environment; these tests do exactly that (pip fetches httpx
and the build backend from the package index), then read the installed
metadata and embed against a loopback server from that environment.  Without
the index the install fails, and so do these tests: nothing here skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from plait.conformance.servers import EmbeddingServer, vector_for

pytestmark = pytest.mark.slow  # builds the client's wheel into a venv

CLIENT = Path(__file__).resolve().parents[2] / "client"

# ensurepip's own; everything else in the environment must be the client or reached from httpx.
INSTALLER = {"pip", "setuptools"}

METADATA = """
import importlib.metadata as m, json
print(json.dumps({d.metadata["Name"].lower(): d.requires or [] for d in m.distributions()}))
"""

EMBED = """
import asyncio, importlib.util, json, sys
import embedding_client
from embedding_client import EmbeddingClient

async def main():
    async with EmbeddingClient("http", http_url=sys.argv[1], timeout=10) as client:
        vectors = await client.embed(["hello", "world"])
        _, outcome = await client.embed_with_outcome(["hello", "again"])
    return vectors, outcome

vectors, outcome = asyncio.run(main())
print(json.dumps({
    "vectors": vectors,
    "ok": outcome.ok,
    "file": embedding_client.__file__,
    "plait": importlib.util.find_spec("plait") is not None,
}))
"""


def _environment() -> dict[str, str]:
    """This process's environment, less what would let the new one see this one's packages."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _run(python: Path, code: str, *args: str, cwd: Path) -> str:
    # -I: no PYTHON* variables, no user site, and neither cwd nor a script directory on sys.path.
    proc = subprocess.run([str(python), "-I", "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def lone_client(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The venv's python and a working directory outside the repository, with ``pip install ./client`` done."""
    where = tmp_path_factory.mktemp("lone-client")
    # A copy, so the build's egg-info and build/ land there and not in the repository.
    source = where / "client"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist"))
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True, timeout=300, env=_environment())
    python = where / "venv" / "bin" / "python"
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "./client"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=where,
        env=_environment(),
    )
    assert proc.returncode == 0, (
        f"pip could not install the client alone (is the package index reachable?)\n{proc.stderr}"
    )
    return python, where


def test_httpx_is_the_clients_only_dependency(lone_client: tuple[Path, Path]) -> None:
    python, where = lone_client
    installed: dict[str, list[str]] = json.loads(_run(python, METADATA, cwd=where))
    declared = [Requirement(line) for line in installed["embedding-client"]]
    assert [r.name for r in declared] == ["httpx"]
    # What else is there is httpx's own closure, followed as pip did (markers, no extras).
    reached, todo = set(), ["httpx"]
    while todo:
        name = todo.pop().lower()
        if name in reached:
            continue
        reached.add(name)
        for line in installed.get(name, []):
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    assert set(installed) - INSTALLER - {"embedding-client"} == reached
    assert not {"plait", "libcst", "gitpython", "click", "rich", "pyflakes", "tomlkit"} & set(installed)


def test_the_lone_client_embeds_against_a_loopback_server(
    lone_client: tuple[Path, Path], embedding_server: EmbeddingServer
) -> None:
    python, where = lone_client
    report = json.loads(_run(python, EMBED, embedding_server.url("ok"), cwd=where))
    assert report["vectors"] == [vector_for("hello"), vector_for("world")]
    assert report["ok"] is True
    assert report["file"].startswith(str(where / "venv")), report["file"]
    assert report["plait"] is False
    assert {body["texts"][0] for body in (r.body for r in embedding_server.requests)} == {"hello"}

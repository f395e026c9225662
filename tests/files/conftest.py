"""Real workspaces in real git repositories for the file-fidelity tests (issue 30).

`Workspace` builds what a user has: a canonical package `corelib`, a consumer
`svc` that vendors it into ``svc/_vendor/corelib``, optionally a lineage
`fork` that syncs from it as `forklib`, all in one git repository, every
file written as the bytes given (CRLF, a BOM, latin-1, a PNG, an executable
script).  plait runs as a user runs it: ``python -m plait`` in a subprocess,
from the workspace's directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

MANIFEST = """\
[canonical]
package = "corelib"
path = "canonical/corelib"

[consumers.svc]
path = "consumers/svc"
vendor_dir = "svc/_vendor/corelib"
package = "svc._vendor.corelib"
"""

LINEAGE = """
[lineages.fork]
package = "forklib"
path = "fork/forklib"
"""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


class Workspace:
    """A workspace under git, built file by file as bytes."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def canonical(self) -> Path:
        return self.root / "canonical" / "corelib"

    @property
    def vendored(self) -> Path:
        return self.root / "consumers" / "svc" / "svc" / "_vendor" / "corelib"

    @property
    def fork(self) -> Path:
        return self.root / "fork" / "forklib"

    def write(self, path: Path, data: bytes | str, *, executable: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        path.chmod(0o755 if executable else 0o644)

    def plait(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "plait", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "NO_COLOR": "1"},
        )

    def ok(self, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = self.plait(*args)
        assert done.returncode == code, f"plait {' '.join(args)} exited {done.returncode}\n{done.stdout}{done.stderr}"
        return done

    def commit(self, message: str) -> None:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", message)


@pytest.fixture
def make_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``make_workspace(files, lineage=False)``: the canonical package holding *files* (path →
    bytes, or (bytes, executable)), vendored into svc (and adopted by the lineage fork), committed."""
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def make(
        files: Mapping[str, bytes | str | tuple[bytes | str, bool]], *, lineage: bool = False, svc: str = ""
    ) -> Workspace:
        ws = Workspace(tmp_path / "ws")
        ws.root.mkdir()
        git(ws.root, "init", "-q", "-b", "main")
        for key, value in (
            ("user.name", "plait tests"),
            ("user.email", "t@plait.invalid"),
            ("commit.gpgsign", "false"),
        ):
            git(ws.root, "config", key, value)
        ws.write(ws.canonical / "__init__.py", '"""corelib."""\n')
        for rel, given in files.items():
            data, executable = given if isinstance(given, tuple) else (given, False)
            ws.write(ws.canonical / rel, data, executable=executable)
        for rel in ("svc/__init__.py", "svc/_vendor/__init__.py"):
            ws.write(ws.root / "consumers" / "svc" / rel, "")
        manifest = MANIFEST + svc + (LINEAGE if lineage else "")
        (ws.root / "lineages.toml").write_text(manifest, encoding="utf-8")
        if lineage:
            for path in sorted(ws.canonical.rglob("*")):
                if path.is_file():
                    ws.write(
                        ws.fork / path.relative_to(ws.canonical),
                        path.read_bytes().replace(b"corelib", b"forklib"),
                        executable=os.access(path, os.X_OK),
                    )
        ws.commit("the canonical package and a service")
        ws.ok("vendor", "svc")
        if lineage:
            ws.ok("adopt", "fork")
        ws.commit("vendored")
        return ws

    return make

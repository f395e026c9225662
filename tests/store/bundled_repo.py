"""The bundled workspace copied into a real git repository, and plait run on it as a user would."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import git

from plait.workspace import Workspace, copy_workspace

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Bundled:
    """A committed copy of the bundled workspace: ``root/lineages`` and ``root/client``."""

    root: Path
    repo: git.Repo

    @property
    def workspace(self) -> Path:
        return self.root / "lineages"

    def plait(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "plait", "--workspace", str(self.workspace), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )

    def commit(self, message: str) -> str:
        self.repo.git.add("-A")
        self.repo.git.commit("-q", "-m", message, "--allow-empty")
        return self.repo.head.commit.hexsha


def plait_in(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """plait on any workspace directory, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(workspace), *args],
        capture_output=True,
        text=True,
        timeout=180,
    )


_TEMPLATE: list[Path] = []


def bundled_repo(dest: Path) -> Bundled:
    """A fresh committed copy of the bundled workspace at *dest*, mnemo adopted.

    The first one is built (a copy, a commit, an adoption that walks the
    client's history); later ones copy it, `.git` included, which is what a
    fresh build would give and takes a fraction of the time.
    """
    if not _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="plait-bundled-template-"))
        atexit.register(shutil.rmtree, folder, True)
        _build(folder / "repo")
        _TEMPLATE.append(folder / "repo")
    shutil.copytree(_TEMPLATE[0], dest, symlinks=True)
    return Bundled(dest, git.Repo(dest))


def _build(dest: Path) -> Bundled:
    copy_workspace(Workspace.load(REPO / "lineages"), dest)
    repo = git.Repo.init(dest)  # copy_workspace makes it one; say so here too
    with repo.config_writer() as config:
        config.set_value("user", "name", "plait tests")
        config.set_value("user", "email", "tests@plait.invalid")
        config.set_value("commit", "gpgsign", "false")
    bundled = Bundled(dest, repo)
    # The consumer vendored by hand is onboarded, as its maintainers would first.
    adopted = bundled.plait("adopt", "mnemo")
    assert adopted.returncode == 0, adopted.stderr
    bundled.commit("the bundled workspace, mnemo adopted")
    return bundled

"""The bundled workspace copied into a real git repository, and plait run on it as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
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


def bundled_repo(dest: Path) -> Bundled:
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

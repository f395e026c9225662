"""The hooks of .pre-commit-hooks.yaml, run by pre-commit itself on a consumer's own repository.

``pre-commit try-repo`` builds the hook's environment as a consumer's pre-commit does: a
``pip install`` of this repository.  No index holds the ``embedding-client`` distribution, so
this passes because plait's own distribution carries the client package
(tests/test_readme_commands.py holds plait's metadata to shipping the client, not requiring it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest

pytestmark = pytest.mark.slow  # builds and installs plait into pre-commit's own environment

REPO = Path(__file__).resolve().parents[2]
BUNDLED_CONSUMER = REPO / "lineages" / "consumers" / "cpersona"


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One hook environment for the module: both consumers reuse it, as two repositories of one user do.
    return tmp_path_factory.mktemp("pre-commit-home")


def _consumer(root: Path) -> Path:
    consumer = root / "consumer"
    shutil.copytree(BUNDLED_CONSUMER, consumer, symlinks=True)
    repo = git.Repo.init(consumer)
    repo.git.add(A=True)
    with repo.config_writer() as config:
        config.set_value("user", "name", "t")
        config.set_value("user", "email", "t@example.com")
    repo.git.commit(m="vendored with plait")
    return consumer


def _try_repo(consumer: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "plait-check-locks", "--all-files"],
        cwd=consumer,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_locks_hook_passes_a_consumer_matching_its_lock(tmp_path: Path, pre_commit_home: Path) -> None:
    done = _try_repo(_consumer(tmp_path), pre_commit_home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plait check --locks" in done.stdout and "Passed" in done.stdout


def test_the_locks_hook_stops_a_commit_with_drift_and_names_the_file(tmp_path: Path, pre_commit_home: Path) -> None:
    consumer = _consumer(tmp_path)
    edited = next(consumer.rglob("cache.py"))
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# an edit the lock does not know\n", encoding="utf-8")
    done = _try_repo(consumer, pre_commit_home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "cache.py" in done.stdout

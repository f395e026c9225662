"""The merge command `--commit` prints runs as is in a shell, whatever the checkout's path (issue 30)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import git

from plait.publish import Published


def test_the_merge_command_runs_in_a_shell_for_a_path_with_spaces_and_non_ascii(tmp_path: Path) -> None:
    top = tmp_path / "svc ünï"
    repo = git.Repo.init(top)
    (top / "a.txt").write_text("one\n")
    repo.index.add(["a.txt"])
    with repo.config_writer() as config:
        config.set_value("user", "name", "t")
        config.set_value("user", "email", "t@example.invalid")
    repo.index.commit("first")
    base = repo.active_branch.name
    repo.git.checkout("-b", "plait/review")
    (top / "a.txt").write_text("two\n")
    repo.index.add(["a.txt"])
    repo.index.commit("second")
    sha = repo.head.commit.hexsha
    repo.git.checkout(base)
    command = Published(["svc"], top, "plait/review", sha).merge
    assert command is not None
    ran = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert repo.head.commit.hexsha == sha

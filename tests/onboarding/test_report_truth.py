"""A report's "kept" and "upstream" say what happened to each own change, not where changes met.

Both sides changing one class is two changes when they changed it
differently: the copy's `timeout` is still its own (kept), and only the
source's `retries` is applied.  A member in conflict was neither applied
nor taken upstream: only the conflict line speaks of it.  Real git
repositories, the CLI as a user runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from git import Actor, Repo

pytestmark = pytest.mark.slow  # whole workflows in real repositories

CLIENT = "class Client:\n    timeout = 30\n    retries = 1\n\n    def get(self):\n        return self.timeout\n"
ME = Actor("dev", "dev@example.com")


def _plait(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PLAIT_WORKSPACE", "COLUMNS")} | {"NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300
    )


def _words(text: str) -> list[str]:
    """The report's lines with their columns' padding dropped: the words are what is asserted."""
    return [" ".join(line.split()) for line in text.splitlines()]


def _commit(repo: Repo, message: str) -> None:
    repo.git.add(A=True)
    repo.index.commit(message, author=ME, committer=ME)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_lineages_change_beside_the_sources_in_one_class_is_kept_not_called_upstream(tmp_path: Path) -> None:
    repo = Repo.init(tmp_path, initial_branch="main")
    for side in ("canon", "fork"):
        (tmp_path / side / "corelib").mkdir(parents=True)
        (tmp_path / side / "corelib" / "__init__.py").write_text("")
        (tmp_path / side / "corelib" / "client.py").write_text(CLIENT)
    _commit(repo, "corelib and its fork")
    assert _plait(tmp_path, "init", "--canonical", "canon/corelib", "fork/corelib").returncode == 0
    assert _plait(tmp_path, "adopt", "fork").returncode == 0
    _commit(repo, "under plait")
    _edit(tmp_path / "fork" / "corelib" / "client.py", "timeout = 30", "timeout = 10")
    _edit(tmp_path / "canon" / "corelib" / "client.py", "retries = 1", "retries = 2")
    _commit(repo, "the fork's timeout, upstream's retries")

    run = _plait(tmp_path, "sync")
    assert run.returncode == 0, run.stderr
    lines = _words(run.stdout)
    assert "applied client.py ~ Client.retries" in lines
    assert "kept 1 own change in client.py: ~ Client.timeout" in lines
    assert not any(line.startswith("upstream") for line in lines), run.stdout
    assert "timeout = 10\n    retries = 2\n" in (tmp_path / "fork" / "corelib" / "client.py").read_text()


def _adopted_service(root: Path) -> tuple[Repo, Path]:
    """canonical/ (corelib at CLIENT), svc/ (a hand copy, then a commit setting timeout = 10) and
    ws/, whose manifest `plait init` wrote and whose copy `plait adopt` recorded: the canonical's
    repository, and the workspace."""
    canonical = Repo.init(root / "canonical", initial_branch="main")
    (root / "canonical" / "corelib").mkdir()
    (root / "canonical" / "corelib" / "__init__.py").write_text("")
    (root / "canonical" / "corelib" / "client.py").write_text(CLIENT)
    _commit(canonical, "corelib")
    svc = Repo.init(root / "svc", initial_branch="main")
    vendored = root / "svc" / "svc" / "_vendored_corelib"
    vendored.mkdir(parents=True)
    (root / "svc" / "svc" / "__init__.py").write_text("")
    (vendored / "__init__.py").write_text("")
    (vendored / "client.py").write_text(CLIENT)
    _commit(svc, "vendor corelib")
    _edit(vendored / "client.py", "timeout = 30", "timeout = 10")
    _commit(svc, "a shorter timeout")
    ws = root / "ws"
    Repo.init(ws, initial_branch="main")
    assert _plait(ws, "init", "--canonical", "../canonical", "../svc").returncode == 0
    adopted = _plait(ws, "adopt", "svc")
    assert adopted.returncode == 0 and "local edits: 1 in 1 file" in adopted.stdout, adopted.stdout
    return canonical, ws


def test_a_local_edit_in_conflict_is_neither_applied_nor_called_upstream(tmp_path: Path) -> None:
    canonical, ws = _adopted_service(tmp_path)
    _edit(tmp_path / "canonical" / "corelib" / "client.py", "timeout = 30", "timeout = 15")
    _edit(tmp_path / "canonical" / "corelib" / "client.py", "def get(self):", "def get(self, *, raw=False):")
    _commit(canonical, "a longer timeout; raw")

    run = _plait(ws, "vendor", "svc")
    assert run.returncode == 1, run.stdout + run.stderr
    lines = _words(run.stdout)
    assert lines[0].endswith("1 file changed, 1 conflict")
    assert "applied client.py ~ Client.get" in lines, run.stdout
    assert not any(line.startswith(("upstream", "kept")) for line in lines), run.stdout
    assert run.stderr.splitlines() == [
        "CONFLICT (both changed): Client.timeout in ../svc/svc/_vendored_corelib/client.py:2 (ours 10, theirs 15)"
    ]


def test_status_verbose_names_a_class_level_local_edit_as_the_classs_member(tmp_path: Path) -> None:
    _canonical, ws = _adopted_service(tmp_path)
    run = _plait(ws, "status", "--verbose")
    assert run.returncode == 0, run.stderr
    assert "svc client.py local edit ~ Client.timeout: ~ timeout = 10" in _words(run.stdout), run.stdout


def test_a_local_edit_is_called_upstream_only_when_the_source_took_it(tmp_path: Path) -> None:
    # Upstream takes the service's timeout and changes a method of the same class.
    canonical, ws = _adopted_service(tmp_path / "taken")
    client = tmp_path / "taken" / "canonical" / "corelib" / "client.py"
    _edit(client, "timeout = 30", "timeout = 10")
    _edit(client, "def get(self):", "def get(self, *, raw=False):")
    _commit(canonical, "the services' timeout; raw")
    taken = _plait(ws, "vendor", "svc")
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert "upstream 1 former local edit is now in canonical" in _words(taken.stdout), taken.stdout

    # The service reverts its timeout by hand while upstream changes the same method: the edit
    # is gone from the lock, but canonical never had it.
    canonical, ws = _adopted_service(tmp_path / "reverted")
    _edit(tmp_path / "reverted" / "svc" / "svc" / "_vendored_corelib" / "client.py", "timeout = 10", "timeout = 30")
    _edit(
        tmp_path / "reverted" / "canonical" / "corelib" / "client.py", "def get(self):", "def get(self, *, raw=False):"
    )
    _commit(canonical, "raw")
    reverted = _plait(ws, "vendor", "svc")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    lines = _words(reverted.stdout)
    assert "applied client.py ~ Client.get" in lines, reverted.stdout
    assert not any(line.startswith(("upstream", "kept")) for line in lines), reverted.stdout


def test_status_verbose_reads_no_file_a_symlink_in_the_copy_leads_out_to(tmp_path: Path) -> None:
    _canonical, ws = _adopted_service(tmp_path)
    outside = tmp_path / "elsewhere.py"
    outside.write_text(CLIENT.replace("timeout = 30", "timeout = 10"))
    client = tmp_path / "svc" / "svc" / "_vendored_corelib" / "client.py"
    client.unlink()
    client.symlink_to(outside)
    run = _plait(ws, "status", "--verbose")
    # Refused, by name and cause, in one line; nothing of the file outside is named.
    assert run.returncode == 2, run.stdout + run.stderr
    error = run.stderr.splitlines()[-1]  # (after the progress line --verbose prints)
    assert error.startswith("plait status: error: ") and error.count("svc: ") == 1, error
    assert "client.py" in error and "symlink escapes the workspace" in error
    assert "timeout" not in run.stdout + run.stderr

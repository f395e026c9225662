"""Two plait runs on one workspace never interleave (issue 14, defect 5).

Without a lock, a second sync read the state while the first was replacing
it and reported "store entry … is missing", which reads like corruption.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bundled_repo import bundled_repo

from plait.commit import workspace_lock

pytestmark = pytest.mark.slow  # whole runs at once


def test_a_run_waits_for_the_lock_then_names_the_holder(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    store = ws.workspace / ".plait"
    with workspace_lock(store):
        started = time.monotonic()
        blocked = ws.plait("sync", env={"PLAIT_LOCK_TIMEOUT": "1"})
        waited = time.monotonic() - started
    assert blocked.returncode == 2
    assert f"another plait run holds the workspace lock (pid {os.getpid()})" in blocked.stderr
    assert waited >= 1.0, "it waits the bounded time before giving up"
    assert "Traceback" not in blocked.stderr
    assert ws.repo.git.status("--porcelain") == "", "the refused run wrote nothing"
    # Once the lock is free the same run goes through.
    assert ws.plait("sync").returncode == 0


def test_read_only_commands_do_not_take_the_lock(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    with workspace_lock(ws.workspace / ".plait"):
        for command in (["status"], ["check"], ["diff", "canonical", "upstream"]):
            result = ws.plait(*command, env={"PLAIT_LOCK_TIMEOUT": "0"})
            assert "workspace lock" not in result.stderr, command
            assert result.returncode in (0, 1), (command, result.stderr)


def test_two_syncs_at_once_both_succeed_and_nothing_reads_as_missing(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    argv = [sys.executable, "-m", "plait", "--workspace", str(ws.workspace), "sync"]
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    for run, (out, err) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, out + err
        assert "missing" not in out + err
    synced = [out for out, _err in outputs if "files changed, 0 conflicts" in out]
    assert len(synced) == 1, "exactly one run did the sync; the others found it done"
    found_done = [out for out, _err in outputs if out.count(": up to date with ") == 2]
    assert len(found_done) == 2, outputs
    assert ws.plait("sync", "--dry-run").stdout.count(": up to date with ") == 2
    # The store is whole: the consumers are merely behind their synced sources.
    checked = ws.plait("check")
    assert checked.returncode == 1 and "error" not in checked.stdout + checked.stderr, checked.stdout

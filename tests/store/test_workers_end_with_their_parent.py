"""`plait vendor --jobs N` leaves no worker behind when it is killed (issue 14, defect 4).

A pool worker whose parent died used to live on, waiting for work, holding
the parent's stdout and stderr: a CI step reading them never finished.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bundled_repo import bundled_repo

pytestmark = pytest.mark.slow  # kills vendor runs and waits for their workers


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_die_when_vendor_is_killed(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    assert ws.plait("sync").returncode == 0  # both consumers now need a real re-vendor
    argv = [sys.executable, "-m", "plait", "--workspace", str(ws.workspace), "vendor", "--all", "--jobs", "2"]
    parent = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
        workers |= _children(parent.pid)
        time.sleep(0.005)
    assert workers, "the run should have started worker processes"
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    try:
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "a worker outlived its killed parent"
        # The pipes close once every holder is gone: a CI step reading them ends.
        assert parent.stderr is not None
        parent.stderr.read()
    finally:
        for worker in workers:
            if _alive(worker):
                os.kill(worker, signal.SIGKILL)

"""A kill at any file mutation leaves a workspace the rerun mends (issue 14, defects 2 and 3).

The whole sweep (every mutation point of sync and vendor, and every git
command of --commit and --push, issue 23 item 11) is
`benchmarks/crash_consistency.py`; the suite runs a sample of it spread over
each command's write step, plus the temp files a kill leaves.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from bundled_repo import bundled_repo

pytestmark = pytest.mark.slow  # kills runs at every write and reruns them

REPO = Path(__file__).resolve().parents[2]


# One test per command, so that a parallel run spreads the sweep over its workers.
@pytest.mark.parametrize("command", ["sync", "vendor", "sync-commit", "vendor-commit", "vendor-push"])
def test_a_sample_of_kills_is_recovered_by_a_rerun(command: str) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "crash_consistency.py"), "--sample", "4", "--commands", command],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"crash: {command} 4/4 kills recovered" in result.stdout


def test_a_successful_run_sweeps_the_temporary_files_killed_runs_left(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    strays = [
        ws.workspace / "sibling" / "mcp_common" / ".cache.py.k3j2h1.plait-tmp",
        ws.workspace / ".plait" / "objects" / "ab" / ".cdef.x1y2z3.plait-tmp",
        ws.workspace / ".plait" / ".state.toml.a1b2c3.plait-tmp",
        ws.workspace / "consumers/cpersona/cpersona/_vendored_mcp_common/embedding_client/.client.py.q.plait-del",
        ws.workspace / ".lineages.toml.zz.plait-tmp",
    ]
    for stray in strays:
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_text("left by a killed run\n")
    keep = ws.workspace / "sibling" / "mcp_common" / "notes.plait-tmp.txt"
    keep.write_text("not a temporary file of plait's\n")
    synced = ws.plait("sync")
    assert synced.returncode == 0, synced.stderr
    assert [s for s in strays if s.exists()] == []
    assert keep.exists()
    assert "removed 5 temporary file(s) an interrupted run left" in synced.stdout


def test_read_only_commands_name_a_waiting_journal_and_a_writing_run_finishes_it(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    journal = ws.workspace / ".plait" / "journal.json"
    # What a run killed after its switch point leaves (here with nothing left to rename).
    journal.write_text('{"journal": 1, "pid": 1, "renames": [], "removes": []}\n')
    for command in (["status"], ["check"], ["diff", "canonical", "upstream"], ["sync", "--dry-run"]):
        refused = ws.plait(*command)
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        said = refused.stdout + refused.stderr
        assert "a plait run was interrupted after it started writing" in said and "journal.json" in said
    finished = ws.plait("sync")
    assert finished.returncode == 0, finished.stderr
    assert "finished an interrupted run" in finished.stdout
    assert not journal.exists()
    assert ws.plait("status").returncode == 0

"""What `plait adopt` prints, piped, on the bundled workspace: a summary a person reads at a glance (issue 21).

The base, why, the runner-up, the local edits counted per file (each one
with --verbose), what to commit where, and the next command; the counts
agree with each other and with the lock.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from plait.vendoring.lock import read_lock
from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # adopt and vendor on the bundled workspace

REPO = Path(__file__).resolve().parents[2]


def _plait(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(ws), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ws,
        check=False,
    )


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_workspace(Workspace.load(REPO / "lineages"), tmp_path_factory.mktemp("bundled") / "repo").dir


def test_adopt_mnemo_is_a_summary_of_at_most_12_lines_whose_counts_agree(bundled: Path, tmp_path: Path) -> None:
    done = _plait(bundled, "adopt", "mnemo")

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= 12, done.stdout
    assert "\x1b" not in done.stdout
    assert lines[0].startswith("mnemo: base canonical@97b11d8 (2026-11-30), recorded in its lock")
    why = next(line for line in lines if line.startswith("  why: "))
    assert why.startswith("  why: closest by content of ")
    assert any(line.startswith("  runner-up: ") for line in lines)
    stated = int(re.search(r"(\d+) local edits?$", why).group(1))  # type: ignore[union-attr]
    total = next(line for line in lines if line.startswith("  local edits: "))
    assert total == f"  local edits: {stated} in 1 file"
    per_file = [line for line in lines if line.startswith("    ")]
    assert [line.split()[0] for line in per_file] == ["cache.py"]
    assert int(per_file[0].split()[1]) == stated
    lock = read_lock(Workspace.load(bundled).consumers["mnemo"].vendor_dir)
    assert lock is not None and len(lock.local_edits) == stated
    # What to run next, then (as every report ends) the manifest it used.
    assert lines[-2:] == [
        "next: plait vendor mnemo (merges three ways from this base)",
        f"workspace: {bundled / 'lineages.toml'}",
    ]

    # The lock, and the base in the store, are committed by the lines it prints, in their repositories.
    commits = [line.removeprefix("next: ") for line in lines if line.startswith("next: git")]
    assert commits and all("add" in c and "commit -m" in c for c in commits)
    assert any("plait.lock" in c for c in commits)
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for command in commits:
        for part in command.split(" && "):
            subprocess.run(shlex.split(part), cwd=bundled, check=True, capture_output=True, env=os.environ | who)
    mnemo = Workspace.load(bundled).consumers["mnemo"].vendor_dir
    status = subprocess.run(
        ["git", "status", "--porcelain", "--", str(mnemo), str(bundled / ".plait")],
        cwd=bundled,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""
    header = (mnemo / "plait.lock").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("# Written by `plait adopt`")


def test_verbose_lists_each_edit_and_quiet_prints_nothing_on_success(bundled: Path) -> None:
    verbose = _plait(bundled, "adopt", "mnemo", "--force", "--dry-run", "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    lines = verbose.stdout.splitlines()
    counted = int(next(line for line in lines if line.startswith("    cache.py  ")).split()[1])
    listed = [line for line in lines if line.startswith("      ")]
    assert len(listed) == counted and any("TTLCache" in line for line in listed)

    quiet = _plait(bundled, "adopt", "mnemo", "--force", "--dry-run", "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stdout + quiet.stderr


def test_a_vendor_that_changes_nothing_keeps_the_lock_adopt_wrote(bundled: Path) -> None:
    canonical = Workspace.load(bundled).canonical.root
    newest = subprocess.run(
        ["git", "log", "-1", "--format=%H", "--", str(canonical)], cwd=bundled, capture_output=True, text=True
    ).stdout.strip()
    assert _plait(bundled, "vendor", "mnemo").returncode in (0, 1)  # bring the copy to canonical first
    mnemo = Workspace.load(bundled).consumers["mnemo"].vendor_dir
    assert _plait(bundled, "adopt", "mnemo", "--force", "--base", newest).returncode == 0
    before = (mnemo / "plait.lock").read_text(encoding="utf-8")

    again = _plait(bundled, "vendor", "mnemo")

    assert again.returncode == 0, again.stdout + again.stderr
    assert (mnemo / "plait.lock").read_text(encoding="utf-8") == before
    assert before.startswith("# Written by `plait adopt`")

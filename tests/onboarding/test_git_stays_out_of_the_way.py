"""Git integration traps (issue 15, items 3 and 6): a half-made clone, a file git does not track.

- A clone killed half-way used to block every later run; now a clone is
  made beside its place and renamed in when complete, and a directory that
  is not a complete clone is made again.
- A file that a sync adds to a git-backed copy used to be left untracked
  without a word, so `git commit -a` missed it; the report names it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lineage_builders import make_scenario, write_tree
from real_setups import make_setup, url_manifest

from plait.lineage.sync import sync

pytestmark = pytest.mark.slow  # whole workflows in real repositories


def _plait(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_a_half_made_clone_is_made_again_not_trusted(tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    (setup.ws / "lineages.toml").write_text(url_manifest(setup, with_svc_b=False))
    clones = setup.ws / ".plait" / "clones"
    # What a kill in the middle of an older plait's `git clone` left: a .git with no commit.
    half = clones / "svc-a"
    (half / ".git" / "objects").mkdir(parents=True)
    (half / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (clones / ".canonical.partial-x1y2").mkdir(parents=True)  # and one of this plait's own, killed
    adopted = _plait(setup.ws, "adopt", "svc-a")
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr
    assert (half / "svc_a" / "_vendored_corelib" / "plait.lock").is_file()
    assert not list(clones.glob(".*.partial-*")), "a killed clone's directory is removed"
    checked = _plait(setup.ws, "check")
    assert checked.returncode == 1 and "svc-a: drift" in checked.stdout  # behind its source: a real answer


def test_a_file_a_sync_adds_that_git_does_not_track_is_named(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path / "ws")
    write_tree(scenario.canonical, {"extra.py": '"""A module the canonical package gained."""\n\nLIMIT = 3\n'})
    scenario.commit("canonical: extra.py")
    report = sync(scenario.ws())
    assert report.exit_code == 0
    added = scenario.fork / "extra.py"
    assert added.is_file()
    assert report.untracked == [str(added)]
    # Once git tracks it, a sync that rewrites it says nothing of the kind.
    scenario.commit("take the sync")
    write_tree(scenario.canonical, {"extra.py": '"""A module the canonical package gained."""\n\nLIMIT = 4\n'})
    scenario.commit("canonical: a new limit")
    again = sync(scenario.ws())
    assert again.exit_code == 0 and again.untracked == []


def test_the_report_says_how_to_track_what_a_sync_added(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path / "ws")
    write_tree(scenario.canonical, {"extra.py": '"""A module the canonical package gained."""\n\nLIMIT = 3\n'})
    scenario.commit("canonical: extra.py")
    done = subprocess.run(
        [sys.executable, "-m", "plait", "sync"], cwd=scenario.root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "  wrote    fork/forklib: 1 file, 1 new one not tracked by git, not committed" in done.stdout
    assert "next: git add fork/forklib/extra.py" in done.stdout.splitlines()

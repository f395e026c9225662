"""A re-vendor never prunes a base that the lock it writes names (issue 14, defect 1).

The prune used to keep only what the locks on disk named *before* the run.
An object that already existed was not staged again, so when a new lock
named an old object (a checkout that put the consumer back, a revert) the
run deleted the very base it had just recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bundled_repo import Bundled, bundled_repo

pytestmark = pytest.mark.slow  # whole workflows in real repositories


def _assert_checks_clean(ws: Bundled) -> None:
    checked = ws.plait("check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "lost the base" not in checked.stdout + checked.stderr


def test_a_re_vendor_after_git_checkout_keeps_the_bases_its_new_lock_names(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    synced = ws.plait("sync")
    assert synced.returncode == 0, synced.stderr
    ws.commit("sync")
    first = ws.plait("vendor", "--all")
    assert first.returncode == 0, first.stderr
    # The consumers go back to their committed state; the new store objects stay.
    ws.repo.git.checkout("--", "lineages/consumers")
    second = ws.plait("vendor", "--all")
    assert second.returncode == 0, second.stderr
    _assert_checks_clean(ws)
    third = ws.plait("vendor", "--all")
    assert third.returncode == 0 and "refused" not in third.stdout, third.stdout + third.stderr


def test_an_upstream_change_and_its_revert_each_re_vendored_lose_no_base(tmp_path: Path) -> None:
    ws = bundled_repo(tmp_path / "repo")
    assert ws.plait("sync").returncode == 0
    assert ws.plait("vendor", "--all").returncode == 0
    ws.commit("synced and vendored")
    # __init__.py imports the package absolutely, so the scheduler's base of it
    # (the rewritten text) is named by the scheduler's lock alone.
    init = ws.workspace / "upstream" / "mcp_common" / "__init__.py"
    init.write_text(init.read_text() + '\n\nCACHE_NOTE = "an upstream change"\n')
    ws.commit("upstream: a change")
    changed = ws.plait("vendor", "scheduler")
    assert changed.returncode == 0 and "scheduler  upstream " in changed.stdout, changed.stdout + changed.stderr
    ws.commit("re-vendored the change")
    ws.repo.git.revert("--no-edit", "HEAD~1")
    reverted = ws.plait("vendor", "scheduler")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    vendored = ws.workspace / "consumers/scheduler/scheduler/_vendor/mcp_common/__init__.py"
    assert "CACHE_NOTE" not in vendored.read_text()
    _assert_checks_clean(ws)

"""The bundled consumers are real: vendored by plait, checked by plait, and working.

Everything that writes works on a copy of the workspace (`copy_workspace`),
so the repository stays as committed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plait.vendoring.check import check, check_exit
from plait.vendoring.lock import read_lock
from plait.vendoring.vendor import vendor
from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # re-vendors the bundled workspace and runs its tests

REPO = Path(__file__).resolve().parents[2]

TIMING = '''"""How long embedding calls take (an upstream addition)."""

from __future__ import annotations

import mcp_common.outcome
from mcp_common.outcome import EmbedOutcome


def failed(outcome: EmbedOutcome) -> bool:
    return isinstance(outcome, mcp_common.outcome.EmbedOutcome) and outcome.attempted and not outcome.ok
'''


def _pytest(tests: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        capture_output=True,
        text=True,
        cwd=tests.parent,
        timeout=120,
    )


def test_the_bundled_consumers_are_vendored_and_locked_by_plait() -> None:
    ws = Workspace.load(REPO / "lineages")
    assert set(ws.consumers) == {"cpersona", "scheduler", "mnemo"}
    assert check_exit(check(ws, ["cpersona", "scheduler"])) == 0
    (mnemo,) = check(ws, ["mnemo"])
    assert [d.kind for d in mnemo.drift] == ["unlocked"] and mnemo.fix == "plait adopt mnemo"
    scheduler = read_lock(ws.consumers["scheduler"].vendor_dir)
    assert scheduler is not None and (scheduler.source, scheduler.package) == (
        "upstream",
        "scheduler._vendor.mcp_common",
    )


def test_the_hand_vendored_consumer_is_refused_by_vendor_until_it_is_adopted(tmp_path: Path) -> None:
    ws = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path / "bundled")
    refused = vendor(ws, ["mnemo"])
    assert refused.exit_code == 2 and not refused.written
    assert "run `plait adopt mnemo` first" in refused.plans[0].reason
    from plait.lineage.adopt import adopt

    adopted = adopt(ws, "mnemo")
    assert adopted.kind == "consumer" and adopted.base.commit is not None
    assert {edit.file for edit in adopted.local_edits} == {"cache.py"}, "the sed spelling is no local edit"
    report = vendor(ws, ["mnemo"])
    assert report.exit_code == 0 and not report.conflicted
    assert "list(entry[1])" in (ws.consumers["mnemo"].vendor_dir / "cache.py").read_text(), "the local fix survives"
    assert _pytest(ws.consumers["mnemo"].root / "tests").returncode == 0


@pytest.fixture(scope="module")
def revendored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, object]:
    """A copy of the workspace whose upstream lineage moved on, and whose scheduler has a local patch."""
    ws = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path_factory.mktemp("bundled"))
    upstream = ws.lineages["upstream"].root
    (upstream / "timing.py").write_text(TIMING)
    init = upstream / "__init__.py"
    init.write_text(init.read_text() + "\n\nfrom mcp_common.timing import failed  # noqa: E402\n")
    vendored_init = ws.consumers["scheduler"].vendor_dir / "__init__.py"
    text = vendored_init.read_text()
    assert 'environ.get("EMBEDDING_TIMEOUT", "30")' in text
    vendored_init.write_text(
        text.replace('environ.get("EMBEDDING_TIMEOUT", "30")', 'environ.get("EMBEDDING_TIMEOUT", "10")')
    )
    return ws, vendor(ws, ["scheduler"])


def test_the_absolute_import_consumer_takes_the_upstream_change_and_keeps_its_patch(revendored) -> None:
    ws, report = revendored
    assert report.exit_code == 0, report.to_json()
    vendor_dir = ws.consumers["scheduler"].vendor_dir
    timing = (vendor_dir / "timing.py").read_text()
    assert "import scheduler._vendor.mcp_common.outcome\nfrom scheduler._vendor import mcp_common\n" in timing
    assert "from scheduler._vendor.mcp_common.outcome import EmbedOutcome" in timing
    assert '"""How long embedding calls take (an upstream addition)."""' in timing
    init = (vendor_dir / "__init__.py").read_text()
    assert 'environ.get("EMBEDDING_TIMEOUT", "10")' in init
    assert "from scheduler._vendor.mcp_common.timing import failed" in init
    (plan,) = report.plans
    assert [e.path for e in plan.local_edits] == ["client_from_env"]
    assert check_exit(check(ws, ["scheduler"])) == 0


def test_the_absolute_import_consumer_imports_and_passes_its_own_tests_after_the_re_vendor(revendored) -> None:
    ws, _report = revendored
    consumer = ws.consumers["scheduler"]
    assert consumer.tests is not None
    proc = _pytest(consumer.tests)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 passed" in proc.stdout
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "from scheduler._vendor.mcp_common import failed, client_from_env; "
            "print(failed.__module__, client_from_env({}).timeout)",
        ],
        capture_output=True,
        text=True,
        cwd=consumer.root,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["scheduler._vendor.mcp_common.timing", "10.0"]

"""plait never guesses the workspace, every report names the one it used, and a dry run
says "would" on every line (issue 15, items 2 and 8).

A project without a manifest used to get the bundled demo workspace:
`plait status` printed the demo's lineages with exit 0, and `plait check`
inside a service said `cpersona: ok`, a false green.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lineage_builders import CLIENT_V2, make_scenario

ENV = {k: v for k, v in os.environ.items() if k != "PLAIT_WORKSPACE"}


def _plait(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, env=ENV, timeout=300
    )


@pytest.mark.parametrize("command", [["status"], ["check"], ["sync"], ["vendor", "--all"], ["consumers"]])
def test_without_a_manifest_every_workspace_command_says_so_and_exits_2(tmp_path: Path, command: list[str]) -> None:
    service = tmp_path / "svc"
    (service / "svc" / "_vendored").mkdir(parents=True)
    (service / "svc" / "__init__.py").write_text("")
    result = _plait(service, *command)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no lineages.toml here or above" in result.stderr
    assert "run `plait init`, or pass --workspace" in result.stderr
    assert "cpersona" not in result.stdout + result.stderr, "the bundled demo is never used behind your back"
    assert "upstream" not in result.stdout


def test_the_demo_runs_on_the_bundled_workspace_from_anywhere(tmp_path: Path) -> None:
    result = _plait(tmp_path, "demo")
    assert result.returncode == 0, result.stderr
    assert "== 1. status: where every copy stands (" in result.stdout
    assert str(Path(__file__).resolve().parents[2] / "lineages" / "lineages.toml") in result.stdout


@pytest.fixture
def behind(tmp_path: Path):
    scenario = make_scenario(tmp_path / "ws")
    scenario.write_canonical({"client.py": CLIENT_V2})
    scenario.commit("canonical v2")
    return scenario


@pytest.mark.parametrize(
    "command",
    [["status"], ["sync", "--dry-run"], ["check"], ["consumers"], ["diff", "canonical", "fork"], ["sync"]],
)
def test_every_report_names_the_manifest_it_used(behind, command: list[str]) -> None:
    manifest = behind.root / "lineages.toml"
    result = _plait(behind.root / "fork", *command)  # found from below, as a user in a subdirectory
    assert result.returncode in (0, 1), result.stderr
    said = result.stdout.splitlines()
    assert any(str(manifest) in line for line in said[-1:]), said[-3:]


def test_every_line_of_a_dry_run_says_would(behind) -> None:
    # --verbose: a pipe gets progress lines on stderr then, and they too say what would happen.
    result = _plait(behind.root, "sync", "--dry-run", "--verbose")
    assert result.returncode == 0, result.stderr
    report = [line for line in result.stdout.splitlines() if line.startswith("fork")]
    assert report, result.stdout
    for line in report + result.stderr.splitlines() + result.stdout.splitlines()[-1:]:
        assert "would" in line, line
    assert "fork: synced" not in result.stdout + result.stderr
    assert "fork: would sync" in result.stderr

"""A consumer's own `pytest` run includes the scenarios for its vendored copy, with one line of configuration.

Each test builds a small consumer project in a temporary directory (its
package, its vendored copy of the client, one test of its own, and the one
line in ``pyproject.toml``) and runs pytest on it in a subprocess, as the
consumer's CI would.  The plugin comes from plait's ``pytest11`` entry
point: nothing else tells pytest about it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from breaks import CANONICAL, broken_copy
from upstream_shaped import shaped_copy
from variants import ABSENT, needing_copy

from plait.conformance import load_scenarios

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

# What the consumer writes, and all it writes, to get the scenarios.
ONE_LINE = 'plait_conform = ["svc/_vendored/embedding_client"]'


def _consumer(root: Path, broken: str | None = None, *, needing: bool = False) -> Path:
    """A consumer project vendoring the canonical client (broken as `breaks.BREAKS` [*broken*] says,
    or *needing* a module nobody installed, in api mode)."""
    vendored = root / "svc" / "_vendored"
    vendored.mkdir(parents=True)
    (root / "svc" / "__init__.py").write_text("")
    (vendored / "__init__.py").write_text("")
    if needing:
        needing_copy(vendored)
    elif broken is None:
        shutil.copytree(CANONICAL, vendored / "embedding_client", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        broken_copy(vendored, broken)
    (root / "tests").mkdir()
    (root / "tests" / "test_service.py").write_text(
        "from svc._vendored.embedding_client import EmbeddingClient\n\n\n"
        "def test_the_service_builds_its_client():\n"
        "    assert EmbeddingClient('none').mode == 'none'\n"
    )
    (root / "pyproject.toml").write_text(f"[tool.pytest.ini_options]\npythonpath = ['.']\n{ONE_LINE}\n")
    return root


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_the_plugin_is_registered_through_the_entry_point() -> None:
    names = {ep.value for ep in entry_points(group="pytest11")}
    assert "plait.conformance.pytest_plugin" in names, (
        "plait's pytest11 entry point is missing: reinstall plait (pip install -e .) so its metadata has it"
    )


def test_a_conforming_copy_passes_every_scenario_beside_the_consumers_own_tests(tmp_path: Path) -> None:
    proc = _pytest(_consumer(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "PASSED tests/test_service.py::test_the_service_builds_its_client" in lines
    assert "PASSED plait-conform::refused[svc/_vendored/embedding_client]" in lines
    assert "PASSED plait-conform::advisory-fault[svc/_vendored/embedding_client]" in lines
    skipped = [line for line in lines if line.startswith("SKIPPED")]
    assert len(skipped) == 1 and skipped[0].startswith("SKIPPED [5] ") and "no uds transport" in skipped[0]
    assert "64 passed, 5 skipped" in proc.stdout


def test_a_copy_breaking_the_contract_fails_its_scenario_with_the_problem(tmp_path: Path) -> None:
    project = _consumer(tmp_path, "error-not-fault")
    proc = _pytest(project, "--plait-conform-scenario", "advisory-*")
    assert proc.returncode == 1
    assert (
        "svc/_vendored/embedding_client: advisory-fault → [contract] advisory 1: severity=error, canonical says fault"
        in proc.stdout
    )
    assert "FAILED plait-conform::advisory-fault[svc/_vendored/embedding_client]" in proc.stdout
    assert "PASSED plait-conform::advisory-not-configured[svc/_vendored/embedding_client]" in proc.stdout


def test_a_module_missing_from_the_test_environment_skips_the_scenarios_that_need_it(tmp_path: Path) -> None:
    proc = _pytest(
        _consumer(tmp_path, needing=True), "--plait-conform-scenario", "api-*", "--plait-conform-scenario", "ok"
    )
    assert proc.returncode == 0, proc.stdout
    assert "PASSED plait-conform::ok[svc/_vendored/embedding_client]" in proc.stdout
    api = len(load_scenarios().named(["api-*"]).scenarios)
    skipped = next(line for line in proc.stdout.splitlines() if line.startswith(f"SKIPPED [{api}] "))
    assert f"not checked here: needs {ABSENT}, which is not installed where plait runs" in skipped
    assert f"-m pip install {ABSENT}" in skipped
    assert "failed" not in proc.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    "deselect", [["-m", "not plait_conform"], ["tests/test_service.py::test_the_service_builds_its_client"]]
)
def test_the_scenarios_stay_out_when_deselected(tmp_path: Path, deselect: list[str]) -> None:
    proc = _pytest(_consumer(tmp_path), *deselect)
    assert proc.returncode == 0, proc.stdout
    assert "plait-conform" not in proc.stdout.replace("plait-conform-scenario", "")
    assert "1 passed" in proc.stdout


def _shaped_consumer(root: Path, *, fixed: bool) -> Path:
    """A consumer whose vendored copy is the upstream-shaped module, named by its file."""
    (root / "svc" / "_vendored").mkdir(parents=True)
    (root / "svc" / "__init__.py").write_text("")
    (root / "svc" / "_vendored" / "__init__.py").write_text("")
    shaped_copy(root / "svc" / "_vendored", fixed=fixed)
    (root / "tests").mkdir()
    (root / "tests" / "test_service.py").write_text("def test_the_service_runs():\n    assert True\n")
    setting = 'plait_conform = ["svc/_vendored/mcp_common/embedding_client.py"]'
    (root / "pyproject.toml").write_text(f"[tool.pytest.ini_options]\npythonpath = ['.']\n{setting}\n")
    return root


def test_contract_problems_fail_and_parity_differences_pass_with_a_note(tmp_path: Path) -> None:
    proc = _pytest(_shaped_consumer(tmp_path, fixed=False), "--plait-conform-scenario", "huge-int")
    copy = "svc/_vendored/mcp_common/embedding_client.py"
    assert proc.returncode == 1, proc.stdout
    assert f"FAILED plait-conform::huge-int[{copy}]" in proc.stdout
    assert f"{copy}: huge-int → [contract] embed_with_outcome raised OverflowError" in proc.stdout
    proc = _pytest(_shaped_consumer(tmp_path / "fixed", fixed=True), "--plait-conform-scenario", "nan")
    assert proc.returncode == 0, proc.stdout
    assert f"PASSED plait-conform::nan[{copy}]" in proc.stdout
    # The note: in the item's report section, and in a summary at the end of the run.
    assert "plait conform parity" in proc.stdout
    assert "plait conform: parity differences (they pass; --plait-conform-strict fails them)" in proc.stdout
    assert f"{copy}: nan → [parity] kind=EmbeddingResponseError, canonical says ResponseRejected" in proc.stdout
    strict = _pytest(tmp_path / "fixed", "--plait-conform-scenario", "nan", "--plait-conform-strict")
    assert strict.returncode == 1
    assert f"FAILED plait-conform::nan[{copy}]" in strict.stdout

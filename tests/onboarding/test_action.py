"""The composite action (action.yml), run step by step as GitHub's runner runs it.

GitHub runs a ``shell: bash`` step as ``bash --noprofile --norc -eo pipefail FILE`` with the
step's ``env`` resolved; this test does the same, so what it checks is the scripts a consumer's
CI would run, not a description of them.  Only the expressions the action uses are resolved:
any other ``${{ }}`` or ``if:`` form fails the test instead of being skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
ACTION = REPO / "action.yml"
BUNDLED_CONSUMER = REPO / "lineages" / "consumers" / "cpersona"


@dataclass
class ActionRun:
    ran: list[str]
    exit_code: int
    log: str
    summary: str
    outputs: str


def _expression(value: str, inputs: dict[str, str]) -> str:
    text = str(value)
    while "${{" in text:
        start = text.index("${{")
        end = text.index("}}", start)
        name = text[start + 3 : end].strip()
        if name.startswith("inputs."):
            resolved = inputs[name.removeprefix("inputs.")]
        elif name == "github.action_path":
            resolved = str(REPO)
        else:
            raise AssertionError(f"action.yml uses an expression this runner does not know: {name}")
        text = text[:start] + resolved + text[end + 2 :]
    return text


def _condition(condition: str | None, inputs: dict[str, str]) -> bool:
    if condition is None:
        return True
    left, sep, right = condition.partition("==")
    name = left.strip()
    if not sep or not name.startswith("inputs.") or not right.strip().startswith("'"):
        raise AssertionError(f"action.yml uses a condition this runner does not know: {condition}")
    return inputs[name.removeprefix("inputs.")] == right.strip().strip("'")


def run_action(given: dict[str, str], cwd: Path, tmp: Path) -> ActionRun:
    action: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    declared = action["inputs"]
    assert set(given) <= set(declared), f"inputs the action does not declare: {set(given) - set(declared)}"
    inputs = {name: str(spec.get("default", "")) for name, spec in declared.items()} | given
    summary, outputs = tmp / "summary.md", tmp / "outputs"
    summary.write_text("", encoding="utf-8")
    outputs.write_text("", encoding="utf-8")
    bin_dir = str(Path(sys.executable).parent)
    base_env = {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "RUNNER_TEMP": str(tmp),
        "NO_COLOR": "1",
    }
    ran: list[str] = []
    log = ""
    for index, step in enumerate(action["runs"]["steps"]):
        if not _condition(step.get("if"), inputs):
            continue
        assert step["shell"] == "bash"
        script = tmp / f"step{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = base_env | {key: _expression(value, inputs) for key, value in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        ran.append(step["name"])
        log += done.stdout + done.stderr
        if done.returncode != 0:
            return ActionRun(ran, done.returncode, log, summary.read_text(encoding="utf-8"), outputs.read_text())
    return ActionRun(ran, 0, log, summary.read_text(encoding="utf-8"), outputs.read_text())


def _consumer_with_a_lock(tmp_path: Path) -> Path:
    consumer = tmp_path / "consumer"
    shutil.copytree(BUNDLED_CONSUMER, consumer, symlinks=True)
    return consumer


def test_the_action_passes_a_consumer_matching_its_lock_and_writes_the_report_to_the_job_summary(
    tmp_path: Path,
) -> None:
    consumer = _consumer_with_a_lock(tmp_path)
    run = run_action({"install": "false", "locks": "true"}, consumer, tmp_path)
    assert run.exit_code == 0, run.log
    assert run.ran == ["Check the vendored copies"]
    assert "| cpersona | ok |" in run.summary
    assert "exit-code=0" in run.outputs
    assert "\x1b[" not in run.log + run.summary


def test_the_action_fails_on_drift_and_names_it_in_the_job_summary(tmp_path: Path) -> None:
    consumer = _consumer_with_a_lock(tmp_path)
    edited = next(consumer.rglob("cache.py"))
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# an edit the lock does not know\n", encoding="utf-8")
    run = run_action({"install": "false", "locks": "true"}, consumer, tmp_path)
    assert run.exit_code == 1, run.log
    assert "cpersona" in run.summary and "| cpersona | ok |" not in run.summary
    assert "cache.py" in run.summary + run.log
    assert "exit-code=1" in run.outputs


def test_the_action_refuses_a_corrupt_lock_with_exit_2(tmp_path: Path) -> None:
    consumer = _consumer_with_a_lock(tmp_path)
    next(consumer.rglob("plait.lock")).write_text("this is [not toml\n", encoding="utf-8")
    run = run_action({"install": "false", "locks": "true"}, consumer, tmp_path)
    assert run.exit_code == 2, run.log

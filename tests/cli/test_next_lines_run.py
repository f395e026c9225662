"""The `next:` lines are commands: pasted as printed, from where plait ran, they do what they say.

The bundled workspace lives below its repository's top (``lineages/`` in a
clone of plait), as a service's workspace often does; a `git add` named from
the top but run from below it would add nothing, so each printed git line is
run here, from the workspace, exactly as printed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # whole workflows, then the lines they print

REPO = Path(__file__).resolve().parents[2]


def plait(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PLAIT_WORKSPACE"} | {"NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=ws, capture_output=True, text=True, timeout=600, env=env
    )


def run_next_git_lines(stdout: str, cwd: Path) -> list[str]:
    """Every `next: git …` line of *stdout* that is a command (`git -C .. diff, then commit` is
    advice, not one), run in *cwd* as a shell would (`&&` chains included)."""
    ran = []
    for line in stdout.splitlines():
        if not line.startswith("next: git ") or ", then " in line:
            continue
        command = line.removeprefix("next: ")
        for part in command.split(" && "):
            done = subprocess.run(shlex.split(part), cwd=cwd, capture_output=True, text=True)
            assert done.returncode == 0, (line, done.stdout + done.stderr)
        ran.append(command)
    return ran


def untracked(top: Path) -> list[str]:
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=top, capture_output=True, text=True
    )
    return [line[3:] for line in status.stdout.splitlines() if line.startswith("??")]


def test_the_git_lines_a_sync_and_an_adopt_print_work_from_a_workspace_below_its_repositorys_top(
    tmp_path: Path,
) -> None:
    ws = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path / "clone").dir
    top = Path(subprocess.check_output(["git", "rev-parse", "--show-toplevel"], cwd=ws, text=True).strip())
    assert top != ws.resolve(), "the workspace sits below its repository's top"

    synced = plait(ws, "sync")
    assert synced.returncode == 0, synced.stdout + synced.stderr
    new_files = [f for f in untracked(top) if f.endswith(".py")]
    assert new_files, "a sync of the bundled workspace adds files git does not track yet"
    ran = run_next_git_lines(synced.stdout, ws)
    assert any(" add " in command for command in ran), synced.stdout
    assert not [f for f in untracked(top) if f.endswith(".py")], "every new file the sync named is now tracked"

    adopted = plait(ws, "adopt", "mnemo")
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr
    ran = run_next_git_lines(adopted.stdout, ws)
    assert any(" commit " in command for command in ran), adopted.stdout
    lock = "consumers/mnemo/mnemo/_vendored_mcp_common/embedding_client/plait.lock"
    committed = subprocess.run(["git", "ls-files", "--error-unmatch", lock], cwd=ws, capture_output=True)
    assert committed.returncode == 0, "the lock adopt wrote is committed by the line it printed"

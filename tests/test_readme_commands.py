"""The README's two commands are the contract with a newcomer and with CI."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = text.split("```sh\n")[1:3]
    return [next(line for line in block.splitlines() if line and not line.startswith("#")) for block in blocks]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _main, test_cmd = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_cmd in ci


def _installed(command: str) -> list[str]:
    """What the pip install in *command* (``pip install ... && job``) installs, editable each."""
    argv = shlex.split(command.partition(" && ")[0])
    assert argv[:4] == ["python3", "-m", "pip", "install"], command
    targets = argv[4:]
    assert targets[::2] == ["-e"] * (len(targets) // 2) and len(targets) % 2 == 0, command
    return targets[1::2]


def test_both_commands_install_the_client_beside_plait() -> None:
    # plait depends on embedding-client by name, and pip takes no path in a
    # pyproject's dependencies: each command installs ./client itself.
    main, test_cmd = _readme_commands()
    assert _installed(main) == ["./client", "."]
    assert _installed(test_cmd) == ["./client", ".[dev]"]


def test_plaits_requirement_on_the_client_is_met_by_the_client_in_this_repository() -> None:
    plait = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    client = tomllib.loads((ROOT / "client" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(line) for line in plait["dependencies"] if Requirement(line).name == client["name"]]
    assert len(wanted) == 1, plait["dependencies"]
    assert wanted[0].specifier.contains(client["version"]), (str(wanted[0]), client["version"])


def _git_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--", "lineages", "client"], cwd=ROOT, capture_output=True, text=True
    ).stdout


@functools.cache
def _main_job() -> list[str]:
    """The README's main job, run once for all the tests that read its output."""
    main, _ = _readme_commands()
    _, _, job = main.partition(" && ")
    argv = shlex.split(job)
    assert argv[0] == "plait"
    before = _git_status()
    proc = subprocess.run(
        [sys.executable, "-m", "plait", *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert _git_status() == before, "the main job wrote into the repository"
    return proc.stdout.splitlines()


def test_main_job_shows_status_what_a_sync_applies_and_keeps_and_the_sync() -> None:
    lines = _main_job()
    # Piped, every row is one line: a lineage's status, a sync report line, a diff member.
    assert "sibling  pending  embedding.py  + EmbeddingClient.embed_with_outcome" in lines
    assert any(line.startswith("sibling  behind  pending ") for line in lines)
    assert any(line.startswith("upstream  behind  pending ") for line in lines), "the hardened canonical is pending"
    # What a sync would do is said as what it would do.
    assert any(line.startswith('sibling  embedding.py  would keep: branch self.mode == "uds"') for line in lines)
    assert any(line.startswith("sibling  embedding.py  would keep: except type OSError") for line in lines)
    assert "sibling  outcome.py  would apply: + file outcome.py" in lines
    assert any(line.startswith("upstream: synced; wrote") for line in lines)
    assert any(line.startswith("a second sync would change 0 file(s)") for line in lines)
    assert any(line.startswith("== 7. sibling compared with the canonical client") for line in lines)


def test_main_job_revendors_checks_and_every_copy_conforms_after_the_sync() -> None:
    lines = _main_job()
    assert any(line.startswith("== 4. a consumer vendored by hand (cp + sed) is adopted") for line in lines)
    # mnemo's base is the commit its copy was made from; its own fix is its one local edit.
    assert any(line.startswith("mnemo: base canonical@97b11d8; closest of ") for line in lines)
    edits = [line for line in lines if line.startswith("mnemo: local edit ")]
    assert edits and all(line.startswith("mnemo: local edit cache.py: ") for line in edits), edits
    assert any(line.startswith("== 5. every consumer re-vendored") for line in lines)
    assert any(line.startswith("mnemo  cache.py  kept: ") for line in lines)
    assert any(line.startswith("mnemo: ok (") for line in lines)
    # The scheduler's copy of upstream had its absolute imports rewritten into its own package.
    assert any(line.startswith("scheduler  __init__.py  + from scheduler._vendor.mcp_common.") for line in lines)
    assert any(line.startswith("cpersona: ok (") for line in lines) and any(
        line.startswith("scheduler: ok (") for line in lines
    )
    # Every copy ran the whole matrix and got a verdict, headed by how often it
    # behaves like the canonical.  Whether it conforms is not asserted here:
    # the deadline scenarios time real calls, and on a loaded machine a copy
    # can miss one (tests/conformance/ hold those).  What a copy runs depends
    # only on what it has (the sibling alone has the uds transport, which the
    # canonical has not), so that part of the verdicts does not wait on time.
    summary = next(line for line in lines if re.match(r"\d of 6 copies conform to \d+ scenarios", line))
    scenarios = int(summary.split(" conform to ")[1].split()[0])
    verdicts = {}
    for line in lines:
        found = re.match(r"(\w+) (?:behaves like canonical on|is the reference:) \d+/(\d+)", line)
        if found:
            verdicts[found.group(1)] = (int(found.group(2)), line)
    assert sorted(verdicts) == ["canonical", "cpersona", "mnemo", "scheduler", "sibling", "upstream"]
    assert all(total == scenarios for total, _line in verdicts.values())
    beyond = {name for name, (_total, line) in verdicts.items() if " the canonical does not run" in line}
    assert beyond == {"sibling"}


def test_main_job_syncs_the_sibling_cleanly_and_diffs_it_structurally() -> None:
    lines = _main_job()
    assert any(line.startswith("sibling: synced; wrote") and "outcome.py" in line for line in lines)
    # After the sync the sibling carries embed_with_outcome with its own uds branch and wider except inside.
    member = next(
        line for line in lines if line.startswith("embedding.py  EmbeddingClient.embed_with_outcome  changed:")
    )
    assert 'branch self.mode == "uds" added' in member
    assert "except httpx.TimeoutException widened: + OSError" in member

"""The README's two commands are the contract with a newcomer and with CI."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
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
    # The client is its own distribution too, installed editable beside plait so that
    # an edit of client/ is what both the demo and the tests run.
    main, test_cmd = _readme_commands()
    assert _installed(main) == ["./client", "."]
    assert _installed(test_cmd) == ["./client", ".[dev]"]


def test_plaits_distribution_ships_the_client_and_what_the_client_needs() -> None:
    # pip install git+<url> (or of this root, as pre-commit does) finds no index holding
    # embedding-client: plait's distribution carries the package, and the client's dependencies.
    plait = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    client = tomllib.loads((ROOT / "client" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {Requirement(line).name for line in plait["project"]["dependencies"]}
    assert client["name"] not in names
    assert {Requirement(line).name for line in client["dependencies"]} <= names
    found = plait["tool"]["setuptools"]["packages"]["find"]
    assert "client" in found["where"] and "embedding_client*" in found["include"]


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


@pytest.mark.slow  # the README's main job, run once
def test_main_job_is_a_summary_a_person_reads_in_one_screenful_or_two() -> None:
    lines = _main_job()
    assert len(lines) <= 120, "the demo is each section's summary and the lines that make its point"
    headings = [line for line in lines if line.startswith("== ")]
    assert [h.split(".")[0] for h in headings[:7]] == [f"== {n}" for n in range(1, 8)]
    # It ends with the three commands to run on one's own repositories.
    assert headings[-1] == "== next, on your own repositories =="
    assert [line.split()[1] for line in lines[-3:]] == ["init", "adopt", "sync"]


@pytest.mark.slow  # the README's main job, run once
def test_main_job_shows_status_what_a_sync_applies_and_keeps_and_the_sync() -> None:
    lines = _main_job()
    rows = {line.split()[0]: line.split() for line in _section(lines, 1)}
    assert rows["sibling"][1:3] == ["lineage", "behind"] and rows["upstream"][1:3] == ["lineage", "behind"]
    assert rows["mnemo"][1:3] == ["consumer", "unlocked"], "status reads the consumers too"
    assert {"cpersona", "scheduler"} <= set(rows)
    # What a sync would do is said as what it would do, and the sibling's uds transport is kept.
    preview = _section(lines, 2)
    assert any(re.match(r"sibling  upstream \S+ → \S+   7 files would change, 0 conflicts", line) for line in preview)
    uds = [line for line in preview if line.startswith("sibling  embedding.py  would keep")]
    assert any('+ branch self.mode == "uds"' in line and "EmbeddingClient.embed_with_outcome" in line for line in uds)
    assert any("+ except type OSError" in line for line in uds)
    assert any("+ EmbeddingClient._embed_via_uds" in line for line in uds)
    synced = _section(lines, 3)
    assert any(
        line.startswith("upstream  canonical ") and line.endswith("5 files changed, 0 conflicts") for line in synced
    )
    assert "a second sync would change 0 files" in synced


def _section(lines: list[str], number: int) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith(f"== {number}. "))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("== ")), len(lines))
    return lines[start + 1 : end]


@pytest.mark.slow  # the README's main job, run once
def test_main_job_revendors_checks_and_every_copy_conforms_after_the_sync() -> None:
    lines = _main_job()
    adopted = _section(lines, 4)
    # mnemo's base is the commit its copy was made from; its own fix is its local edits, all in cache.py.
    assert adopted[0].startswith("mnemo: base canonical@97b11d8 ") and adopted[0].endswith(", recorded in its lock")
    assert "  local edits: 3 in 1 file" in adopted and any(line.startswith("    cache.py  3 (") for line in adopted)
    assert not any(line.startswith("next: ") for line in adopted), "nothing to commit in the demo's own copy"
    vendored = _section(lines, 5)
    assert any(line.startswith("mnemo  canonical 97b11d8 → ") for line in vendored)
    assert "  kept     3 local edits in cache.py: ~ TTLCache.put, ~ TTLCache.get" in vendored
    assert any(line.startswith("scheduler  upstream ") for line in vendored)
    assert all(
        any(line.startswith(f"{name}: ok (") for line in vendored) for name in ("cpersona", "scheduler", "mnemo")
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


@pytest.mark.slow  # the README's main job, run once
def test_main_job_syncs_the_sibling_cleanly_and_diffs_it_structurally() -> None:
    lines = _main_job()
    assert any(line.startswith("sibling  upstream ") and "7 files changed, 0 conflicts" in line for line in lines)
    # After the sync the sibling carries embed_with_outcome with its own uds branch and wider except inside.
    member = next(
        line for line in lines if line.startswith("embedding.py  EmbeddingClient.embed_with_outcome  changed:")
    )
    assert 'branch self.mode == "uds" added' in member
    assert "except httpx.TimeoutException widened: + OSError" in member


@pytest.mark.slow  # the README's main job, run once
def test_the_readme_and_the_architecture_show_the_demo_as_it_prints() -> None:
    # The examples are cut from this run's output by the docs' own generator (tests/docs/examples.py).
    from examples import DOCS, blocks, from_demo, normalise

    made = from_demo("\n".join(_main_job()) + "\n")
    for doc, names in (("README.md", ("demo", "status")), ("architecture", ("sync",))):
        shown = blocks(DOCS[doc])
        for name in names:
            assert normalise(shown[name]) == normalise(made[name]), (
                f"{doc} {name}: the example is stale; rewrite it with `python tests/docs/examples.py --update`"
            )

"""The vendor commands as CI runs them: exit codes, piped text, JSON, bad locks, escapes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from vendor_builders import MANIFEST, fingerprint, make_scenario

from plait.cli import cli
from plait.vendoring.lock import LOCK_NAME


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _json(result) -> dict:
    assert "\n" not in result.stdout.strip(), "JSON is compact by default"
    data = json.loads(result.stdout)
    assert data["schema"] == 1
    return data


@pytest.fixture
def vendored(scenario):
    assert _run("--workspace", str(scenario.root), "vendor", "--all").exit_code == 0
    scenario.commit("vendored")
    return scenario


def test_vendor_needs_consumers_or_all_and_names_unknown_consumers(scenario) -> None:
    ws = str(scenario.root)
    assert _run("vendor", "--workspace", ws).exit_code == 2
    unknown = _run("vendor", "--workspace", ws, "nope")
    assert unknown.exit_code == 2 and "no consumer named 'nope' (known: svc, tool)" in unknown.stderr


def test_vendor_all_in_two_jobs_piped_prints_plain_lines(scenario) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(scenario.root), "vendor", "--all", "--jobs", "2"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    # A first vendor: a line per consumer with its counts, what it wrote, and how to take it.
    assert any(re.match(r"svc  canonical → \w{7}   4 files changed, 0 conflicts$", line) for line in out), out
    assert any(re.match(r"tool  canonical → \w{7}   4 files changed, 0 conflicts$", line) for line in out), out
    assert "  applied  4 changes in 4 files: __init__.py (new), client.py (new), errors.py (new), py.typed (new)" in out
    (track,) = [line for line in out if line.startswith("next: git ") and " add " in line]
    assert "svc/_vendor/corelib/client.py" in track and "svc/_vendor/corelib/plait.lock" in track
    # Progress goes to a terminal only (as git's does): a CI log capturing both streams reads each consumer once.
    assert proc.stderr == ""
    verbose = subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(scenario.root), "vendor", "--all", "-v", "--dry-run"],
        capture_output=True,
        text=True,
    )
    assert sorted(verbose.stderr.splitlines()) == [
        f"{name}: up-to-date (nothing would change)" for name in ("svc", "tool")
    ]


def test_vendor_json_dry_run_shape(vendored) -> None:
    (vendored.canonical / "client.py").write_text((vendored.canonical / "client.py").read_text() + "\nX = 1\n")
    data = _json(_run("--workspace", str(vendored.root), "vendor", "svc", "--dry-run", "--json"))
    assert data["command"] == "vendor" and data["inputs"]["consumers"] == ["svc"]
    assert (data["dry_run"], data["written"], data["exit"]) == (True, False, 0)
    (entry,) = data["consumers"]
    assert set(entry) >= {
        "consumer",
        "source",
        "outcome",
        "source_commit",
        "files",
        "applied",
        "local_edits",
        "conflicts",
    }
    assert entry["outcome"] == "vendored" and "+X = 1" in entry["diff"]
    assert [(a["file"], a["kind"], a["text"]) for a in entry["applied"]] == [
        ("client.py", "added", "+ attribute X in <module>")
    ]


def test_check_exit_codes_and_json_shape(vendored) -> None:
    ws = str(vendored.root)
    ok = _json(_run("--workspace", ws, "check", "--json"))
    assert ok["exit"] == 0 and [c["state"] for c in ok["consumers"]] == ["ok", "ok"]
    assert set(ok["consumers"][0]) == {
        "consumer",
        "vendor_dir",
        "lock",
        "state",
        "source",
        "locked_commit",
        "files",
        "drift",
        "fix",
        "error",
    }
    path = vendored.vendored() / "client.py"
    path.write_text(path.read_text().replace("timeout = 5", "timeout = 50"))
    result = _run("--workspace", ws, "check")
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if line.startswith("svc  client.py  edited"))
    assert "plait vendor svc" in line
    assert "svc: drift in 1 place(s); fix: plait vendor svc" in result.stdout
    assert "tool: ok (4 files, vendored from canonical@" in result.stdout


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda text: text.replace("[files]", "[files"), "the lock does not parse"),
        (lambda text: text.replace('sha256 = "', 'sha256 = "zz', 1), "must be a sha256 hex digest"),
        (lambda text: text.replace('"client.py" =', '"../../../escape.py" =', 1), "names a path outside"),
        (lambda text: text.replace('"client.py" =', '"/etc/passwd" =', 1), "names a path outside"),
    ],
    ids=["unparsable", "bad-digest", "climbs-out", "absolute"],
)
def test_a_corrupt_lock_or_one_naming_a_path_outside_is_an_error_and_nothing_is_written(
    vendored, tamper, message
) -> None:
    lock = vendored.vendored() / LOCK_NAME
    lock.write_text(tamper(lock.read_text()))
    before = fingerprint(vendored.root)

    checked = _run("--workspace", str(vendored.root), "check", "svc")
    assert checked.exit_code == 2 and message in checked.stderr
    vendored_again = _run("--workspace", str(vendored.root), "vendor", "--all")
    assert vendored_again.exit_code == 2 and message in vendored_again.stderr

    assert fingerprint(vendored.root) == before


def test_a_tampered_digest_that_is_still_a_digest_is_drift(vendored) -> None:
    lock = vendored.vendored() / LOCK_NAME
    text = lock.read_text()
    start = text.index('"client.py" = {sha256 = "') + len('"client.py" = {sha256 = "')
    lock.write_text(text[:start] + "0" * 64 + text[start + 64 :])
    result = _run("--workspace", str(vendored.root), "check", "svc")
    assert result.exit_code == 1
    assert "svc  client.py  edited" in result.stdout


def test_path_escapes_in_the_manifest_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    for bad, message in [
        ('path = "consumers/svc"', 'path = "../outside"'),
        ('vendor_dir = "svc/_vendor/corelib"', 'vendor_dir = "../svc/_vendor/corelib"'),
    ]:
        root = tmp_path / f"ws-{len(list(tmp_path.iterdir()))}"
        make_scenario(root, manifest=MANIFEST.replace(bad, message))
        result = _run("--workspace", str(root), "vendor", "--all")
        assert result.exit_code == 2
        assert "escapes the workspace" in result.stderr or "must be a plain relative path" in result.stderr
        assert not any(outside.iterdir())


def test_a_symlink_out_of_the_vendored_directory_is_refused(vendored, tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 1\n")
    os.symlink(secret, vendored.vendored() / "leak.py")
    for command in ("check", "vendor"):
        result = _run("--workspace", str(vendored.root), command, "svc")
        assert result.exit_code == 2 and "symlink escapes the workspace" in result.stderr


def test_consumers_json_is_a_github_actions_matrix(scenario) -> None:
    data = _json(_run("--workspace", str(scenario.root), "consumers", "--json"))
    assert data["command"] == "consumers" and data["inputs"]["workspace"].endswith("lineages.toml")
    assert data["count"] == 2
    include = data["matrix"]["include"]
    assert [job["consumer"] for job in include] == ["svc", "tool"]
    assert include[0] == {
        "consumer": "svc",
        "source": "canonical",
        "path": "consumers/svc",
        "git": "",
        "ref": "",
        "subdir": "",
        "vendor_dir": "svc/_vendor/corelib",
        "package": "svc._vendor.corelib",
    }
    # What `fromJSON(...).matrix` hands a job: only `include`, every value a flat string.
    assert set(data["matrix"]) == {"include"}
    assert all(isinstance(v, str) for job in include for v in job.values())


def test_check_locks_needs_no_workspace(vendored, tmp_path: Path) -> None:
    consumer = vendored.root / "consumers" / "svc"
    ok = subprocess.run(
        [sys.executable, "-m", "plait", "check", "--locks", str(consumer)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PLAIT_WORKSPACE": ""},
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("svc: ok (4 files, vendored from canonical@")
    (vendored.vendored() / "errors.py").write_text("changed = True\n")
    drift = _run("check", "--locks", str(consumer))
    assert drift.exit_code == 1 and "svc  errors.py  edited" in drift.stdout


LOADED = """
import runpy, sys
sys.argv = ["plait", "--workspace", sys.argv[1], "check", *sys.argv[2:]]
try:
    runpy.run_module("plait", run_name="__main__")
except SystemExit as done:
    heavy = {"libcst", "git", "tomlkit", "rich", "httpx"}
    modules = {m.split(".")[0] for m in sys.modules} & heavy
    modules |= {m for m in sys.modules if m.startswith(("plait.merge", "plait.conformance", "click.shell_completion"))}
    if "--json" not in sys.argv:
        modules |= {"click"} & set(sys.modules)  # the plain command line runs without click (cli/check_run.py)
    print("exit", done.code, "heavy", sorted(modules))
"""


@pytest.mark.parametrize("args", [[], ["--json"]])
def test_check_in_a_pipe_loads_neither_the_merge_engine_nor_git_nor_rich(vendored, args: list[str]) -> None:
    # What keeps a pre-commit hook quick (benchmarks/check_speed.py measures it): only what hashing
    # needs, and for the plain command line not even click.
    proc = subprocess.run([sys.executable, "-c", LOADED, str(vendored.root), *args], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "exit 0 heavy []", proc.stdout + proc.stderr
    (vendored.vendored() / "errors.py").write_text("changed = True\n")
    proc = subprocess.run([sys.executable, "-c", LOADED, str(vendored.root), *args], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "exit 1 heavy []", proc.stdout + proc.stderr


def _hook_entries() -> dict[str, str]:
    """id → entry of each hook in .pre-commit-hooks.yaml (a flat list of mappings)."""
    hooks: dict[str, str] = {}
    current = ""
    for line in (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text().splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(": ")
        if key == "id":
            current = value
        elif key == "entry":
            hooks[current] = value
    return hooks


def test_the_pre_commit_hooks_pass_a_clean_commit_and_stop_one_with_a_hand_edit(vendored) -> None:
    entries = _hook_entries()
    assert set(entries) == {"plait-check", "plait-check-locks"}
    plait = [sys.executable, "-m", "plait"]
    env = {**os.environ, "PLAIT_WORKSPACE": ""}  # a hook runs from the repository's root

    def run(entry: str) -> subprocess.CompletedProcess[str]:
        argv = plait + entry.split()[1:]
        return subprocess.run(argv, cwd=vendored.root, capture_output=True, text=True, env=env)

    assert [run(entry).returncode for entry in entries.values()] == [0, 0]
    vendored.edit_vendored("client.py", "timeout = 5", "timeout = 6")
    for entry in entries.values():
        stopped = run(entry)
        assert stopped.returncode == 1
        assert "svc  client.py  edited" in stopped.stdout

"""The workspace commands as a user and CI run them: piped text, JSON shapes, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from lineage_builders import CLIENT_V2, fingerprint, make_scenario, write_tree

from plait.cli import cli


@pytest.fixture
def behind(tmp_path: Path):
    """A fork one canonical change behind."""
    scenario = make_scenario(tmp_path / "ws")
    scenario.write_canonical({"client.py": CLIENT_V2})
    scenario.commit("canonical v2")
    return scenario


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def _json(result) -> dict:
    assert "\n" not in result.stdout.strip(), "JSON is compact by default"
    data = json.loads(result.stdout)
    assert data["schema"] == 1
    return data


def test_status_piped_is_a_row_per_lineage_and_verbose_a_grepable_line_per_member(behind) -> None:
    def status(*args: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "plait", "--workspace", str(behind.root), "status", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "40"},
        )
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout
        return proc.stdout.splitlines()

    short = status()
    (row,) = [line for line in short if line.startswith("fork  ")]
    assert row.split()[1:3] == ["lineage", "behind"] and "2 changes pending in 1 file" in row
    assert row.endswith("next: plait sync fork")
    assert short[0].startswith("canonical@") and short[-2] == "next: plait sync"
    assert short[-1] == f"workspace: {behind.root / 'lineages.toml'}"
    detail = [line for line in status("--verbose") if line.startswith("fork  core.py  ")]
    assert "fork  core.py  pending  + Client.fetch_many" in detail
    assert any(
        line.startswith("fork  core.py  own  ~ Client.fetch: ") and 'branch self.mode == "uds"' in line
        for line in detail
    )
    assert "fork  core.py  own  + Client._via_uds" in detail


def test_status_check_exits_1_when_a_lineage_is_behind_and_0_when_it_is_not(behind) -> None:
    assert _run("--workspace", str(behind.root), "status", "--check").exit_code == 1
    assert _run("--workspace", str(behind.root), "sync").exit_code == 0
    assert _run("status", "--check", "--workspace", str(behind.root)).exit_code == 0


def test_status_json_shape(behind) -> None:
    data = _json(_run("status", "--json", "--workspace", str(behind.root)))
    assert data["command"] == "status" and data["exit"] == 0
    assert data["inputs"] == {"workspace": str(behind.root / "lineages.toml"), "names": []}
    assert data["canonical"]["name"] == "canonical" and data["consumers"] == [] and data["next"] == ["plait sync"]
    (row,) = data["lineages"]
    assert set(row) == {
        "lineage",
        "source",
        "state",
        "source_now",
        "base",
        "pending",
        "kept",
        "conflicts",
        "conflicted_files",
        "reason",
        "next",
    }
    assert row["state"] == "behind" and row["base"].startswith("canonical@") and row["next"] == "plait sync fork"
    assert {
        "file": "core.py",
        "path": "Client.fetch_many",
        "kind": "added",
        "text": "+ Client.fetch_many",
        "brief": "+ Client.fetch_many",
    } in row["pending"]


def test_sync_json_shape_and_pretty(behind) -> None:
    result = _run("sync", "--json", "--pretty", "--dry-run", "--workspace", str(behind.root))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert result.stdout.startswith('{\n  "schema": 1,')
    assert data["dry_run"] is True and data["written"] is False
    (plan,) = data["lineages"]
    assert set(plan) >= {
        "lineage",
        "source",
        "outcome",
        "base",
        "new_base",
        "files",
        "applied",
        "kept",
        "conflicts",
        "diff",
    }
    # Paths as git names them in the lineage's repository, so the diff applies with `git apply`.
    assert plan["outcome"] == "synced" and plan["diff"].startswith("--- a/fork/forklib/core.py")
    assert data["title"] == f"plait: sync canonical@{behind.repo.head.commit.hexsha[:7]} into fork"
    assert {"file": "core.py", "source_file": "client.py", "action": "merged", "changed": True} in plan["files"]


def test_dry_run_prints_a_unified_diff_and_writes_nothing(behind) -> None:
    before = fingerprint(behind.root)
    result = _run("sync", "--dry-run", "--workspace", str(behind.root))
    assert result.exit_code == 0
    assert "+++ b/fork/forklib/core.py" in result.stdout and "+    def fetch_many(self, texts):" in result.stdout
    assert "dry run: this is what a run would do; nothing was written" in result.stdout
    assert fingerprint(behind.root) == before


def test_a_conflict_exits_1_names_the_node_and_continue_and_abort_report_in_json(behind) -> None:
    from test_sync_workflow import _conflict

    _conflict(behind)
    result = _run("sync", "--workspace", str(behind.root))
    assert result.exit_code == 1
    (conflict,) = [line for line in result.stderr.splitlines() if line.startswith("CONFLICT")]
    core = behind.root / "fork" / "forklib" / "core.py"
    marker = next(i for i, line in enumerate(core.read_text().splitlines(), 1) if line.startswith("<<<<<<<"))
    # The file as the reader at the current directory types it: relative when that is shorter.
    head, _, rest = conflict.removeprefix("CONFLICT (both changed): Client.fetch in ").partition(f":{marker} (ours ")
    assert rest and Path(head).resolve() == core.resolve(), conflict
    assert 'theirs "canonical: " + str(exc))' in conflict
    assert "next: resolve the markers, then plait sync --continue fork (to give up: plait sync --abort fork)" in (
        result.stdout
    )

    still = _json(_run("sync", "--continue", "fork", "--json", "--workspace", str(behind.root)))
    assert still["action"] == "continue" and still["exit"] == 1
    assert still["lineages"][0]["done"] is False and still["lineages"][0]["problems"][0].startswith("core.py:")

    aborted = _json(_run("sync", "--abort", "--json", "--workspace", str(behind.root)))
    assert aborted["lineages"] == [{"lineage": "fork", "done": True, "problems": [], "restored": ["core.py"]}]


def test_no_write_conflicts_exits_1_and_writes_nothing(behind) -> None:
    from test_sync_workflow import _conflict

    _conflict(behind)
    before = fingerprint(behind.root)
    result = _run("sync", "--no-write-conflicts", "--workspace", str(behind.root))
    assert result.exit_code == 1
    assert "nothing was written (--no-write-conflicts)" in result.stdout
    assert fingerprint(behind.root) == before


def test_an_error_is_one_line_and_exit_2(behind) -> None:
    write_tree(behind.fork, {"errors.py": "def broken(:\n"})
    result = _run("sync", "--workspace", str(behind.root))
    assert result.exit_code == 2
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("plait sync: error:")]
    assert "errors.py" in line and "does not parse" in line and "Traceback" not in result.stderr

    missing = _run("status", "--workspace", str(behind.root / "nowhere"))
    assert missing.exit_code == 2
    assert missing.stderr.startswith("plait status: error: ") and "no lineages.toml here" in missing.stderr


def test_diff_formats(behind) -> None:
    text = _run("diff", "canonical", "fork", "--workspace", str(behind.root))
    assert text.exit_code == 0
    assert "core.py  Client.fetch_many  only in canonical" in text.stdout
    assert "core.py  Client._via_uds  only in fork" in text.stdout
    assert any(
        line.startswith("core.py  Client.fetch  changed:") and 'branch self.mode == "uds" added' in line
        for line in text.stdout.splitlines()
    )
    data = _json(_run("diff", "canonical", "fork", "--format", "json", "--workspace", str(behind.root)))
    assert data["inputs"]["a"] == str(behind.canonical) and data["inputs"]["b"] == str(behind.fork)
    assert {"file": "core.py", "path": "Client._via_uds", "status": "only-b", "facts": [], "diff": []} in data[
        "members"
    ]
    markdown = _run("diff", "canonical", "fork", "--format", "markdown", "--workspace", str(behind.root))
    assert markdown.stdout.startswith("### `fork` compared with `canonical`")


def test_adopt_json_names_the_choice_and_the_runner_up(behind) -> None:
    data = _json(_run("adopt", "fork", "--force", "--dry-run", "--json", "--workspace", str(behind.root)))
    assert data["how"] == "inferred" and data["dry_run"] is True
    first = list(behind.repo.iter_commits())[-1]  # the canonical the fork was made from
    assert data["chosen"]["commit"] == first.hexsha
    assert data["why"].startswith("closest by content of 1 revision of canonical")
    # canonical v2 was committed after the fork's files: it cannot be where they came from.
    assert data["runner_up"] is None
    assert any(
        note.startswith("1 newer revision of canonical not compared: dated after fork's") for note in data["notes"]
    )


@pytest.mark.parametrize(
    ("args", "env", "escapes"),
    [
        (["--color", "always"], {}, True),
        (["--color", "never"], {}, False),
        ([], {"NO_COLOR": "1"}, False),
        ([], {}, False),
    ],
)
def test_colour_follows_the_switch_and_no_color(behind, args: list[str], env: dict[str, str], escapes: bool) -> None:
    result = _run("status", *args, "--workspace", str(behind.root), env=env)
    assert ("\x1b[" in result.stdout) is escapes


def test_demo_runs_the_whole_job_on_a_copy_and_leaves_the_workspace_alone(behind) -> None:
    before = fingerprint(behind.root)
    data = _json(_run("demo", "--json", "--workspace", str(behind.root)))
    assert fingerprint(behind.root) == before
    assert (data["exit"], data["sync_exit"], data["copy"], data["second_run_changes"]) == (0, 0, None, 0)
    assert [row["state"] for row in data["status"]] == ["behind"]
    assert data["preview"]["dry_run"] is True and data["sync"]["written"] is True
    assert {"file": "core.py", "path": "Client._via_uds", "status": "only-b", "facts": [], "diff": []} in data["diff"][
        "members"
    ]


def _shown(manifest: Path) -> str:
    rel = os.path.relpath(manifest, Path.cwd())
    return str(manifest) if rel.startswith("..") else rel


def test_continue_and_abort_end_with_what_to_run_next_and_the_manifest(behind) -> None:
    from test_sync_workflow import _conflict

    _conflict(behind)
    assert _run("sync", "--workspace", str(behind.root)).exit_code == 1
    ws = ["--workspace", str(behind.root)]
    # (the manifest as the reader at the current directory names it: relative only below it)
    footer = f"workspace: {_shown(behind.root / 'lineages.toml')}"

    still = _run("sync", "--continue", *ws)
    assert still.exit_code == 1
    assert still.stdout.splitlines()[-2:] == [
        "next: resolve the markers, then plait sync --continue fork (to give up: plait sync --abort fork)",
        footer,
    ]

    core = behind.root / "fork" / "forklib" / "core.py"
    kept, section = [], ""
    for line in core.read_text().splitlines(keepends=True):
        section = {"<<<<<<<": "ours", "|||||||": "base", "=======": "theirs", ">>>>>>>": ""}.get(line[:7], section)
        if section in ("", "ours") and line[:7] not in ("<<<<<<<", ">>>>>>>"):
            kept.append(line)
    core.write_text("".join(kept))
    finished = _run("sync", "--continue", *ws)
    assert finished.exit_code == 0, finished.stdout
    # The lineage and the state are in one repository here: one diff, then a commit.
    done, step, last = finished.stdout.splitlines()
    assert (done, last) == ("fork: sync finished", footer)
    # (the repository as the reader at the current directory types it: relative when that is shorter)
    shown = step.removeprefix("next: git -C ").removesuffix(" diff, then commit")
    assert step != shown and Path(shown).resolve() == behind.root.resolve(), step

    aborted = _run("sync", "--abort", *ws)
    assert aborted.exit_code == 2 and "no sync in progress" in aborted.stderr

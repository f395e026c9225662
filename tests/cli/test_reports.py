"""What a newcomer reads on a fresh copy of the bundled workspace, piped (issue 21, "Done when").

Everything runs through the command line, in the order a newcomer would:
status, a sync, the adoption of the consumer vendored by hand, two
vendors.  Each report is a summary: a line per copy with counts, then
only what needs reading, then the command to run next; the member detail
is behind --verbose, and failures say why on stderr even with --json.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from read_reports import mermaid_edges, tables

from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # every report on a fresh copy of the bundled workspace

REPO = Path(__file__).resolve().parents[2]
LINEAGES = ("upstream", "sibling")
CONSUMERS = ("cpersona", "scheduler", "mnemo")
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")

Run = subprocess.CompletedProcess[str]


def plait(ws: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    full = {k: v for k, v in os.environ.items() if k not in ("PLAIT_WORKSPACE", "NO_COLOR", "COLUMNS")}
    return subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(ws), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ws,
        env=full | (env or {}),
    )


def lines(run: Run) -> list[str]:
    return run.stdout.splitlines()


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The bundled workspace, copied as a fresh clone has it, walked through as the README says."""
    copy = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path_factory.mktemp("bundled"))
    ws = copy.dir
    runs: dict[str, Run] = {}
    runs["status"] = plait(ws, "status")
    runs["status -v"] = plait(ws, "status", "--verbose")
    runs["status --check, fresh"] = plait(ws, "status", "--check")
    runs["status markdown"] = plait(ws, "status", "--format", "markdown")
    runs["status at 80 columns"] = plait(ws, "status", "--color", "always", env={"COLUMNS": "80"})
    runs["sync --dry-run -v"] = plait(ws, "sync", "--dry-run", "--verbose")
    runs["vendor mnemo --json, not adopted"] = plait(ws, "vendor", "mnemo", "--json")
    runs["sync"] = plait(ws, "sync")
    runs["status --check, synced"] = plait(ws, "status", "--check")
    runs["adopt"] = plait(ws, "adopt", "mnemo")
    runs["vendor markdown, dry"] = plait(ws, "vendor", "--all", "--dry-run", "--format", "markdown")
    runs["vendor"] = plait(ws, "vendor", "--all")
    runs["vendor again"] = plait(ws, "vendor", "--all")
    runs["vendor -q"] = plait(ws, "vendor", "--all", "--quiet")
    runs["status --check, vendored"] = plait(ws, "status", "--check")
    edited = copy.consumers["cpersona"].vendor_dir / "client.py"
    edited.write_text(edited.read_text() + "\nLOCAL = 1\n")
    runs["check at 80 columns"] = plait(ws, "check", "--color", "always", env={"COLUMNS": "80"})
    runs["check markdown"] = plait(ws, "check", "--format", "markdown")
    return runs


def test_status_is_a_row_per_copy_naming_every_lineage_and_consumer(walk: dict[str, Run]) -> None:
    run = walk["status"]
    assert run.returncode == 0, run.stderr
    assert len(lines(run)) <= 25, run.stdout
    assert "\x1b" not in run.stdout
    first, *rows_, next_line, workspace = lines(run)
    assert first.startswith("canonical@") and first.split()[1] == "embedding_client"
    rows = {line.split()[0]: line.split() for line in rows_}
    assert sorted(rows) == sorted([*LINEAGES, *CONSUMERS])
    for name in LINEAGES:
        assert rows[name][1:3] == ["lineage", "behind"]
        assert " ".join(rows[name]).endswith(f"next: plait sync {name}")
    for name in CONSUMERS:
        assert rows[name][1] == "consumer"
    assert rows["mnemo"][2] == "unlocked" and " ".join(rows["mnemo"]).endswith("next: plait adopt mnemo")
    assert rows["cpersona"][2] == "up-to-date" and rows["cpersona"][3] == "vendored"
    assert next_line.startswith("next: plait adopt mnemo, then plait sync")
    assert workspace.startswith("workspace: ")


def rows_commit(run: Run) -> str:
    return lines(run)[0].split()[0].removeprefix("canonical@")


def test_status_verbose_holds_every_pending_member_and_every_own_change(walk: dict[str, Run]) -> None:
    verbose, short = lines(walk["status -v"]), lines(walk["status"])
    assert len(verbose) > len(short) + 20
    pending = [line for line in verbose if "  pending  " in line]
    assert any("embedding.py  pending  + EmbeddingClient.embed_with_outcome" in line for line in pending)
    own = [line for line in verbose if "  own  " in line]
    assert any('~ _MODES: + entry "uds"' in line for line in own), own
    assert any("+ EmbeddingClient._embed_via_uds" in line for line in own), own


def test_status_check_exits_1_while_any_copy_is_behind_and_0_once_all_are_in_step(walk: dict[str, Run]) -> None:
    assert walk["status --check, fresh"].returncode == 1
    synced = walk["status --check, synced"]
    assert synced.returncode == 1, "the consumers of the synced upstream are behind"
    rows = {line.split()[0]: line for line in lines(synced)}
    assert rows["scheduler"].split()[2] == "behind" and "next: plait vendor scheduler" in rows["scheduler"]
    assert rows["upstream"].split()[2] == "up-to-date"
    done = walk["status --check, vendored"]
    assert done.returncode == 0, done.stdout


def test_sync_says_per_lineage_what_it_applied_kept_and_wrote(walk: dict[str, Run]) -> None:
    run = walk["sync"]
    assert run.returncode == 0, run.stderr
    out = lines(run)
    assert len(out) <= 15, run.stdout
    assert any(re.match(r"upstream  canonical \w+ → \w+   5 files changed, 0 conflicts$", line) for line in out), out
    kept = next(line for line in out if line.startswith("  kept") and "embedding.py" in line)
    assert "+ EmbeddingClient._embed_via_uds" in kept and "moved into embed_with_outcome" in kept
    assert any(line.startswith("next: plait vendor scheduler") for line in out), "the sync left scheduler behind"
    assert out[-1].startswith("workspace: ")


def test_the_detail_folds_one_tuples_entries_and_one_modules_imports(walk: dict[str, Run]) -> None:
    out = lines(walk["sync --dry-run -v"])
    all_entries = [line for line in out if line.startswith("upstream  __init__.py  would apply  ~ __all__")]
    assert len(all_entries) == 1, "one line for the new tuple, not one per entry"
    assert '"Advisory", "AdvisoryReason"' in all_entries[0]
    assert not any(" entry " in line and "__all__ in <module>" in line for line in out)
    imports = [line for line in out if line.startswith("upstream  __init__.py  would apply  + ")]
    assert any("imports: + from mcp_common._types import Advisory, AdvisoryReason" in line for line in imports)


def test_vendor_after_the_sync_is_a_summary_and_a_second_one_a_line_per_consumer(walk: dict[str, Run]) -> None:
    run = walk["vendor"]
    assert run.returncode == 0, run.stderr
    out = lines(run)
    assert len(out) <= 25, run.stdout
    assert out[0] == f"cpersona: up to date with canonical@{rows_commit(walk['status'])}"
    assert any(line.startswith("scheduler  upstream ") and "5 files changed, 0 conflicts" in line for line in out)
    assert "  kept     3 local edits in cache.py: ~ TTLCache.put, ~ TTLCache.get" in out
    again = walk["vendor again"]
    assert again.returncode == 0 and len(lines(again)) <= 5, again.stdout
    for name in CONSUMERS:
        assert any(line.startswith(f"{name}: up to date with ") for line in lines(again)), again.stdout
    assert "mnemo: up to date with canonical@" in again.stdout and "(3 local edits kept)" in again.stdout


def test_quiet_prints_only_problems(walk: dict[str, Run]) -> None:
    quiet = walk["vendor -q"]
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""


def test_a_json_failure_says_why_on_stderr_in_one_line(walk: dict[str, Run]) -> None:
    run = walk["vendor mnemo --json, not adopted"]
    assert run.returncode == 2
    assert json.loads(run.stdout)["consumers"][0]["outcome"] == "refused"
    (error,) = [line for line in run.stderr.splitlines() if line.startswith("plait vendor: error: ")]
    assert "mnemo" in error and "plait adopt mnemo" in error
    assert not error.startswith("plait vendor: error: mnemo: mnemo:")


def test_tty_tables_at_80_columns_cut_no_path_and_no_name(walk: dict[str, Run]) -> None:
    status = ESCAPES.sub("", walk["status at 80 columns"].stdout)
    assert "\x1b" in walk["status at 80 columns"].stdout, "a terminal's colours"
    piped = lines(walk["status"])
    for row in piped[1:-2]:
        for cell in re.split(r"\s{2,}", row):
            assert any(cell in line for line in status.splitlines()), f"{cell!r} cut at 80 columns:\n{status}"
    check = ESCAPES.sub("", walk["check at 80 columns"].stdout)
    assert walk["check at 80 columns"].returncode == 1
    assert "client.py" in check and "cpersona" in check
    assert not re.search(r"client\.\s*$|…", check, re.M), check


FAMILY = {
    ("canonical", "upstream"),
    ("upstream", "sibling"),
    ("canonical", "cpersona"),
    ("upstream", "scheduler"),
    ("canonical", "mnemo"),
}


def test_markdown_holds_a_table_per_copy_and_the_familys_graph(walk: dict[str, Run]) -> None:
    status = walk["status markdown"].stdout
    overview = tables(status)[0]
    assert overview[0][:3] == ["copy", "kind", "state"]
    assert [row[0] for row in overview[1:]] == [*LINEAGES, *CONSUMERS]
    nodes, edges = mermaid_edges(status)
    assert {label.split(" ")[0] for label in nodes.values()} == {"canonical", *LINEAGES, *CONSUMERS}
    assert {(a, b) for a, b, _ in edges} == FAMILY
    assert ("upstream", "sibling", "behind") in edges and ("canonical", "mnemo", "unlocked") in edges

    vendor = walk["vendor markdown, dry"].stdout
    assert vendor.startswith("## plait: vendor into ")
    found = tables(vendor)
    assert [row[0] for row in found[0][1:]] == list(CONSUMERS)
    per_copy = {row[0] for table in found[1:] for row in table[1:]}
    assert "cache.py" in per_copy, "mnemo's table names the file its local edits are in"
    _nodes, edges = mermaid_edges(vendor)
    assert {(a, b) for a, b, _ in edges} == FAMILY
    assert ("canonical", "mnemo", "would vendor") in edges

    check = walk["check markdown"].stdout
    assert [row[0] for row in tables(check)[0][1:]] == list(CONSUMERS)
    _nodes, edges = mermaid_edges(check)
    assert {(a, b) for a, b, _ in edges} == FAMILY and ("canonical", "cpersona", "edited") in edges

"""After `plait sync` and `plait vendor` (on a copy of the bundled workspace) the copies conform,
and new consumers join by manifest.

The consumer added here vendors the canonical client as
``relay._vendored.embedding_client``: it joins the run by its manifest
entry alone, and runs under its own package name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomlkit

from plait.conformance import ConformReport, conform, load_scenarios, workspace_targets
from plait.lineage.adopt import adopt
from plait.lineage.sync import sync
from plait.vendoring.vendor import vendor
from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]

CONSUMER = "relay"


def _add_consumer(ws: Workspace) -> None:
    """A consumer vendoring the canonical client as relay._vendored.embedding_client, declared in the manifest."""
    home = ws.dir / "consumers" / CONSUMER / CONSUMER
    files = {"__init__.py": "", "_vendored/__init__.py": ""}
    files |= {f"_vendored/embedding_client/{rel}": text for rel, text in ws.read_files(ws.canonical).items()}
    for rel, text in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    table = tomlkit.table()
    table.update(
        {
            "path": f"consumers/{CONSUMER}",
            "vendor_dir": f"{CONSUMER}/_vendored/embedding_client",
            "package": f"{CONSUMER}._vendored.embedding_client",
        }
    )
    ws.document["consumers"][CONSUMER] = table
    ws.manifest.write_text(tomlkit.dumps(ws.document))


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, object, ConformReport]:
    copy = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path_factory.mktemp("conform-synced"))
    report = sync(copy)
    # The consumer vendored by hand gets its base, and the lineages moved, so the
    # consumers that vendor them are re-vendored, as CI does.
    adopt(copy, "mnemo")
    assert vendor(copy).exit_code == 0
    _add_consumer(copy)
    reloaded = Workspace.load(copy.manifest)
    return reloaded, report, conform(workspace_targets(reloaded), load_scenarios())


def test_after_the_sync_the_canonical_upstream_and_every_consumer_conform(synced) -> None:
    _ws, _sync, matrix = synced
    by_name = {c.target.name: c for c in matrix.copies}
    for name in ("canonical", "upstream", "cpersona", CONSUMER):
        copy = by_name[name]
        assert copy.conforms, (name, copy.error, [(n, v.problems) for n, v in copy.verdicts.items() if v.problems])


def test_a_consumer_added_to_the_manifest_runs_under_its_own_package_name(synced) -> None:
    ws, _sync, matrix = synced
    relay = next(c for c in matrix.copies if c.target.name == CONSUMER)
    assert relay.target.kind == "consumer"
    assert relay.target.import_name == "relay._vendored.embedding_client"
    assert relay.target.sys_path == ws.dir / "consumers" / CONSUMER
    assert relay.file == str(
        ws.dir / "consumers" / CONSUMER / CONSUMER / "_vendored" / "embedding_client" / "__init__.py"
    )


def test_the_whole_bundled_workspace_conforms_after_plait_sync(synced) -> None:
    _ws, sync_report, matrix = synced
    assert sync_report.exit_code == 0
    assert matrix.exit_code == 0, matrix.errors() + matrix.failures()
    sibling = next(c for c in matrix.copies if c.target.name == "sibling")
    # The sibling's own transport meets the same rules.
    assert all(sibling.verdicts[n].status == "pass" for n in sibling.verdicts if n.startswith("uds-"))

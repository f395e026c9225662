"""The bundled workspace is a real one: its lineages sync cleanly from the canonical client.

Everything that writes works on a copy (`copy_workspace`), so the repository
stays as committed: upstream as of the canonical client's b1ce895, the
sibling forked from an older upstream.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plait.semdiff import compare_files
from plait.status import status
from plait.sync import sync
from plait.workspace import Workspace, copy_workspace

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, object]:
    copy = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path_factory.mktemp("bundled"))
    return copy, sync(copy)


def _method(source: str, cls: str, name: str) -> ast.AsyncFunctionDef | ast.FunctionDef:
    tree = ast.parse(source)
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    return next(n for n in klass.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name)


def test_the_bundled_sync_is_clean_and_a_second_one_changes_nothing(synced) -> None:
    copy, report = synced
    assert report.exit_code == 0, [(p.name, p.outcome, p.reason, p.conflicts) for p in report.plans]
    assert {p.name: p.outcome for p in report.plans}["sibling"] == "synced"
    again = sync(copy, dry_run=True)
    assert [p.outcome for p in again.plans] == ["up-to-date", "up-to-date"]


def test_the_sibling_gains_embed_with_outcome_and_keeps_its_uds_transport_and_wider_except_inside_it(synced) -> None:
    copy, _ = synced
    sibling = copy.lineages["sibling"].root
    assert (sibling / "outcome.py").is_file() and (sibling / "health.py").is_file()
    source = (sibling / "embedding.py").read_text()
    method = _method(source, "EmbeddingClient", "embed_with_outcome")
    tests = [ast.unparse(n.test) for n in ast.walk(method) if isinstance(n, ast.If)]
    assert "self.mode == 'uds'" in tests
    caught = [ast.unparse(h.type) for n in ast.walk(method) if isinstance(n, ast.Try) for h in n.handlers if h.type]
    assert "(httpx.TimeoutException, TimeoutError)" in caught
    wrapper = _method(source, "EmbeddingClient", "embed")
    assert not any(isinstance(n, ast.Try) for n in ast.walk(wrapper)), "embed() became the thin wrapper"
    assert _method(source, "EmbeddingClient", "_embed_via_uds")


@pytest.mark.parametrize("lineage", ["upstream", "sibling"])
def test_every_lineage_imports_and_passes_its_own_tests_after_the_sync(synced, lineage: str) -> None:
    copy, _ = synced
    tests = copy.lineages[lineage].tests
    assert tests is not None
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        capture_output=True,
        text=True,
        cwd=tests.parent,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout


UDS_OUTCOME = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from mcp_common.embedding import EmbeddingClient
client = EmbeddingClient("uds", http_url="http://localhost/embed", uds_path="/tmp/plait-no-such-socket")
value, outcome = asyncio.run(client.embed_with_outcome(["hello"]))
print(json.dumps([value, outcome.attempted, outcome.ok, outcome.error]))
"""


def test_a_uds_failure_after_the_sync_follows_the_outcome_rules(synced) -> None:
    copy, _ = synced
    root = copy.lineages["sibling"].root.parent
    proc = subprocess.run(
        [sys.executable, "-c", UDS_OUTCOME, str(root)], capture_output=True, text=True, timeout=60, env=os.environ
    )
    assert proc.returncode == 0, proc.stderr
    value, attempted, ok, error = __import__("json").loads(proc.stdout)
    assert (value, attempted, ok) == (None, True, False)
    assert error.startswith("mode=uds / POST http://localhost:80/embed failed: ")


def test_status_of_the_bundled_workspace_shows_the_sibling_behind_with_what_it_carries() -> None:
    rows = {row.name: row for row in status(Workspace.load(REPO / "lineages"))}
    assert rows["upstream"].state in ("up-to-date", "behind")
    assert any(line.brief == "client_from_env" for line in rows["upstream"].kept)
    sibling = rows["sibling"]
    assert sibling.state == "behind"
    pending = {(line.file, line.brief) for line in sibling.pending}
    assert ("embedding.py", "+ EmbeddingClient.embed_with_outcome") in pending
    assert ("outcome.py", "+ file outcome.py") in pending
    assert ("embedding.py", "EmbeddingClient._embed_via_uds") in {(line.file, line.brief) for line in sibling.kept}


def test_the_bases_come_from_the_store() -> None:
    ws = Workspace.load(REPO / "lineages")
    state = ws.store.state()
    upstream, sibling = state.record("upstream"), state.record("sibling")
    assert upstream is not None and sibling is not None
    assert upstream.base.commit is not None and upstream.base.commit.startswith("b1ce895")
    assert not (REPO / "lineages" / "bases").exists()
    v0 = ws.store.load(sibling.base, what="sibling base")
    assert "outcome.py" not in v0 and "health.py" not in v0
    assert "embed_with_outcome" not in v0["embedding.py"]
    # upstream is its base, carried into mcp_common, plus client_from_env of its own.
    base = ws.lineages["upstream"].carry(ws.store.load(upstream.base, what="upstream base"), ws.canonical)
    diff = compare_files(base, ws.read_files(ws.lineages["upstream"]), a="base", b="upstream")
    assert {(m.file, m.path, m.status) for m in diff.members} == {
        ("__init__.py", "client_from_env", "only-b"),
        ("__init__.py", "import os", "only-b"),
        ("__init__.py", "from collections.abc import Mapping", "only-b"),
        ("__init__.py", "import mcp_common.embedding", "only-b"),
        ("__init__.py", "__all__", "changed"),
    }

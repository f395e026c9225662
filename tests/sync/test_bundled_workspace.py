"""The bundled workspace is a real one: its lineages sync cleanly from the canonical client.

Everything that writes works on a copy (`copy_workspace`), so the repository
stays as committed: upstream as of the canonical client's 3946f31 (the
first hardening step, which brought the call tracing), the
sibling forked from an older upstream ("v0", kept only in the store) that
already traced each call (`_request(payload, count, call)`) but had no
`embed_with_outcome()`, `outcome.py` or `health.py` yet.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plait.conformance.servers import vector_for
from plait.lineage.diff import compare_files
from plait.lineage.status import status
from plait.lineage.sync import sync
from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # the lineages' own test suites

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, object]:
    copy = copy_workspace(Workspace.load(REPO / "lineages"), tmp_path_factory.mktemp("bundled"))
    return copy, sync(copy)


def _method(source: str, cls: str, name: str) -> ast.AsyncFunctionDef | ast.FunctionDef:
    tree = ast.parse(source)
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    return next(n for n in klass.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name)


def test_upstream_takes_the_client_hardening_cleanly_and_keeps_its_own_addition(synced) -> None:
    copy, report = synced
    plan = next(p for p in report.plans if p.name == "upstream")
    assert plan.outcome == "synced" and not plan.conflicts
    assert "kept: client_from_env" in [line.text for line in plan.kept()]
    upstream = copy.lineages["upstream"]
    carried = upstream.carry(copy.read_files(copy.canonical), copy.canonical)
    diff = compare_files(carried, copy.read_files(upstream), a="canonical", b="upstream")
    assert {m.path for m in diff.members} == {
        "client_from_env",
        "import os",
        "from collections.abc import Mapping",
        "import mcp_common.embedding",
        "__all__",
    }, "after the sync upstream is the canonical client plus its own addition, nothing else"


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
    # The canonical's own `except TimeoutError` (the deadline) stays first, so
    # the sibling's wider catch still takes every other OSError.
    assert caught.index("TimeoutError") < caught.index("(httpx.TimeoutException, OSError)")
    wrapper = _method(source, "EmbeddingClient", "embed")
    assert not any(isinstance(n, ast.Try) for n in ast.walk(wrapper)), "embed() became the thin wrapper"
    assert _method(source, "EmbeddingClient", "_embed_via_uds")


def _run_own_tests(ws: Workspace, lineage: str) -> None:
    tests = ws.lineages[lineage].tests
    assert tests is not None
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        capture_output=True,
        text=True,
        cwd=tests.parent,
        # The lineage as committed runs in the repository, which must stay as it is.
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout


@pytest.mark.parametrize("lineage", ["upstream", "sibling"])
def test_every_lineage_passes_its_own_tests_as_committed(lineage: str) -> None:
    _run_own_tests(Workspace.load(REPO / "lineages"), lineage)


@pytest.mark.parametrize("lineage", ["upstream", "sibling"])
def test_every_lineage_imports_and_passes_its_own_tests_after_the_sync(synced, lineage: str) -> None:
    copy, _ = synced
    _run_own_tests(copy, lineage)


UDS_OUTCOMES = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from mcp_common.embedding import EmbeddingClient

async def outcome(url):
    async with EmbeddingClient("uds", http_url=url, uds_path=sys.argv[2]) as client:
        value, outcome = await client.embed_with_outcome(["hello"])
        return [value, outcome.attempted, outcome.ok, outcome.error]

print(json.dumps([asyncio.run(outcome(url)) for url in sys.argv[3:]]))
"""


def test_uds_calls_after_the_sync_follow_the_outcome_rules(synced, uds_embedding_server) -> None:
    copy, _ = synced
    root = copy.lineages["sibling"].root.parent
    server = uds_embedding_server
    urls = [server.url("ok"), server.url("status-500")]
    proc = subprocess.run(
        [sys.executable, "-c", UDS_OUTCOMES, str(root), server.unix_path, *urls],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    ok, failed = json.loads(proc.stdout)
    assert ok == [[vector_for("hello")], True, True, None]
    assert failed[:3] == [None, True, False]
    assert failed[3].startswith("mode=uds / POST http://localhost:80/status-500 failed: HTTPStatusError")


def test_status_of_the_bundled_workspace_shows_the_sibling_behind_with_what_it_carries() -> None:
    rows = {row.name: row for row in status(Workspace.load(REPO / "lineages"))}
    # The canonical client moved on since upstream's base (3946f31): upstream is behind.
    assert rows["upstream"].state == "behind" and rows["upstream"].pending
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
    assert upstream.base.commit is not None and upstream.base.commit.startswith("3946f31")
    assert not (REPO / "lineages" / "bases").exists()
    v0 = ws.store.load(sibling.base, what="sibling base")
    assert "outcome.py" not in v0 and "health.py" not in v0
    assert "embed_with_outcome" not in v0["embedding.py"]
    # v0 already traced each call: the sibling's uds path calls `_request` as its http and api branches do.
    request = _method(v0["embedding.py"], "EmbeddingClient", "_request")
    assert [a.arg for a in request.args.args] == ["self", "payload", "count", "call"]
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

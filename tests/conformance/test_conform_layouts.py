"""Copies in any layout and any construction protocol, and workspaces that hold no embedding client at all.

Each test writes the copy it needs into a temporary directory: a minimal
client opened only with ``async with`` and taking no byte budget, a package
with two candidate client modules, a package whose other modules must not
be imported, a workspace declaring ``client_module``, and a workspace whose
canonical package is something else entirely.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from upstream_shaped import shaped_copy

from plait.cli import cli
from plait.conformance import path_target

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = REPO / "lineages"

# Opened only with `async with` (no initialize, no close), and without a byte-budget keyword.
CONTEXT_ONLY = """
import httpx


class Outcome:
    def __init__(self, attempted, ok, error=None):
        self.attempted, self.ok, self.error = attempted, ok, error


class EmbeddingClient:
    def __init__(self, mode, http_url="", api_key="", api_url="", model="", timeout=5.0):
        self.mode, self.url, self.timeout = mode, http_url, timeout
        self._client = None

    async def __aenter__(self):
        self._client = httpx.AsyncClient(timeout=self.timeout)
        return self

    async def __aexit__(self, *exc_info):
        await self._client.aclose()

    async def embed_with_outcome(self, texts):
        response = await self._client.post(self.url, json={"texts": texts})  # only once entered
        return response.json()["embeddings"], Outcome(True, True)
"""


def conform(*args: str, workspace: Path = WORKSPACE) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["conform", "--workspace", str(workspace), *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))


def test_a_client_opened_only_with_async_with_runs_and_a_missing_keyword_is_a_skip(tmp_path: Path) -> None:
    _write(tmp_path, {"contextclient.py": CONTEXT_ONLY})
    module = str(tmp_path / "contextclient.py")
    code, stdout, _ = conform("--path", module, "--scenario", "ok", "--scenario", "*-bomb", "--verbose")
    lines = stdout.splitlines()
    name = module
    assert f"{name}  ok  pass" in lines, stdout
    assert f"{name}  gzip-bomb  skip  not applicable: it has no byte-budget keyword" in lines
    assert f"{name}  deflate-bomb  skip  not applicable: it has no byte-budget keyword" in lines
    assert code == 0, "a scenario that does not apply is not a failure"


def test_several_candidate_client_modules_are_an_error_naming_them(tmp_path: Path) -> None:
    package = tmp_path / "twins"
    client = "class EmbeddingClient:\n    async def embed_with_outcome(self, texts): ...\n"
    _write(package, {"first.py": client, "second.py": client})
    _write(package, {"__init__.py": ""})
    code, _, stderr = conform("--path", str(package))
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1
    assert "twins: 2 modules define EmbeddingClient with embed_with_outcome: twins.first, twins.second" in lines[0]
    assert "--import MODULE --from DIR" in lines[0]


def test_a_package_that_is_no_client_is_refused_by_name(tmp_path: Path) -> None:
    _write(tmp_path, {"acme/__init__.py": "", "acme/tools.py": "def helper():\n    return 1\n"})
    code, _, stderr = conform("--path", str(tmp_path / "acme"))
    assert code == 2
    said = "acme is not an embedding client: none of its modules defines EmbeddingClient"
    assert f"{tmp_path / 'acme'}: {said}" in stderr


def test_looking_for_the_client_imports_nothing(tmp_path: Path) -> None:
    package = shaped_copy(tmp_path)
    marker = tmp_path / "imported"
    # A module of the package that would leave a mark if anything imported it.
    (package / "side_effect.py").write_text(f"open({str(marker)!r}, 'w').close()\nEmbeddingClient = None\n")
    target = path_target(package)
    assert target.import_name == "mcp_common.embedding_client"
    assert not marker.exists(), "looking read the source and imported nothing"
    code, stdout, _ = conform("--path", str(package), "--scenario", "mode-none")
    assert code == 0, stdout
    assert not marker.exists(), "the worker imports the client module, not the package's other modules"


def test_a_dotted_name_is_found_on_disk_from_its_directory(tmp_path: Path) -> None:
    shaped_copy(tmp_path)
    code, _, stderr = conform("--import", "mcp_common.nowhere", "--from", str(tmp_path))
    assert code == 2 and "no module mcp_common.nowhere here" in stderr
    code, _, stderr = conform("--from", str(tmp_path))
    assert code == 2 and "--from names the directory an --import is imported from" in stderr


MANIFEST = """\
root = "."

[canonical]
package = "embedding_client"
path = "canonical/embedding_client"

[lineages.shaped]
path = "shaped/mcp_common"
package = "mcp_common"
client_module = "{module}"

[consumers.svc]
path = "svc"
vendor_dir = "svc/_vendored/mcp_common"
package = "svc._vendored.mcp_common"
source = "shaped"
client_module = "embedding_client"
"""


def _workspace(root: Path, module: str = "embedding_client") -> Path:
    shutil.copytree(REPO / "client" / "embedding_client", root / "canonical" / "embedding_client")
    shaped_copy(root / "shaped")
    _write(root, {"svc/svc/__init__.py": "", "svc/svc/_vendored/__init__.py": ""})
    shaped_copy(root / "svc" / "svc" / "_vendored")
    (root / "lineages.toml").write_text(MANIFEST.format(module=module))
    return root


def test_client_module_in_the_manifest_names_the_module_of_a_lineage_and_a_consumer(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    code, stdout, _ = conform("--scenario", "huge-int", "--scenario", "nan", "--json", workspace=ws)
    data = json.loads(stdout)
    copies = {copy["name"]: copy for copy in data["copies"]}
    assert copies["shaped"]["import_name"] == "mcp_common.embedding_client"
    assert copies["svc"]["import_name"] == "svc._vendored.mcp_common.embedding_client"
    for name in ("shaped", "svc"):
        results = {r["scenario"]: r for r in copies[name]["results"]}
        assert results["huge-int"]["status"] == "fail"
        assert results["nan"]["status"] == "parity"
    assert code == 1


def test_a_client_module_that_is_not_there_is_that_copys_error(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, module="embeddings")
    code, stdout, stderr = conform("--scenario", "ok", workspace=ws)
    assert code == 2
    assert "shaped: client_module 'embeddings' is no module of its package" in stderr
    assert "canonical is the reference: 1/1 pass" in stdout.splitlines(), "the others still run"
    said = f"shaped  error  client_module 'embeddings' is no module of its package ({ws / 'shaped' / 'mcp_common'})"
    assert said in stdout.splitlines(), "its name once, then what is wrong and where"


def _not_a_client(root: Path) -> Path:
    _write(root, {"src/acme/__init__.py": '"""Acme tools."""\n', "src/acme/tools.py": "def helper():\n    return 1\n"})
    (root / "lineages.toml").write_text('root = "."\n\n[canonical]\npackage = "acme"\npath = "src/acme"\n')
    return root


def test_a_workspace_whose_canonical_package_is_no_client_has_nothing_to_check(tmp_path: Path) -> None:
    ws = _not_a_client(tmp_path)
    code, stdout, stderr = conform(workspace=ws)
    assert code == 0, stderr
    assert stdout.splitlines() == [
        "nothing to check: the canonical package acme is not an embedding client: none of its modules defines"
        f" EmbeddingClient ({ws / 'src' / 'acme'}); --force runs the scenarios anyway"
    ]
    code, stdout, _ = conform("--json", workspace=ws)
    data = json.loads(stdout)
    assert code == 0 and data["exit"] == 0 and data["copies"] == []
    assert data["nothing_to_check"].startswith("nothing to check: the canonical package acme")


@pytest.mark.parametrize("fmt", ["junit", "markdown"])
def test_nothing_to_check_in_every_format(tmp_path: Path, fmt: str) -> None:
    code, stdout, _ = conform("--format", fmt, workspace=_not_a_client(tmp_path))
    assert code == 0
    if fmt == "junit":
        assert '<testsuites name="plait conform" time="0.000" tests="0" failures="0" errors="0" />' in stdout
    else:
        assert stdout.startswith("nothing to check: ")


def test_force_runs_a_package_that_does_not_look_like_a_client(tmp_path: Path) -> None:
    code, _, stderr = conform("--force", "--scenario", "ok", workspace=_not_a_client(tmp_path))
    assert code == 2
    assert "canonical: cannot import acme from" in stderr and "acme exports no EmbeddingClient" in stderr


def test_the_demo_says_there_is_nothing_to_check_where_the_canonical_package_is_no_client(tmp_path: Path) -> None:
    ws = _not_a_client(tmp_path)
    result = CliRunner().invoke(cli, ["demo", "--json", "--workspace", str(ws)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    said = json.loads(result.stdout)["conform"]["nothing_to_check"]
    assert said.startswith("nothing to check: the canonical package acme is not an embedding client")

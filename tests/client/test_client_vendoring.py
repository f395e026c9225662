"""The client can be vendored: it imports with nothing but the stdlib and httpx."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import embedding_client

# httpx and what httpx itself needs at run time; nothing else may be on the path.
HTTPX_CLOSURE = ("httpx", "httpcore", "anyio", "idna", "certifi", "h11", "sniffio", "typing_extensions")

PROBE = """
import sys
sys.path[:0] = [{path!r}]
import embedding_client, json
client = embedding_client.EmbeddingClient("none")
blob = embedding_client.pack_embedding([0.5, -2.0])
roots = sorted({{name.partition(".")[0] for name in sys.modules}})
print(json.dumps({{"roots": roots, "file": embedding_client.__file__,
                   "unpacked": embedding_client.unpack_embedding(blob)}}))
"""


def _copy_top_level(name: str, into: Path) -> None:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return  # optional on this Python (e.g. typing_extensions)
    if spec.submodule_search_locations:
        source = Path(next(iter(spec.submodule_search_locations)))
        shutil.copytree(source, into / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    elif spec.origin:
        shutil.copy2(spec.origin, into)


def run_isolated(code: str, cwd: Path) -> str:
    """Run *code* in a fresh interpreter that sees only the stdlib and what *code* adds; its stdout."""
    # -I: no environment, no user site, no cwd; -S: no site-packages at all.
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60, cwd=cwd
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_client_imports_with_only_stdlib_and_httpx(tmp_path: Path) -> None:
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    client_dir = Path(embedding_client.__file__).parent
    shutil.copytree(client_dir, vendor / "embedding_client", ignore=shutil.ignore_patterns("__pycache__"))
    for name in HTTPX_CLOSURE:
        _copy_top_level(name, vendor)
    report = json.loads(run_isolated(PROBE.format(path=str(vendor)), tmp_path))
    assert report["file"].startswith(str(vendor))
    assert report["unpacked"] == [0.5, -2.0]
    foreign = [
        root
        for root in report["roots"]
        if root not in sys.stdlib_module_names
        and root not in HTTPX_CLOSURE
        and root not in ("embedding_client", "__main__")
    ]
    assert foreign == [], f"the client pulled in {foreign}"


HEALTH_PROBE = """
import sys
sys.modules["httpx"] = None  # any import of httpx now fails
sys.path[:0] = [{path!r}]
from lone import health
h = health.EmbeddingHealth()
h.observe_config("none")
print(h.maybe_advisory()["severity"])
"""


def test_health_and_the_evidence_record_need_only_the_standard_library(tmp_path: Path) -> None:
    # health reads the evidence record from outcome.py and its payload types
    # from _types.py; together they must stay usable by a service that feeds
    # outcomes from its own wrapper.
    package = tmp_path / "lone"
    package.mkdir()
    (package / "__init__.py").write_text("")
    client_dir = Path(embedding_client.__file__).parent
    for name in ("health.py", "outcome.py", "_types.py"):
        shutil.copy2(client_dir / name, package / name)
    assert run_isolated(HEALTH_PROBE.format(path=str(tmp_path)), tmp_path).strip() == "hint"

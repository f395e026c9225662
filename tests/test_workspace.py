"""The bundled workspace stays truthful: what lineages.toml names exists, and
the demo consumer carries the canonical client byte for byte (until `plait
vendor` and its provenance lock take over this check)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = ROOT / "lineages"


def _manifest() -> dict:
    return tomllib.loads((WORKSPACE / "lineages.toml").read_text(encoding="utf-8"))


def test_every_path_in_the_manifest_exists_and_parses() -> None:
    m = _manifest()
    paths = [m["canonical"]["path"]]
    for lineage in m["lineages"].values():
        paths.append(lineage["path"])
        if "base" in lineage:
            paths.append(lineage["base"])
    paths += [c["path"] for c in m["consumers"].values()]
    for rel in paths:
        folder = (WORKSPACE / rel).resolve()
        assert folder.is_dir(), rel
        for py in folder.rglob("*.py"):
            ast.parse(py.read_text(encoding="utf-8"), filename=str(py))


def test_demo_consumer_vendors_the_canonical_client_unchanged() -> None:
    m = _manifest()
    canonical = (WORKSPACE / m["canonical"]["path"]).resolve()
    consumer = m["consumers"]["cpersona"]
    vendored = WORKSPACE / consumer["path"] / consumer["vendor_dir"] / consumer["package"]
    want = {
        p.relative_to(canonical): p.read_bytes()
        for p in canonical.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    have = {
        p.relative_to(vendored): p.read_bytes()
        for p in vendored.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert sorted(have) == sorted(want)
    drifted = [str(rel) for rel in want if have[rel] != want[rel]]
    assert not drifted, f"vendored copy drifted from the canonical client: {drifted}"

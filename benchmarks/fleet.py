"""A fleet for the benchmarks: one canonical package and many consumers that vendor it.

`check_speed.py` and `vendor_scale.py` measure plait on the same shape of
workspace, built here: the canonical package at ``canonical/embedding_client``
and consumers ``svc000``, ``svc001``, … each vendoring it into
``<name>/_vendor/embedding_client`` (package ``<name>._vendor.embedding_client``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

PACKAGE = "embedding_client"


def consumer_name(i: int) -> str:
    return f"svc{i:03d}"


def vendor_dir(root: Path, i: int) -> Path:
    """Where consumer *i* of the fleet at *root* vendors the package."""
    name = consumer_name(i)
    return root / "consumers" / name / name / "_vendor" / PACKAGE


def write_fleet(root: Path, consumers: int, source: Path) -> Path:
    """The workspace at *root*, nothing vendored yet: *source* copied as the canonical package,
    and *consumers* consumer packages declared in its manifest; the canonical package's directory."""
    package = root / "canonical" / PACKAGE
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    manifest = [f'[canonical]\npackage = "{PACKAGE}"\npath = "canonical/{PACKAGE}"\n']
    for i in range(consumers):
        name = consumer_name(i)
        (root / "consumers" / name / name / "_vendor").mkdir(parents=True)
        (root / "consumers" / name / name / "__init__.py").write_text("")
        (root / "consumers" / name / name / "_vendor" / "__init__.py").write_text("")
        manifest.append(
            f'[consumers.{name}]\npath = "consumers/{name}"\nvendor_dir = "{name}/_vendor/{PACKAGE}"\n'
            f'package = "{name}._vendor.{PACKAGE}"\n'
        )
    (root / "lineages.toml").write_text("\n".join(manifest))
    return package

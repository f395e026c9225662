"""The default transform of one member: its own packages kept, every sibling's imports moved into the namespace."""

from __future__ import annotations

from pathlib import Path

from dist_builders import pip_vendor_group

from plait.groups.model import DistributionContext
from plait.groups.transform import transform_distribution


def _ctx(tmp_path: Path, top_level: tuple[str, ...]) -> DistributionContext:
    group = pip_vendor_group(tmp_path)
    return DistributionContext(group, "requests", "2.32.0", top_level, frozenset({"requests", "urllib3", "idna"}))


def test_siblings_are_imported_from_the_namespace_and_metadata_is_left_out(tmp_path: Path) -> None:
    tree = {
        "requests/__init__.py": "import urllib3\nfrom idna import encode\nimport os\nfrom . import api\n",
        "requests/api.py": "from urllib3.util import retry\n",
        "requests-2.32.0.dist-info/RECORD": "",
        "requests/__pycache__/api.cpython-311.pyc": "",
        "bin/requests": "#!/bin/sh\n",
    }
    out = transform_distribution(tree, _ctx(tmp_path, ("requests",)))
    assert sorted(out) == ["requests/__init__.py", "requests/api.py"]
    assert out["requests/__init__.py"] == (
        "from pip._vendor import urllib3\nfrom pip._vendor.idna import encode\nimport os\nfrom . import api\n"
    )
    assert out["requests/api.py"] == "from pip._vendor.urllib3.util import retry\n"


def test_a_single_module_distribution_keeps_its_module(tmp_path: Path) -> None:
    out = transform_distribution({"six.py": "import os\n", "other.py": ""}, _ctx(tmp_path, ("six",)))
    assert out == {"six.py": "import os\n"}

"""The CycloneDX SBOM vendoring 1.4.0 writes for `sbom-file` (its sbom.py), byte for byte.

The shape is vendoring's: one component for the namespace's top-level name,
one per pin sorted by (name, version) as vendor.txt spells them, a purl per
pin, `json.dumps(indent=2, sort_keys=True)` with no newline at the end.  The
tool entry defaults to what vendoring writes, so a project moving to plait
sees no change in the file; a caller may name plait instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import quote

from .requirements import Pin

__all__ = ["VENDORING_TOOL", "sbom_text"]

VENDORING_TOOL = ("vendoring", "1.4.0")


def sbom_text(namespace: str, pins: Iterable[Pin], *, tool: tuple[str, str] = VENDORING_TOOL) -> str:
    """The SBOM file's text for the group vendored under *namespace* with *pins*."""
    top_level = namespace.split(".", 1)[0]
    top_ref = f"bom-ref:{top_level}"
    components: list[dict[str, str]] = [{"bom-ref": top_ref, "name": top_level, "type": "library"}]
    depends_on: list[str] = []
    dependencies: list[dict[str, object]] = [{"ref": top_ref, "dependsOn": depends_on}]
    for pin in sorted(pins, key=lambda pin: (pin.name, pin.version)):
        purl = f"pkg:pypi/{quote(pin.name, safe='')}@{quote(pin.version, safe='')}"
        components.append({"name": pin.name, "version": pin.version, "purl": purl, "type": "library", "bom-ref": purl})
        depends_on.append(purl)
        dependencies.append({"ref": purl})
    document = {
        "$schema": "http://cyclonedx.org/schema/bom-1.4.schema.json",
        "bomFormat": "CycloneDX",
        "specVersion": "1.4",
        "version": 1,
        "metadata": {"tools": [{"name": tool[0], "version": tool[1]}], "component": components[0]},
        "components": components,
        "dependencies": dependencies,
    }
    return json.dumps(document, indent=2, sort_keys=True)

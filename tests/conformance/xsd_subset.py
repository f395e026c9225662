"""A validator for the small XSD subset ``junit.xsd`` is written in, standard library only.

No XSD validator ships with Python and the test dependencies stay pytest,
pytest-asyncio and hypothesis, so this reads the schema itself and checks a
document against it.  It understands exactly what the vendored schema uses,
and refuses anything else rather than ignoring it:

- global ``xs:element`` declarations, either ``type="xs:string"`` (text
  only) or an ``xs:complexType`` (``mixed`` or not);
- a complex type's ``xs:sequence`` of ``xs:element ref=...`` particles with
  ``minOccurs`` / ``maxOccurs`` (``unbounded`` too);
- ``xs:attribute`` with ``use`` (required or optional) and a type among
  ``xs:string``, ``xs:int`` and ``xs:decimal``.

Undeclared elements and attributes are errors, as in a real validator.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

XS = "{http://www.w3.org/2001/XMLSchema}"


@dataclass
class Declaration:
    name: str
    text_only: bool = False
    mixed: bool = False
    sequence: list[tuple[str, int, float]] = field(default_factory=list)
    attributes: dict[str, tuple[str, bool]] = field(default_factory=dict)


def _bound(value: str | None, default: int) -> float:
    if value is None:
        return default
    return math.inf if value == "unbounded" else int(value)


def read_schema(path: Path) -> dict[str, Declaration]:
    root = ET.parse(path).getroot()
    declarations: dict[str, Declaration] = {}
    for element in root:
        if element.tag is ET.Comment:
            continue
        if element.tag != f"{XS}element":
            raise ValueError(f"unsupported top-level schema construct {element.tag}")
        declaration = Declaration(element.attrib["name"])
        if element.get("type") == "xs:string":
            declaration.text_only = True
        else:
            complex_type = element.find(f"{XS}complexType")
            if complex_type is None:
                raise ValueError(f"{declaration.name}: neither xs:string nor a complex type")
            declaration.mixed = complex_type.get("mixed") == "true"
            for part in complex_type:
                if part.tag == f"{XS}sequence":
                    for particle in part:
                        declaration.sequence.append(
                            (
                                particle.attrib["ref"],
                                int(_bound(particle.get("minOccurs"), 1)),
                                _bound(particle.get("maxOccurs"), 1),
                            )
                        )
                elif part.tag == f"{XS}attribute":
                    declaration.attributes[part.attrib["name"]] = (part.attrib["type"], part.get("use") == "required")
                else:
                    raise ValueError(f"{declaration.name}: unsupported construct {part.tag}")
        declarations[declaration.name] = declaration
    return declarations


def _type_ok(kind: str, value: str) -> bool:
    if kind == "xs:string":
        return True
    if kind == "xs:int":
        try:
            return -(2**31) <= int(value) < 2**31
        except ValueError:
            return False
    if kind == "xs:decimal":
        try:
            return Decimal(value).is_finite() and "e" not in value.lower()
        except InvalidOperation:
            return False
    raise ValueError(f"unsupported attribute type {kind}")


def validate(document: str, schema: dict[str, Declaration]) -> list[str]:
    """Every way *document* breaks *schema*, as ``path: problem`` lines (empty when valid)."""
    problems: list[str] = []
    root = ET.fromstring(document)
    if root.tag not in schema:
        return [f"/{root.tag}: not a declared element"]
    _check(root, schema, f"/{root.tag}", problems)
    return problems


def _check(node: ET.Element, schema: dict[str, Declaration], where: str, problems: list[str]) -> None:
    declaration = schema[node.tag]
    if declaration.text_only:
        if len(node):
            problems.append(f"{where}: holds elements, but is text only")
        if node.attrib:
            problems.append(f"{where}: takes no attributes")
        return
    for name, (kind, required) in declaration.attributes.items():
        if name not in node.attrib:
            if required:
                problems.append(f"{where}: lacks the required attribute {name}")
        elif not _type_ok(kind, node.attrib[name]):
            problems.append(f"{where}/@{name}: {node.attrib[name]!r} is not an {kind}")
    for name in node.attrib:
        if name not in declaration.attributes:
            problems.append(f"{where}/@{name}: not a declared attribute")
    if not declaration.mixed and (node.text or "").strip():
        problems.append(f"{where}: holds text, but is not mixed")
    children = list(node)
    position = 0
    for ref, low, high in declaration.sequence:
        count = 0
        while position < len(children) and children[position].tag == ref and count < high:
            _check(children[position], schema, f"{where}/{ref}[{count}]", problems)
            position += 1
            count += 1
        if count < low:
            problems.append(f"{where}: needs at least {low} {ref}")
    for child in children[position:]:
        problems.append(f"{where}/{child.tag}: not allowed here (out of order, too many, or undeclared)")
    for child in children:
        if not declaration.mixed and (child.tail or "").strip():
            problems.append(f"{where}: text between elements, but is not mixed")

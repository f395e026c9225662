"""vendor.txt: the pins, read exactly as vendoring 1.4.0's `parse_pinned_packages` reads them.

Every line must be `NAME==VERSION` with optional leading whitespace (the
indented sub-dependency lines pip's vendor.txt has) and any suffix (a
comment, markers): vendoring refuses any other line, blank ones included, and
so does plait, naming the file and line.  A bump rewrites only the version of
one pin, keeping every other byte.
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name
from packaging.version import VERSION_PATTERN

from ..errors import PlaitError
from ..records import record

__all__ = ["Pin", "bump_pin", "parse_pins"]

# vendoring's own pattern (tasks/update.py); a requirements line is not Python code.
_PIN = re.compile(
    r"^(?P<prefix>\s*)(?P<name>[A-Z][A-Z0-9\-._]*)\s*==\s*(?P<version>" + VERSION_PATTERN + r")(?P<suffix>.*)$",
    re.VERBOSE | re.IGNORECASE,
)


@record(frozen=True)
class Pin:
    """One `name==version` line of vendor.txt."""

    name: str
    version: str
    line: int
    prefix: str
    suffix: str

    @property
    def canonical(self) -> str:
        return canonicalize_name(self.name)

    @property
    def indented(self) -> bool:
        """A sub-dependency line (vendor.txt indents what another pin needs)."""
        return self.prefix != ""


def parse_pins(text: str, *, path: str) -> tuple[Pin, ...]:
    """The pins of *text* (vendor.txt read from *path*); a line vendoring would refuse is an error."""
    pins: list[Pin] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _PIN.match(line)
        if match is None:
            raise PlaitError(f"not a `name==version` pin (as vendoring requires): {line!r}", path=path, line=number)
        pin = Pin(
            name=match["name"], version=match["version"], line=number, prefix=match["prefix"], suffix=match["suffix"]
        )
        if pin.canonical in seen:
            raise PlaitError(
                f"{pin.name} is pinned twice (first on line {seen[pin.canonical]})", path=path, line=number
            )
        seen[pin.canonical] = number
        pins.append(pin)
    return tuple(pins)


def bump_pin(text: str, name: str, version: str, *, path: str) -> str:
    """*text* with the pin of *name* set to *version*, every other byte (and its line ending) kept."""
    wanted = canonicalize_name(name)
    pins = {pin.line: pin for pin in parse_pins(text, path=path)}
    lines = text.splitlines(keepends=True)
    for number, pin in pins.items():
        if pin.canonical == wanted:
            body = lines[number - 1]
            ending = body[len(body.rstrip("\r\n")) :]
            lines[number - 1] = f"{pin.prefix}{pin.name}=={version}{pin.suffix}{ending}"
            return "".join(lines)
    raise PlaitError(f"{name} is not pinned here", path=path)

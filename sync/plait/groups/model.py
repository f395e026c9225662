"""A group as the manifest declares it: one vendored directory, one namespace, a requirements file.

pip vendors about twenty distributions into ``src/pip/_vendor`` under
``pip._vendor``, pinned in ``vendor.txt``.  Each distribution is a member
of the group, a copy of its own named ``GROUP/DIST`` (``pip-vendor/urllib3``);
the group's directory holds one lock for all of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ..errors import PlaitError
from ..records import field, record

__all__ = [
    "GROUP_KEYS",
    "DistributionContext",
    "Group",
    "Pin",
    "canonical_name",
    "member_name",
    "owner_of",
    "read_pins",
]

# Every key a [groups.NAME] table may hold; "vendoring" is the table vendoring_compat reads.
GROUP_KEYS = ("path", "namespace", "requirements", "protected", "index_url", "find_links", "description", "vendoring")

_NAME_RUN = re.compile(r"[-_.]+")
# A pin as vendor.txt spells one: ``name==version``, extras and a marker allowed, a comment after.
_PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*(?P<version>[A-Za-z0-9.+!_-]+)\s*(?:;[^#]*)?(?:#.*)?$"
)


def canonical_name(name: str) -> str:
    """A distribution's name as packaging normalises it (PEP 503): ``Typing_Extensions`` → ``typing-extensions``."""
    return _NAME_RUN.sub("-", name).lower()


def member_name(group: str, dist: str) -> str:
    """How people and the CLI name a member: ``pip-vendor/urllib3``."""
    return f"{group}/{canonical_name(dist)}"


@record(frozen=True)
class Pin:
    """One ``name==version`` line of a requirements file (``line``: 1-based, for errors)."""

    name: str
    version: str
    line: int = 0

    @property
    def key(self) -> str:
        return canonical_name(self.name)

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}"


@record(frozen=True, kw_only=True)
class Group:
    """A ``[groups.NAME]`` table, its paths resolved and confined by the workspace.

    directory: the vendored directory; namespace: its import name.
    requirements: the pins file.  protected: globs (relative to the
    directory) of the project's own files there, never written.
    index_url / find_links: passed to pip only when given, so the user's
    own pip configuration applies otherwise.
    compat: the raw ``[groups.NAME.vendoring]`` table (vendoring_compat's to read).
    confine: the directory no file of the group may leave.
    """

    name: str
    directory: Path
    namespace: str
    requirements: Path
    confine: Path
    protected: tuple[str, ...] = ()
    index_url: str | None = None
    find_links: tuple[str, ...] = ()
    description: str = ""
    compat: Mapping[str, object] = field(default_factory=dict)

    def pins(self) -> list[Pin]:
        return read_pins(self.requirements)


@record(frozen=True)
class DistributionContext:
    """What the transform of one member's files is given (see `plait.groups.transform`).

    top_level: the top-level packages and modules the distribution provides.
    siblings: every top-level name the group's members provide (its own included).
    """

    group: Group
    name: str
    version: str
    top_level: tuple[str, ...]
    siblings: frozenset[str]


def owner_of(rel: str, top_levels: Mapping[str, tuple[str, ...]]) -> str | None:
    """The member (a key of *top_levels*) whose files include *rel*, a path in the group's directory.

    The first part of *rel* names it (``urllib3/util/retry.py``), or that part
    up to its first dot (``six.py``, ``six.pyi``, ``six.LICENSE``); None: the project's own file.
    """
    first = rel.split("/", 1)[0]
    stem = first.split(".", 1)[0]
    for member, names in top_levels.items():
        if first in names or stem in names:
            return member
    return None


def read_pins(path: Path) -> list[Pin]:
    """The pins of a requirements file: ``name==version`` lines, comments and blank lines skipped.

    An indented line is a sub-dependency vendoring vendors too: a pin like
    any other.  A line that is no pin is an error naming file and line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlaitError(f"cannot read the requirements: {exc.strerror or exc}", path=str(path)) from None
    pins: list[Pin] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        found = _PIN.match(line)
        if found is None:
            raise PlaitError(f"not a pin (name==version): {line!r}", path=str(path), line=number)
        pin = Pin(found["name"], found["version"], number)
        if pin.key in seen:
            raise PlaitError(f"{pin.name} is pinned twice (line {seen[pin.key]} too)", path=str(path), line=number)
        seen[pin.key] = number
        pins.append(pin)
    return pins

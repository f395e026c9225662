"""`[tool.vendoring]` from pyproject.toml, validated as vendoring 1.4.0's schema does.

vendoring validates with a JSON schema where every table has
``additionalProperties: false``; plait refuses the same keys, but names the
file and line of the offending key (vendoring names neither), exit 2.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import PurePosixPath

from ..errors import PlaitError
from ..records import record
from ..toml_input import check_bounds

__all__ = ["Substitution", "VendoringConfig", "config_from_table", "read_vendoring_config"]

_TOP_KEYS = frozenset(
    {
        "destination",
        "namespace",
        "requirements",
        "protected-files",
        "patches-dir",
        "sbom-file",
        "transformations",
        "license",
        "typing-stubs",
    }
)
_REQUIRED = ("destination", "namespace", "requirements")
_TRANSFORMATION_KEYS = frozenset({"substitute", "drop"})
_LICENSE_KEYS = frozenset({"directories", "fallback-urls"})
_SUBSTITUTE_KEYS = frozenset({"match", "replace"})


@record(frozen=True)
class Substitution:
    """One `transformations.substitute` entry: a `re.sub` pattern and its replacement."""

    match: str
    replace: str


@record(frozen=True)
class VendoringConfig:
    """The `[tool.vendoring]` table, typed; paths stay as spelled (relative to the project)."""

    destination: PurePosixPath
    namespace: str
    requirements: PurePosixPath
    protected_files: tuple[str, ...]
    patches_dir: PurePosixPath | None
    sbom_file: PurePosixPath | None
    substitute: tuple[Substitution, ...]
    drop: tuple[str, ...]
    license_directories: Mapping[str, str]
    license_fallback_urls: Mapping[str, str]
    typing_stubs: Mapping[str, tuple[str, ...]]


def read_vendoring_config(text: str, *, path: str) -> VendoringConfig | None:
    """The `[tool.vendoring]` table of the pyproject *text* read from *path*; None when it has none."""
    check_bounds(text, path=path, what="pyproject.toml")
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PlaitError(f"not valid TOML: {error}", path=path) from None
    tool = parsed.get("tool")
    if not isinstance(tool, dict) or "vendoring" not in tool:
        return None
    table = tool["vendoring"]
    if not isinstance(table, dict):
        raise PlaitError("[tool.vendoring] must be a table", path=path, line=_line_of(text, ("vendoring",)))
    return config_from_table(table, path=path, text=text, prefix=("tool", "vendoring"))


def config_from_table(
    table: Mapping[str, object], *, path: str, text: str = "", prefix: tuple[str, ...] = ()
) -> VendoringConfig:
    """Validate *table* (spelled as [tool.vendoring] spells it) into a VendoringConfig.

    *text* is the TOML the table came from, used only to name the line of a bad key.
    """

    def fail(message: str, keys: tuple[str, ...]) -> PlaitError:
        dotted = ".".join((*prefix, *keys))
        return PlaitError(f"{dotted}: {message}", path=path, line=_line_of(text, keys) if text else None)

    def string(value: object, keys: tuple[str, ...]) -> str:
        if not isinstance(value, str):
            raise fail("must be a string", keys)
        return value

    def strings(value: object, keys: tuple[str, ...]) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise fail("must be an array of strings", keys)
        return tuple(string(item, keys) for item in value)

    def table_of(value: object, keys: tuple[str, ...], allowed: frozenset[str] | None) -> Mapping[str, object]:
        if not isinstance(value, dict):
            raise fail("must be a table", keys)
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    raise fail(
                        f"unknown key {key!r} (vendoring 1.4.0 accepts: {', '.join(sorted(allowed))})", (*keys, key)
                    )
        return value

    table_of(dict(table), (), _TOP_KEYS)
    for key in _REQUIRED:
        if key not in table:
            raise fail(f"the required key {key!r} is missing", ())
    transformations = table_of(table.get("transformations", {}), ("transformations",), _TRANSFORMATION_KEYS)
    substitute: list[Substitution] = []
    raw_substitute = transformations.get("substitute", [])
    if not isinstance(raw_substitute, list):
        raise fail("must be an array of {match, replace} tables", ("transformations", "substitute"))
    for entry in raw_substitute:
        keys = ("transformations", "substitute")
        item = table_of(entry, keys, _SUBSTITUTE_KEYS)
        if "match" not in item or "replace" not in item:
            raise fail("each entry needs both 'match' and 'replace'", keys)
        substitute.append(Substitution(match=string(item["match"], keys), replace=string(item["replace"], keys)))
    license_table = table_of(table.get("license", {}), ("license",), _LICENSE_KEYS)

    def string_map(value: object, keys: tuple[str, ...]) -> dict[str, str]:
        return {name: string(item, (*keys, name)) for name, item in table_of(value, keys, None).items()}

    stubs = table_of(table.get("typing-stubs", {}), ("typing-stubs",), None)

    def optional_path(key: str) -> PurePosixPath | None:
        return PurePosixPath(string(table[key], (key,))) if key in table else None

    return VendoringConfig(
        destination=PurePosixPath(string(table["destination"], ("destination",))),
        namespace=string(table["namespace"], ("namespace",)),
        requirements=PurePosixPath(string(table["requirements"], ("requirements",))),
        protected_files=strings(table.get("protected-files", []), ("protected-files",)),
        patches_dir=optional_path("patches-dir"),
        sbom_file=optional_path("sbom-file"),
        substitute=tuple(substitute),
        drop=strings(transformations.get("drop", []), ("transformations", "drop")),
        license_directories=string_map(license_table.get("directories", {}), ("license", "directories")),
        license_fallback_urls=string_map(license_table.get("fallback-urls", {}), ("license", "fallback-urls")),
        typing_stubs={name: strings(value, ("typing-stubs", name)) for name, value in stubs.items()},
    )


def _line_of(text: str, keys: tuple[str, ...]) -> int | None:
    """The 1-based line where the last of *keys* is spelled in *text* (a key or a table header).

    TOML text, not Python: a scan of stripped lines for `key =`, `"key" =`
    or a header ending in the key.  None when the key cannot be found.
    """
    if not keys:
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip().replace(" ", "") in ("[tool.vendoring]",):
                return number
        return None
    last = keys[-1]
    spellings = (last, f'"{last}"', f"'{last}'")
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            header = stripped.strip("[]").replace(" ", "")
            if any(header.endswith("." + spelled) or header == spelled for spelled in spellings):
                return number
            continue
        for spelled in spellings:
            # `key = ...`, a dotted `table.key = ...`, or inside an inline table `{ key = ...`
            for start in _occurrences(stripped, spelled):
                before = stripped[start - 1] if start else ""
                after = stripped[start + len(spelled) :].lstrip()
                if before in ("", ".", " ", "{", ",") and after.startswith("=") and not after.startswith("=="):
                    return number
    return None


def _occurrences(text: str, word: str) -> list[int]:
    found: list[int] = []
    at = text.find(word)
    while at != -1:
        found.append(at)
        at = text.find(word, at + 1)
    return found

"""One distribution's tree → what `vendoring sync` leaves of it in the group directory.

The hook `plait.groups.transform` delegates to.  vendoring's order, per
distribution: drop, detect the libraries, rewrite every `.py` file
(universal newlines, substitutions, imports of every sibling), add the
license files, write the typing stubs.  Everything the drop leaves is kept,
as vendoring keeps it (a project drops `*.dist-info` and `bin/` itself).
Patches are not applied: the project's tree, adopted over this base, holds
what they did as local edits (see `patches`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from ..errors import PlaitError
from ..groups.model import DistributionContext, Group
from .config import VendoringConfig, config_from_table
from .drop import drop_paths
from .licenses import license_files
from .python_files import vendored_python_text
from .stubs import stub_files, vendored_libraries

__all__ = ["group_config", "transform_distribution"]


def group_config(group: Group) -> VendoringConfig:
    """The VendoringConfig of *group*: its own keys plus the raw `[groups.NAME.vendoring]` table."""
    table: dict[str, object] = {key.replace("_", "-"): value for key, value in group.compat.items()}
    table.setdefault("destination", str(group.directory))
    table.setdefault("namespace", group.namespace)
    table.setdefault("requirements", str(group.requirements))
    table.setdefault("protected-files", list(group.protected))
    return config_from_table(table, path=f"[groups.{group.name}.vendoring]", prefix=("groups", group.name, "vendoring"))


def transform_distribution(files: Mapping[str, str], ctx: DistributionContext) -> dict[str, str]:
    """The unpacked tree of ONE distribution → its files in the group directory, as vendoring writes them."""
    config = group_config(ctx.group)
    kept = drop_paths(files, config.drop).kept
    label = f"{ctx.group.name}/{ctx.name}=={ctx.version}"
    libraries = sorted(ctx.siblings)
    out: dict[str, str] = {}
    for rel in kept:
        text = files[rel]
        if rel.endswith(".py"):
            try:
                text = vendored_python_text(
                    text, namespace=config.namespace, libraries=libraries, substitute=config.substitute, path=rel
                )
            except PlaitError as error:
                raise PlaitError(f"{label}: {error.message}", path=error.path, line=error.line) from None
        out[rel] = text
    library = _artifact_library(files, ctx)
    try:
        out.update(
            license_files(
                files,
                library=library,
                kept=kept,
                directories=config.license_directories,
                fallback_urls=config.license_fallback_urls,
            )
        )
    except PlaitError as error:
        raise PlaitError(f"{label}: {error.message}") from None
    typing_stubs = {name: list(stubs) for name, stubs in config.typing_stubs.items()}
    out.update(stub_files(vendored_libraries(kept, config.protected_files), typing_stubs, kept))
    return out


def _artifact_library(files: Mapping[str, str], ctx: DistributionContext) -> str:
    """The distribution name as its archive spells it (vendoring names license files by it)."""
    for rel in files:
        first = PurePosixPath(rel).parts[0]
        if first.endswith(".dist-info"):
            return first[: -len(".dist-info")].rsplit("-", 1)[0]
    return ctx.name

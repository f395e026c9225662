"""One distribution's tree as it lands in its group's directory: the hook the vendoring transforms fill.

`transform_distribution` is the one place the pipeline is called with a
group's configuration.  A group with a ``[groups.NAME.vendoring]`` table
(what ``plait init`` writes from ``[tool.vendoring]``) goes through
`plait.vendoring_compat.pipeline`: vendoring's exact transforms (drop,
substitute, its import rewrite, licenses, stubs), because such a project's
committed tree is vendoring's output.  Any other group keeps the files of the
packages the distribution provides and rewrites every import of a sibling into
the namespace with plait's own libcst rewrite
(``import urllib3`` → ``from pip._vendor import urllib3``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..transforms import ImportRewrite, rewrite_tree
from ..vendoring_compat import pipeline as vendoring_pipeline
from .model import DistributionContext

__all__ = ["distribution_files", "transform_distribution"]

# Never vendored: metadata, scripts, caches.
_NOT_VENDORED_SUFFIXES = (".dist-info", ".egg-info", ".data")
_NOT_VENDORED_PARTS = frozenset({"__pycache__", "bin"})


def distribution_files(files: Mapping[str, str], ctx: DistributionContext) -> dict[str, str]:
    """The files of *files* (an unpacked tree) under the top-level names *ctx* says the distribution provides."""
    chosen: dict[str, str] = {}
    for rel, text in files.items():
        parts = rel.split("/")
        if parts[0].endswith(_NOT_VENDORED_SUFFIXES) or _NOT_VENDORED_PARTS & set(parts) or rel.endswith(".pyc"):
            continue
        first = parts[0] if len(parts) > 1 else parts[0].split(".", 1)[0]
        if first in ctx.top_level:
            chosen[rel] = text
    return chosen


def transform_distribution(files: Mapping[str, str], ctx: DistributionContext) -> dict[str, str]:
    """The unpacked tree of one distribution → its files in the group's directory, transformed.

    Pure: paths relative to the group's directory, every sibling's imports
    rewritten into ``ctx.group.namespace``; raises `PlaitError` (an import it
    cannot rewrite) naming the distribution and the file and line.
    """
    if ctx.group.compat:
        return vendoring_pipeline.transform_distribution(files, ctx)
    namespace = ctx.group.namespace
    rewrite = ImportRewrite.between(namespace, namespace, extra={name: f"{namespace}.{name}" for name in ctx.siblings})
    label = f"{ctx.group.name}/{ctx.name}=={ctx.version}"
    return rewrite_tree(distribution_files(files, ctx), package=namespace, rewrite=rewrite, label=label)

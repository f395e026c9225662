"""The 3-way merge of one member whose pin moved: the old release and the new one, both transformed, and the tree.

base = the old pinned release through `transform_distribution`, theirs =
the new one through it, ours = the member's files in the group's directory
now.  Only that member's files take part, so a bump of one distribution
never re-merges the others; and `merge_trees` merges no file whose sides
are byte-identical or where only one side changed (the bytes decide).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..merge import DEFAULT_BUDGET
from ..runs import FilePlan, merge_trees
from ..workspace import matches
from .model import DistributionContext, owner_of
from .transform import transform_distribution

__all__ = ["member_files", "merge_member"]


def member_files(files: Mapping[str, str], ctx: DistributionContext) -> dict[str, str]:
    """The files of the group's directory (*files*) that belong to *ctx*'s member and are not protected."""
    tops = {ctx.name: ctx.top_level}
    return {
        rel: text
        for rel, text in files.items()
        if owner_of(rel, tops) == ctx.name and not matches(rel, ctx.group.protected)
    }


def merge_member(
    ours_directory: Mapping[str, str],
    *,
    old: tuple[DistributionContext, Mapping[str, str]] | None,
    new: tuple[DistributionContext, Mapping[str, str]] | None,
    budget: float = DEFAULT_BUDGET,
) -> list[FilePlan]:
    """The file plans that carry one member from *old* (context, unpacked tree; None: new member)
    to *new* (None: a dropped member) over the directory's files *ours_directory*.

    A local edit survives wherever the new release leaves room for it; a
    conflict is inline, as every vendor conflict, named by member and file.
    """
    ctx = (new or old or (None, None))[0]
    assert ctx is not None, "a member needs an old or a new release"
    base = transform_distribution(old[1], old[0]) if old is not None else {}
    theirs = transform_distribution(new[1], new[0]) if new is not None else {}
    ours = member_files(ours_directory, ctx)
    for side in (old, new):
        if side is not None:
            ours.update({rel: ours_directory[rel] for rel in member_files(ours_directory, side[0]) if rel not in ours})
    member = f"{ctx.group.name}/{ctx.name}"
    directory = ctx.group.directory

    def labels(rel: str) -> dict[str, str]:
        was = f"{old[0].name}=={old[0].version}" if old is not None else "nothing"
        now = f"{new[0].name}=={new[0].version}" if new is not None else "dropped"
        return {"base": f"{member} {was}: {rel}", "ours": str(directory / rel), "theirs": f"{member} {now}: {rel}"}

    return merge_trees(base, ours, theirs, labels=labels, local=member, budget=budget)

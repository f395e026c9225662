"""Vendor a group: re-vendor exactly the members whose pins moved, and the new and dropped ones.

For each pin of the group's requirements: a member whose pin equals the
lock's is left alone (its files and lock entries carried as they are, no
fetch, no merge); a moved pin is fetched by pip (`plait.groups.index`) and
merged three ways over the old release (from the store, no network); a new
pin is added, a dropped one removed (`plait.groups.merge`).  Everything is
planned before anything is written, then written by the one commit
protocol: files, store objects, the distributions' entries, and the lock last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PlaitError
from ..runs import FilePlan
from ..session import commit_run, new_transaction, writing_run
from ..store import digest_of
from ..vendoring.lock import LOCK_NAME, Lock, LockedFile, LockedPackage, read_lock
from ..vendoring.vendor import plait_version
from ..workspace import Workspace, read_tree
from .dists import check_same_file, load_distribution, stage_distribution
from .index import FetchedDistribution, fetch_distribution
from .merge import merge_member
from .model import DistributionContext, Group, member_name, owner_of
from .transform import transform_distribution

__all__ = ["GroupPlan", "MemberPlan", "plan_group", "vendor_group"]


@dataclass
class MemberPlan:
    """One member of a run: its old and new pin (None: new / dropped), and its files' plans."""

    member: str
    old: str | None
    new: str | None
    files: list[FilePlan] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        if any(f.conflicts for f in self.files):
            return "conflicted"
        return "up-to-date" if self.old == self.new else "vendored"

    def to_json(self) -> dict[str, object]:
        return {
            "member": self.member,
            "old": self.old,
            "new": self.new,
            "outcome": self.outcome,
            "files": [{"file": f.name, "action": f.action, "changed": f.changes_file} for f in self.files],
            "conflicts": [c.to_json() for f in self.files for c in f.conflicts],
        }


@dataclass
class GroupPlan:
    """Everything vendoring a group does, before any of it is done."""

    group: str
    members: list[MemberPlan]
    lock: Lock
    fetched: list[FetchedDistribution] = field(default_factory=list)
    bases: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: bool = False

    @property
    def conflicted(self) -> bool:
        return any(m.outcome == "conflicted" for m in self.members)


def plan_group(ws: Workspace, group: Group) -> GroupPlan:
    """What vendoring *group* would do; nothing is written.  A pin pip cannot fetch stops it (exit 2)."""
    previous = read_lock(group.directory)
    locked = previous.packages if previous is not None else {}
    pins = {pin.key: pin for pin in group.pins()}
    ours = read_tree(group.directory) if group.directory.is_dir() else {}
    fetched: dict[str, FetchedDistribution] = {}
    for key, pin in pins.items():
        was = locked.get(key)
        if was is not None and was.version == pin.version:
            continue
        fetched[key] = fetch_distribution(group, pin)
        if was is not None:
            check_same_file(member_name(group.name, key), pin.spec, was.sha256, fetched[key])
    tops = {key: (fetched[key].top_level if key in fetched else locked[key].top_level) for key in pins}
    siblings = frozenset(name for names in tops.values() for name in names)

    def context(key: str, version: str, top_level: tuple[str, ...]) -> DistributionContext:
        return DistributionContext(group, key, version, top_level, siblings)

    members: list[MemberPlan] = []
    files = dict(previous.files) if previous is not None else {}
    bases: list[str] = []
    for key in sorted({*pins, *locked}):
        was, wanted = locked.get(key), pins.get(key)
        name = member_name(group.name, key)
        if key not in fetched and wanted is not None:
            members.append(MemberPlan(name, wanted.spec, wanted.spec))
            continue
        old = None
        if was is not None:
            old = (context(key, was.version, was.top_level), load_distribution(ws.store, was.file, was.sha256).tree)
        new = (context(key, wanted.version, fetched[key].top_level), fetched[key].tree) if wanted is not None else None
        plans = merge_member(ours, old=old, new=new)
        theirs = transform_distribution(new[1], new[0]) if new is not None else {}
        for plan in plans:
            files.pop(plan.name, None)
            sha = digest_of(plan.after) if plan.after is not None else None
            base = digest_of(theirs[plan.name]) if plan.name in theirs else None
            if sha is not None or base is not None:
                files[plan.name] = LockedFile(sha, base)
        bases += theirs.values()
        members.append(
            MemberPlan(
                name, f"{key}=={was.version}" if was is not None else None, wanted.spec if wanted else None, plans
            )
        )
    # The project's own files in the directory are hashed, so `check` sees a hand edit of them too.
    for rel, text in ours.items():
        if owner_of(rel, tops) is None:
            files[rel] = LockedFile(digest_of(text))
    packages = {
        key: (
            LockedPackage(pins[key].version, fetched[key].file, fetched[key].sha256, fetched[key].top_level)
            if key in fetched
            else locked[key]
        )
        for key in pins
    }
    lock = Lock(
        consumer=group.name,
        package=group.namespace,
        source="index",
        source_package=group.namespace,
        source_commit=None,
        plait_version=plait_version(),
        files=files,
        conflicted=sorted({c.file for m in members for f in m.files for c in f.conflicts}),
        packages=packages,
        written_by="plait vendor --all",
    )
    return GroupPlan(group.name, members, lock, list(fetched.values()), bases)


def vendor_group(ws: Workspace, group: Group, *, dry_run: bool = False) -> GroupPlan:
    """Vendor *group*: plan it, then write every file, object and the lock, or nothing."""
    return writing_run(ws, dry_run=dry_run, run=lambda dry: _write(ws, group, plan_group(ws, group), dry))


def _write(ws: Workspace, group: Group, plan: GroupPlan, dry_run: bool) -> GroupPlan:
    if dry_run:
        return plan
    txn = new_transaction(ws)
    for member in plan.members:
        for f in member.files:
            if not f.changes_file:
                continue
            target = _target(group, f.name, member.member)
            if f.after is None:
                txn.remove(target)
            else:
                txn.write(target, f.after)
    for text in plan.bases:
        ws.store.stage(txn, text)
    for dist in plan.fetched:
        stage_distribution(ws.store, txn, dist)
    txn.write(group.directory / LOCK_NAME, plan.lock.dumps(), last=True)
    commit_run(ws, txn)
    plan.written = True
    return plan


def _target(group: Group, rel: str, who: str) -> Path:
    """Where *rel* of the group's directory is written; refused if that leaves it (a symlink)."""
    path = group.directory / rel
    if not path.resolve().is_relative_to(group.directory.resolve()):
        raise PlaitError(f"{who}: writing {rel} would leave {group.directory} (a symlink?)", path=str(path))
    return path

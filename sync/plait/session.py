"""A run that writes a workspace: its lock held, an interrupted run mended, and the commit that ends it.

`plait.commit` is the protocol on paths; this module binds it to a
workspace, so that sync, vendor, adopt and init all run the same way:

- `exclusive`: the workspace lock, then `recover` (the journal a killed run
  left is finished, its temporary files swept), then the sync state read
  and checked, before anything is planned;
- `commit_run`: the run's `Transaction` committed, pruning only what
  nothing on disk (or committed at HEAD) names any more (`prunable`);
- `writing_run`: a dry run only reads (and refuses a workspace a killed
  run left half written: `Store.refuse_if_interrupted`), a real run does
  all of the above;
- `branch_run`: ``--commit``'s alternative to `commit_run`: the same
  transaction committed on review branches by plumbing, nothing written
  to any working tree (`plait.publish`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol, TypeVar

from .commit import Recovery, Transaction, recover, workspace_lock
from .errors import PlaitError
from .paths import LOCK_NAME
from .publish import Piece, Publication, guard_clean, publish
from .workspace import CLONES, Workspace

__all__ = [
    "branch_run",
    "commit_run",
    "guard_run",
    "exclusive",
    "new_transaction",
    "prunable",
    "writing_run",
]


class _Noted(Protocol):
    @property
    def notes(self) -> list[str]: ...


N = TypeVar("N", bound=_Noted)


def writing_run(ws: Workspace, *, dry_run: bool, run: Callable[[bool], N]) -> N:
    """*run* (given whether this is a dry run) the way every command that writes runs.

    A dry run only reads, and refuses a workspace a killed run left half
    written; a real run holds the lock and first mends that, and its report
    begins with what was mended.
    """
    if dry_run:
        ws.store.refuse_if_interrupted()
        return run(True)
    with exclusive(ws) as recovery:
        result = run(False)
        result.notes[:0] = recovery.notes()
        return result


@contextlib.contextmanager
def exclusive(ws: Workspace, *, timeout: float | None = None) -> Iterator[Recovery]:
    """Hold the workspace lock and mend what an interrupted run left; yields what was mended.

    Every mutating command plans inside this block, so it plans from the
    state a finished (or undone) run left, never from half of one.
    """
    ws.store.confined(ws.store.root)
    with workspace_lock(ws.store.root, timeout=timeout):
        mended = recover(
            ws.store.root,
            allowed=ws.writable,
            prune=lambda: prunable(ws),
            folders=[ws.dir],
            recursive=[ws.store.cache, *(f for f in ws.run_folders() if f != ws.dir)],
        )
        # Every run that writes reads the state first, even one that does not
        # change it (vendor): its prune trusts the state, so a state that is
        # not what plait writes stops the run before anything is written.
        ws.store.state()
        yield mended


def new_transaction(ws: Workspace) -> Transaction:
    return Transaction(ws.store.root)


def prunable(ws: Workspace) -> list[Path]:
    """The store objects that nothing names any more: what a commit may prune.

    Called after the switch, so it reads the state and the locks the run
    has just written, not the ones it found: an object that a new lock
    names but that already existed (so was not staged again) stays.  Alive
    is whatever the sync state names (bases, pending bases, the files a
    conflicted sync will restore) and every base a vendored directory's
    lock names, both as they are on disk and as they are committed at
    HEAD: a base that the committed workspace still needs stays until a
    commit no longer names it, so `git checkout -- <consumer>` or a revert
    never finds its base gone.  The locks are read rather than copied into
    the state, so consumers re-vendored in parallel (a CI matrix) touch no
    shared file.  When any of them cannot be read (corrupt, or in a
    repository that is not on this machine) nothing is pruned: a base
    pruned by mistake is a 3-way merge lost, an object kept by mistake
    costs a few kilobytes.  An entry of the store's cache goes with the
    object it names.
    """
    try:
        keep = _named(ws)
    except (PlaitError, ValueError):  # ValueError: a committed state or lock that does not parse
        return []
    # A cache entry lives as long as the object it names.
    return [] if keep is None else [*ws.store.unreferenced(keep), *ws.store.stale_cache(keep)]


def _named(ws: Workspace) -> set[str] | None:
    from . import gitops
    from .store import State, digest_of
    from .vendoring.lock import Lock, read_lock

    keep = ws.store.state().referenced()
    committed_state = gitops.committed(ws.store.state_path)
    if committed_state is not None:
        import tomlkit

        from .toml_input import check_bounds

        state_text = committed_state.decode("utf-8")
        check_bounds(state_text, path=f"{ws.store.state_path} (committed)", what="the sync state")
        keep |= State(ws.store.state_path, tomlkit.parse(state_text)).referenced()
    for group in ws.groups.values():
        # A group's lock names its bases, and the distributions its next merge starts from.
        from .groups.dists import load_distribution

        lock = read_lock(group.directory)
        if lock is not None:
            keep.update(lock.bases().values())
            for pin in lock.packages.values():
                keep.update(digest_of(text) for text in load_distribution(ws.store, pin.file, pin.sha256).tree.values())
    for consumer in ws.consumers.values():
        if not consumer.confine.is_dir():
            return None
        lock = read_lock(consumer.vendor_dir)
        if lock is not None:
            keep.update(lock.bases().values())
        path = consumer.vendor_dir / LOCK_NAME
        text = gitops.committed(path)
        if text is not None:
            keep.update(Lock.loads(text.decode("utf-8"), path=f"{path} (committed)").bases().values())
    return keep


def commit_run(ws: Workspace, txn: Transaction) -> list[Path]:
    """Commit *txn* by the protocol, pruning what the new state and locks no longer name."""
    ws.store.stage_gitignore(txn)
    return txn.commit(prune=lambda: prunable(ws), sweep=ws.run_folders())


def guard_run(ws: Workspace, folders: list[Path]) -> None:
    """Refuse `--commit` where a folder the run reads has uncommitted changes (see
    `publish.guard_clean`); store objects nobody committed are plait's own
    leftovers (a killed run's), not the user's changes, and are passed over."""
    guard_clean([*folders, ws.store.root], untracked_ok=[ws.store.objects])


def branch_run(
    ws: Workspace, txn: Transaction, pieces: list[Piece], *, store_branch: str, store_summary: str, push: bool
) -> Publication:
    """Commit what *txn* would write on review branches, one per repository, writing no working tree.

    Every store object the run names goes on the workspace's branch: the
    new ones from memory, and any already on disk that HEAD does not have
    (a kill's leftover the new lock now names), so the branch alone holds
    every base its locks and state name.
    """
    ws.store.stage_gitignore(txn)
    changes: dict[Path, bytes | None] = {path: None for path in txn.removes}
    changes.update(txn.writes)
    for digest, data in txn.objects.items():
        changes[txn.object_path(digest)] = data
    for digest in txn.named:
        path = txn.object_path(digest)
        if path not in changes and path.is_file():
            changes[path] = path.read_bytes()
    # The cache of derived files is rebuilt where it is missing: it never goes on a branch.
    changes = {path: data for path, data in changes.items() if not path.is_relative_to(ws.store.cache)}
    return publish(
        pieces,
        changes=changes,
        store=ws.store.root,
        store_branch=store_branch,
        store_summary=store_summary,
        push=push,
        clones=ws.store.root / CLONES,
        executable=txn.executable,
    )

"""All-or-nothing writes of single files, for `plait merge` (git's merge driver output).

The protocol itself lives in `plait.commit`; this name stays for the merge
command, which writes one file outside any workspace.
"""

from __future__ import annotations

from .commit import write_atomic

__all__ = ["write_atomic"]

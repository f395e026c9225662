"""A process pool whose workers end with their parent.

`plait vendor --jobs N` plans consumers in worker processes.  When the
parent is killed (SIGKILL: a CI step's timeout, a user's ``kill -9``), a
`ProcessPoolExecutor` worker would live on waiting for work, and it holds
the parent's stdout and stderr, so a CI step reading them hangs forever.
Each worker here therefore asks the kernel to kill it when its parent dies
(``prctl(PR_SET_PDEATHSIG)`` on Linux) and, everywhere, watches its parent
from a daemon thread and exits the moment it is re-parented.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["orphan_proof_pool"]

_PR_SET_PDEATHSIG = 1
_POLL_SECONDS = 0.2


def _die_with(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watcher below still ends the worker

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(_POLL_SECONDS)

    # The parent may already be gone between the fork and the prctl above.
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, name="plait-parent-watch", daemon=True).start()


def orphan_proof_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of *workers* processes, each of which exits when this process dies.

    Fork where the platform has it: a worker then starts with the modules
    the parent already imported, instead of importing libcst again.
    """
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_die_with, initargs=(os.getpid(),))

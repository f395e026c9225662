"""Shared rich consoles for the commands.

rich already drops colour when NO_COLOR is set or the stream is not a TTY, so
CI logs and pipes get plain text without any hand-rolled ANSI handling.
"""

from __future__ import annotations

from rich.console import Console


def err_console() -> Console:
    return Console(stderr=True, soft_wrap=True)


def out_console() -> Console:
    return Console(soft_wrap=True)

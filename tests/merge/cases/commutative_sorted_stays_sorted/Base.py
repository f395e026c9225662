from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    cast,
)

RETRY_ON = {"ConnectError", "ReadTimeout"}


def f() -> Any:
    return cast(Any, None)

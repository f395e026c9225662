from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Iterator,
    cast,
    overload,
)

RETRY_ON = {"ConnectError", "PoolTimeout", "ReadTimeout"}


def f() -> Any:
    return cast(Any, None)

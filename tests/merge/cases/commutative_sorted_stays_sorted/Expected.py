from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Iterator,
    Optional,
    cast,
    overload,
)

RETRY_ON = {"ConnectError", "PoolTimeout", "ReadTimeout", "WriteTimeout"}


def f() -> Any:
    return cast(Any, None)

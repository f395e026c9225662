from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Optional,
    cast,
)

RETRY_ON = {"ConnectError", "ReadTimeout", "WriteTimeout"}


def f() -> Any:
    return cast(Any, None)

from typing import Any, cast


def f(x: Any) -> int:
    return cast(int, x)


def g(y):
    return y

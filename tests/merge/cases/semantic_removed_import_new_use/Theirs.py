from typing import Any


def f(x: Any) -> int:
    return int(x)


def g(y):
    return y

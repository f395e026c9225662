from typing import Any


def f(x: Any) -> int:
    return int(x)


def g(y):
<<<<<<< ours
    value = cast(str, y)
    return value
||||||| base
    return y
=======
    return y
>>>>>>> theirs

from .b import (
    X,
    Y,
)


def use():
    return X, Y

from .b import (
    X,
    Y,
    Z,
)


def use():
    return X, Y

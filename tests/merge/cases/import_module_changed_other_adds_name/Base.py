from .a import (X, Y)


def use():
    return X, Y

"""Client."""


def one():
    return 1


def two():
    return 2


def b():
    return "b"
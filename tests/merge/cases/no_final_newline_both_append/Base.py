"""Client."""


def one():
    return 1


def two():
    return 2
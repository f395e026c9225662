"""Client."""


def one():
    return 10


def two():
    return 2


def three():
    return 30

"""Client."""


def one():
    return 1


def two():
    return 2


def a():
    return "a"


def b():
    return "b"
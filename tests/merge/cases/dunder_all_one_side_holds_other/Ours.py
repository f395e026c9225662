__all__ = ['a', 'b', 'c']


def a():
    pass


def b():
    pass


def c():
    pass

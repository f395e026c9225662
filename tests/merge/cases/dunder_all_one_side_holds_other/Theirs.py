__all__ = ['a', 'c']


def a():
    pass


def c():
    pass

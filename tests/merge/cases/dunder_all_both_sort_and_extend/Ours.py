__all__ = ["dump", "load", "parse"]


def dump():
    pass


def load():
    pass


def parse():
    pass

__all__ = ["parse", "dump"]


def dump():
    pass


def parse():
    pass

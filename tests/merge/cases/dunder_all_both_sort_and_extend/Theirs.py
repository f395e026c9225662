__all__ = ["dump", "load", "parse", "render"]


def dump():
    pass


def load():
    pass


def parse():
    pass


def render():
    pass

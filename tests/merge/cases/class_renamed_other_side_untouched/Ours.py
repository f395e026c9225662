import os


class ConfigLoader:
    """Reads configuration files from disk and caches the parsed result."""

    def __init__(self, root):
        self.root = root

    def load(self, name):
        return os.path.join(self.root, name)


def helper():
    return ConfigLoader(".")


def ours_end():
    return 1

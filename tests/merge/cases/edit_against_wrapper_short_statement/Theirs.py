import sys


def configure(options):
    options.encoding = "utf-8"
    options.strict = True
    return options

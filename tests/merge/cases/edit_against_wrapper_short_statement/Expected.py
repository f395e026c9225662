import sys


def configure(options):
    if sys.platform == "win32":
        options.encoding = "latin-1"
    else:
        options.encoding = "utf-8"
<<<<<<< ours
||||||| base
    options.encoding = "latin-1"
=======
    options.encoding = "utf-8"
>>>>>>> theirs
    options.strict = True
    return options

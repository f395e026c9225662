steps = [
    "fetch",
    "parse",
    "store",
]

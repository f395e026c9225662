steps = [
    "fetch",
    "parse",
]

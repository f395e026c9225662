STEPS = [
    "fetch",
    "decode",
    "parse",
    "store",
]

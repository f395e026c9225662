steps = [
    "prepare",
    "fetch",
]

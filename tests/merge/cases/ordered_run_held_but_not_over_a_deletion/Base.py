STEPS = [
    "fetch",
    "parse",
    "validate_schema",
    "store",
]

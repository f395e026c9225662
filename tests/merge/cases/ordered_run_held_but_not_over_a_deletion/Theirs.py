STEPS = [
    "fetch",
    "decode",
    "decompress",
    "parse",
    "validate_schema_v2",
    "store",
]

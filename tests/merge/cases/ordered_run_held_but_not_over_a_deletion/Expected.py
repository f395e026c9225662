STEPS = [
    "fetch",
    "decode",
    "decompress",
    "parse",
<<<<<<< ours
||||||| base
    "validate_schema",
=======
    "validate_schema_v2",
>>>>>>> theirs
    "store",
]

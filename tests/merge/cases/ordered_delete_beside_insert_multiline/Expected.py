steps = [
    "prepare",
    "fetch",
<<<<<<< ours
||||||| base
    "parse",
=======
    "parse",
    "store",
>>>>>>> theirs
]

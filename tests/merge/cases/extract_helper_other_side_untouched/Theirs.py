import os


def _double_positive(items):
    result = []
    for item in items:
        if item > 0:
            result.append(item * 2)
    return result


def process(items):
    total = 0
    for item in items:
        total += item
    result = _double_positive(items)
    print(result, total)
    return total


def other():
    return 1


def theirs_end():
    return 3

import os


def process(items):
    total = 0
    for item in items:
        total += item
    result = []
    for item in items:
        if item > 0:
            result.append(item * 2)
    print(result, total)
    return total


def other():
    return 1

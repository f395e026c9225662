"""Command line entry point."""

import json
import os
import sys


def main():
    return json.dumps({"cwd": os.getcwd(), "argv": sys.argv})

"""Command line entry point."""

import sys
import json
import os


def main():
    return os.getcwd(), sys.argv

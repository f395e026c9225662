"""Command line entry point."""

import sys
import os


def main():
    return os.getcwd(), sys.argv

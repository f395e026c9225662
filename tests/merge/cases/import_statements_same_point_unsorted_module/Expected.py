"""Command line entry point."""

import sys
import re
import json
import os


def main():
    return os.getcwd(), sys.argv

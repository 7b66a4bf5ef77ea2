"""The ``caliber`` console script of the installed package: the CLI it ships (caliber/bin/caliber),
run in this package's environment (its Python hosts the workers of Python providers)."""

import os
import sys

from ._run import _environment, executable


def main():
    exe = executable()
    os.execve(exe, ["caliber", *sys.argv[1:]], _environment())  # "Usage: caliber ..." in its help

"""``python -m caliber ARGS...``: the caliber CLI, as the console script runs it."""

from ._console import main

main()

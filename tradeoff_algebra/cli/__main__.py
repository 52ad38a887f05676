"""``python -m tradeoff_algebra.cli``: the ``tradeoff`` command (importing this module, as a
walk over the package's modules does, runs nothing)."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m tradeoff_algebra.cli``: the ``tradeoff`` command."""

import sys

from . import main

sys.exit(main())

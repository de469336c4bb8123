"""``python -m train``: the same as ``pitch train``."""

import sys

from .cli import main

sys.exit(main())

"""The interop suite runs from the repository root (``make interop``): make ``interop`` importable."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

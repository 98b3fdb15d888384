"""Make tests/support.py (and the case modules) importable, and keep pytest out of the fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# The fixture engine is linted, never imported: its modules raise on import.
collect_ignore = ["fixtures"]

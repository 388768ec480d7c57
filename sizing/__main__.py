"""Entry point of ``python -m sizing``."""

import sys

from sizing.cli import main

sys.exit(main())

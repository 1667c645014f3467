"""``python -m trace_explorer.cli``: the same as the ``trace-explorer`` command."""

import sys

from .main import main

sys.exit(main())

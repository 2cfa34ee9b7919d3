"""``python -m explainer``: the same command line as ``explainer``."""

import sys

from explainer.cli.main import run

sys.exit(run())

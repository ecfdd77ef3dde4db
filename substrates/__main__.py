"""`python -m substrates` runs the command-line interface."""

import sys

from substrates.cli import main

sys.exit(main())

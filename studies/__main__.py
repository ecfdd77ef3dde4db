"""`python -m substrates.studies`: list, show, run and summarise the validation studies."""

import sys

from .cli import main

sys.exit(main())

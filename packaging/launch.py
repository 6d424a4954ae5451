"""The bundle's entry script: the same main as the `factlines` command."""

import sys

from factlines.cli import main

sys.exit(main())

"""`python -m storyworld` runs the CLI."""

import sys

from storyworld.cli import main

sys.exit(main())

"""`python -m tui` runs the full `storyworld` command (core and TUI); `python -m storyworld` is the headless core."""

import sys

from tui.main import main

sys.exit(main())

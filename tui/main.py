"""The composition root: the core CLI (storyworld.cli) with the TUI's commands, bench and screens.

The console script `storyworld` runs `main` here. The core never names the TUI; this module is
the one place that puts the two together.
"""

from __future__ import annotations

import sys

from storyworld import cli
from tui import bench, commands, together

FRONTEND = cli.Frontend(commands=(commands, together), benches=(bench,), home=commands.open_home, author=commands.author_review)


def main(argv: list[str] | None = None) -> int:
    """Run the `storyworld` command with the TUI; returns the exit code."""
    return cli.main(argv, frontend=FRONTEND)


if __name__ == "__main__":
    sys.exit(main())

"""The `storyworld` command: one entry point, subcommands registered from storyworld.commands."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from storyworld.errors import UserError

# Front-end hooks a plugin module fills in on register: "home" (bare `storyworld`) and "author"
# (interactive review of a draft). Without them, those paths say the TUI is not installed.
FRONTEND: dict[str, Callable[..., int]] = {}

# Each module defines `register(subparsers)`, which adds its parser(s) with `set_defaults(func=...)`.
# Modules that are not there yet are skipped, so the CLI grows one module at a time.
COMMAND_MODULES = (
    "tui.commands",  # the commands that open the TUI; a plugin, so the core never imports the UI
    "storyworld.commands.run",
    "storyworld.commands.check",
    "storyworld.commands.author",
    "storyworld.commands.inspect",
    "storyworld.commands.screenplay",
    "storyworld.commands.log",
    "storyworld.commands.bench",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="storyworld",
        description="Live inside a story with other minds. With no command, opens the TUI home.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 user error, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            if "home" not in FRONTEND:
                raise UserError("the TUI is not installed; see `storyworld --help` for headless commands")
            result = FRONTEND["home"](args)
        else:
            result = args.func(args)
    except UserError as exc:
        print(f"storyworld: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("storyworld: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())

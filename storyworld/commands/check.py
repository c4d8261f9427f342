"""`storyworld check WORLD`: validate a world file and print every problem found."""

from __future__ import annotations

import argparse
import sys

from storyworld.commands.terminal import printable


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` command."""
    parser = subparsers.add_parser(
        "check",
        help="validate a world file",
        description="Validate a world file (a path, or the id of a bundled or user world) and list every problem.",
    )
    parser.add_argument("world", metavar="WORLD", help="world file path, or a world id such as hamlet")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors (exit 1)")
    parser.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Print `ok: ...` with warnings, or every error; 1 when there are errors."""
    from storyworld.locations import find_world
    from storyworld.world import check_world

    path = find_world(args.world)
    report = check_world(path)
    for warning in report.warnings:
        print(printable(f"warning: {warning}", newlines=False))
    if report.errors:
        for error in report.errors:
            print(printable(f"error: {error}", newlines=False))
        noun = "error" if len(report.errors) == 1 else "errors"
        print(f"failed: {len(report.errors)} {noun} in {path}", file=sys.stderr)
        return 1
    assert report.world is not None
    print(f"ok: {report.world.summary()}")
    if args.strict and report.warnings:
        return 1
    return 0

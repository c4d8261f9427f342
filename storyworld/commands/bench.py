"""`storyworld bench ...`: benchmarks that print figures (DESIGN §7)."""

from __future__ import annotations

import argparse
import importlib

BENCH_MODULES = (
    "storyworld.benches.memory",
    "storyworld.benches.world",
    "storyworld.benches.editions",
    "storyworld.benches.round",
    "storyworld.benches.play",
    "storyworld.benches.backends",
    "storyworld.benches.judge",
)


def register(subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Add `bench` and each available benchmark under it; returns its subparsers (a front end adds its own)."""
    parser = subparsers.add_parser("bench", help="benchmarks that print figures")
    benches = parser.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name in BENCH_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(benches)
    return benches

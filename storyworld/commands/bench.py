"""`storyworld bench ...`: benchmarks that print figures (DESIGN §7)."""

from __future__ import annotations

import argparse
from types import ModuleType

import storyworld.benches.agency
import storyworld.benches.backends
import storyworld.benches.editions
import storyworld.benches.host
import storyworld.benches.judge
import storyworld.benches.knows
import storyworld.benches.memory
import storyworld.benches.play
import storyworld.benches.round
import storyworld.benches.world

# Each module defines `register(subparsers)`, which adds its benchmark with `set_defaults(func=...)`.
BENCH_MODULES: tuple[ModuleType, ...] = (
    storyworld.benches.memory,
    storyworld.benches.world,
    storyworld.benches.editions,
    storyworld.benches.round,
    storyworld.benches.play,
    storyworld.benches.knows,
    storyworld.benches.agency,
    storyworld.benches.backends,
    storyworld.benches.judge,
    storyworld.benches.host,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Add `bench` and every benchmark under it; returns its subparsers (a front end adds its own)."""
    parser = subparsers.add_parser("bench", help="benchmarks that print figures")
    benches = parser.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for module in BENCH_MODULES:
        module.register(benches)
    return benches

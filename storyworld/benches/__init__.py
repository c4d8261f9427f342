"""Benchmarks behind `storyworld bench ...`; each module exposes register(subparsers)."""

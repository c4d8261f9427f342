"""Benchmarks behind `storyworld bench ...`; each module exposes register(subparsers)."""

from collections.abc import Mapping


def print_figures(result: Mapping[str, object], as_json: bool, *, skip: tuple[str, ...] = ()) -> None:
    """Print a benchmark's figures: one JSON object, or `key: value` lines (without the `skip` keys)."""
    import json

    if as_json:
        print(json.dumps(result, ensure_ascii=False))
        return
    for key, value in result.items():
        if key not in skip:
            print(f"{key}: {value}")

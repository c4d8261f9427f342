"""`storyworld stats` and `storyworld who-knows`: read a save's memory store."""

from __future__ import annotations

import argparse
import json
from typing import Any

from storyworld.commands.common import existing_save
from storyworld.queries import who_knows


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `stats` and `who-knows`."""
    stats = subparsers.add_parser("stats", help="memory store metrics of a save")
    stats.add_argument("save", metavar="SAVE", help="a save folder")
    stats.add_argument("--json", action="store_true", help="one JSON object")
    stats.set_defaults(func=stats_command)
    who = subparsers.add_parser("who-knows", help="records matching a query, with owners and provenance")
    who.add_argument("save", metavar="SAVE", help="a save folder")
    who.add_argument("query", help="what to look for")
    who.add_argument("-k", type=int, default=8, help="how many records (default 8)")
    who.add_argument("--json", action="store_true", help="JSON output")
    who.set_defaults(func=who_knows_command)


def _load(save: str) -> Any:
    from storyworld import session

    return session.load_simulation(existing_save(save), mind=None)


def stats_command(args: argparse.Namespace) -> int:
    """Print store metrics."""
    sim = _load(args.save)
    stats = sim.store.stats()
    stats.setdefault("round", sim.state.round)
    if args.json:
        print(json.dumps(stats, default=str))
    else:
        for key, value in stats.items():
            print(f"{key}: {value}")
    return 0


def who_knows_command(args: argparse.Namespace) -> int:
    """Print matching records with owners and provenance."""
    sim = _load(args.save)
    rows = who_knows(sim, args.query, args.k)
    if args.json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print("no matching records")
    for row in rows:
        print(f"#{row['id']} r{row['round']} [{row['kind']}] {row['text']}")
        for owner, h in row["owners"].items():
            if h["via"] == "witnessed" and h["place"]:
                source = f" at {h['place']}"
            else:
                source = f" from {h['source']}" if h["source"] else ""
            marks = "" if h["status"] == "believed" else f" ({h['status']})"
            print(f"    {owner}: {h['via']}{source} r{h['round']} conf {h['confidence']:.2f}{marks}")
        if row["based_on"]:
            print(f"    based on: {', '.join('#' + str(i) for i in row['based_on'])}")
    return 0

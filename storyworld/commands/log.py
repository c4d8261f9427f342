"""`storyworld log SAVE`: the run's events in order, as text or JSON."""

from __future__ import annotations

import argparse
import json

from storyworld.commands.terminal import printable
from storyworld.locations import existing_save


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `log`."""
    parser = subparsers.add_parser(
        "log", help="the events of a saved run, in order",
        description="Print a saved run's events in order (it reads the save's own world). With --json, one JSON "
                    "list of objects: round, place, actor, kind, text, speech, to, target, verb, from_place, "
                    "to_place, witnesses, fallback.",
    )
    parser.add_argument("save", help="a save folder")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.set_defaults(func=log_command)


def log_command(args: argparse.Namespace) -> int:
    """Print the event log."""
    from storyworld.report import eventlog
    from storyworld.game import session

    sim = session.load_simulation(existing_save(args.save), mind=None)
    events = eventlog.entries(sim.state.events, player=sim.settings.player)
    if args.json:
        print(json.dumps(events, ensure_ascii=False))
        return 0
    names = {a.id: a.name for a in sim.world.agents.values()}
    for event in events:  # one line per event, whatever the names and the speech hold
        print(printable(eventlog.line(event, names), newlines=False))
    return 0

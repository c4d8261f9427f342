"""`storyworld stats`, `storyworld who-knows` and `storyworld unmerge`: read (and mend) a save's memory store."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from storyworld.commands.terminal import checked_count, checked_text, printable
from storyworld.errors import UserError
from storyworld.locations import existing_save
from storyworld.report.queries import who_knows

if TYPE_CHECKING:  # annotations only
    from pathlib import Path

    from storyworld.game.simulation import Simulation
    from storyworld.report.queries import KnowsRow


MAX_K = 1000  # records a who-knows lists at most


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    unmerge = subparsers.add_parser(
        "unmerge", help="undo an owner's merge into a record (it gets back its own record, event id and confidence)"
    )
    unmerge.add_argument("save", metavar="SAVE", help="a save folder")
    unmerge.add_argument("record_id", metavar="RECORD_ID", type=int, help="the record the owner's statement merged into")
    unmerge.add_argument("owner", metavar="OWNER", help="the agent id whose latest merge to undo")
    unmerge.add_argument("--json", action="store_true", help="JSON output")
    unmerge.set_defaults(func=unmerge_command)


def _load(save: str) -> Simulation:
    from storyworld.game import session

    return session.load_simulation(existing_save(save), mind=None)


def stats_command(args: argparse.Namespace) -> int:
    """Print store metrics."""
    sim = _load(args.save)
    stats: dict[str, object] = dict(sim.store.stats())  # the store's figures, and the round beside them
    stats.setdefault("round", sim.state.round)
    if args.json:
        print(json.dumps(stats, default=str))
    else:
        for key, value in stats.items():
            print(f"{key}: {value}")
    return 0


def who_knows_command(args: argparse.Namespace) -> int:
    """Print matching records with owners and provenance."""
    query = checked_text(args.query, "the query")
    k = checked_count(args.k, "-k", 1, MAX_K)
    sim = _load(args.save)
    rows = who_knows(sim, query, k)
    add_disputes(sim, rows)
    if args.json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print("no matching records")
    for line in _who_knows_lines(rows):
        print(printable(line, newlines=False))  # record texts and names are the world's and the players'
    return 0


def _who_knows_lines(rows: list[KnowsRow]) -> list[str]:
    """who-knows as text: each record, then each owner's provenance, what it rests on and its disputes."""
    out: list[str] = []
    for row in rows:
        out.append(f"#{row['id']} r{row['round']} [{row['kind']}] {row['text']}")
        for owner, h in row["owners"].items():
            if h["via"] == "witnessed" and h["place"]:
                source = f" at {h['place']}"
            else:
                source = f" from {h['source']}" if h["source"] else ""
            marks = "" if h["status"] == "believed" else f" ({h['status']})"
            out.append(f"    {owner}: {h['via']}{source} r{h['round']} conf {h['confidence']:.2f}{marks}")
        if row["based_on"]:
            out.append(f"    based on: {', '.join('#' + str(i) for i in row['based_on'])}")
        for dispute in row.get("disputes", ()):
            out.append(f"    in dispute with #{dispute['record']}: {dispute['summary']}")
    return out


def display_name(sim: Simulation, agent: str) -> str:
    """An agent's name in the world, else its id."""
    return sim.world.name_of(agent)


def add_disputes(sim: Simulation, rows: list[KnowsRow]) -> None:
    """Each row gains `disputes`: records other owners hold that contradict it, with a one-line summary."""
    from memory.disputes import describe

    for row in rows:
        row["disputes"] = describe(sim.store, row["id"], name=lambda agent: display_name(sim, agent))


def unmerge_command(args: argparse.Namespace) -> int:
    """Undo one owner's latest merge into a record and save."""
    from storyworld.game import session

    folder = existing_save(args.save)
    # one writer per save: a game playing into it (or another unmerge) holds the lock, and this waits for nobody
    claim = session.claim_slot(session.slot_of(folder))
    try:
        return _unmerge(args, folder)
    finally:
        claim.release()


def _unmerge(args: argparse.Namespace, folder: Path) -> int:
    """The unmerge itself, under the save's lock: read, split, write back atomically (the manifest's meta kept)."""
    from storyworld.game import session

    sim = _load(args.save)
    try:
        before = sim.store.get(args.record_id)
    except (KeyError, ValueError):
        raise UserError(f"{folder}: no record #{args.record_id}") from None
    try:
        new_id = sim.store.unmerge(args.record_id, args.owner)
    except ValueError as exc:
        raise UserError(f"{folder}: {exc}") from None
    session.save_simulation(sim, folder, keep_meta=True)
    split = sim.store.get(new_id) if new_id is not None else None
    result = {
        "record": before.id,
        "owner": args.owner,
        "split": new_id,
        "event_id": split.event_id if split else None,
        "confidence": round(split.owners[args.owner].confidence, 4) if split else
        round(sim.store.get(args.record_id).owners[args.owner].confidence, 4),
        "text": split.text if split else sim.store.get(args.record_id).text,
    }
    if args.json:
        print(json.dumps(result))
    elif new_id is None:
        print(f"#{args.record_id}: {args.owner}'s earlier holding restored (conf {result['confidence']:.2f})")
    else:
        print(f"#{args.record_id}: {args.owner} now holds #{new_id} \"{result['text']}\" "
              f"(event {result['event_id'] or '-'}, conf {result['confidence']:.2f})")
    return 0

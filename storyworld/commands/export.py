"""`storyworld export WORLD|SAVE --card AGENT | --lorebook`: a character as a SillyTavern card, a world as lorebook."""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from storyworld.authoring import cardexport
from storyworld.commands.ask import resolve_agent
from storyworld.commands.terminal import printable
from storyworld.errors import UserError

if TYPE_CHECKING:
    from storyworld.game.simulation import Simulation
    from storyworld.kernel.state import SimEvent, WorldState
    from storyworld.world import World

FORMAT_HELP = ("card: v2 or v3 (JSON), png (a picture with `ccv3` and `chara` chunks, the default) or charx (a zip "
               "with card.json); lorebook: st (SillyTavern world info, the default) or v3 (lorebook_v3)")
UNSAFE_FILE_CHARS = re.compile(r'[\\/:*?"<>|\x00-\x1f]')
FORMAT_NAMES = {"v2": "Character Card V2 (JSON)", "v3": "Character Card V3 (JSON)",
                "png": "character card PNG (ccv3 and chara chunks)", "charx": "Character Card V3 CHARX"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `export`."""
    parser = subparsers.add_parser(
        "export", help="a character as a SillyTavern character card, or a world as a lorebook",
        description=(
            "Write a character as a character card that SillyTavern and other tools import (Character Card V2 or "
            "V3, as JSON, PNG or CHARX): its description, goals and where it stands, and, as its character book, "
            "what it remembers — from a save, the records it holds, each with how it learned it; from a world, the "
            "canon it witnessed before the start. Every entry is scoped by `characterFilter` to the character, and "
            "no other character's records are written. --lorebook writes the world's people, places and objects "
            "as a lorebook instead, followed, with --card, by that character's memories scoped to it. Our own "
            "`storyworld author CARD` reads every card format back."
        ),
    )
    parser.add_argument("source", metavar="WORLD|SAVE", help="a world file or id, or a save folder")
    parser.add_argument("--card", metavar="AGENT", help="the character to export (an id, name or alias)")
    parser.add_argument("--lorebook", action="store_true",
                        help="the world's people, places and objects as a lorebook; with --card, followed by that "
                             "character's memories, each scoped to it by characterFilter")
    parser.add_argument("--format", metavar="FORMAT", help=FORMAT_HELP)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write it (default: the character's name, or WORLD-lorebook.json, here)")
    parser.add_argument("--image", metavar="FILE", help="png and charx: the character's picture (default: a plain "
                                                         "portrait with its initials)")
    parser.add_argument("--json", action="store_true", help="print what was written as one JSON object")
    parser.set_defaults(func=export_command)


def export_command(args: argparse.Namespace) -> int:
    """Read the world or save, build the card or lorebook, write it, say what was written."""
    if not args.card and not args.lorebook:
        raise UserError("say what to export: --card AGENT (a character card) or --lorebook (the world as a lorebook)")
    formats = cardexport.LOREBOOK_FORMATS if args.lorebook else cardexport.CARD_FORMATS
    fmt = args.format or ("st" if args.lorebook else "png")
    if fmt not in formats:
        what = "a lorebook" if args.lorebook else "a card"
        raise UserError(f"--format {fmt!r}: {what} is written as one of {', '.join(formats)}")
    if args.image and fmt not in ("png", "charx"):
        raise UserError("--image is for --format png or charx (a JSON card has no picture)")
    world, sim = _source(args.source)
    body, out, summary, said = (_lorebook if args.lorebook else _card)(args, world, sim, fmt)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(body)
    except OSError as exc:
        raise UserError(f"{out}: cannot write ({exc.strerror or exc})") from None
    summary["bytes"] = len(body)
    print(json.dumps(summary, ensure_ascii=False) if args.json else printable(f"{out}: {said}", newlines=False))
    return 0


def _card(args: argparse.Namespace, world: World, sim: Simulation | None,
          fmt: str) -> tuple[bytes, Path, dict[str, object], str]:
    """The card file, where it goes, its figures and a line saying what it is."""
    agent = resolve_agent(world, args.card)
    who, memories = _card_parts(world, sim, agent)
    image = _read_image(args.image) if args.image else None
    body = cardexport.card_bytes(who, memories, cast(cardexport.CardFormat, fmt), now=int(time.time()),
                                 image=image, image_name=args.image or "--image")
    out = Path(args.output or f"{_file_name(who.name)}{cardexport.SUFFIX[fmt]}")
    summary: dict[str, object] = {"file": str(out), "format": fmt, "world": world.id, "agent": agent, "round": who.round,
               "memories": len(memories)}
    held = _count(len(memories), "memory", "memories")
    return body, out, summary, f"{who.name} as a {FORMAT_NAMES[fmt]}, {held} of its own"


def _lorebook(args: argparse.Namespace, world: World, sim: Simulation | None,
              fmt: str) -> tuple[bytes, Path, dict[str, object], str]:
    """The lorebook file (with --card, followed by the character's memories), where it goes, its figures, a line."""
    agent = resolve_agent(world, args.card) if args.card else None
    who, memories = _card_parts(world, sim, agent) if agent else (None, [])
    owner = who.name if who else ""
    book = cardexport.lorebook_json(world, cast(cardexport.LorebookFormat, fmt), memories, owner)
    out = Path(args.output or f"{world.id}-lorebook.json")
    entries = len(cardexport.world_lore(world)) + len(memories)
    summary: dict[str, object] = {"file": str(out), "format": fmt, "world": world.id, "agent": agent, "entries": entries,
               "memories": len(memories)}
    mine = f", {_count(len(memories), 'memory', 'memories')} of {owner}'s scoped to {owner}" if agent else ""
    return cardexport.dump_json(book), out, summary, f"{world.title} as a lorebook ({fmt}), {entries} entries{mine}"


def _source(source: str) -> tuple[World, Simulation | None]:
    """(world, simulation) of a save folder, or (world, None) of a world file or id."""
    from storyworld.locations import existing_save, find_world
    from storyworld.world import load_world

    if Path(source).is_dir():
        from storyworld.game import session

        sim = session.load_simulation(existing_save(source), mind=None)
        return sim.world, sim
    return load_world(find_world(source)), None


def _read_image(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _card_parts(world: World, sim: Simulation | None, agent: str) -> tuple[cardexport.Persona, list[cardexport.Memory]]:
    """The persona and memories of a card: from a save, the records the agent holds; from a world, its canon."""
    if sim is None:
        start = world.start()
        place = world.start_positions(start.id).get(agent, world.agents[agent].home)
        # no first message: the canon after the start is what the character has yet to do, not what it says first
        who = cardexport.persona(world, agent, scenario=_scenario(world, agent, place, start.description))
        return who, canon_memories(world, agent, start.id)
    state = sim.state
    place = state.positions.get(agent, world.agents[agent].home)
    said = [e.claim or "" for e in state.events if e.actor == agent and e.kind == "say" and (e.claim or "").strip()]
    who = cardexport.persona(world, agent, scenario=_scenario(world, agent, place, "", state),
                             first_mes=said[-1] if said else "", round_=state.round)  # where it left off
    return who, save_memories(world, sim, agent)


def _scenario(world: World, agent: str, place: str, opening: str, state: WorldState | None = None) -> str:
    """Where the character stands: the world, the start or the save's round, the place and who is there."""
    name = world.name_of(agent)
    if state is None:
        company = [a for a, p in world.positions().items() if p == place and a != agent]
        when = opening.strip() or f"The story of {world.title} begins."
    else:
        company = [a for a in state.present(place) if a != agent]
        when = f"{world.title}, round {state.round} of a story played in storyworld."
    where = f"{name} is at {world.name_of(place)}"
    if company:
        where += " with " + ", ".join(world.name_of(a) for a in company)
    return f"{when} {where}."


def canon_memories(world: World, agent: str, start_id: str) -> list[cardexport.Memory]:
    """The canon before the start that the agent witnessed: what it holds when the story begins."""
    from storyworld.game.sediment import MEMORY_KIND
    from storyworld.minds.content import Known
    from storyworld.minds.interview import how

    out = []
    for event in world.events_before(start_id):
        if agent not in event.witness_ids():
            continue
        speaker = event.actors[0] if event.kind == "say" and event.actors and event.actors[0] != agent else None
        known = Known(record_id=0, text=event.text, kind=MEMORY_KIND[event.kind], via="sediment", source=speaker,
                      round=event.round, since_round=event.round, sediment=True)
        people = [*event.actors, *_named(world, event.text)]
        out.append(cardexport.Memory(ref=event.id, text=event.text, keys=_keys(world, agent, people, event.place),
                                     provenance=how(world, known), round=event.round, via="sediment",
                                     source=speaker, since_round=event.round))
    return out


def save_memories(world: World, sim: Simulation, agent: str) -> list[cardexport.Memory]:
    """The records of the save's store that the agent holds and may read (not faded), with its own holding only."""
    from storyworld.minds.content import Known
    from storyworld.minds.interview import how

    events = {e.id: e for e in sim.state.events}
    out = []
    for record in sim.store.held_by(agent):
        holding = record.owners.get(agent)
        if holding is None or holding.archived or not sim.store.can_read(record.id, agent):
            continue
        known = Known(record_id=record.id, text=record.text, kind=record.kind, via=holding.via,
                      source=holding.source, confidence=holding.confidence, status=holding.status,
                      round=record.round, since_round=holding.since_round, sediment=record.sediment)
        people = [*record.actors, record.speaker, holding.source, *_event_people(world, events, record.event_id),
                  *_named(world, record.text)]
        out.append(cardexport.Memory(
            ref=f"#{record.id}", text=record.text, keys=_keys(world, agent, people, record.place),
            provenance=how(world, known), round=record.round, via=holding.via, source=holding.source,
            since_round=holding.since_round, confidence=holding.confidence, status=holding.status))
    return out


def _event_people(world: World, events: dict[str, SimEvent], event_id: str | None) -> list[str | None]:
    """Who took part in the event a record came from: the actor, whom it was said to, what it was done to."""
    if not event_id:
        return []
    if event_id in events:
        event = events[event_id]
        return [event.actor, event.to, event.target]
    canon = world.events_by_id.get(event_id)
    return list(canon.actors) if canon is not None else []


def _named(world: World, text: str) -> list[str]:
    from storyworld.minds.render import names_in

    return list(names_in(world, text))


def _keys(world: World, agent: str, ids: Sequence[str | None], place: str | None) -> tuple[str, ...]:
    """The names that call a memory up: the people and things it involves (never the character itself), its place."""
    keys = [world.name_of(i) for i in ids if i and i != agent and (i in world.agents or i in world.objects)]
    if place and place in world.places:
        keys.append(world.places[place].name)
    return tuple(dict.fromkeys(k for k in keys if k))


def _file_name(name: str) -> str:
    """A character's name as a file name here (SillyTavern names a card's picture after its character)."""
    return UNSAFE_FILE_CHARS.sub("_", name).strip(". ") or "character"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"

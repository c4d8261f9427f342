"""What a world file's tables mean together: unique ids, references that resolve, canon in story order.

The structure (keys and types) is checked first, in storyworld.world.check; these checks read the
items that passed it, and the raw ids of every item, so one bad item does not cascade.
"""

from __future__ import annotations

import re

import msgspec

import storyworld.world.limits as limits
from storyworld.world.problems import Problems, suggest
from storyworld.world.schema import Agent, Event, FieldPath, Place, Start, WorldInfo, WorldObject


def _ids(problems: Problems, table: str, items: list[object]) -> dict[str, int]:
    """Ids of a table's items (even items with other errors, so references to them do not cascade)."""
    seen: dict[str, int] = {}
    for index, raw in enumerate(items):
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            continue
        item_id = raw["id"]
        if not item_id.strip():
            problems.error((table, index, "id"), "empty id")
            continue
        if item_id != item_id.strip() or re.search(r"\s", item_id):
            problems.warn((table, index, "id"), f'id "{item_id}" has spaces; commands and exits cannot name it easily')
        if item_id in seen:
            problems.error((table, index, "id"), f'duplicate id "{item_id}" (first used by {table}[{seen[item_id]}])', item_id)
            continue
        seen[item_id] = index
    return seen


def check_references(
    problems: Problems,
    info: WorldInfo | None,
    raw_items: dict[str, list[object] | None],
    good: dict[str, list[tuple[int, msgspec.Struct]]],
) -> None:
    """Duplicate ids, references between tables, story order, and the warnings worth an author's look."""
    places = _ids(problems, "place", raw_items["place"] or [])
    agents = _ids(problems, "agent", raw_items["agent"] or [])
    objects = _ids(problems, "object", raw_items["object"] or [])
    events = _ids(problems, "event", raw_items["event"] or [])
    starts = _ids(problems, "start", raw_items["start"] or [])
    _check_id_clashes(problems, places, agents, objects)
    _check_info(problems, info, starts)
    _check_required_tables(problems, raw_items)
    _check_places(problems, good["place"], places)
    archived = _check_agents(problems, good["agent"], raw_items, places)
    _check_objects(problems, good["object"], places, agents, objects)
    _check_events(problems, good["event"], places, agents, archived, _default_start_round(info, good["start"]))
    _check_starts(problems, good["start"], places, agents, archived)
    for index, agent in good["agent"]:
        assert isinstance(agent, Agent)
        for item, event_id in enumerate(agent.secrets):
            _ref(problems, ("agent", index, "secrets", item), event_id, events, "event")
    _check_limits(problems, info, raw_items, good)
    _check_reachable(problems, good)


# The fields a run reads as names (one line, short) and as texts, per table.
_NAMES = {"place": ("name", "native_name"), "agent": ("name", "native_name", "aliases"), "object": ("name",)}
_TEXTS = {"place": ("description",), "agent": ("description", "goals"), "object": ("description", "carries"),
          "event": ("text", "statements"), "start": ("description",)}


def _check_limits(problems: Problems, info: WorldInfo | None, raw_items: dict[str, list[object] | None],
                  good: dict[str, list[tuple[int, msgspec.Struct]]]) -> None:
    """What a run can hold (storyworld.world.limits): id syntax, names on one short line, texts without controls."""
    for table, raws in raw_items.items():
        for index, raw in enumerate(raws or []):
            if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"].strip():
                problem = limits.id_problem(raw["id"], agent=table == "agent")
                if problem:
                    problems.error((table, index, "id"), problem)
    checks: list[tuple[FieldPath, object, bool]] = []  # (path, value, is a name)
    if info is not None:
        checks += [(("world", "title"), info.title, True), (("world", "source"), info.source, False),
                   (("world", "description"), info.description, False)]
    for table, items in good.items():
        for index, item in items:
            for fields, is_name in ((_NAMES.get(table, ()), True), (_TEXTS.get(table, ()), False)):
                for field in fields:
                    value = getattr(item, field)  # the table's name and text fields, listed by name above
                    if isinstance(value, list):
                        checks += [((table, index, field, j), v, is_name) for j, v in enumerate(value)]
                    else:
                        checks.append(((table, index, field), value, is_name))
    for path, value, is_name in checks:
        if isinstance(value, str):
            problem = limits.name_problem(value) if is_name else limits.text_problem(value)
            if problem:
                problems.error(path, problem)


def _check_reachable(problems: Problems, good: dict[str, list[tuple[int, msgspec.Struct]]]) -> None:
    """Warnings for places nobody can get to and start points nobody can play."""
    exits = {place.id: list(place.exits) for _, place in good["place"]}  # type: ignore[attr-defined]
    frontier = [a.home for _, a in good["agent"]]  # type: ignore[attr-defined]
    frontier += [where for _, start in good["start"] for where in start.positions.values()]  # type: ignore[attr-defined]
    frontier += [o.place for _, o in good["object"] if o.place]  # type: ignore[attr-defined]
    reached: set[str] = set()
    while frontier:
        here = frontier.pop()
        if here in reached or here not in exits:
            continue
        reached.add(here)
        frontier.extend(exits[here])
    for index, place in good["place"]:
        if place.id not in reached:  # type: ignore[attr-defined]
            problems.warn(("place", index), f'unreachable: no exit leads to "{place.id}" from where anyone '  # type: ignore[attr-defined]
                          "lives or starts, so nobody can ever be there")
    playable = {a.id for _, a in good["agent"] if a.playable and a.status == "active"}  # type: ignore[attr-defined]
    for index, start in good["start"]:
        if playable and playable <= set(start.absent):  # type: ignore[attr-defined]
            problems.warn(("start", index, "absent"), f'start "{start.id}" has every playable agent absent, '  # type: ignore[attr-defined]
                          "so nobody can play it")


def _ref(problems: Problems, path: FieldPath, value: str, known: dict[str, int], what: str) -> bool:
    """True when `value` is a known id; else an error naming the closest one."""
    if value in known:
        return True
    problems.error(path, f'unknown {what} "{value}"' + suggest(value, known), value)
    return False


def _check_id_clashes(problems: Problems, places: dict[str, int], agents: dict[str, int], objects: dict[str, int]) -> None:
    """An object can be the source of what an agent knows (via=read); an agent with the same id is ambiguous."""
    for object_id, index in objects.items():
        if object_id in agents:
            problems.error(
                ("object", index, "id"),
                f'id "{object_id}" is also an agent (agent[{agents[object_id]}]); agents and objects need distinct ids',
                object_id,
            )
        elif object_id in places:
            problems.warn(("object", index, "id"), f'id "{object_id}" is also a place', object_id)
    for agent_id, index in agents.items():
        if agent_id in places:
            problems.warn(("agent", index, "id"), f'id "{agent_id}" is also a place', agent_id)


def _check_info(problems: Problems, info: WorldInfo | None, starts: dict[str, int]) -> None:
    """The [world] table: a usable id, a title, a known default start."""
    if info is not None:
        if not info.id.strip():
            problems.error(("world", "id"), "empty id")
        elif re.search(r"[/\\]|^\.|\s", info.id):
            problems.error(("world", "id"), f'"{info.id}" cannot be a file name (no slashes, spaces or leading dot)', info.id)
        if not info.title.strip():
            problems.error(("world", "title"), "empty title")
        if info.default_start and info.default_start not in starts:
            problems.error(
                ("world", "default_start"),
                f'unknown start "{info.default_start}"' + suggest(info.default_start, starts),
                info.default_start,
            )


def _check_required_tables(problems: Problems, raw_items: dict[str, list[object] | None]) -> None:
    """A world needs at least one place, one agent and one start point."""
    if raw_items["place"] == []:
        problems.error(("place",), "no [[place]] tables; a world needs at least one place")
    if raw_items["agent"] == []:
        problems.error(("agent",), "no [[agent]] tables; a world needs at least one agent")
    if raw_items["start"] == []:
        problems.error(("start",), "no [[start]] tables; a world needs at least one start point")


def _check_places(problems: Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int]) -> None:
    """Place names and exits: known places, no loops or doubles, one-way exits warned."""
    exits_of: dict[str, list[str]] = {}
    for index, place in good:
        assert isinstance(place, Place)
        exits_of[place.id] = list(place.exits)
        if not place.name.strip():
            problems.error(("place", index, "name"), "empty name")
        seen_exits: set[str] = set()
        for j, exit_id in enumerate(place.exits):
            path = ("place", index, "exits", j)
            if exit_id == place.id:
                problems.warn(path, f'exit leads back to "{exit_id}" itself', exit_id)
            elif exit_id in seen_exits:
                problems.warn(path, f'exit "{exit_id}" listed twice', exit_id)
            seen_exits.add(exit_id)
            _ref(problems, path, exit_id, places, "place")
    for index, place in good:
        assert isinstance(place, Place)
        for j, exit_id in enumerate(place.exits):
            back = exits_of.get(exit_id)
            if back is not None and exit_id != place.id and place.id not in back:
                problems.warn(
                    ("place", index, "exits", j),
                    f'one-way exit: "{exit_id}" has no exit back to "{place.id}"',
                    exit_id,
                )


def _check_agents(problems: Problems, good: list[tuple[int, msgspec.Struct]],
                  raw_items: dict[str, list[object] | None], places: dict[str, int]) -> set[str]:
    """Agent names, aliases, native names and homes; someone playable. Returns the archived agents."""
    archived: set[str] = set()
    playable = 0
    claimed: dict[str, str] = {}  # a native name -> the first agent that has it
    for index, agent in good:
        assert isinstance(agent, Agent)
        if not agent.name.strip():
            problems.error(("agent", index, "name"), "empty name")
        if agent.native_name and not agent.native_name.strip():
            problems.error(("agent", index, "native_name"), "blank native name; leave it out instead")
        for j, alias in enumerate(agent.aliases):
            if not alias.strip():
                problems.error(("agent", index, "aliases", j), "empty alias")
        if agent.native_name.strip():
            # Courtesy names are shared (two men styled Ziyi); a native name names one person.
            owner = claimed.setdefault(agent.native_name.strip(), agent.id)
            if owner != agent.id:
                problems.warn(("agent", index, "native_name"), f'"{agent.native_name}" is also agent "{owner}"', owner)
        _ref(problems, ("agent", index, "home"), agent.home, places, "place")
        if agent.status == "archived":
            archived.add(agent.id)
        elif agent.playable:
            playable += 1
    if good and playable == 0 and len(good) == len(raw_items["agent"] or []):
        problems.warn(("agent",), "no active playable agent; nobody can be played")
    return archived


def _check_objects(problems: Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int],
                   agents: dict[str, int], objects: dict[str, int]) -> None:
    """Objects: held by an agent, or lying in a place — exactly one of the two."""
    for index, obj in good:
        assert isinstance(obj, WorldObject)
        path = ("object", index)
        if not obj.name.strip():
            problems.error(path + ("name",), "empty name")
        if obj.holder is not None and obj.place is not None:
            problems.error(path + ("holder",), "has both holder and place; give one of them")
        elif obj.holder is None and obj.place is None:
            problems.error(path, "has neither holder nor place; give one of them")
        if obj.holder is not None and obj.holder not in agents:
            if obj.holder in objects:
                problems.error(path + ("holder",), f'holder "{obj.holder}" is an object; only agents hold objects', obj.holder)
            elif obj.holder in places:
                problems.error(path + ("holder",), f'holder "{obj.holder}" is a place; write place = "{obj.holder}"', obj.holder)
            else:
                _ref(problems, path + ("holder",), obj.holder, agents, "agent")
        if obj.place is not None:
            _ref(problems, path + ("place",), obj.place, places, "place")


def _check_events(problems: Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int],
                  agents: dict[str, int], archived: set[str], first_start_round: int | None) -> None:
    """Events: references, content, story order."""
    previous: tuple[int, int] | None = None  # (index, round)
    for index, event in good:
        assert isinstance(event, Event)
        path = ("event", index)
        _ref(problems, path + ("place",), event.place, places, "place")
        for j, actor in enumerate(event.actors):
            _ref(problems, path + ("actors", j), actor, agents, "agent")
        witnesses = event.witness_ids()
        if event.witnesses is not None:
            for j, witness in enumerate(event.witnesses):
                _ref(problems, path + ("witnesses", j), witness, agents, "agent")
            for actor in event.actors:
                if actor in agents and actor not in event.witnesses:
                    problems.warn(path + ("witnesses",), f'actor "{actor}" is not among the witnesses', actor)
        for field, values in (("actors", event.actors), ("witnesses", event.witnesses or [])):
            doubled = sorted({v for v in values if values.count(v) > 1})
            if doubled:
                problems.warn(path + (field,), f"listed twice: {', '.join(doubled)}")
        if not event.text.strip():
            problems.error(path + ("text",), "empty text")
        for j, statement in enumerate(event.statements):
            if not statement.strip():
                problems.error(path + ("statements", j), "empty statement")
        if event.kind == "say" and not event.actors:
            problems.error(path + ("actors",), "a say event needs its speaker as the first actor")
        if not witnesses and event.kind != "narration":
            problems.warn(path + ("witnesses",), "nobody witnesses this event, so nobody will remember it")
        if first_start_round is not None and event.round >= first_start_round:
            for who in sorted(set(event.actors) | set(witnesses)):
                if who in archived:
                    problems.warn(
                        path,
                        f'archived agent "{who}" takes part at round {event.round}, after the default start',
                        who,
                    )
        if previous is not None and event.round < previous[1]:
            problems.error(
                path + ("round",),
                f"round {event.round} comes before round {previous[1]} of event[{previous[0]}]; "
                "events must be in story order",
            )
        previous = (index, event.round)


def _check_starts(problems: Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int],
                  agents: dict[str, int], archived: set[str]) -> None:
    """Start points: known agents and places, nobody both absent and placed."""
    for index, start in good:
        assert isinstance(start, Start)
        for agent_id, place_id in start.positions.items():
            path = ("start", index, "positions", agent_id)
            known_agent = _ref(problems, path, agent_id, agents, "agent")
            _ref(problems, path, place_id, places, "place")
            if known_agent and agent_id in archived:
                problems.warn(path, f'archived agent "{agent_id}" has a start position')
        for position, agent_id in enumerate(start.absent):
            absent_path = ("start", index, "absent", position)
            if _ref(problems, absent_path, agent_id, agents, "agent") and agent_id in start.positions:
                problems.error(absent_path, f'agent "{agent_id}" is both absent and given a start position')


def _default_start_round(info: WorldInfo | None, starts: list[tuple[int, msgspec.Struct]]) -> int | None:
    """Round of the default start (else the first start), if it can be told."""
    if not starts:
        return None
    by_id: dict[str, Start] = {}
    for _, start in starts:
        assert isinstance(start, Start)
        by_id[start.id] = start
    if info is not None and info.default_start in by_id:
        return by_id[info.default_start].round
    first = starts[0][1]
    assert isinstance(first, Start)
    return first.round

"""Review operations on a draft world: pure functions that return a new WorldFile with references kept consistent.

The TUI's authoring screen calls these; none of them mutates its input. Unknown ids and unsafe
deletions raise ReviewError (a UserError), whose one-line message the screen can show as is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, TypedDict, Unpack

import msgspec

from storyworld.authoring.common import slugify
from storyworld.errors import UserError
from storyworld.world.schema import (Agent, AgentStatus, CanonKind, Event, Place, Pronouns, Start, WorldFile,
                                    WorldObject)

if TYPE_CHECKING:
    import os
    from pathlib import Path

IssueTarget = Literal["world", "place", "agent", "object", "event", "start"]


class ReviewError(UserError):
    """A review operation that cannot be done (unknown id, id taken, deleting what is still used)."""


class Issue(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of the warnings list: what it is about, and what is wrong."""

    target: IssueTarget
    id: str
    message: str
    severity: Literal["error", "warning", "flag"] = "warning"

    def __str__(self) -> str:
        where = f"{self.target} {self.id}" if self.id else self.target
        return f"{self.severity}: {where}: {self.message}"


# ---------------------------------------------------------------------------------------- helpers


class RefTables(TypedDict, total=False):
    """The tables that refer to agents and places, rewritten."""

    place: list[Place]
    object: list[WorldObject]
    event: list[Event]
    start: list[Start]


class Tables(RefTables, total=False):
    """Some tables of a world file, rewritten."""

    agent: list[Agent]


class AgentChanges(TypedDict, total=False):
    """An agent's fields that an edit may change (never its id: rename_agent does that)."""

    name: str
    description: str
    home: str
    goals: list[str]
    status: AgentStatus
    playable: bool
    aliases: list[str]
    native_name: str
    pronouns: Pronouns
    secrets: list[str]


class EventChanges(TypedDict, total=False):
    """An event's fields that an edit may change (never its id)."""

    round: int
    place: str
    actors: list[str]
    witnesses: list[str] | None
    kind: CanonKind
    text: str
    statements: list[str]
    flags: list[str]


def _replace(world: WorldFile, **tables: Unpack[Tables]) -> WorldFile:
    """A new WorldFile with some tables swapped (the others are copied lists of the same structs)."""
    return WorldFile(world=world.world, place=tables.get("place", list(world.place)),
                     agent=tables.get("agent", list(world.agent)), object=tables.get("object", list(world.object)),
                     event=tables.get("event", list(world.event)), start=tables.get("start", list(world.start)))


def _agent(world: WorldFile, agent_id: str) -> Agent:
    for agent in world.agent:
        if agent.id == agent_id:
            return agent
    raise ReviewError(f'no agent "{agent_id}"')


def _place(world: WorldFile, place_id: str) -> Place:
    for place in world.place:
        if place.id == place_id:
            return place
    raise ReviewError(f'no place "{place_id}"')


def _taken_ids(world: WorldFile) -> set[str]:
    return {item.id for table in (world.place, world.agent, world.object) for item in table}


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _rewrite_agent_refs(world: WorldFile, mapping: dict[str, str | None]) -> RefTables:
    """Tables with agent ids rewritten by `mapping` (None = remove); lists deduplicated in order."""

    def rewrite(ids: Iterable[str]) -> list[str]:
        return _unique(mapping.get(i, i) for i in ids if mapping.get(i, i) is not None)  # type: ignore[misc]

    events = []
    for event in world.event:
        actors = rewrite(event.actors)
        witnesses = None if event.witnesses is None else rewrite(event.witnesses)
        if witnesses is not None and not witnesses and actors:
            witnesses = list(actors)
        if actors != event.actors or witnesses != event.witnesses:
            event = msgspec.structs.replace(event, actors=actors, witnesses=witnesses)
        events.append(event)
    objects = []
    for obj in world.object:
        if obj.holder in mapping:
            new_holder = mapping[obj.holder]
            if new_holder is None:
                home = next((a.home for a in world.agent if a.id == obj.holder), None)
                obj = msgspec.structs.replace(obj, holder=None, place=home or world.place[0].id)
            else:
                obj = msgspec.structs.replace(obj, holder=new_holder)
        objects.append(obj)
    starts = []
    for start in world.start:
        positions: dict[str, str] = {}
        for agent_id, place_id in start.positions.items():
            new_id = mapping.get(agent_id, agent_id)
            if new_id is not None and new_id not in positions:
                positions[new_id] = place_id
        starts.append(msgspec.structs.replace(start, positions=positions))
    return {"event": events, "object": objects, "start": starts}


def _rewrite_place_refs(world: WorldFile, old: str, new: str) -> Tables:
    """Tables with place `old` replaced by `new` everywhere (exits deduplicated, no self-exits)."""
    places = []
    for place in world.place:
        exits = _unique(new if e == old else e for e in place.exits)
        target_id = new if place.id == old else place.id
        exits = [e for e in exits if e != target_id]
        places.append(msgspec.structs.replace(place, exits=exits) if exits != place.exits else place)
    agents = [msgspec.structs.replace(a, home=new) if a.home == old else a for a in world.agent]
    objects = [msgspec.structs.replace(o, place=new) if o.place == old else o for o in world.object]
    events = [msgspec.structs.replace(e, place=new) if e.place == old else e for e in world.event]
    starts = [
        msgspec.structs.replace(s, positions={a: (new if p == old else p) for a, p in s.positions.items()})
        for s in world.start
    ]
    return {"place": places, "agent": agents, "object": objects, "event": events, "start": starts}


def dedupe_events(events: list[Event]) -> list[Event]:
    """Drop events that repeat an earlier one (same round, place, kind, actors and text); witnesses and flags merge."""
    kept: list[Event] = []
    index_of: dict[tuple[int, str, str, tuple[str, ...], str], int] = {}
    for event in events:
        key = (event.round, event.place, event.kind, tuple(sorted(event.actors)), event.text.strip())
        if key not in index_of:
            index_of[key] = len(kept)
            kept.append(event)
            continue
        first = kept[index_of[key]]
        witnesses = None
        if first.witnesses is not None or event.witnesses is not None:
            witnesses = _unique([*first.witness_ids(), *event.witness_ids()])
        kept[index_of[key]] = msgspec.structs.replace(
            first,
            witnesses=witnesses,
            statements=_unique([*first.statements, *event.statements]),
            flags=_unique([*first.flags, *event.flags]),
        )
    return kept


# ---------------------------------------------------------------------------------------- agents


def rename_agent(world: WorldFile, agent_id: str, new_name: str, new_id: str | None = None,
                 *, keep_old_name_as_alias: bool = True) -> WorldFile:
    """Rename an agent; with `new_id` its id changes too and every reference follows."""
    agent = _agent(world, agent_id)
    new_name = new_name.strip()
    if not new_name:
        raise ReviewError("a name cannot be empty")
    aliases = list(agent.aliases)
    if keep_old_name_as_alias and agent.name != new_name and agent.name not in aliases:
        aliases.append(agent.name)
    aliases = [a for a in aliases if a != new_name]
    target_id = agent_id if new_id is None else new_id.strip()
    if target_id != agent_id:
        if not target_id or slugify(target_id) != target_id:
            raise ReviewError(f'"{target_id}" is not a usable id (lower case, digits and dashes)')
        if target_id in _taken_ids(world):
            raise ReviewError(f'id "{target_id}" is already taken')
    renamed = msgspec.structs.replace(agent, id=target_id, name=new_name, aliases=aliases)
    agents = [renamed if a.id == agent_id else a for a in world.agent]
    tables: RefTables = _rewrite_agent_refs(world, {agent_id: target_id}) if target_id != agent_id else {}
    return _replace(world, agent=agents, **tables)


def merge_agents(world: WorldFile, keep_id: str, drop_id: str) -> WorldFile:
    """Merge two agents that are one character: aliases united, references rewritten, duplicate events dropped."""
    if keep_id == drop_id:
        raise ReviewError("cannot merge an agent with itself")
    keep, drop = _agent(world, keep_id), _agent(world, drop_id)
    aliases = _unique(a for a in [*keep.aliases, drop.name, *drop.aliases] if a != keep.name)
    merged = msgspec.structs.replace(
        keep,
        aliases=aliases,
        description=keep.description or drop.description,
        goals=_unique([*keep.goals, *drop.goals]),
        playable=keep.playable or drop.playable,
        status="active" if "active" in (keep.status, drop.status) else keep.status,
    )
    agents = [merged if a.id == keep_id else a for a in world.agent if a.id != drop_id]
    tables = _rewrite_agent_refs(world, {drop_id: keep_id})
    # When both had a start position, the kept agent's own position wins.
    starts = []
    for original, start in zip(world.start, tables["start"]):
        if keep_id in original.positions:
            positions = dict(start.positions)
            positions[keep_id] = original.positions[keep_id]
            start = msgspec.structs.replace(start, positions=positions)
        starts.append(start)
    tables["start"] = starts
    tables["event"] = dedupe_events(tables["event"])
    return _replace(world, agent=agents, **tables)


def delete_agent(world: WorldFile, agent_id: str) -> WorldFile:
    """Remove an agent: gone from events (events left with no actor go too, narration excepted), starts and holders."""
    _agent(world, agent_id)
    if len(world.agent) == 1:
        raise ReviewError("cannot delete the only agent; a world needs at least one")
    tables = _rewrite_agent_refs(world, {agent_id: None})
    tables["event"] = [
        e for original, e in zip(world.event, tables["event"])
        if e.actors or original.kind == "narration" or not original.actors
    ]
    agents = [a for a in world.agent if a.id != agent_id]
    return _replace(world, agent=agents, **tables)


def set_playable(world: WorldFile, agent_id: str, playable: bool = True) -> WorldFile:
    """Mark an agent playable (or not)."""
    _agent(world, agent_id)
    agents = [msgspec.structs.replace(a, playable=playable) if a.id == agent_id else a for a in world.agent]
    return _replace(world, agent=agents)


def edit_agent(world: WorldFile, agent_id: str, **changes: Unpack[AgentChanges]) -> WorldFile:
    """Change an agent's fields other than its id (name, description, home, goals, status, playable, aliases)."""
    agent = _agent(world, agent_id)
    if "id" in changes:
        raise ReviewError("use rename_agent to change an id")
    if "home" in changes:
        _place(world, changes["home"])
    try:
        edited = msgspec.structs.replace(agent, **changes)
    except TypeError as exc:
        raise ReviewError(f"agent {agent_id}: {exc}") from None
    return _replace(world, agent=[edited if a.id == agent_id else a for a in world.agent])


# ---------------------------------------------------------------------------------------- places


def rename_place(world: WorldFile, place_id: str, new_name: str, new_id: str | None = None) -> WorldFile:
    """Rename a place; with `new_id` every reference (exits, homes, events, objects, starts) follows."""
    place = _place(world, place_id)
    if not new_name.strip():
        raise ReviewError("a name cannot be empty")
    target_id = place_id if new_id is None else new_id.strip()
    if target_id != place_id:
        if not target_id or slugify(target_id) != target_id:
            raise ReviewError(f'"{target_id}" is not a usable id (lower case, digits and dashes)')
        if target_id in _taken_ids(world):
            raise ReviewError(f'id "{target_id}" is already taken')
    renamed = msgspec.structs.replace(place, id=target_id, name=new_name.strip())
    world = _replace(world, place=[renamed if p.id == place_id else p for p in world.place])
    if target_id == place_id:
        return world
    return _replace(world, **_rewrite_place_refs(world, place_id, target_id))


def delete_place(world: WorldFile, place_id: str, move_to: str | None = None) -> WorldFile:
    """Remove a place; what happened or lives there moves to `move_to`, which is required if it is used."""
    _place(world, place_id)
    if len(world.place) == 1:
        raise ReviewError("cannot delete the only place; a world needs at least one")
    if move_to is not None:
        if move_to == place_id:
            raise ReviewError("cannot move a place's contents into itself")
        _place(world, move_to)
        world = _replace(world, **_rewrite_place_refs(world, place_id, move_to))
    else:
        used = [r for r in references_to(world, place_id) if not r.startswith("place ")]
        if used:
            raise ReviewError(f'place "{place_id}" is still used ({len(used)}: {", ".join(used[:3])}...); '
                              "give a place to move them to")
    places = [
        msgspec.structs.replace(p, exits=[e for e in p.exits if e != place_id]) if place_id in p.exits else p
        for p in world.place if p.id != place_id
    ]
    return _replace(world, place=places)


def merge_places(world: WorldFile, keep_id: str, drop_id: str) -> WorldFile:
    """Merge two places that are one: everything at `drop_id` moves to `keep_id`, exits united."""
    drop = _place(world, drop_id)
    world = delete_place(world, drop_id, move_to=keep_id)
    keep = _place(world, keep_id)
    exits = _unique(e for e in [*keep.exits, *drop.exits] if e not in (keep_id, drop_id))
    places = [msgspec.structs.replace(p, exits=exits) if p.id == keep_id else p for p in world.place]
    return _replace(world, place=places)


# ---------------------------------------------------------------------------------------- events


def delete_event(world: WorldFile, event_id: str) -> WorldFile:
    """Remove one event."""
    if not any(e.id == event_id for e in world.event):
        raise ReviewError(f'no event "{event_id}"')
    return _replace(world, event=[e for e in world.event if e.id != event_id])


def edit_event(world: WorldFile, event_id: str, **changes: Unpack[EventChanges]) -> WorldFile:
    """Change an event's fields (text, kind, place, actors, witnesses, statements, flags, round); the id stays."""
    if "id" in changes:
        raise ReviewError("an event's id cannot be edited")
    events = []
    found = False
    for event in world.event:
        if event.id == event_id:
            found = True
            try:
                event = msgspec.structs.replace(event, **changes)
            except TypeError as exc:
                raise ReviewError(f"event {event_id}: {exc}") from None
        events.append(event)
    if not found:
        raise ReviewError(f'no event "{event_id}"')
    return _replace(world, event=events)


def clear_flags(world: WorldFile, event_id: str) -> WorldFile:
    """Mark an event reviewed: its flags go."""
    return edit_event(world, event_id, flags=[])


# ---------------------------------------------------------------------------------------- reading


def references_to(world: WorldFile, item_id: str) -> list[str]:
    """Where an id is used ("event e0012 actors", "agent hamlet home"...): what a deletion would touch."""
    found: list[str] = []
    for place in world.place:
        if item_id in place.exits:
            found.append(f"place {place.id} exits")
    for agent in world.agent:
        if agent.home == item_id:
            found.append(f"agent {agent.id} home")
    for obj in world.object:
        if obj.holder == item_id:
            found.append(f"object {obj.id} holder")
        if obj.place == item_id:
            found.append(f"object {obj.id} place")
    for event in world.event:
        if event.place == item_id:
            found.append(f"event {event.id} place")
        if item_id in event.actors:
            found.append(f"event {event.id} actors")
        if event.witnesses is not None and item_id in event.witnesses:
            found.append(f"event {event.id} witnesses")
    for start in world.start:
        if item_id in start.positions:
            found.append(f"start {start.id} positions")
        if item_id in start.positions.values():
            found.append(f"start {start.id} position")
    return found


def list_warnings(world: WorldFile) -> list[Issue]:
    """Everything an author should look at: check errors and warnings, flagged events, unused cast and places."""
    from storyworld.world import world_from_file, WorldError

    issues: list[Issue] = []
    try:
        checked = world_from_file(world, name="draft")
        for text in checked.warnings:
            issues.append(_issue_from_check(text, "warning"))
    except WorldError as exc:
        for text in exc.problems:
            issues.append(_issue_from_check(text, "error"))
    for event in world.event:
        for flag in event.flags:
            issues.append(Issue(target="event", id=event.id, message=f"round {event.round}: {flag}", severity="flag"))
    appearing = {who for e in world.event for who in [*e.actors, *e.witness_ids()]}
    for agent in world.agent:
        if agent.id not in appearing:
            issues.append(Issue(target="agent", id=agent.id, message="takes part in no event"))
    used_places = {e.place for e in world.event} | {a.home for a in world.agent}
    for place in world.place:
        if place.id not in used_places:
            issues.append(Issue(target="place", id=place.id, message="no event happens here and nobody lives here"))
        if not place.exits and len(world.place) > 1:
            issues.append(Issue(target="place", id=place.id, message="has no exits; nobody can walk in or out"))
    if world.agent and not any(a.playable and a.status == "active" for a in world.agent):
        issues.append(Issue(target="world", id="", message="no playable agent"))
    return issues


def _issue_from_check(text: str, severity: str) -> Issue:
    """Turn `draft: event[3].place: unknown place "x"` into an Issue pointing at the table."""
    body = text.split(": ", 1)[1] if ": " in text else text
    path, _, message = body.partition(": ")
    table = path.split("[", 1)[0].split(".", 1)[0]
    target: IssueTarget = table if table in ("world", "place", "agent", "object", "event", "start") else "world"  # type: ignore[assignment]
    index = ""
    if "[" in path and "]" in path:
        index = path[path.index("[") + 1 : path.index("]")]
    return Issue(target=target, id=f"#{index}" if index else "", message=f"{path}: {message}" if message else body,
                 severity=severity)  # type: ignore[arg-type]


def save_draft(world: WorldFile, path: str | os.PathLike[str]) -> Path:
    """Write the reviewed world as TOML (validated first: an invalid world raises WorldError, nothing written)."""
    from storyworld.world import write_world

    return write_world(world, path)


__all__ = [
    "Issue", "ReviewError", "clear_flags", "dedupe_events", "delete_agent", "delete_event", "delete_place",
    "edit_agent", "edit_event", "list_warnings", "merge_agents", "merge_places", "references_to", "rename_agent",
    "rename_place", "save_draft", "set_playable",
]

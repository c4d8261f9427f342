"""What the home screen lists: installed worlds (bundled and the user's) and saved games."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tui.cells import fit


@dataclass(frozen=True)
class WorldEntry:
    """A world file found on disk: its summary, the loaded world, or why it does not load."""

    path: Path
    origin: str  # bundled | yours
    id: str
    title: str
    cast: int = 0
    playable: tuple[tuple[str, str], ...] = ()  # (id, name)
    starts: tuple[tuple[str, int, str], ...] = ()  # (id, round, description)
    world: Any = None
    problem: str | None = None

    def cells(self) -> tuple[str, ...]:
        """The home table's row."""
        if self.problem:
            return (self.title, self.origin, "—", "—", f"does not load: {self.problem}")
        starts = ", ".join(s[0] for s in self.starts)
        starts = fit(starts, 28)  # the table must fit 80 columns; the new-game dialog lists them all
        return (self.title, self.origin, str(self.cast), str(len(self.starts)), starts)


def list_worlds(folders: list[tuple[Path, str]] | None = None) -> list[WorldEntry]:
    """Every *.toml world in the user's and the bundled folders, loaded and summarised (user worlds first)."""
    from storyworld.errors import UserError
    from storyworld.locations import BUNDLED_WORLDS, user_worlds_dir
    from storyworld.world import load_world

    if folders is None:
        folders = [(user_worlds_dir(), "yours"), (BUNDLED_WORLDS, "bundled")]
    entries: list[WorldEntry] = []
    for folder, origin in folders:
        for path in sorted(Path(folder).glob("*.toml")) if Path(folder).is_dir() else []:
            try:
                world = load_world(path)
            except (UserError, ValueError, OSError) as exc:  # a broken world is listed as broken, never fatal
                entries.append(WorldEntry(path=path, origin=origin, id=path.stem, title=path.stem,
                                          problem=str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
                continue
            entries.append(summarise(world, path, origin))
    return entries


def summarise(world: Any, path: Path, origin: str) -> WorldEntry:
    """A loaded world as a catalog entry."""
    info = world.file.world
    return WorldEntry(
        path=path, origin=origin, id=info.id, title=info.title, cast=len(world.file.agent),
        playable=tuple((a.id, a.name) for a in world.playable_agents()),
        starts=tuple((s.id, s.round, s.description) for s in world.file.start),
        world=world,
    )


@dataclass(frozen=True)
class SaveRow:
    """A saved game as the home screen and the load dialog list it."""

    folder: Path
    world: str
    character: str
    round: int | None
    saved: str
    problem: str | None = None
    label: str = ""
    hosted: bool = False  # a game several people play (storyworld host): it resumes as a host

    def cells(self) -> tuple[str, ...]:
        """The table's row."""
        name = self.folder.name
        if self.problem:
            return (name, self.world or "?", self.character or "?", "?", f"damaged: {self.problem}")
        return (name, self.world, self.character, "" if self.round is None else str(self.round), self.saved)


def saved_when(meta: dict[str, Any], created: datetime | None) -> str:
    """The save's time: our own `saved_at` (from the app's clock) when present, else the manifest's."""
    stamp = meta.get("saved_at")
    when: datetime | None = None
    if isinstance(stamp, str):
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            when = None
    when = when or created
    return when.strftime("%Y-%m-%d %H:%M") if when else ""


def list_game_saves(root: Path) -> list[SaveRow]:
    """Saves under `root`, newest first, without the rotating autosaves (they are offered when needed)."""
    from saves import list_saves
    from saves.slots import AUTOSAVES_SUFFIX

    rows: list[SaveRow] = []
    if not Path(root).is_dir():
        return rows
    for info in list_saves(root):
        if info.folder.parent.name.endswith(AUTOSAVES_SUFFIX) or info.folder.name.endswith(AUTOSAVES_SUFFIX):
            continue
        meta = info.meta
        rows.append(SaveRow(
            folder=info.folder,
            world=str(meta.get("world_title") or meta.get("world") or ""),
            character=str(meta.get("character_name") or meta.get("character") or ""),
            round=info.round,
            saved=saved_when(meta, info.created),
            problem=_relative(info.problem, info.folder) if info.problem else None,
            label=str(meta.get("label") or ""),
            hosted="seats" in meta,
        ))
    return rows


def _relative(problem: str, folder: Path) -> str:
    """A save problem without the folder's full path in front ("state.msgpack: truncated ...")."""
    for prefix in (f"{folder}/", f"{folder}: "):
        if problem.startswith(prefix):
            return problem[len(prefix):]
    return problem

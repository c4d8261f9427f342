"""A game in progress: the simulation, its save slot and the lock that keeps worker threads apart.

Every method here blocks (model calls, embedding, disk) and is meant to run in a thread worker.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.views import Beat, Moment, RecordCard, beats_for, build_moment, record_card

if TYPE_CHECKING:
    from storyworld.actions import Action
    from storyworld.simulation import Simulation
    from storyworld.world import World
    from tui.runtime import Runtime

LoadProgress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class NewGame:
    """Start `world` as `player` at start point `start_id` (None: the world's default)."""

    world: World
    player: str
    start_id: str | None = None


@dataclass(frozen=True)
class LoadGame:
    """Resume the save in `folder`."""

    folder: Path
_SLUG = re.compile(r"[^a-z0-9_-]+")


def slug(text: str) -> str:
    """A folder-safe name: lower case letters, digits, '-' and '_'."""
    return _SLUG.sub("-", text.lower()).strip("-") or "save"


def unique_folder(root: Path, name: str) -> Path:
    """root/name, or root/name-2, -3 ... when taken."""
    base = slug(name)
    candidate = root / base
    n = 2
    while candidate.exists() or (root / f"{candidate.name}.autosaves").exists():
        candidate = root / f"{base}-{n}"
        n += 1
    return candidate


def _world_of_save(folder: Path) -> World | None:
    """The world a save was played in when it is not installed by id (a world opened from a path), else None."""
    from saves import SaveError, read_manifest
    from storyworld.locations import find_world
    from storyworld.world import load_world

    try:
        meta = read_manifest(folder).meta
    except SaveError:
        return None  # load_simulation reports the damage in its own words
    try:
        find_world(str(meta.get("world", "")))
        return None
    except FileNotFoundError:
        path = meta.get("world_path")
        if isinstance(path, str) and Path(path).is_file():
            return load_world(Path(path))
    return None


class Game:
    """A simulation bound to a save slot; all access from threads goes through `lock`."""

    def __init__(self, sim: Simulation, slot: Path, runtime: Runtime) -> None:
        self.sim = sim
        self.slot = slot
        self.runtime = runtime
        self.lock = threading.Lock()

    @property
    def player(self) -> str:
        """The agent the person plays."""
        return self.sim.settings.player or ""

    @property
    def model_name(self) -> str:
        """The model's name for the status bar."""
        lm = getattr(self.sim.mind, "lm", None)
        return getattr(lm, "name", "") or self.sim.settings.model or self.runtime.model_name

    # --- starting ------------------------------------------------------------------------------
    @classmethod
    def new(cls, world: World, player: str, start_id: str | None, runtime: Runtime,
            progress: LoadProgress | None = None) -> Game:
        """Load the embedder and the mind, sediment the canon, and give the game a fresh slot."""
        from storyworld.session import new_simulation
        from storyworld.state import Settings

        report = progress or (lambda stage, done, total: None)
        report("loading the embedder", 0, 3)
        embedder = runtime.embedder()
        report("loading the model", 1, 3)
        mind = runtime.mind()
        lm = getattr(mind, "lm", None)
        settings = Settings(seed=runtime.seed, awake=runtime.awake, player=player,  # type: ignore[arg-type]
                            model=getattr(lm, "name", "") or runtime.model_name)
        report("remembering the story so far", 2, 3)
        sim = new_simulation(world, start_id, settings, mind, embedder=embedder,
                             progress=lambda done, total: report("remembering the story so far", done, total))
        slot = unique_folder(runtime.saves(), f"{world.file.world.id}-{player}")
        return cls(sim, slot, runtime)

    @classmethod
    def load(cls, folder: Path, runtime: Runtime, progress: LoadProgress | None = None, *,
             with_mind: bool = True) -> Game:
        """Resume from a save folder (UserError with a one-line reason when it is damaged)."""
        from storyworld.session import load_simulation

        report = progress or (lambda stage, done, total: None)
        # the store checks its vectors against the embedder, so even the inspector needs the same embedder
        report("loading the embedder", 0, 3)
        embedder = runtime.embedder()
        mind = None
        if with_mind:
            report("loading the model", 1, 3)
            mind = runtime.mind()
        report("reading the save", 2, 3)
        sim = load_simulation(Path(folder), mind, embedder=embedder, world=_world_of_save(Path(folder)))
        slot = Path(folder)
        if slot.parent.name.endswith(".autosaves"):
            # playing on from an autosave writes into the save it belongs to, not into the rotation
            slot = slot.parent.with_name(slot.parent.name[: -len(".autosaves")])
        return cls(sim, slot, runtime)

    def opening(self, history: int = 120) -> Moment:
        """The first view: scene heading, who is here, what the character recalls, and (for a save) the
        last `history` events the character witnessed, so a resumed game reads on from where it stopped."""
        with self.lock:
            moment = build_moment(self.sim, self.player, opening=True, model=self.model_name)
            past = [e for e in self.sim.state.events if self.player in e.witnesses or e.actor == self.player]
            if not past:
                return moment
            company = [b for b in moment.beats if b.kind == "direction"][-1:]  # "With you: ..."
            resumed = Beat(kind="direction", text=f"The game resumes at round {self.sim.state.round}.",
                           round=self.sim.state.round)
            beats = [*beats_for(self.sim, past[-history:], self.player), resumed, *company]
            return replace(moment, beats=tuple(beats))

    # --- playing -------------------------------------------------------------------------------
    def play_round(self, action: Action | None, progress: Callable[[str, int, int], None] | None = None,
                   cancelled: Callable[[], bool] | None = None) -> Moment:
        """One round with the player's action; raises simulation.Cancelled with the state unchanged."""
        with self.lock:
            outcome = self.sim.step(action, progress=progress, cancelled=cancelled)
            return build_moment(self.sim, self.player, events=outcome.events, results=outcome.results,
                                since_round=outcome.round, model=self.model_name)

    def recall(self, query: str, k: int = 6) -> tuple[RecordCard, ...]:
        """The player's own recall for a query, as cards."""
        with self.lock:
            hits = self.sim.store.recall(self.player, query, k=k)
            return tuple(
                record_card(self.sim.world, h.record, reason=f"recall: {query}", score=float(h.score))
                for h in hits if self.player in h.record.owners
            )

    # --- saving --------------------------------------------------------------------------------
    def _files(self) -> tuple[dict[str, bytes], dict[str, Any]]:
        from storyworld.session import simulation_files

        with self.lock:
            files, meta = simulation_files(self.sim)
        meta = dict(meta)
        meta["character_name"] = self.sim.world.agents[self.player].name if self.player else ""
        meta["saved_at"] = self.runtime.clock().isoformat(timespec="seconds")
        if self.sim.world.path is not None:
            meta["world_path"] = str(Path(self.sim.world.path).resolve())
        return files, meta

    def save(self, folder: Path | None = None, label: str = "") -> Path:
        """Write the game into its slot (or `folder`); SaveError when it cannot."""
        from saves import write_save

        target = Path(folder) if folder is not None else self.slot
        files, meta = self._files()
        if label:
            meta["label"] = label
        write_save(target, files, meta)
        return target

    def autosave(self) -> Path:
        """The per-round save: the slot itself plus a rotating autosave beside it."""
        from saves import autosave, autosave_folder, write_save

        files, meta = self._files()
        write_save(self.slot, files, meta)
        return autosave(autosave_folder(self.slot), files, meta, round=self.sim.state.round, keep=5)

    def save_as(self, name: str) -> Path:
        """Save into a new slot named `name` and keep playing there."""
        target = unique_folder(self.runtime.saves(), name)
        self.save(target, label=name)
        self.slot = target
        return target

    def branch(self, name: str) -> Path:
        """Save here, copy the save into a new slot, and play on in the copy (the original stays as it was)."""
        from saves import branch_save

        self.save()
        target = unique_folder(self.runtime.saves(), name)
        branch_save(self.slot, target, meta={"label": name})
        self.slot = target
        return target

"""Building, saving and resuming simulations: the glue between world, memory, minds and saves.

`Session` is the one game (new, load, play a round, save, autosave, save as, branch, and read-only
views for a UI), with the one lock that keeps threads apart; the CLI's `run` and the TUI's `Game`
both drive one. The module functions below it are its steps, used on their own by the inspection
commands and the tests.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Self

import msgspec

from memory import BACKENDS
from saves.slots import AUTOSAVE_KEEP, AUTOSAVES_SUFFIX
from storyworld.errors import SaveRefused, UserError
from storyworld.game.simulation import Simulation, Watch, initial_state, redraw
from storyworld.kernel.state import Settings, WorldState
from storyworld.llm.base import model_of
from storyworld.world import World, check_bytes, load_world, world_to_toml

if TYPE_CHECKING:
    from memory.embedder import Embedder
    from memory.records import RecallHit
    from memory.store import Judge, MemoryStore
    from saves.lock import SaveLock
    from storyworld.game.playerinput import Surroundings
    from storyworld.game.simulation import RoundTiming
    from storyworld.kernel.actions import Action
    from storyworld.kernel.resolve import RoundOutcome
    from storyworld.kernel.state import CanonProgress, SimEvent
    from storyworld.minds import Mind

log = logging.getLogger("storyworld.game.session")

STATE_FILE = "state.msgpack"
WORLD_FILE = "world.toml"  # the world as it was played, so a save resumes anywhere, even after the file changed
GAME_FORMAT = 2  # 2: beats met as a witness are kept apart from the beats met (CanonProgress.witnessed)
_SLUG = re.compile(r"[^a-z0-9_-]+")


class GameState(msgspec.Struct, kw_only=True):
    """What state.msgpack holds: the format, the run settings and the world state."""

    format: int
    settings: Settings
    state: WorldState


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(GameState)


def make_store(backend: str, *, embedder: Embedder | None = None, merge: bool = True,
               judge: Judge | None = None) -> MemoryStore:
    """A fresh in-memory store for a backend name (the consensus store or a baseline)."""
    if backend == "consensus":
        from memory import ConsensusStore, MemorySettings

        settings = MemorySettings() if merge else msgspec.structs.replace(MemorySettings(), merge=False)
        return ConsensusStore.open(None, embedder=embedder, settings=settings, judge=judge)
    if backend in BACKENDS:
        from memory import baselines

        return baselines.make(backend, embedder=embedder)
    raise UserError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def store_from_files(backend: str, files: dict[str, bytes], *, embedder: Embedder | None = None) -> MemoryStore:
    """Rebuild a store from the files of a save."""
    if backend == "consensus":
        from memory import ConsensusStore

        return ConsensusStore.from_files(files, embedder=embedder)
    from memory import baselines

    return baselines.from_files(backend, files, embedder=embedder)


def new_simulation(
    world: World,
    start_id: str | None,
    settings: Settings,
    mind: Mind | None,
    *,
    embedder: Embedder | None = None,
    judge: Judge | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Simulation:
    """A simulation at a start point with the canon before it sedimented into the store."""
    from storyworld.game.sediment import sediment

    store = make_store(settings.backend, embedder=embedder, merge=settings.merge, judge=judge)
    start = world.start(start_id)
    sediment(world, store, start.id, progress=progress)
    state = initial_state(world, start.id)
    return Simulation(world, state, store, settings, mind)


def simulation_files(sim: Simulation) -> tuple[dict[str, bytes], dict[str, object]]:
    """The files and manifest metadata of a save of this simulation."""
    files = dict(sim.store.dump())
    files[STATE_FILE] = _encoder.encode(GameState(format=GAME_FORMAT, settings=sim.settings, state=sim.state))
    files[WORLD_FILE] = world_to_toml(sim.world.file).encode("utf-8")
    meta: dict[str, object] = {
        "world": sim.state.world_id,
        "world_title": sim.world.file.world.title,
        "world_digest": sim.state.world_digest,
        "start": sim.state.start_id,
        "round": sim.state.round,
        "character": sim.settings.player or "",
        "backend": sim.settings.backend,
    }
    return files, meta


def save_simulation(sim: Simulation, folder: Path, *, keep_meta: bool = False) -> None:
    """Atomically write the simulation into a save folder (`keep_meta`: over the save there, keeping its labels)."""
    from saves import SaveError, read_manifest, write_save

    files, meta = simulation_files(sim)
    if keep_meta:
        try:
            meta = {**read_manifest(Path(folder)).meta, **meta}
        except SaveError:
            pass  # nothing readable to keep: the new meta stands alone
    write_save(Path(folder), files, meta)


def read_game(folder: Path) -> tuple[GameState, dict[str, bytes]]:
    """Read and verify a save; SaveRefused (one line, with the newest good autosave) when it will not load."""
    from saves import SaveError, read_save

    try:
        _, files = read_save(Path(folder))
    except SaveError as exc:
        raise refused(folder, str(exc)) from None
    if STATE_FILE not in files:
        raise refused(folder, f"{folder}/{STATE_FILE}: missing from the save")
    try:
        game = _decoder.decode(files[STATE_FILE])
    except msgspec.DecodeError as exc:
        raise refused(folder, f"{folder}/{STATE_FILE}: cannot be read ({exc})") from None
    if game.format > GAME_FORMAT:
        raise SaveRefused(f"{folder}/{STATE_FILE}: written by a newer storyworld (game format {game.format})")
    if game.format < 2:
        _witnessed_apart(game.state.canon)
    return game, files


def _witnessed_apart(progress: CanonProgress) -> None:
    """Format 1 kept "beat@witness" marks among the met beat ids; format 2 keeps them in `witnessed`."""
    marks = [entry for entry in progress.met if "@" in entry]
    progress.met[:] = [entry for entry in progress.met if "@" not in entry]
    for mark in marks:
        beat, _, witness = mark.partition("@")
        progress.witnessed.setdefault(beat, []).append(witness)


def refused(folder: Path, reason: str) -> SaveRefused:
    """The typed refusal of a save that will not load, with its newest good autosave when there is one."""
    from saves import latest_good_autosave

    try:
        good = latest_good_autosave(Path(folder))
    except (OSError, ValueError):
        good = None
    return SaveRefused(reason, good)


def load_simulation(folder: Path, mind: Mind | None, *, embedder: Embedder | None = None,
                    world: World | None = None) -> Simulation:
    """Resume a simulation from a save folder, with the world as it was when the save was made."""
    game, files = read_game(Path(folder))
    if world is None:
        world = saved_world(Path(folder), files, game.state.world_id)
    try:
        store = store_from_files(game.settings.backend, files, embedder=embedder)
    except ValueError as exc:
        raise refused(folder, str(exc)) from None
    return Simulation(world, game.state, store, game.settings, mind)


def saved_world(folder: Path, files: dict[str, bytes], world_id: str) -> World:
    """The world embedded in a save (as it was played); a save from before worlds were embedded: the installed one."""
    from storyworld.locations import WorldNotFound, find_world

    if WORLD_FILE in files:
        report = check_bytes(files[WORLD_FILE], name=f"{folder}/{WORLD_FILE}")
        if report.world is None:
            raise SaveRefused(report.errors[0] if report.errors else f"{folder}/{WORLD_FILE}: unreadable")
        return report.world
    try:
        return load_world(find_world(world_id))
    except WorldNotFound as exc:
        path = _world_path(folder)
        if path is not None:
            return load_world(path)
        raise SaveRefused(f"{folder}: its world {world_id!r} is not installed ({exc})") from None


def _world_path(folder: Path) -> Path | None:
    """The world file a save was started from, when its manifest says and the file is there."""
    from saves import SaveError, read_manifest

    try:
        path = read_manifest(folder).meta.get("world_path")
    except SaveError:
        return None
    return Path(path) if isinstance(path, str) and Path(path).is_file() else None


def world_change(folder: Path) -> str | None:
    """One line when the world file a save was played in has changed (or gone bad) since; else None.

    The save always resumes in the world embedded in it; this only says that the file differs.
    """
    from saves import SaveError, read_manifest
    from storyworld.locations import WorldNotFound, find_world
    from storyworld.world import WorldError

    try:
        meta = read_manifest(folder).meta
    except SaveError:
        return None  # the load reports the damage in its own words
    path = _world_path(folder)
    if path is None:
        try:
            path = find_world(str(meta.get("world", "")))
        except WorldNotFound:
            return None
    try:
        digest = load_world(path).digest
    except (WorldError, UserError, OSError):
        return f"{path} no longer loads; the game goes on in the world as it was saved"
    if digest == meta.get("world_digest"):
        return None
    return f"{path} has changed since this save; the game goes on in the world as it was saved"


# --------------------------------------------------------------------------- slots


def slug(text: str) -> str:
    """A folder-safe name: lower case letters, digits, '-' and '_'."""
    return _SLUG.sub("-", text.lower()).strip("-") or "save"


def unique_folder(root: Path, name: str) -> Path:
    """root/name, or root/name-2, -3 ... when taken (by a save or by its autosaves)."""
    base = slug(name)
    candidate = root / base
    n = 2
    while candidate.exists() or (root / f"{candidate.name}{AUTOSAVES_SUFFIX}").exists():
        candidate = root / f"{base}-{n}"
        n += 1
    return candidate


def slot_of(folder: Path) -> Path:
    """The save a folder belongs to: playing on from an autosave writes into its save, not into the rotation."""
    folder = Path(folder)
    if folder.parent.name.endswith(AUTOSAVES_SUFFIX):
        return folder.parent.with_name(folder.parent.name[: -len(AUTOSAVES_SUFFIX)])
    return folder


def claim_slot(folder: Path) -> SaveLock:
    """saves.lock_save on `folder`, its refusal as one UserError line; then the writer sweeps beside it.

    Holding the lock, nobody else writes there: every temp folder a killed writer left (a half-written
    autosave of a round that will never be written again, however young) goes now, a half swap is finished,
    and a save a killed --overwrite had set aside is put back.
    """
    from saves import SaveError, autosave_folder, clean_stale, lock_save, recover
    from saves.slots import restore_set_aside

    try:
        claim = lock_save(folder)
    except SaveError as exc:
        raise UserError(str(exc)) from None
    try:
        recover(folder)
        restore_set_aside(folder)  # an --overwrite killed before the new game's first save: the old game is back
        clean_stale(autosave_folder(folder), min_age=0.0)
    except OSError as exc:  # a read-only medium: nothing to sweep that matters before the first write says so
        log.info("cannot sweep beside %s (%s)", folder, exc.strerror or exc)
    return claim


# --------------------------------------------------------------------------- the session


class Session:
    """The one game: a simulation bound to a save slot, and the lock that keeps threads apart. Blocking; no UI.

    A round holds `lock` while it steps the simulation; everything that reads the game from another
    thread (views, recall, saves, the memory inspector) takes the same lock. A UI thread should not
    wait on it: a round can hold it for minutes.
    """

    def __init__(self, sim: Simulation, slot: Path | None, *, saves_root: Path | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.sim = sim
        self.lock = threading.RLock()  # re-entrant: a view built inside a round's hold takes it again
        self._slot = Path(slot) if slot is not None else None
        self._claim: SaveLock | None = None  # the lock on the slot while this game is its writer (claim())
        self.saves_root = saves_root  # where save-as and branch put new slots
        self.clock = clock  # stamps saved_at into the save's metadata when given

    @property
    def slot(self) -> Path | None:
        """The save this game writes into (None: nowhere yet)."""
        return self._slot

    @slot.setter
    def slot(self, value: Path | None) -> None:
        new = Path(value) if value is not None else None
        if new == self._slot:
            return
        if self._claim is not None:  # the writer's claim follows the game into its new save
            claim = claim_slot(new) if new is not None else None
            self._claim.release()
            self._claim = claim
        self._slot = new

    def claim(self) -> None:
        """Become the one writer of the slot (held until close()); UserError when another process plays it."""
        if self._claim is None and self._slot is not None:
            self._claim = claim_slot(self._slot)

    def close(self) -> None:
        """Let the slot go (another process may then play it)."""
        if self._claim is not None:
            self._claim.release()
            self._claim = None

    @classmethod
    def new(cls, world: World, start_id: str | None, settings: Settings, mind: Mind | None, *,
            slot: Path | None = None, saves_root: Path | None = None, embedder: Embedder | None = None,
            judge: Judge | None = None,
            progress: Callable[[int, int], None] | None = None,
            clock: Callable[[], datetime] | None = None) -> Self:
        """A new game at a start point (canon sedimented); `slot` None with a `saves_root`: a fresh slot there."""
        sim = new_simulation(world, start_id, settings, mind, embedder=embedder, judge=judge, progress=progress)
        if slot is None and saves_root is not None:
            slot = unique_folder(Path(saves_root), f"{world.file.world.id}-{settings.player or 'run'}")
        return cls(sim, slot, saves_root=saves_root, clock=clock)

    @classmethod
    def load(cls, folder: Path, mind: Mind | None, *, embedder: Embedder | None = None, world: World | None = None,
             saves_root: Path | None = None, clock: Callable[[], datetime] | None = None) -> Self:
        """Resume the save in `folder` (an autosave plays on into its own save); UserError when damaged."""
        sim = load_simulation(Path(folder), mind, embedder=embedder, world=world)
        return cls(sim, slot_of(Path(folder)), saves_root=saves_root, clock=clock)

    # --- what a UI reads (the world never changes; the rest is read under the lock) ----------------
    @property
    def world(self) -> World:
        """The world being played (immutable: safe to read without the lock)."""
        return self.sim.world

    @property
    def player(self) -> str:
        """The agent the person plays ("" for none)."""
        return self.sim.settings.player or ""

    @property
    def round(self) -> int:
        """The round about to be played."""
        return self.sim.state.round

    @property
    def model(self) -> str:
        """The name of the model the minds run on ("" when there is none)."""
        lm = model_of(self.sim.mind)
        return (lm.name if lm is not None else "") or self.sim.settings.model or ""

    @property
    def last_timing(self) -> RoundTiming:
        """Where the last round's time went."""
        return self.sim.last_timing

    @property
    def store(self) -> MemoryStore:
        """The memory store (read it under `lock`; only rounds and an inspector's unmerge write it)."""
        return self.sim.store

    @property
    def events(self) -> list[SimEvent]:
        """Every event of the run so far, oldest first (the live list: read it under `lock`)."""
        return self.sim.state.events

    def surroundings(self) -> Surroundings:
        """What the player's input may refer to where the player stands now."""
        from storyworld.game.playerinput import Surroundings

        with self.lock:
            return Surroundings.of(self.sim.world, self.sim.state, self.player)

    def witnessed(self, agent: str | None = None) -> list[SimEvent]:
        """The events `agent` (default: the player) did or witnessed, oldest first."""
        who = self.player if agent is None else agent
        with self.lock:
            return [e for e in self.sim.state.events if who in e.witnesses or e.actor == who]

    def recall(self, query: str, k: int = 6) -> list[RecallHit]:
        """The player's own recall for a query: hits on records the player holds, best first."""
        with self.lock:
            return [h for h in self.sim.store.recall(self.player, query, k=k) if self.player in h.record.owners]

    @contextlib.contextmanager
    def reading(self) -> Iterator[Simulation]:
        """The simulation held still (the lock taken) for building views of it; read it, never step it."""
        with self.lock:
            yield self.sim

    # --- playing -------------------------------------------------------------------------------
    def play_round(self, action: Action | None = None, progress: Callable[[str, int, int], None] | None = None,
                   cancelled: Callable[[], bool] | None = None, watch: Watch | None = None,
                   seated: dict[str, Action] | None = None, draw: int = 0) -> RoundOutcome:
        """One round with the player's action (None: the player waits, or there is none), under the lock.

        `watch` is given the round's RoundProgress as decisions start and land (Simulation.decide_all);
        `seated` the actions of a hosted game's people, by character (their characters do not decide);
        `draw` which drawing of the round it is (0 as first played; a retry's, Session.retry).
        """
        with self.lock:
            return self.sim.step(action, progress=progress, cancelled=cancelled, watch=watch, seated=seated,
                                 draw=draw)

    # --- undoing -----------------------------------------------------------------------------
    def can_rewind(self) -> bool:
        """Whether the last round can be undone: one was played, and its autosave from before it is kept."""
        return self.slot is not None and self.round > self.sim.state.start_round and self._before_last().is_dir()

    def _before_last(self) -> Path:
        """The autosave of the game as it was before the last round (it is written as each round ends)."""
        from saves import autosave_folder
        from saves.slots import AUTOSAVE_PREFIX

        return autosave_folder(self._require_slot()) / f"{AUTOSAVE_PREFIX}{self.round - 1:06d}"

    def rewind(self) -> int:
        """Undo the last round: the game, memory included, as its autosave from before that round holds it.

        The slot is rewritten to match and the autosaves of the undone round (and any later) are removed,
        so loading the game never brings the undone round back. Returns the round now to be played;
        UserError when there is nothing to undo.
        """
        from saves import autosaves
        from saves.folder import remove_folder

        with self.lock:
            if self.slot is None or self.round <= self.sim.state.start_round:
                raise UserError("nothing to undo: no round has been played yet")
            folder = self._before_last()
            if not folder.is_dir():
                raise UserError(f"round {self.round - 1} cannot be undone: its autosave is gone "
                                f"(the last {AUTOSAVE_KEEP} rounds are kept)")
            old = self.sim
            sim = load_simulation(folder, old.mind, embedder=old.store.embedder, world=old.world)
            sim.parallel = old.parallel
            self.sim = sim
            self.save()
            for info in autosaves(self.slot):
                if info.round is not None and info.round > sim.state.round:
                    remove_folder(info.folder)
            return sim.state.round

    def last_action(self) -> Action | None:
        """The player's action in the last round played (None: the player let it pass without one)."""
        with self.lock:
            stm = self.sim.state.shortterm.get(self.player)
            last = self.round - 1
            return next((c.done for c in reversed(stm.cache) if c.round == last), None) if stm else None

    def retry(self, progress: Callable[[str, int, int], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> RoundOutcome:
        """Undo the last round and play it again, the player doing the same, as its next drawing.

        The drawing after the last one played (RoundOutcome.draw, kept in the state) under its own seed: the
        others take the next of the choices that fit about as well (minds.draws) and the model phrases anew.
        """
        with self.lock:
            action = self.last_action()
            draw = self.sim.state.draw + 1
            self.rewind()
            redraw(self.sim, draw)
            return self.play_round(action, progress=progress, cancelled=cancelled, draw=draw)

    def files(self) -> tuple[dict[str, bytes], dict[str, object]]:
        """The files and metadata of a save of the game as it is now."""
        with self.lock:
            files, meta = simulation_files(self.sim)
        meta = dict(meta)
        meta["character_name"] = self.sim.world.agents[self.player].name if self.player else ""
        if self.clock is not None:
            meta["saved_at"] = self.clock().isoformat(timespec="seconds")
        if self.sim.world.path is not None:
            meta["world_path"] = str(Path(self.sim.world.path).resolve())
        return files, meta

    def _require_slot(self) -> Path:
        if self.slot is None:
            raise UserError("this game has no save folder")
        return self.slot

    def save(self, folder: Path | None = None, label: str = "") -> Path:
        """Write the game into its slot (or `folder`); SaveError when it cannot."""
        from saves import write_save

        target = Path(folder) if folder is not None else self._require_slot()
        files, meta = self.files()
        if label:
            meta["label"] = label
        write_save(target, files, meta)
        return target

    def autosave(self) -> Path:
        """The per-round save: the slot itself plus a rotating autosave beside it; the autosave's folder."""
        from saves import autosave, autosave_folder, holds, write_save

        files, meta = self.files()
        slot = self._require_slot()
        write_save(slot, files, meta)
        # the writer holding the save's lock sweeps every dead writer's temp folder beside it, however young
        round_ = meta["round"]  # always the int simulation_files put there
        return autosave(autosave_folder(slot), files, meta, round=round_ if isinstance(round_, int) else None,
                        keep=AUTOSAVE_KEEP, exclusive=holds(slot))

    def _new_slot(self, name: str) -> Path:
        if self.saves_root is None:
            raise UserError("this game has no saves folder to put a new save in")
        return unique_folder(Path(self.saves_root), name)

    def save_as(self, name: str) -> Path:
        """Save into a new slot named `name` and keep playing there."""
        target = self._new_slot(name)
        self.save(target, label=name)
        self.slot = target
        return target

    def branch(self, name: str) -> Path:
        """Save here, copy the save into a new slot, and play on in the copy (the original stays as it was)."""
        from saves import branch_save

        self.save()
        target = self._new_slot(name)
        branch_save(self._require_slot(), target, meta={"label": name})
        self.slot = target
        return target

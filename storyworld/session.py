"""Building, saving and resuming simulations: the glue between world, memory, minds and saves."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from storyworld.errors import UserError
from storyworld.simulation import Simulation, initial_state
from storyworld.state import Settings, WorldState
from storyworld.world import World, check_bytes, load_world, world_to_toml

log = logging.getLogger("storyworld.session")

STATE_FILE = "state.msgpack"
WORLD_FILE = "world.toml"  # the world as it was played, so a save resumes anywhere, even after the file changed
GAME_FORMAT = 1
BACKENDS = ("consensus", "generative", "gmemory", "collaborative")


class GameState(msgspec.Struct, kw_only=True):
    """What state.msgpack holds: the format, the run settings and the world state."""

    format: int
    settings: Settings
    state: WorldState


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(GameState)


def make_store(backend: str, *, embedder: Any = None, merge: bool = True, judge: Any = None) -> Any:
    """A fresh in-memory store for a backend name (the consensus store or a baseline)."""
    if backend == "consensus":
        from memory import ConsensusStore, MemorySettings

        settings = MemorySettings() if merge else msgspec.structs.replace(MemorySettings(), merge=False)
        return ConsensusStore.open(None, embedder=embedder, settings=settings, judge=judge)
    if backend in BACKENDS:
        from memory import baselines

        return baselines.make(backend, embedder=embedder)
    raise UserError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def store_from_files(backend: str, files: dict[str, bytes], *, embedder: Any = None) -> Any:
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
    mind: Any,
    *,
    embedder: Any = None,
    judge: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> Simulation:
    """A simulation at a start point with the canon before it sedimented into the store."""
    from storyworld.sediment import sediment

    store = make_store(settings.backend, embedder=embedder, merge=settings.merge, judge=judge)
    start = world.start(start_id)
    sediment(world, store, start.id, progress=progress)
    state = initial_state(world, start.id)
    return Simulation(world, state, store, settings, mind)


def simulation_files(sim: Simulation) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The files and manifest metadata of a save of this simulation."""
    files = dict(sim.store.dump())
    files[STATE_FILE] = _encoder.encode(GameState(format=GAME_FORMAT, settings=sim.settings, state=sim.state))
    files[WORLD_FILE] = world_to_toml(sim.world.file).encode("utf-8")
    meta = {
        "world": sim.state.world_id,
        "world_title": sim.world.file.world.title,
        "world_digest": sim.state.world_digest,
        "start": sim.state.start_id,
        "round": sim.state.round,
        "character": sim.settings.player or "",
        "backend": sim.settings.backend,
    }
    return files, meta


def save_simulation(sim: Simulation, folder: Path) -> None:
    """Atomically write the simulation into a save folder."""
    from saves import write_save

    files, meta = simulation_files(sim)
    write_save(Path(folder), files, meta)


def save_exists(folder: Path) -> bool:
    """True when a save is there, after putting back one a crash left half-swapped (never test the manifest alone)."""
    from saves import MANIFEST_NAME, recover

    recover(Path(folder))
    return (Path(folder) / MANIFEST_NAME).exists()


def read_game(folder: Path) -> tuple[GameState, dict[str, bytes]]:
    """Read and verify a save; SaveError and decode problems become one-line UserErrors."""
    from saves import SaveError, read_save

    try:
        _, files = read_save(Path(folder))
    except SaveError as exc:
        raise UserError(_with_autosave_hint(folder, str(exc))) from None
    if STATE_FILE not in files:
        raise UserError(_with_autosave_hint(folder, f"{folder}/{STATE_FILE}: missing from the save"))
    try:
        game = _decoder.decode(files[STATE_FILE])
    except msgspec.DecodeError as exc:
        raise UserError(_with_autosave_hint(folder, f"{folder}/{STATE_FILE}: cannot be read ({exc})")) from None
    if game.format > GAME_FORMAT:
        raise UserError(f"{folder}/{STATE_FILE}: written by a newer storyworld (game format {game.format})")
    return game, files


def _with_autosave_hint(folder: Path, message: str) -> str:
    """Append the newest good autosave to an error, when there is one."""
    from saves import latest_good_autosave

    try:
        good = latest_good_autosave(Path(folder))
    except (OSError, ValueError):
        good = None
    return f"{message}; newest good autosave: {good}" if good else message


def load_simulation(folder: Path, mind: Any, *, embedder: Any = None, world: World | None = None) -> Simulation:
    """Resume a simulation from a save folder, with the world as it was when the save was made."""
    game, files = read_game(Path(folder))
    if world is None:
        world = _saved_world(Path(folder), files, game.state.world_id)
    try:
        store = store_from_files(game.settings.backend, files, embedder=embedder)
    except ValueError as exc:
        raise UserError(_with_autosave_hint(folder, str(exc))) from None
    return Simulation(world, game.state, store, game.settings, mind)


def _saved_world(folder: Path, files: dict[str, bytes], world_id: str) -> World:
    """The world embedded in a save, else the installed world with the save's id."""
    from storyworld.locations import find_world

    if WORLD_FILE in files:
        report = check_bytes(files[WORLD_FILE], name=f"{folder}/{WORLD_FILE}")
        if report.world is None:
            raise UserError(report.errors[0] if report.errors else f"{folder}/{WORLD_FILE}: unreadable")
        return report.world
    try:
        return load_world(find_world(world_id))
    except FileNotFoundError as exc:
        raise UserError(f"{folder}: its world {world_id!r} is not installed ({exc})") from None


def autosave_simulation(sim: Simulation, save_folder: Path, keep: int = 5) -> None:
    """Write a rotating autosave for the simulation's current round."""
    from saves import autosave, autosave_folder

    files, meta = simulation_files(sim)
    autosave(autosave_folder(Path(save_folder)), files, meta, round=sim.state.round, keep=keep)

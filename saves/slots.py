"""Save slots: listings, rotating autosaves, the newest good autosave, and branching a save."""

from __future__ import annotations

import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import msgspec

from saves.errors import AutosaveError, SaveError
from saves.folder import (
    _fsync_dir,
    _step,
    _looks_like_save,
    clean_stale,
    old_path,
    read_manifest,
    read_save,
    recover,
    remove_folder,
    verify_save,
    write_save,
)
from saves.manifest import MANIFEST_NAME, Manifest

AUTOSAVE_PREFIX = "autosave-"
AUTOSAVES_SUFFIX = ".autosaves"
_AUTOSAVE_NAME = re.compile(r"autosave-(\d+)")


class SaveInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One save found on disk: its folder, manifest (None if unreadable), and problem if damaged."""

    folder: Path
    manifest: Manifest | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """True when the save passed the checks it was listed with."""
        return self.problem is None

    @property
    def meta(self) -> dict[str, object]:
        """The caller's metadata, empty when the manifest could not be read."""
        return dict(self.manifest.meta) if self.manifest else {}

    @property
    def created(self) -> datetime | None:
        """When the save was written, None when the manifest could not be read."""
        return self.manifest.created if self.manifest else None

    @property
    def round(self) -> int | None:
        """meta["round"] when present, else the number in an autosave's folder name."""
        if self.manifest and self.manifest.round is not None:
            return self.manifest.round
        match = _AUTOSAVE_NAME.fullmatch(self.folder.name)
        return int(match.group(1)) if match else None


AUTOSAVE_KEEP = 5  # rotating autosaves kept beside a save (every caller uses this default)


def _info(folder: Path, checksums: bool) -> SaveInfo:
    """Check one save for a listing; a damaged save still gets its manifest when readable."""
    try:
        return SaveInfo(folder=folder, manifest=verify_save(folder, checksums=checksums))
    except SaveError as exc:
        manifest = None
        try:
            manifest = read_manifest(folder)
        except SaveError:
            pass  # the manifest itself is the damage; exc already says so
        return SaveInfo(folder=folder, manifest=manifest, problem=str(exc))


def _age_key(info: SaveInfo) -> tuple[float, int, str]:
    """Newest first: creation time from the manifest, else folder mtime; then round, then name."""
    if info.created is not None:
        stamp = info.created.timestamp()
    else:
        try:
            stamp = info.folder.stat().st_mtime
        except OSError:
            stamp = 0.0
    return (stamp, info.round or 0, info.folder.name)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of a folder; none when it does not exist, SaveError when it cannot be read."""
    try:
        return list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise SaveError(folder, f"cannot be read ({exc.strerror or exc})") from None


def _visible_dirs(folder: Path) -> list[Path]:
    """Sub-folders that are not our hidden temp, old or trash folders."""
    return sorted(
        Path(e.path) for e in _entries(folder) if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
    )


def _recover_children(root: Path) -> list[Path]:
    """Put back every save under `root` left half-swapped (`.X.old` present, `X` missing).

    Returns the saves that could not be put back (a read-only medium): they are read from `.X.old`
    in place, so a listing still shows them.
    """
    stuck: list[Path] = []
    for entry in _entries(root):
        name = entry.name
        if name.startswith(".") and name.endswith(".old") and len(name) > 5:
            target = root / name[1:-4]
            if not os.path.lexists(target):
                try:
                    recover(target)
                except OSError:
                    pass  # reported below: it is still missing
                if not os.path.lexists(target):
                    stuck.append(target)
    return stuck


def _has_files(folder: Path) -> bool:
    try:
        return any(not e.name.startswith(".") for e in os.scandir(folder))
    except OSError:
        return False


def list_saves(root: str | os.PathLike[str], *, checksums: bool = False) -> list[SaveInfo]:
    """Saves under `root` (its sub-folders, and one level into slot folders), newest first.

    A folder with manifest.json is a save; a folder without one but holding saves is a slot
    whose saves are listed; any other non-empty folder is listed as damaged (no manifest).
    Without `checksums`, files are checked by presence and size only (fast); with it, in full.
    A save left half-swapped by a crash is put back first (or, on a read-only medium, listed from
    its `.X.old`). A missing `root` holds no saves; one that cannot be read raises SaveError.
    """
    root_path = Path(root)
    found: list[SaveInfo] = [_info(target, checksums) for target in _recover_children(root_path)]
    for child in _visible_dirs(root_path):
        if (child / MANIFEST_NAME).exists():
            found.append(_info(child, checksums))
            continue
        found.extend(_info(target, checksums) for target in _recover_children(child))
        inner = [g for g in _visible_dirs(child) if (g / MANIFEST_NAME).exists()]
        if inner:
            found.extend(_info(g, checksums) for g in inner)
        elif _has_files(child):
            found.append(_info(child, checksums))
    found.sort(key=_age_key, reverse=True)
    return found


def autosave_folder(save: str | os.PathLike[str]) -> Path:
    """The slot holding the rotating autosaves that belong to the save folder `save`."""
    path = Path(save)
    return path.with_name(path.name + AUTOSAVES_SUFFIX)


def _autosave_dirs(slot: Path) -> list[Path]:
    dirs = {*_recover_children(slot), *_visible_dirs(slot)}  # a stuck half-swap is read from its .old
    return sorted(d for d in dirs if _AUTOSAVE_NAME.fullmatch(d.name))


def autosave(
    slot: str | os.PathLike[str],
    files: dict[str, bytes],
    meta: dict[str, object],
    *,
    round: int | None = None,
    keep: int = AUTOSAVE_KEEP,
    exclusive: bool = False,
) -> Path:
    """Write `slot/autosave-NNNNNN` (N = `round`, else meta["round"], else the next number).

    Keeps the `keep` newest autosaves in `slot` (by creation time; the one just written always
    stays) and deletes the rest. Returns the folder written. Raises AutosaveError (a SaveError naming the
    autosave). `exclusive`: the caller holds the save's lock, so every dead writer's temp folder here goes now.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    slot_path = Path(slot)
    number = round if round is not None else meta.get("round")
    if number is None:
        existing = [int(m.group(1)) for d in _autosave_dirs(slot_path) if (m := _AUTOSAVE_NAME.fullmatch(d.name))]
        number = max(existing, default=0) + 1
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise SaveError(slot_path, f"autosave round must be a non-negative integer, got {number!r}")
    target = slot_path / f"{AUTOSAVE_PREFIX}{number:06d}"
    try:
        # Autosave folders are ours by name, so a damaged one (no manifest) is replaced, not refused.
        write_save(target, files, meta, force=True)
    except AutosaveError:
        raise
    except SaveError as exc:
        raise AutosaveError(exc.path, exc.reason) from exc
    # temp folders of autosaves a killed writer never finished (other rounds' names)
    clean_stale(slot_path, **({"min_age": 0.0} if exclusive else {}))
    others = [_info(d, checksums=False) for d in _autosave_dirs(slot_path) if d != target]
    others.sort(key=_age_key, reverse=True)
    for stale in others[keep - 1 :]:
        try:
            remove_folder(stale.folder)
        except OSError as exc:
            raise AutosaveError(stale.folder, f"cannot delete an old autosave ({exc.strerror or exc})") from exc
    return target


def autosaves(slot_or_save: str | os.PathLike[str]) -> list[SaveInfo]:
    """Autosaves in a slot, or in the companion slot of a save folder, newest first (size-checked)."""
    base = Path(slot_or_save)
    dirs = _autosave_dirs(base)
    companion = autosave_folder(base)
    if companion.is_dir():
        dirs += _autosave_dirs(companion)
    infos = [_info(d, checksums=False) for d in dirs]
    infos.sort(key=_age_key, reverse=True)
    return infos


def latest_good_autosave(slot_or_save: str | os.PathLike[str]) -> Path | None:
    """The newest autosave that passes read_save in full, or None.

    Looks in `slot_or_save` itself (a slot of autosave-* folders) and in its companion slot
    `<save>.autosaves` (see autosave_folder), so a damaged save folder finds its own autosaves.
    """
    for info in autosaves(slot_or_save):
        if not info.ok:
            continue
        try:
            read_save(info.folder)
        except SaveError:
            continue
        return info.folder
    return None


def branch_save(
    src: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    meta: dict[str, object] | None = None,
) -> Manifest:
    """Copy the save `src` into the new save folder `dest`, verified on both ends, atomically.

    meta of the copy = src's meta + {"branched_from": str(src)} + `meta`. Refuses an existing
    `dest` unless `overwrite` (and then only if `dest` is a save). Raises SaveError.
    """
    src_path, dest_path = Path(src), Path(dest)
    if dest_path.resolve() == src_path.resolve() or src_path.resolve() in dest_path.resolve().parents:
        raise SaveError(dest_path, f"cannot branch {src_path} into itself")
    manifest, files = read_save(src_path)
    exists = os.path.lexists(dest_path) or old_path(dest_path).is_dir()
    if exists and not overwrite:
        raise SaveError(dest_path, "already exists; choose another name or overwrite it")
    if exists and dest_path.is_dir() and not _looks_like_save(dest_path):
        raise SaveError(dest_path, "exists and is not a storyworld save; refusing to replace it")
    new_meta = {**manifest.meta, "branched_from": str(src_path), **(meta or {})}
    written = write_save(dest_path, files, new_meta)
    read_save(dest_path)  # read back: a copy that cannot be loaded is not a branch
    return written


def explain_refusal(folder: str | os.PathLike[str], error: SaveError) -> str:
    """One line for a refused load: the error, then the newest good autosave to load instead."""
    fallback = latest_good_autosave(folder)
    if fallback is None:
        return f"{error}; no good autosave found"
    return f"{error}; newest good autosave: {fallback}"


class Aside:
    """A save and its autosaves moved to hidden names while a new game takes the name: dropped or put back."""

    def __init__(self, save: Path, moved: list[tuple[Path, Path]]) -> None:
        self.save = save
        self._moved = moved  # (original, hidden) pairs

    def drop(self) -> None:
        """The new game is saved: the old one goes for good."""
        for _, hidden in self._moved:
            shutil.rmtree(hidden, ignore_errors=True)
            _step("rmtree", hidden)
        self._moved = []

    def put_back(self) -> None:
        """The new game never saved a round: remove what it wrote and put the old save back as it was."""
        for original, hidden in self._moved:
            if os.path.lexists(original):
                shutil.rmtree(original, ignore_errors=True)
            os.rename(hidden, original)
        self._moved = []


def _aside_name(path: Path) -> Path:
    return path.parent / f".{path.name}{ASIDE_SUFFIX}"


ASIDE_SUFFIX = ".replaced"


def set_aside(save: str | os.PathLike[str]) -> Aside:
    """Move the save `save` and its autosaves to hidden names (a new game is about to be saved there).

    Kept until Aside.drop (the new game's first round is saved) or put back by Aside.put_back; a crash
    between leaves them hidden, and restore_set_aside puts them back while `save` has no save of its own.
    """
    target = Path(save)
    restore_set_aside(target)
    moved: list[tuple[Path, Path]] = []
    try:
        for original in (autosave_folder(target), target):
            hidden = _aside_name(original)
            if os.path.lexists(hidden):
                shutil.rmtree(hidden)  # the leftover of an earlier replacement whose new game was saved
            if os.path.lexists(original):
                os.rename(original, hidden)
                moved.append((original, hidden))
                _step("rename", hidden)
        _fsync_dir(target.parent)
    except OSError as exc:
        Aside(target, moved).put_back()
        raise SaveError(target, f"cannot move the old save aside ({exc.strerror or exc})") from exc
    return Aside(target, moved)


def restore_set_aside(save: str | os.PathLike[str]) -> bool:
    """Put back a save left set aside by a crash, when no save has taken its name since; whether one was."""
    target = Path(save)
    hidden = _aside_name(target)
    if not hidden.is_dir() or os.path.lexists(target) or old_path(target).is_dir():
        return False
    os.rename(hidden, target)
    companion, companion_hidden = autosave_folder(target), _aside_name(autosave_folder(target))
    if companion_hidden.is_dir() and not os.path.lexists(companion):
        os.rename(companion_hidden, companion)
    return True

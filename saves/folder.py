"""Atomic save folders: write into a sibling temp folder, fsync, swap into place; read back verified.

Layout next to a save folder `X` (all hidden, all transient):
  `.X.tmp-<token>`   a save being written (locked by its writer while it is written);
  `.X.old`           the previous save during the swap; restored if `X` is missing;
  `.X.trash-<token>` an old save being deleted.
A crash at any moment leaves `X` or `.X.old` holding a complete save, and every
reader or writer first puts `.X.old` back when `X` is missing.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec

from saves.errors import SaveError
from saves.manifest import (
    FORMAT_NAME,
    FORMAT_VERSION,
    MANIFEST_NAME,
    Manifest,
    build_manifest,
    checksum,
    decode_header,
    decode_manifest,
    encode_manifest,
)

try:  # POSIX advisory locks; without them (Windows) saves still swap atomically, just unguarded.
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]

# Plain names only: a save's files sit directly in its folder, so an untrusted manifest
# cannot point outside it ("../x", "/etc/x") or at our hidden temp names.
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)

# Indirection so the crash tests can interrupt the swap between its steps.
_rename = os.rename

# Called after every step that changes the disk (as SQLite's crash tests inject a fault at each write):
# tests set it to raise or to end the process there; None in the game.
step_hook: Callable[[str, Path], None] | None = None


def _step(name: str, path: Path) -> None:
    """One write step done: the fault-injection tests may stop the process here."""
    if step_hook is not None:
        step_hook(name, path)


def old_path(folder: Path) -> Path:
    """Where the previous save waits while a new one is swapped in."""
    return folder.parent / f".{folder.name}.old"


def _tmp_prefix(folder: Path) -> str:
    return f".{folder.name}.tmp-"


def _trash_prefix(folder: Path) -> str:
    return f".{folder.name}.trash-"


def _fsync_dir(path: Path) -> None:
    """Make renames and new entries in `path` durable."""
    if os.name == "nt":  # pragma: no cover - directories cannot be opened for fsync there
        return
    fd = os.open(path, os.O_RDONLY | _O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _dir_lock(directory: Path, *, exclusive: bool) -> Iterator[None]:
    """flock on the folder itself: swaps take it exclusively, readers shared (no lock files)."""
    fd = None
    if fcntl is not None:
        try:
            fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY)
        except OSError:
            fd = None  # missing or unreadable folder: the operation itself will report it
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # closing releases the lock


def _try_lock_exclusive(directory: Path) -> int | None:
    """An fd holding an exclusive lock on `directory`, or None when someone else holds it."""
    if fcntl is None:  # pragma: no cover - non-POSIX
        return None
    fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def check_file_name(name: object) -> str | None:
    """Why `name` cannot be a file of a save, or None when it can."""
    if not isinstance(name, str):
        return f"file name must be a string, got {type(name).__name__}"
    if name == MANIFEST_NAME:
        return f"{MANIFEST_NAME} is reserved for the manifest"
    if not _FILE_NAME.fullmatch(name):
        return f"unsafe file name {name!r} (letters, digits, '.', '_', '-'; no folders)"
    return None


def _recover(folder: Path) -> None:
    """Finish or undo an interrupted swap (caller holds the parent's exclusive lock)."""
    old = old_path(folder)
    if not old.is_dir() or old.is_symlink():
        return
    if not os.path.lexists(folder):
        # Crashed between "save -> .old" and "tmp -> save": the previous save is complete.
        _rename(old, folder)
        _fsync_dir(folder.parent)
    else:
        # Crashed after the new save was in place: the old copy is garbage.
        trash = folder.parent / f"{_trash_prefix(folder)}{secrets.token_hex(4)}"
        _rename(old, trash)
        shutil.rmtree(trash, ignore_errors=True)


def _clean_leftovers(folder: Path) -> None:
    """Remove temp folders of dead writers and half-deleted trash next to `folder`."""
    tmp_prefix, trash_prefix = _tmp_prefix(folder), _trash_prefix(folder)
    try:
        entries = list(os.scandir(folder.parent))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(trash_prefix):
            shutil.rmtree(entry.path, ignore_errors=True)
        elif entry.name.startswith(tmp_prefix) and entry.is_dir(follow_symlinks=False):
            # A live writer holds its temp folder locked; a killed one's lock died with it.
            try:
                fd = _try_lock_exclusive(Path(entry.path))
            except OSError:
                continue
            if fd is None and fcntl is not None:
                continue
            try:
                shutil.rmtree(entry.path, ignore_errors=True)
            finally:
                if fd is not None:
                    os.close(fd)


_STALE_TMP = re.compile(r"\..+\.tmp-[0-9a-f]+")
_STALE_TRASH = re.compile(r"\..+\.trash-[0-9a-f]+")
STALE_AFTER_S = 60.0  # a temp folder unlocked and this old has no writer (a writer locks it right after mkdir)


def clean_stale(directory: str | os.PathLike[str], *, now: float | None = None,
                min_age: float = STALE_AFTER_S) -> list[str]:
    """Remove the temp folders of dead writers and half-deleted trash of any save in `directory`; their names.

    A temp folder goes only when nobody holds its lock and it is older than `min_age` (a writer that
    holds the save's own lock passes 0: nobody else can be between mkdir and locking a temp folder there);
    trash always goes. (write_save cleans its own target's leftovers; this cleans those of targets that
    are never written again, like the autosaves of past rounds.)
    """
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return removed
    clock = time.time() if now is None else now
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        if _STALE_TRASH.fullmatch(entry.name):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.name)
        elif _STALE_TMP.fullmatch(entry.name):
            try:
                if clock - entry.stat(follow_symlinks=False).st_mtime < min_age:
                    continue
                fd = _try_lock_exclusive(Path(entry.path))
            except OSError:
                continue
            if fd is None and fcntl is not None:
                continue  # a live writer
            try:
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.name)
            finally:
                if fd is not None:
                    os.close(fd)
    return removed


def recover(folder: str | os.PathLike[str]) -> None:
    """Put back a save left half-swapped by a crash and clean dead temp folders next to it."""
    target = Path(folder)
    if not target.parent.is_dir():
        return
    with _dir_lock(target.parent, exclusive=True):
        _recover(target)
        _clean_leftovers(target)


def _looks_like_save(folder: Path) -> bool:
    """True when `folder` is empty or holds a manifest of our format (damaged or not)."""
    try:
        with os.scandir(folder) as it:
            if next(it, None) is None:
                return True
    except OSError:
        return False
    try:
        fmt, _ = decode_header((folder / MANIFEST_NAME).read_bytes())
    except (OSError, msgspec.DecodeError):
        return False
    return fmt == FORMAT_NAME


def _check_replaceable(target: Path, force: bool) -> None:
    """Refuse to swap away anything that is not one of our saves: it would be deleted."""
    if target.is_symlink():
        raise SaveError(target, "is a symbolic link; save to the folder it points to")
    if not target.exists():
        return
    if not target.is_dir():
        raise SaveError(target, "is a file, not a save folder; refusing to replace it")
    if not force and not _looks_like_save(target):
        raise SaveError(target, "exists and is not a storyworld save; refusing to replace it")


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _swap_into_place(tmp: Path, target: Path) -> Path | None:
    """Rename `tmp` onto `target` (caller holds the lock); returns trash to delete afterwards."""
    parent = target.parent
    if not os.path.lexists(target):
        _rename(tmp, target)
        _fsync_dir(parent)
        _step("rename", target)
        return None
    old = old_path(target)
    _rename(target, old)
    _fsync_dir(parent)
    _step("rename", old)
    try:
        _rename(tmp, target)
    except OSError:
        _rename(old, target)  # put the previous save back before reporting
        raise
    _fsync_dir(parent)
    _step("rename", target)
    trash = parent / f"{_trash_prefix(target)}{secrets.token_hex(4)}"
    _rename(old, trash)
    _step("rename", trash)
    return trash


def write_save(
    folder: str | os.PathLike[str],
    files: dict[str, bytes],
    meta: dict[str, object],
    *,
    force: bool = False,
) -> Manifest:
    """Write `files` and a manifest carrying `meta` as the save folder `folder`, atomically.

    Args:
        folder: the save folder; its parent is created if needed. An existing save there is
            replaced; an existing non-empty folder that is not a save is refused unless `force`.
        files: file name -> bytes; names are plain (no folders), `manifest.json` is reserved.
        meta: JSON-serialisable caller data (world id, world digest, round, character, label...).
        force: replace `folder` even when it does not look like a save.

    Returns:
        The manifest written. Raises SaveError (one line) when the save cannot be written,
        in which case the previous save, if any, is left as it was.
    """
    target = Path(folder)
    if not target.name or target.name.startswith("."):
        raise SaveError(target, "a save folder's name must not be empty or start with '.'")
    for name, data in files.items():
        problem = check_file_name(name)
        if problem:
            raise SaveError(target, problem)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise SaveError(target / name, f"contents must be bytes, got {type(data).__name__}")
    payload = {name: bytes(data) for name, data in files.items()}
    manifest = build_manifest(payload, meta)
    try:
        manifest_bytes = encode_manifest(manifest)
    except (TypeError, msgspec.EncodeError) as exc:
        raise SaveError(target / MANIFEST_NAME, f"meta is not JSON-serialisable ({exc})") from exc

    parent = target.parent
    try:
        if not parent.is_dir():
            parent.mkdir(parents=True, exist_ok=True)
            _fsync_dir(parent.parent)  # a new slot folder must survive a crash too
        with _dir_lock(parent, exclusive=True):
            _recover(target)
            _clean_leftovers(target)
            _check_replaceable(target, force)
    except OSError as exc:
        raise SaveError(target, f"cannot prepare the save folder ({exc.strerror or exc})") from exc

    tmp = parent / f"{_tmp_prefix(target)}{secrets.token_hex(6)}"
    tmp_lock: int | None = None
    trash: Path | None = None
    try:
        os.mkdir(tmp)
        tmp_lock = _try_lock_exclusive(tmp)  # marks the temp folder as alive for cleaners
        _step("mkdir", tmp)
        for name in manifest.files:
            _write_file(tmp / name, payload[name])
            _step("write", tmp / name)
        _write_file(tmp / MANIFEST_NAME, manifest_bytes)
        _fsync_dir(tmp)
        _step("write", tmp / MANIFEST_NAME)
        with _dir_lock(parent, exclusive=True):
            _recover(target)  # a crashed concurrent writer may have left a half swap
            _check_replaceable(target, force)
            trash = _swap_into_place(tmp, target)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SaveError(target, f"cannot write the save ({exc.strerror or exc})") from exc
    except SaveError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if tmp_lock is not None:
            os.close(tmp_lock)
    if trash is not None:
        shutil.rmtree(trash, ignore_errors=True)
        _step("rmtree", trash)
    return manifest


def _resolve_for_reading(target: Path) -> Path:
    """Recover a pending swap first; on a read-only medium read the intact `.old` in place."""
    old = old_path(target)
    if old.is_dir() and not os.path.lexists(target):
        try:
            with _dir_lock(target.parent, exclusive=True):
                _recover(target)
        except OSError:
            return old
    return target


def _load_manifest(where: Path) -> Manifest:
    """Decode and check the manifest of the save folder `where` (caller holds a lock)."""
    if where.is_symlink() and not where.exists():
        raise SaveError(where, "no save here (broken link)")
    if not where.exists():
        raise SaveError(where, "no save here (folder not found)")
    if not where.is_dir():
        raise SaveError(where, "not a save folder (it is a file)")
    manifest_path = where / MANIFEST_NAME
    try:
        data = manifest_path.read_bytes()
    except FileNotFoundError:
        raise SaveError(manifest_path, "missing (not a save, or the save is damaged)") from None
    except OSError as exc:
        raise SaveError(manifest_path, f"cannot read ({exc.strerror or exc})") from None
    try:
        fmt, version = decode_header(data)
    except msgspec.DecodeError as exc:
        raise SaveError(manifest_path, f"not a valid manifest ({exc})") from None
    if fmt != FORMAT_NAME:
        raise SaveError(manifest_path, f"not a storyworld save (format {fmt!r})")
    if version > FORMAT_VERSION:
        raise SaveError(
            manifest_path,
            f"saved by a newer storyworld (format {version}); this one reads up to {FORMAT_VERSION}",
        )
    if version < 1:
        raise SaveError(manifest_path, f"unknown save format version {version}")
    try:
        manifest = decode_manifest(data)
    except msgspec.DecodeError as exc:
        raise SaveError(manifest_path, f"not a valid manifest ({exc})") from None
    for name, entry in manifest.files.items():
        problem = check_file_name(name)
        if problem:
            raise SaveError(manifest_path, f"files: {problem}")
        if entry.size < 0:
            raise SaveError(manifest_path, f"files.{name}.size: negative size {entry.size}")
    return manifest


def _check_files(where: Path, manifest: Manifest, *, read: bool) -> dict[str, bytes]:
    """Every listed file present with the right size (and checksum when `read`)."""
    contents: dict[str, bytes] = {}
    for name, entry in manifest.files.items():
        path = where / name
        if path.is_symlink():
            raise SaveError(path, "is a symbolic link (saves hold plain files only)")
        try:
            if read:
                data = path.read_bytes()
                size = len(data)
            else:
                size = path.stat().st_size
                if not path.is_file():
                    raise IsADirectoryError(21, "not a plain file")
        except FileNotFoundError:
            raise SaveError(path, f"missing (listed in {MANIFEST_NAME}; the save is incomplete)") from None
        except OSError as exc:
            raise SaveError(path, f"cannot read ({exc.strerror or exc})") from None
        if size < entry.size:
            raise SaveError(path, f"truncated: {size} of {entry.size} bytes (file damaged)")
        if size > entry.size:
            raise SaveError(path, f"{size} bytes where the manifest lists {entry.size} (file damaged)")
        if read:
            if checksum(data) != entry.blake2b:
                raise SaveError(path, "checksum mismatch (file damaged)")
            contents[name] = data
    return contents


def read_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """The checked manifest of a save, without reading its files (cheap, for listings)."""
    target = Path(folder)
    where = _resolve_for_reading(target)
    with _dir_lock(target.parent, exclusive=False):
        return _load_manifest(where)


def verify_save(folder: str | os.PathLike[str], *, checksums: bool = True) -> Manifest:
    """Check a save without keeping its files: manifest, presence, sizes, and checksums if asked."""
    target = Path(folder)
    where = _resolve_for_reading(target)
    with _dir_lock(target.parent, exclusive=False):
        manifest = _load_manifest(where)
        _check_files(where, manifest, read=checksums)
    return manifest


def read_save(folder: str | os.PathLike[str]) -> tuple[Manifest, dict[str, bytes]]:
    """The manifest and every file of a save, verified; raises SaveError("PATH: reason")."""
    target = Path(folder)
    where = _resolve_for_reading(target)
    with _dir_lock(target.parent, exclusive=False):
        manifest = _load_manifest(where)
        files = _check_files(where, manifest, read=True)
    return manifest, files


def remove_folder(folder: Path) -> None:
    """Delete a save folder: rename to trash under the lock (so it vanishes at once), then remove."""
    parent = folder.parent
    trash = parent / f"{_trash_prefix(folder)}{secrets.token_hex(4)}"
    with _dir_lock(parent, exclusive=True):
        _recover(folder)
        if not os.path.lexists(folder):
            return
        _rename(folder, trash)
        _fsync_dir(parent)
        _step("rename", trash)
    shutil.rmtree(trash, ignore_errors=True)
    _step("rmtree", trash)


def delete_save(folder: str | os.PathLike[str]) -> None:
    """Delete a save folder; refuses (SaveError) a folder that does not look like a save."""
    target = Path(folder)
    if not os.path.lexists(target) and not old_path(target).is_dir():
        raise SaveError(target, "no save here (folder not found)")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise SaveError(target, "not a save folder; refusing to delete it")
    if target.is_dir() and not _looks_like_save(target):
        raise SaveError(target, "is not a storyworld save; refusing to delete it")
    try:
        remove_folder(target)
    except OSError as exc:
        raise SaveError(target, f"cannot delete ({exc.strerror or exc})") from exc

"""One writer per save: an advisory lock held by the process that plays into a save folder.

The lock is `flock` on a hidden file beside the save (`.X.lock`), taken without waiting. The
kernel drops it when its process ends however it ends (exit, crash, SIGKILL), so a lock is never
stale: a file left behind by a dead writer is not held and the next writer takes it over. The
file says who holds it (pid, host, since), for the refusal's one line.

Within one process the lock is shared: a second claim of a folder this process holds is handed
the same lock (a UI plays one game at a time, and may reopen its own save); it is released when
the last claim is. Without POSIX locks (Windows) claims always succeed, unguarded.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

from saves.errors import SaveError

try:
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]

_held: dict[str, list[int]] = {}  # resolved lock path -> [fd, claims] held by this process
_held_lock = threading.Lock()


def lock_path(folder: str | os.PathLike[str]) -> Path:
    """The lock file of the save folder `folder`: hidden beside it, so listings never show it."""
    path = Path(folder)
    return path.parent / f".{path.name}.lock"


def _key(folder: Path) -> str:
    return str(lock_path(folder.parent.resolve() / folder.name))


def _holder(path: Path) -> str:
    """Who the lock file says holds it, as words for a message."""
    try:
        fields = dict(line.split("=", 1) for line in path.read_text("utf-8").splitlines() if "=" in line)
    except (OSError, UnicodeDecodeError, ValueError):
        return "another storyworld"
    pid, host, since = fields.get("pid", "?"), fields.get("host", ""), fields.get("since", "")
    where = f" on {host}" if host and host != socket.gethostname() else ""
    return f"another storyworld (pid {pid}{where}{', since ' + since if since else ''})"


class SaveLock:
    """A claim on a save folder: `release()` (or leaving a `with`) lets it go."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self._key = key
        self._released = False

    def release(self) -> None:
        """Let the claim go; the lock itself is dropped with this process's last claim on the folder."""
        if self._released:
            return
        self._released = True
        with _held_lock:
            entry = _held.get(self._key)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] <= 0:
                del _held[self._key]
                os.close(entry[0])  # closing drops the flock

    def __enter__(self) -> SaveLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def holds(folder: str | os.PathLike[str]) -> bool:
    """Whether this process holds the lock of the save folder `folder` (then nobody else writes beside it)."""
    target = Path(folder)
    try:
        key = _key(target)
    except OSError:
        return False
    with _held_lock:
        return key in _held


def lock_save(folder: str | os.PathLike[str]) -> SaveLock:
    """Claim `folder` for writing, creating its parent if needed; SaveError (one line) when another process has it.

    Also refuses a parent that cannot be written (a read-only or full disk shows here, before any work).
    """
    target = Path(folder)
    if not target.name or target.name.startswith("."):
        raise SaveError(target, "a save folder's name must not be empty or start with '.'")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SaveError(target, f"cannot create the save's folder ({exc.strerror or exc})") from None
    key = _key(target)
    with _held_lock:
        entry = _held.get(key)
        if entry is not None:
            entry[1] += 1
            return SaveLock(target, key)
        path = Path(key)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise SaveError(target, f"cannot be written ({exc.strerror or exc})") from None
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise SaveError(target, f"is in use by {_holder(path)}; wait for it to finish, "
                                        "or play into another save") from None
            except OSError as exc:
                os.close(fd)
                raise SaveError(target, f"cannot be locked ({exc.strerror or exc})") from None
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid={os.getpid()}\nhost={socket.gethostname()}\nsince={stamp}\n".encode(), 0)
        except OSError as exc:  # a full disk: refuse now rather than after a round was computed
            os.close(fd)
            raise SaveError(target, f"cannot be written ({exc.strerror or exc})") from None
        _held[key] = [fd, 1]
        return SaveLock(target, key)

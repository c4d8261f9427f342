"""SIGTERM and SIGHUP end a headless game with a word: the last resolved round stays saved, and the run says so.

Inside `stopping_signals()` either signal raises Stopped on the main thread, except while a save is being
written (`saving()`): then it waits until the save is done, so a stop never leaves a round half saved. Nor
does it land inside `threading.Thread.start`: raised there, start's own clean-up unregisters the thread it just
began, which then dies with a KeyError traceback; the signal is sent again a moment later instead.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

from storyworld.errors import UserError

STOPPING = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class Stopped(UserError):
    """The process was asked to stop (SIGTERM, SIGHUP); `signum` is the signal, `exit_code` 128 + it."""

    def __init__(self, signum: int, message: str = "") -> None:
        self.signum = signum
        self.exit_code = 128 + signum
        super().__init__(message or f"stopped by {signal.Signals(signum).name}")


_state = threading.local()
_THREAD_START = threading.Thread.start.__code__
RESEND_S = 0.01  # long enough for Thread.start to finish registering the thread it began


def _resend(signum: int) -> None:
    time.sleep(RESEND_S)
    os.kill(os.getpid(), signum)


def _handler(signum: int, frame: FrameType | None) -> None:
    if getattr(_state, "saving", 0):  # thread-local: unset in a thread that never saved
        _state.pending = signum  # raised as the save finishes
        return
    if frame is not None and frame.f_code is _THREAD_START:
        # a bare thread, not threading's: the handler may not start a registered thread inside Thread.start
        _thread.start_new_thread(_resend, (signum,))
        return
    raise Stopped(signum)


@contextlib.contextmanager
def stopping_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Stopped while open (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, _handler) for s in STOPPING}
    try:
        yield
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def saving() -> Iterator[None]:
    """A save being written: a stop that comes meanwhile is raised once it is done."""
    _state.saving = getattr(_state, "saving", 0) + 1  # thread-local: unset until this thread's first save
    try:
        yield
    finally:
        _state.saving -= 1
        pending = getattr(_state, "pending", None)
        if not _state.saving and pending is not None:
            _state.pending = None
            raise Stopped(pending)

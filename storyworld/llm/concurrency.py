"""Deciding a round's agents concurrently: up to N decisions in flight, results in a fixed order.

Decisions within a round are independent (the barrier: everyone decides against the same
start-of-round state, each with its own seed), so they can run at the same time. What makes
the results identical to deciding one after another is that each decision is a function of its
own context alone; this module only keeps the order and the bookkeeping (progress, cancel).
"""

from __future__ import annotations

import concurrent.futures
import contextvars
from collections.abc import Callable, Sequence
from typing import TypeVar

from storyworld.errors import Cancelled
from storyworld.llm.base import LanguageModel
from storyworld.llm.wrappers import ModelWrapper

C = TypeVar("C")
D = TypeVar("D")

# Without a hint from the backend: enough to keep a batching server busy, few enough for a laptop.
DEFAULT_PARALLEL = 4

# The lane a call runs in: a backend of several single-sequence servers (storyworld.llm.llama_server
# ServerPool) sends it to that lane's server. Each lane takes its calls one at a time, in order.
LANE: contextvars.ContextVar[int] = contextvars.ContextVar("storyworld_lane", default=0)


def run_ordered(
    work: Callable[[C], D],
    items: Sequence[C],
    parallel: int,
    started: Callable[[int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    lane_of: Callable[[int], int] | None = None,
    finished: Callable[[int], None] | None = None,
) -> list[D]:
    """`[work(item) for item in items]` with up to `parallel` calls at once; results in input order.

    `started(i)` and `cancelled()` are called on the calling thread only (UI callbacks need not be
    thread-safe), just before item i starts, and `finished(i)` there once item i's result is in
    (not when it raised); when `cancelled()` is true nothing further starts and
    storyworld.errors.Cancelled (`next_index`: the item that would have) is raised once the calls in
    flight finish. The first exception raised by `work` propagates after the calls in flight finish.
    `parallel <= 1` runs on the calling thread, exactly as a loop.

    `lane_of(i)`: item i runs with LANE set to that lane, and a lane's items run one at a time in
    input order, so a lane's backend sees the same calls in the same order whether the lanes run
    together or one item after another: the results are the same either way.
    """
    lane = lane_of or (lambda index: 0)
    if parallel <= 1 or len(items) <= 1:
        results: list[D] = []
        for index, item in enumerate(items):
            if cancelled is not None and cancelled():
                raise Cancelled(f"cancelled before item {index} started", next_index=index)
            if started is not None:
                started(index)
            token = LANE.set(lane(index))
            try:
                results.append(work(item))
            finally:
                LANE.reset(token)
            if finished is not None:
                finished(index)
        return results

    def run(index: int) -> D:
        LANE.set(lane(index))  # a pool thread's own context: nothing to reset
        return work(items[index])

    # what may not run at once: items of one lane; without lanes every item stands alone
    key: Callable[[int], object] = lane if lane_of else (lambda index: ("item", index))
    slots: dict[int, D] = {}
    pending: dict[concurrent.futures.Future[D], int] = {}
    queue = list(range(len(items)))
    busy: set[object] = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(parallel, len(items)),
                                               thread_name_prefix="decide") as pool:
        try:
            while queue or pending:
                while len(pending) < parallel:
                    ready = next((i for i in queue if key(i) not in busy), None)
                    if ready is None:
                        break
                    if cancelled is not None and cancelled():
                        raise Cancelled(f"cancelled before item {ready} started", next_index=ready)
                    if started is not None:
                        started(ready)
                    queue.remove(ready)
                    busy.add(key(ready))
                    pending[pool.submit(run, ready)] = ready
                done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    index = pending.pop(future)
                    busy.discard(key(index))
                    slots[index] = future.result()
                    if finished is not None:
                        finished(index)
        finally:
            # leaving the pool waits for the calls in flight; nothing further starts
            for future in pending:
                future.cancel()
    return [slots[index] for index in range(len(items))]


def _count(model: LanguageModel | None, read: Callable[[LanguageModel], int | None]) -> int | None:
    """A positive figure `read` of `model`, or of what it wraps (a wrapper's `inner`)."""
    for _ in range(16):  # a bounded walk down the wrappers
        if model is None:
            break
        value = read(model)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        model = model.inner if isinstance(model, ModelWrapper) else None
    return None


def lanes(model: LanguageModel | None) -> int:
    """How many lanes `model` routes calls by (LANE): a pool of single-sequence servers; else 0."""
    return _count(model, lambda m: m.lanes) or 0


def parallelism(model: LanguageModel | None) -> int:
    """How many requests `model` serves at once: its `parallel` (e.g. a server's slots), else 1.

    Wrappers are looked through. One in-process llama.cpp context decodes one prompt at a time,
    so a plain local model says 1 and deciding stays sequential there.
    """
    return _count(model, lambda m: m.parallel) or 1

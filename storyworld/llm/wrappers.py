"""Composable wrappers around a LanguageModel: retry, call and token accounting, latency."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from storyworld.llm.base import Completion, LanguageModel, Message, ModelStats, Reply, Schema, TransientModelError

T = TypeVar("T")  # what a wrapped call returns

log = logging.getLogger("storyworld.llm")

NOTICE_S = 5.0  # a reply slower than this gets a line on screen (and another every NOTICE_S) while it is awaited


class ModelWrapper(LanguageModel):
    """Forwards everything to `inner`; subclasses add behaviour around the calls."""

    def __init__(self, inner: LanguageModel) -> None:
        """Wrap `inner`."""
        self.inner = inner

    @property
    def name(self) -> str:  # type: ignore[override]
        """The wrapped model's name."""
        return self.inner.name

    @property
    def n_ctx(self) -> int:  # type: ignore[override]
        """The wrapped model's context size."""
        return self.inner.n_ctx

    def complete(self, messages: list[Message], schema: Schema | None = None, max_tokens: int = 128,
                 temperature: float = 0.7, seed: int = 0) -> Completion:
        """Forward to the wrapped model."""
        return self.inner.complete(messages, schema, max_tokens, temperature, seed)

    def complete_json(self, messages: list[Message], schema: Schema, max_tokens: int = 128,
                      temperature: float = 0.7, seed: int = 0) -> tuple[Reply | None, Completion]:
        """Forward to the wrapped model."""
        return self.inner.complete_json(messages, schema, max_tokens, temperature, seed)

    def stats(self) -> ModelStats:
        """The wrapped model's counters."""
        return self.inner.stats()

    def count_tokens(self, text: str) -> int:
        """Forward to the wrapped model."""
        return self.inner.count_tokens(text)

    def close(self) -> None:
        """Forward to the wrapped model."""
        self.inner.close()

    def unwrap(self) -> LanguageModel:
        """The backend under every wrapper."""
        inner = self.inner
        return inner.unwrap() if isinstance(inner, ModelWrapper) else inner


class Accounting(ModelWrapper):
    """Counts calls, tokens, seconds, JSON failures and errors of every call that reaches it."""

    def __init__(self, inner: LanguageModel) -> None:
        """Wrap `inner` with zeroed counters."""
        super().__init__(inner)
        self._lock = threading.Lock()
        self._counts = {"calls": 0, "json_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                        "seconds": 0.0, "failures": 0, "errors": 0}

    def _add(self, completion: Completion | None, json_call: bool, failed: bool, error: bool) -> None:
        """Add one call's cost and outcome."""
        with self._lock:
            counts = self._counts
            counts["calls"] += 1
            counts["json_calls"] += json_call
            counts["failures"] += failed
            counts["errors"] += error
            if completion is not None:
                counts["prompt_tokens"] += completion.prompt_tokens
                counts["completion_tokens"] += completion.completion_tokens
                counts["seconds"] += completion.seconds

    def complete(self, messages: list[Message], schema: Schema | None = None, max_tokens: int = 128,
                 temperature: float = 0.7, seed: int = 0) -> Completion:
        """Forward and count."""
        try:
            completion = self.inner.complete(messages, schema, max_tokens, temperature, seed)
        except Exception:
            self._add(None, False, False, True)
            raise
        self._add(completion, False, False, False)
        return completion

    def complete_json(self, messages: list[Message], schema: Schema, max_tokens: int = 128,
                      temperature: float = 0.7, seed: int = 0) -> tuple[Reply | None, Completion]:
        """Forward and count; a None result is a failure."""
        try:
            obj, completion = self.inner.complete_json(messages, schema, max_tokens, temperature, seed)
        except Exception:
            self._add(None, True, False, True)
            raise
        self._add(completion, True, obj is None, False)
        return obj, completion

    def stats(self) -> ModelStats:
        """The counters, plus tokens per second of generation, over the wrapped model's."""
        with self._lock:
            own = dict(self._counts)
        own["seconds"] = round(own["seconds"], 3)
        own["tokens_per_s"] = round(own["completion_tokens"] / own["seconds"], 1) if own["seconds"] else 0.0
        return {**self.inner.stats(), **own}


class Retrying(ModelWrapper):
    """Retries transient backend errors for a bounded time, and JSON decisions that failed, with a shifted seed.

    A transient error (a dropped connection, a server that is restarting, a 5xx, a timeout) is
    retried with exponential backoff (`backoff_s`, doubling, at most `max_backoff_s` apart) for
    up to `patience_s` seconds, then raised with how long it was tried: the caller refuses the
    round instead of playing it without the model. `on_retry(note)`, when set, hears each wait
    (a UI shows it). A reply that is garbage is retried `attempts` times in all with the seed
    `seed + attempt`, so a retried run is as deterministic as a plain one. A reply cut off by
    max_tokens is not retried unless `retry_truncated`: with the same budget it is mostly cut off
    again, and the caller can often salvage the fields it has. Nor is a greedy (temperature 0)
    reply, which a new seed would not change.
    """

    def __init__(self, inner: LanguageModel, attempts: int = 2, backoff_s: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep, retry_truncated: bool = False,
                 patience_s: float = 30.0, max_backoff_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic, notice_s: float = NOTICE_S) -> None:
        """Wrap `inner`; `attempts` counts the first try of a garbage reply, `patience_s` bounds transient retries."""
        super().__init__(inner)
        self.retry_truncated = retry_truncated
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        if patience_s < 0:
            raise ValueError(f"patience_s must be 0 or more, got {patience_s}")
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.patience_s = patience_s
        self.on_retry: Callable[[str], None] | None = None
        self.notice_s = notice_s  # a call slower than this is told to on_retry, and again every notice_s
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._retries = 0
        self._gave_up = 0

    def _count(self, retries: int = 0, gave_up: int = 0) -> None:
        """Add to the retry counters."""
        with self._lock:
            self._retries += retries
            self._gave_up += gave_up

    def _watched(self, call: Callable[[], T]) -> T:
        """`call()`, telling on_retry while it runs past notice_s (a slow server is not a silent screen)."""
        listener = self.on_retry
        if listener is None or self.notice_s <= 0:
            return call()
        started = time.monotonic()
        done = threading.Event()

        def watch() -> None:
            while not done.wait(self.notice_s):
                limit = self.unwrap().timeout
                listener(f"{self.name}: waiting for the model's reply, {time.monotonic() - started:.0f} s so far"
                         + (f" (a request gives up after {limit:g} s)" if isinstance(limit, (int, float)) else ""))

        watcher = threading.Thread(target=watch, name="model-wait-notice", daemon=True)
        watcher.start()
        try:
            return call()
        finally:
            done.set()

    def _transient(self, call: Callable[[int], T], seed: int) -> T:
        """`call(seed)`, retrying TransientModelError with backoff while the patience lasts."""
        started = self._clock()
        slept = 0.0
        tries = 0
        while True:
            tries += 1
            try:
                return self._watched(lambda: call(seed))
            except TransientModelError as exc:
                spent = max(self._clock() - started, slept)
                delay = min(self.max_backoff_s, self.backoff_s * 2 ** (tries - 1))
                if spent + delay > self.patience_s:
                    self._count(gave_up=1)
                    if tries == 1:
                        raise
                    raise type(exc)(f"{exc} (still failing after {tries} tries in {spent:.1f} s)") from exc
                note = (f"{self.name}: {exc}; retrying in {delay:g} s "
                        f"(try {tries + 1}, giving up after {self.patience_s:g} s)")
                log.warning("%s", note)
                if self.on_retry is not None:
                    self.on_retry(note)
                self._count(retries=1)
                self._sleep(delay)
                slept += delay

    def complete(self, messages: list[Message], schema: Schema | None = None, max_tokens: int = 128,
                 temperature: float = 0.7, seed: int = 0) -> Completion:
        """Forward; retry TransientModelError with exponential backoff for up to `patience_s`."""
        return self._transient(lambda s: self.inner.complete(messages, schema, max_tokens, temperature, s), seed)

    def complete_json(self, messages: list[Message], schema: Schema, max_tokens: int = 128,
                      temperature: float = 0.7, seed: int = 0) -> tuple[Reply | None, Completion]:
        """Forward; retry a transient error (for `patience_s`) or a None result (`attempts`); (None, last) at the end."""
        completion = Completion(text="")
        for attempt in range(self.attempts):
            last = attempt + 1 == self.attempts
            obj, completion = self._transient(
                lambda s: self.inner.complete_json(messages, schema, max_tokens, temperature, s), seed + attempt)
            if obj is not None:
                return obj, completion
            if completion.finish_reason == "length" and not self.retry_truncated:
                break
            if temperature <= 0:
                break  # greedy decoding ignores the seed: a retry would repeat the same reply
            if not last:
                self._count(retries=1)
        self._count(gave_up=1)
        return None, completion

    def stats(self) -> ModelStats:
        """Retries and give-ups over the wrapped model's counters."""
        with self._lock:
            own = {"retries": self._retries, "gave_up": self._gave_up}
        return {**self.inner.stats(), **own}


W = TypeVar("W")


def find_wrapper(lm: LanguageModel | None, kind: type[W]) -> W | None:
    """The first `kind` among `lm` and the models it wraps, or None."""
    model = lm
    for _ in range(16):  # a bounded walk down the `inner` chain
        if model is None or isinstance(model, kind):
            return model
        model = model.inner if isinstance(model, ModelWrapper) else None
    return None


def on_retry(lm: LanguageModel | None, listener: Callable[[str], None] | None) -> bool:
    """Let `listener` hear every wait of the Retrying wrapper inside `lm`; found?"""
    retrying = find_wrapper(lm, Retrying)
    if retrying is not None:
        retrying.on_retry = listener
    return retrying is not None


class Profiling(ModelWrapper):
    """Wall-clock latency of each call as the caller sees it (retries included): p50, p95, max."""

    def __init__(self, inner: LanguageModel, keep: int = 10_000) -> None:
        """Wrap `inner`, keeping the latest `keep` latencies."""
        super().__init__(inner)
        self.keep = keep
        self._lock = threading.Lock()
        self._latencies: list[float] = []

    def _timed(self, call: Callable[[], T]) -> T:
        """Run `call`, recording its wall time even when it raises."""
        started = time.perf_counter()
        try:
            return call()
        finally:
            elapsed = time.perf_counter() - started
            with self._lock:
                self._latencies.append(elapsed)
                if len(self._latencies) > self.keep:
                    del self._latencies[: len(self._latencies) - self.keep]

    def complete(self, messages: list[Message], schema: Schema | None = None, max_tokens: int = 128,
                 temperature: float = 0.7, seed: int = 0) -> Completion:
        """Forward and time."""
        return self._timed(lambda: self.inner.complete(messages, schema, max_tokens, temperature, seed))

    def complete_json(self, messages: list[Message], schema: Schema, max_tokens: int = 128,
                      temperature: float = 0.7, seed: int = 0) -> tuple[Reply | None, Completion]:
        """Forward and time."""
        return self._timed(lambda: self.inner.complete_json(messages, schema, max_tokens, temperature, seed))

    def stats(self) -> ModelStats:
        """Latency percentiles (seconds) over the wrapped model's counters."""
        with self._lock:
            ordered = sorted(self._latencies)
        own: ModelStats = {"latency_p50_s": 0.0, "latency_p95_s": 0.0, "latency_max_s": 0.0}
        if ordered:
            own = {
                "latency_p50_s": round(_percentile(ordered, 0.50), 4),
                "latency_p95_s": round(_percentile(ordered, 0.95), 4),
                "latency_max_s": round(ordered[-1], 4),
            }
        return {**self.inner.stats(), **own}


def _percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted values."""
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]

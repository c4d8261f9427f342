"""ServerModel: any OpenAI-compatible chat server (llama.cpp, llama-cpp-python, vLLM) over HTTP."""

from __future__ import annotations

import http.client
import json
import logging
import math
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import overload

from storyworld.llm.base import (
    ModelStats,
    Completion,
    LanguageModel,
    Message,
    ModelError,
    Schema,
    TransientModelError,
)

log = logging.getLogger("storyworld.llm")

# How a schema goes into `response_format`. OpenAI and vLLM take "json_schema"; llama.cpp's
# server takes both; llama-cpp-python's server only takes "json_object" with a "schema" key
# (it answers 422 to the OpenAI form). We try the OpenAI form first, then remember what works.
SCHEMA_FORMS = ("json_schema", "json_object")
# Requests kept in flight at a server that does not report its slots (vLLM batches any number).
DEFAULT_PARALLEL = 4


def _response_format(form: str, schema: Schema) -> dict[str, object]:
    """The `response_format` value for `schema` in one of SCHEMA_FORMS."""
    if form == "json_schema":
        # No "strict": OpenAI refuses strict schemas with optional fields; vLLM and llama.cpp
        # enforce the schema either way.
        return {"type": "json_schema", "json_schema": {"name": "decision", "schema": schema}}
    return {"type": "json_object", "schema": schema}


def base_url(url: str) -> str:
    """The server root from what a user types: "host:port", "http://host:port", ".../v1"."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urllib.parse.urlsplit(text.rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelError(f"{url}: not a server URL (expected http://HOST:PORT)")
    path = parts.path[: -len("/v1")] if parts.path.endswith("/v1") else parts.path
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


class ServerModel(LanguageModel):
    """A model behind /v1/chat/completions; the constructor checks the server answers /v1/models.

    Thread-safe: every request opens its own connection and the counters live in the wrappers,
    so callers may keep `parallel` requests in flight (the schema-form memo is a benign race).
    """

    def __init__(
        self,
        url: str,
        model: str | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 10.0,
        api_key: str | None = None,
        n_ctx: int = 2048,
        parallel: int | None = None,
    ) -> None:
        """Connect to the server at `url`; ModelError (one line) if it does not answer.

        `parallel` is how many requests callers keep in flight (storyworld.llm.concurrency): given,
        or the server's slot count where it reports one (llama.cpp's /props), else 4.
        """
        self.url = base_url(url)
        self.timeout: float = timeout
        self.api_key = api_key
        self.n_ctx = n_ctx
        self._schema_form: str | None = None
        self._timings_lock = threading.Lock()
        self._timings = {"prompt_s": 0.0, "generation_s": 0.0, "prompt_tokens_evaluated": 0,
                         "tokens_generated": 0, "prompt_tokens_cached": 0}
        try:
            listed = self._request("GET", "/v1/models", None, connect_timeout).get("data")
        except _HTTPStatusError as exc:
            raise exc.as_model_error() from exc
        ids = [entry.get("id", "") for entry in (listed if isinstance(listed, list) else []) if isinstance(entry, dict)]
        if model is None:
            if not ids:
                raise ModelError(f"{self.url}: the server lists no models at /v1/models")
            model = ids[0]
        self.model = model
        self.name = f"{model.rsplit('/', 1)[-1]}@{urllib.parse.urlsplit(self.url).netloc}"
        self.slots = self.server_slots(connect_timeout)
        self.parallel: int = parallel if parallel and parallel > 0 else (self.slots or DEFAULT_PARALLEL)

    def server_slots(self, timeout: float = 10.0) -> int | None:
        """The server's parallel slots if it says (llama.cpp: /props total_slots, or /slots), else None."""
        for path in ("/props", "/slots"):
            try:
                answer = self._request("GET", path, None, timeout)
            except (ModelError, _HTTPStatusError):
                continue
            value = answer.get("total_slots") if isinstance(answer, dict) else None
            if isinstance(value, int) and value > 0:
                return value
        return None

    def _request(self, method: str, path: str, body: dict[str, object] | None, timeout: float) -> dict[str, object]:
        """One JSON request; ModelError (TransientModelError when retrying may help) on failure."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        where = f"{self.url}{path}"
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            raise _HTTPStatusError(exc.code, f"{where}: HTTP {exc.code}: {_error_detail(exc)}") from exc
        except urllib.error.URLError as exc:
            # Transient: a server that died or is restarting mid-run refuses connections for a while.
            # Callers retry for a bounded time, then refuse the round; a first connection fails at once.
            reason = exc.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise TransientModelError(f"{where}: no answer within {timeout:g} s") from exc
            if isinstance(reason, ConnectionRefusedError):
                raise TransientModelError(
                    f"cannot reach the model server at {self.url}: connection refused (is it running?)") from exc
            raise TransientModelError(f"cannot reach the model server at {self.url}: {reason}") from exc
        except (TimeoutError, socket.timeout) as exc:
            raise TransientModelError(f"{where}: no answer within {timeout:g} s") from exc
        except (OSError, http.client.HTTPException) as exc:  # a reset or a reply cut short
            raise TransientModelError(f"{where}: connection failed: {exc}") from exc
        try:
            decoded = json.loads(payload)
        except ValueError as exc:
            raise TransientModelError(f"{where}: the server did not answer JSON: {payload[:120]!r}") from exc
        if isinstance(decoded, list) and path == "/slots":
            return {"total_slots": len(decoded)}  # llama.cpp lists one entry per slot
        if not isinstance(decoded, dict):
            raise ModelError(f"{where}: unexpected answer: {payload[:120]!r}")
        return decoded

    def complete(
        self,
        messages: list[Message],
        schema: Schema | None = None,
        max_tokens: int = 128,
        temperature: float = 0.7,
        seed: int = 0,
    ) -> Completion:
        """The server's reply to `messages`, schema-constrained through `response_format`."""
        body: dict[str, object] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
            "stream": False,
        }
        started = time.perf_counter()
        forms = [self._schema_form] if self._schema_form else list(SCHEMA_FORMS)
        result: dict[str, object] | None = None
        for index, form in enumerate(forms if schema is not None else [None]):
            if form is not None and schema is not None:
                body["response_format"] = _response_format(form, schema)
            try:
                result = self._request("POST", "/v1/chat/completions", body, self.timeout)
            except _HTTPStatusError as exc:
                # A refusal of the first form may only mean the server wants the other one
                # (llama-cpp-python's server answers 500 with a validation error to json_schema).
                if schema is not None and index + 1 < len(forms) and exc.refuses_response_format():
                    continue
                raise exc.as_model_error() from exc
            if form is not None:
                self._schema_form = form
            break
        assert result is not None
        seconds = time.perf_counter() - started
        self._add_timings(result.get("timings"))
        return completion_from(result, self.url, seconds)

    def _add_timings(self, timings: object) -> None:
        """Add llama.cpp's per-request `timings` (prompt and generation ms, cached tokens) if present."""
        if not isinstance(timings, dict):
            return
        with self._timings_lock:
            counts = self._timings
            counts["prompt_s"] += count(timings.get("prompt_ms"), float) / 1000
            counts["generation_s"] += count(timings.get("predicted_ms"), float) / 1000
            counts["prompt_tokens_evaluated"] += count(timings.get("prompt_n"))
            counts["tokens_generated"] += count(timings.get("predicted_n"))
            counts["prompt_tokens_cached"] += count(timings.get("cache_n"))

    def stats(self) -> ModelStats:
        """The server's own timers summed over requests (llama.cpp reports them; others: zeros).

        With requests in flight together these add up to more than the wall time they took.
        """
        with self._timings_lock:
            out = dict(self._timings)
        out["prompt_s"] = round(out["prompt_s"], 3)
        out["generation_s"] = round(out["generation_s"], 3)
        slots = {"server_slots": self.slots} if self.slots is not None else {}  # not every server says
        return {**out, "parallel": self.parallel, **slots}


@overload
def count(value: object) -> int: ...
@overload
def count(value: object, kind: type[float]) -> float: ...
def count(value: object, kind: type[int] | type[float] = int) -> int | float:
    """A bookkeeping figure from a server, read leniently: a number that is not finite, negative or not a number is 0.

    Token counts and timings only measure; a server that garbles them still answered, and the reply's text
    is what the game uses.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if value is not None:
            log.info("a server's bookkeeping field is not a number: %r", str(value)[:40])
        return kind(0)
    if not math.isfinite(value) or value < 0:
        return kind(0)
    return kind(value)


def completion_from(result: dict[str, object], url: str, seconds: float) -> Completion:
    """A chat completion's reply read from its JSON: the text must be there (else a model fault); the rest leniently.

    No choices or a message that is not an object is TransientModelError (a reply cut short: retried for
    the patience); content that is not text (an integer, a list) is a broken server: ModelError, the round
    is refused at once. Neither is ever a decision quietly made without the model.
    """
    choices = result.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise TransientModelError(f"{url}: malformed completion (no choices): {str(result)[:160]}")
    text = message.get("content")
    if text is None:
        text = ""  # a reply with nothing in it: the decision's own fallback, as for any empty reply
    if not isinstance(text, str):
        raise ModelError(f"{url}: malformed completion (content is {type(text).__name__}, not text): "
                                  f"{str(text)[:80]}")
    usage = result.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    finish = choice.get("finish_reason") if isinstance(choice, dict) else ""
    return Completion(
        text=text,
        prompt_tokens=count(usage.get("prompt_tokens")),
        completion_tokens=count(usage.get("completion_tokens")),
        seconds=seconds,
        finish_reason=finish if isinstance(finish, str) else "",
    )


class _HTTPStatusError(Exception):
    """A non-2xx answer, before it becomes a ModelError, so negotiation can look at it."""

    def __init__(self, code: int, message: str) -> None:
        """Remember the HTTP status code with the message."""
        super().__init__(message)
        self.code = code

    def refuses_response_format(self) -> bool:
        """Whether the server seems to reject the shape of `response_format`, not the request."""
        return self.code in (400, 422) or (self.code >= 500 and "response_format" in str(self))

    def as_model_error(self) -> ModelError:
        """TransientModelError for 5xx and 429 (retrying may help), ModelError otherwise."""
        if self.code >= 500 or self.code == 429:
            return TransientModelError(str(self))
        return ModelError(str(self))


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The server's error message on one short line, from an OpenAI-style or plain body."""
    return " ".join(_error_body(exc).split())[:200]


def _error_body(exc: urllib.error.HTTPError) -> str:
    """The server's error message, from an OpenAI-style or plain body."""
    try:
        raw = exc.read()
    except OSError:
        return exc.reason or ""
    try:
        body = json.loads(raw)
    except ValueError:
        return raw[:400].decode("utf-8", "replace")
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body))
        if isinstance(error, dict):
            error = error.get("message", error)
        return str(error)
    return str(body)

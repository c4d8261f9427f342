"""The language-model interface: one `complete` call, JSON decisions on top, and its errors."""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import time
from collections.abc import Iterator
from collections.abc import Mapping
from typing import Protocol, cast, runtime_checkable

import msgspec

from storyworld.errors import UserError
from storyworld.llm.validation import schema_problems

log = logging.getLogger("storyworld.llm")

Message = dict[str, str]
Schema = Mapping[str, object]  # a JSON schema, read only
Reply = dict[str, object]  # a schema-constrained reply: always a JSON object; callers check each value's type
ModelStats = dict[str, float]  # a model's counters and cumulative seconds


class CallTag(msgspec.Struct, frozen=True, kw_only=True):
    """What a model call is for, as its caller says: the kind of prompt and the agent it decides for.

    Nothing in a backend depends on it; accounting reads it (`bench round` groups prompts by it to
    find what a perfect prefix cache would have kept).
    """

    kind: str = ""  # "choice", "line", ...
    agent: str = ""


CALL_TAG: contextvars.ContextVar[CallTag] = contextvars.ContextVar("storyworld_call_tag", default=CallTag())


@contextlib.contextmanager
def tagged(kind: str, agent: str = "") -> Iterator[None]:
    """While open, model calls on this thread (or task) carry CallTag(kind, agent)."""
    token = CALL_TAG.set(CallTag(kind=kind, agent=agent))
    try:
        yield
    finally:
        CALL_TAG.reset(token)


class ModelError(UserError):
    """The model cannot be used: missing or invalid file, unreachable or failing server."""


class TransientModelError(ModelError):
    """A failure worth retrying: a timeout, a dropped connection, a 5xx from a server."""


class PromptTooLongError(ModelError):
    """The prompt does not fit the model's context window (a caller problem, not the model's)."""


class Completion(msgspec.Struct, frozen=True, kw_only=True):
    """One model answer with its cost: tokens in, tokens out, wall seconds."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    finish_reason: str = ""


class LanguageModel:
    """A chat model: `complete` is the one method a backend must provide."""

    name: str = "model"
    n_ctx: int = 2048
    parallel: int | None = None  # requests it serves at once (a server's slots); None: what it wraps says, else 1
    lanes: int | None = None  # single-sequence servers it routes calls among by concurrency.LANE; None: none
    timeout: float | None = None  # seconds a request may take before it gives up (a server's); None: no limit

    def complete(
        self,
        messages: list[Message],
        schema: Schema | None = None,
        max_tokens: int = 128,
        temperature: float = 0.7,
        seed: int = 0,
    ) -> Completion:
        """The model's reply to `messages`; with `schema`, decoding is constrained to it."""
        raise NotImplementedError

    def complete_json(
        self,
        messages: list[Message],
        schema: Schema,
        max_tokens: int = 128,
        temperature: float = 0.7,
        seed: int = 0,
    ) -> tuple[Reply | None, Completion]:
        """A schema-constrained reply parsed and validated; (None, completion) when it fails.

        Bad model output (unparseable, off-schema, cut short, prompt too long) is logged and
        returned as None for the caller's fallback. Only an unusable backend raises ModelError.
        """
        started = time.perf_counter()
        try:
            completion = self.complete(messages, schema, max_tokens, temperature, seed)
        except PromptTooLongError as exc:
            log.warning("%s: %s", self.name, exc)
            return None, Completion(text="", seconds=time.perf_counter() - started)
        return parse_json_reply(completion, schema, self.name), completion

    def stats(self) -> ModelStats:
        """Counters for this model (wrappers add calls, tokens, failures, latency)."""
        return {}

    def unwrap(self) -> LanguageModel:
        """The backend itself (a wrapper gives the model it wraps, all the way down)."""
        return self

    def count_tokens(self, text: str) -> int:
        """Roughly how many tokens `text` takes (backends with a tokenizer give exact counts)."""
        return max(1, len(text) // 4)

    def close(self) -> None:
        """Release the backend (model memory, connections)."""


def parse_json_reply(completion: Completion, schema: Schema, model_name: str) -> Reply | None:
    """The JSON object in a reply if it parses and fits `schema`, else None (and a log line).

    A reply whose text is not text at all is no reply: ModelError (the backend is broken, not the decision).
    """
    if not isinstance(completion.text, str):
        raise ModelError(f"{model_name}: the reply's text is {type(completion.text).__name__}, not text")
    obj = _loads_lenient(completion.text)
    if obj is _UNPARSED:
        # a reply cut at the token limit is routine for a small model and callers may salvage it
        log.log(
            logging.INFO if completion.finish_reason == "length" else logging.WARNING,
            "%s: reply is not JSON (finish=%s): %r",
            model_name, completion.finish_reason or "?", completion.text[:200],
        )
        return None
    problems = schema_problems(obj, schema)
    if problems:
        log.warning("%s: reply breaks the schema: %s: %r", model_name, "; ".join(problems[:3]),
                    completion.text[:200])
        return None
    return cast(Reply, obj)  # it fits the schema, and every reply's schema is an object's


@runtime_checkable
class OnModel(Protocol):
    """Anything that decides with a language model (a mind such as LLMMind): the model it runs on."""

    lm: LanguageModel


def model_of(thing: object) -> LanguageModel | None:
    """The language model `thing` runs on (a mind's `lm`); None for a mind that runs on none (scripted, tests)."""
    lm = thing.lm if isinstance(thing, OnModel) else None
    return lm if isinstance(lm, LanguageModel) else None


_UNPARSED = object()


def _loads_lenient(text: str) -> object:
    """json.loads, then the outermost {...} span: servers that ignore the schema wrap JSON in prose.

    Raw newlines and tabs inside strings are accepted (strict=False): small models emit them, and
    callers normalise whitespace in free text anyway.
    """
    try:
        return json.loads(text, strict=False)
    except ValueError:
        pass
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        try:
            return json.loads(text[start : end + 1], strict=False)
        except ValueError:
            pass
    return _UNPARSED

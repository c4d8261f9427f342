"""complete_json and the wrappers (retry, accounting, profiling) on scripted test doubles."""

from __future__ import annotations

import logging

import pytest

from storyworld.llm import (
    Completion,
    Accounting,
    ModelError,
    Profiling,
    PromptTooLongError,
    Retrying,
    TransientModelError,
    wrap,
)
from tests.support.fixtures_llm import ACTION_SCHEMA, ScriptedModel, action_messages

GOOD = '{"action": "move", "to": "garden"}'


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "I think I will go to the garden.",
        '{"action": "move", "to": "garden"',  # cut short by max_tokens
        '{"action": "fly", "to": "garden"}',  # enum broken
        '{"action": "move"}',  # required field missing
        '{"action": "move", "to": "garden", "mood": "sad"}',  # unknown field
        '["move", "garden"]',
        "null",
    ],
)
def test_garbage_through_complete_json_is_none_and_counted(garbage, caplog):
    lm = wrap(ScriptedModel([garbage]), attempts=1)
    with caplog.at_level(logging.WARNING, logger="storyworld.llm"):
        obj, completion = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)
    assert obj is None
    assert completion.text == garbage
    stats = lm.stats()
    assert stats["failures"] == 1 and stats["json_calls"] == 1 and stats["gave_up"] == 1
    assert any(record.name == "storyworld.llm" for record in caplog.records)


def test_json_in_prose_is_recovered():
    lm = wrap(ScriptedModel([f"Sure! Here it is: {GOOD} Hope that helps."]))
    obj, _ = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)
    assert obj == {"action": "move", "to": "garden"}


def test_retry_shifts_the_seed_and_counts_every_attempt():
    backend = ScriptedModel(["nonsense", GOOD])
    lm = wrap(backend, attempts=3)
    obj, _ = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA, seed=7)
    assert obj == {"action": "move", "to": "garden"}
    assert backend.seeds == [7, 8]
    stats = lm.stats()
    assert stats["calls"] == 2 and stats["failures"] == 1 and stats["retries"] == 1 and stats["gave_up"] == 0
    assert stats["prompt_tokens"] == 20


def test_transient_errors_are_retried_then_raised():
    sleeps: list[float] = []
    backend = ScriptedModel([TransientModelError("timeout"), GOOD])
    lm = Retrying(Accounting(backend), attempts=2, backoff_s=0.25, sleep=sleeps.append)
    assert lm.complete(action_messages("Hamlet")).text == GOOD
    assert sleeps == [0.25]
    failing = Retrying(ScriptedModel([TransientModelError("down")]), attempts=2, sleep=sleeps.append)
    with pytest.raises(TransientModelError):
        failing.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)
    assert failing.stats()["gave_up"] == 1


def test_plain_model_errors_are_not_retried():
    backend = ScriptedModel([ModelError("server said 401"), GOOD])
    lm = Retrying(backend, attempts=3, sleep=lambda s: None)
    with pytest.raises(ModelError, match="401"):
        lm.complete(action_messages("Hamlet"))
    assert backend.seeds == [0]


def test_prompt_too_long_is_a_failure_not_a_crash():
    lm = wrap(ScriptedModel([PromptTooLongError("prompt has 5000 tokens")]), attempts=1)
    obj, completion = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)
    assert obj is None and completion.text == ""
    assert lm.stats()["failures"] == 1


def test_profiling_percentiles_and_passthrough():
    lm = Profiling(Accounting(ScriptedModel([GOOD])))
    for _ in range(20):
        lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)
    stats = lm.stats()
    assert stats["calls"] == 20 and stats["completion_tokens"] == 20 * 4
    assert 0 <= stats["latency_p50_s"] <= stats["latency_p95_s"] <= stats["latency_max_s"]
    assert lm.name == "scripted"
    assert lm.unwrap().name == "scripted"


def test_accounting_counts_errors():
    lm = Accounting(ScriptedModel([ModelError("gone")]))
    with pytest.raises(ModelError):
        lm.complete(action_messages("Hamlet"))
    assert lm.stats()["errors"] == 1


def test_attempts_must_be_positive():
    with pytest.raises(ValueError):
        Retrying(ScriptedModel([GOOD]), attempts=0)


class TruncatingModel(ScriptedModel):
    """Replies cut off by max_tokens."""

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        completion = super().complete(messages, schema, max_tokens, temperature, seed)
        return Completion(text=completion.text, completion_tokens=max_tokens, finish_reason="length")


def test_a_reply_cut_off_by_max_tokens_is_not_retried_by_default():
    backend = TruncatingModel(['{"action": "say", "to": "gar'])
    lm = wrap(backend, attempts=3)
    obj, completion = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA, max_tokens=9)
    assert obj is None and completion.finish_reason == "length"
    assert backend.seeds == [0] and lm.stats()["gave_up"] == 1
    eager = Retrying(TruncatingModel(['{"action"', GOOD]), attempts=2, retry_truncated=True)
    assert eager.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)[0] == {"action": "move", "to": "garden"}


def test_a_greedy_reply_is_not_retried():
    backend = ScriptedModel(["nonsense", GOOD])
    lm = wrap(backend, attempts=3)
    obj, _ = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA, temperature=0.0)
    assert obj is None and backend.seeds == [0]

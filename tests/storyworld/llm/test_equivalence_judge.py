"""The equivalence judge: a schema-constrained {"same": bool} question to the model."""

from __future__ import annotations

import pytest

from storyworld.llm.equivalence_judge import JUDGE_SCHEMA, make_judge
from storyworld.llm import Completion, wrap
from tests.support.fixtures_llm import ScriptedModel, bundled_lm  # noqa: F401  (fixture)


class RecordingModel(ScriptedModel):
    """A scripted model that also keeps the arguments of each call."""

    def __init__(self, replies):
        super().__init__(replies)
        self.calls: list[dict] = []

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0) -> Completion:
        self.calls.append({"messages": messages, "schema": schema, "temperature": temperature})
        return super().complete(messages, schema, max_tokens, temperature, seed)


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ('{"same": true}', True),
        ('{"same": false}', False),
        ('{"same": "yes"}', None),
        ('{"same": true', None),
        ("They are the same.", None),
        ("{}", None),
    ],
)
def test_verdicts_and_failures(reply, verdict):
    backend = RecordingModel([reply])
    judge = make_judge(wrap(backend, attempts=1))
    assert judge("Hamlet met the ghost.", "The ghost met Hamlet.") is verdict
    call = backend.calls[0]
    assert call["schema"] == JUDGE_SCHEMA and call["temperature"] == 0.0
    prompt = call["messages"][-1]["content"]
    assert "Hamlet met the ghost." in prompt and "The ghost met Hamlet." in prompt


@pytest.mark.real_model
def test_bundled_model_gives_a_verdict_and_the_same_one_twice(bundled_lm):
    """Greedy decoding: each pair gets a verdict from the model (not None: it answered the schema), twice the same.

    Not a claim that the verdicts are right: measured, the 135M model says "same" to all of these,
    the unrelated pairs too (why --judge is off by default; `storyworld bench judge` measures precision).
    """
    judge = make_judge(bundled_lm)
    pairs = [("Horatio saw the ghost on the platform.", "On the platform Horatio saw the ghost."),
             ("Horatio saw the ghost on the platform.", "Ophelia drowned in the brook."),
             ("Hamlet killed Polonius.", "Laertes sailed to France.")]
    first = [judge(a, b) for a, b in pairs]
    second = [judge(a, b) for a, b in pairs]
    assert None not in first, first
    assert first == second

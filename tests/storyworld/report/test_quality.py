"""Model-judged quality: constrained answers, three scorings, mean and std, labelled as model-judged."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from storyworld.game import session
from storyworld.kernel.actions import Say
from storyworld.llm import Completion, LanguageModel
from storyworld.report.quality import METRICS, canon_after, score, score_run
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.fixtures_llm import bundled_lm  # noqa: F401 — session fixture
from tests.support.paths import TINY


class SchemaAnswerer(LanguageModel):
    """Answers every judge prompt from its schema: booleans alternate, scores step through their enum."""

    name = "schema-answerer"

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.turn = 0

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0) -> Completion:
        self.calls.append({"schema": schema, "seed": seed, "prompt": messages[-1]["content"]})
        self.turn += 1
        props = schema["properties"]
        if "answer" in props:
            return Completion(text=json.dumps({"answer": self.turn % 2 == 0}))
        choices = props["score"]["enum"]
        return Completion(text=json.dumps({"score": choices[self.turn % len(choices)]}))


def talk(round_: int, agent: str, context):
    if context.perception.present:
        return Say(actor=agent, text=f"I am {agent} and I want the truth about the lamp ({round_}).")
    return None


@pytest.fixture(scope="module")
def tiny_sim():
    world = load_world(TINY)
    sim = session.new_simulation(world, None, Settings(seed=2), ScriptedMind(talk), embedder=HashEmbedder())
    for _ in range(3):
        sim.step()
    return sim


def test_three_scorings_give_mean_and_std_and_a_label(tiny_sim):
    lm = SchemaAnswerer()
    result = score_run(tiny_sim, lm, scorings=3, seed=4)
    assert result["label"] == "model-judged" and result["judged_by"] == "schema-answerer"
    for metric in METRICS:
        values = result[metric]["scores"]
        assert len(values) == 3
        assert math.isclose(result[metric]["mean"], sum(values) / 3)
        assert math.isclose(result[metric]["std"], statistics.pstdev(values))
    assert 0 <= result["grounding"]["mean"] <= 1 and 0 <= result["trajectory"]["mean"] <= 1
    assert 1 <= result["narrative"]["mean"] <= 5 and 0 <= result["goal"]["mean"] <= 1
    # Every call was schema constrained, and the scorings used different seeds.
    assert all(c["schema"] is not None for c in lm.calls)
    assert len({c["seed"] for c in lm.calls}) > 3


def test_unusable_answers_are_missing_not_zero(tiny_sim):
    class Mute(SchemaAnswerer):
        def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
            return Completion(text="I cannot say.")

    result = score_run(tiny_sim, Mute(), scorings=2)
    for metric in METRICS:
        assert result[metric]["scores"] == [] and math.isnan(result[metric]["mean"])


def test_trajectory_reads_the_canon_after_the_start():
    world = load_world(TINY)
    after = canon_after(world, "arrival")
    assert after[0].startswith("Tobin tells Maren") and all("Silas tells Elias" not in t for t in after)


def test_score_without_beats_or_actors_still_answers():
    world = load_world(TINY)
    result = score(world, [], "arrival", "# Nothing happened\n", [], SchemaAnswerer(), scorings=2)
    assert result["grounding"]["scores"] == [] and result["goal"]["scores"] == []
    assert len(result["narrative"]["scores"]) == 2


@pytest.mark.real_model
def test_bundled_model_judges_a_short_run(tiny_sim, bundled_lm):  # noqa: F811
    result = score_run(tiny_sim, bundled_lm, scorings=1, seed=0)
    answered = [m for m in METRICS if result[m]["scores"]]
    assert len(answered) >= 3, result
    for metric in answered:
        low, high = (1, 5) if metric == "narrative" else (0, 1)
        assert low <= result[metric]["mean"] <= high

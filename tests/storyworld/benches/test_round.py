"""`bench round --json` on the bundled model: the floor's figures, per round and per decision, in process and in lanes."""

from __future__ import annotations

import json

import pytest

from storyworld.cli import main
from tests.support.paths import TINY

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder]

FLOOR = ("prompt_tokens_evaluated_per_decision", "tokens_generated_per_decision", "prompt_tokens_per_s",
         "tokens_generated_per_s", "floor_seconds_per_round", "floor_ratio")


def _bench(capsys, *args: str) -> dict:
    assert main(["bench", "round", str(TINY), "--as", "maren", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _per_round_adds_up(run: dict, rounds: int) -> None:
    """The round-by-round token counts are the model's own and make the per-round means."""
    evaluated, generated = run["round_prompt_tokens_evaluated"], run["round_tokens_generated"]
    assert len(evaluated) == len(generated) == len(run["round_seconds"]) == rounds
    assert sum(evaluated) > 0 and sum(generated) > 0
    assert run["prompt_tokens_evaluated_per_round"] == round(sum(evaluated) / rounds, 3)
    assert run["tokens_generated_per_round"] == round(sum(generated) / rounds, 3)
    decisions = sum(run["decisions_per_round"] for _ in range(rounds))
    assert run["prompt_tokens_evaluated_per_decision"] == round(sum(evaluated) / decisions, 2)


def test_in_process_the_round_reports_its_tokens_rates_and_floor(capsys):
    result = _bench(capsys, "--rounds", "2", "--parallel", "1", "--awake", "all")
    for key in FLOOR:
        assert result[key] > 0, key
    assert result["floor_ratio"] == pytest.approx(result["seconds_per_round"] / result["floor_seconds_per_round"],
                                                  rel=1e-2)
    assert result["prompt_tokens_evaluated_per_round"] > 0 and result["tokens_generated_per_round"] > 0
    _per_round_adds_up(result["runs"]["sequential"], 2)


@pytest.mark.slow
def test_in_lanes_the_floor_is_given_and_the_events_match_one_at_a_time(capsys):
    from storyworld.llm.llama_server import find_llama_server

    if find_llama_server() is None:
        pytest.skip("no llama-server here (make install builds it)")
    result = _bench(capsys, "--rounds", "1", "--parallel", "2", "--no-batched", "--awake", "all")
    assert result["same_events"] is True
    for name in ("concurrent", "sequential", "server_sequential"):
        run = result["runs"][name]
        for key in FLOOR:
            assert run[key] > 0, (name, key)
        _per_round_adds_up(run, 1)
    assert result["sequential_floor_ratio"] > 0

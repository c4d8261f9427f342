"""The floor of a round (bench round): unshared prompt tokens and generated tokens at measured rates."""

from __future__ import annotations

from storyworld.benches.floor import Call, CallLog, floor_figures, unshared_tokens
from storyworld.llm.base import tagged
from storyworld.llm.concurrency import run_ordered
from tests.support.fixtures_llm import ScriptedModel


def _call(kind, agent, round=0, lane=0, generated=10, prompt=""):
    return Call(run="r", round=round, kind=kind, agent=agent, lane=lane,
                messages=[{"role": "user", "content": prompt}], schema=None, completion_tokens=generated)


def test_a_prompt_shares_what_an_earlier_prompt_of_its_kind_or_agent_began_with():
    calls = [_call("line", "a"), _call("choice", "b"), _call("line", "b"), _call("choice", "a"), _call("x", "c"),
             _call("line", "a")]
    prompts = [[1, 2, 3, 4], [1, 9, 9], [1, 2, 3, 7, 7], [1, 2, 3, 4, 5], [1, 2], [1, 2, 3, 4]]
    # line b shares 3 with line a; choice a shares 4 with line a (same agent), not 2 only as a choice;
    # x/c shares nothing (another kind, another agent); a repeated prompt still evaluates one token
    assert unshared_tokens(calls, prompts) == [4, 3, 2, 1, 2, 1]


def test_the_floor_is_the_busiest_lane_at_the_measured_rates():
    calls = [_call("line", "a", lane=0, generated=10, prompt="a"), _call("line", "b", lane=1, generated=20, prompt="b"),
             _call("line", "c", round=1, lane=0, generated=10, prompt="c")]
    spent = {"prompt_tokens_evaluated": 300, "prompt_s": 3.0, "tokens_generated": 40, "generation_s": 2.0}
    prompts = {"a": [1] * 100, "b": [2] * 50, "c": [1] * 100 + [3] * 10}

    def tokenize(messages, schema):
        return prompts[messages[0]["content"]]

    # at 100 prompt and 20 generated tokens a second: round 0 is 100/100 + 10/20 = 1.5 s in lane 0 and
    # 50/100 + 20/20 = 1.5 s in lane 1; round 1 is 10/100 + 10/20 = 0.6 s (it shares 100 with call a)
    in_turn = floor_figures(calls, tokenize, 2, spent, 3.0, 3, lanes_at_once=False)
    assert in_turn["floor_seconds_per_round"] == (3.0 + 0.6) / 2
    assert in_turn["floor_ratio"] == round(3.0 / 1.8, 3)
    assert in_turn["prompt_tokens_evaluated_per_decision"] == 100.0
    assert in_turn["tokens_generated_per_decision"] == round(40 / 3, 2)
    at_once = floor_figures(calls, tokenize, 2, spent, 3.0, 3, lanes_at_once=True)
    assert at_once["floor_seconds_per_round"] == (1.5 + 0.6) / 2
    assert "floor_ratio" not in floor_figures(calls, None, 2, spent, 3.0, 3, lanes_at_once=False)


def test_the_call_log_keeps_each_call_with_its_tag_and_lane():
    log = CallLog(ScriptedModel(['{"line": "x"}']))
    log.run, log.round = "sequential", 2

    def decide(agent):
        with tagged("line", agent):
            return log.complete([{"role": "user", "content": agent}], None)

    run_ordered(decide, ["a", "b", "c"], 2, lane_of=lambda i: i % 2)
    assert sorted((c.agent, c.kind, c.lane, c.round, c.run) for c in log.calls) == [
        ("a", "line", 0, 2, "sequential"), ("b", "line", 1, 2, "sequential"), ("c", "line", 0, 2, "sequential")]
    log.complete([{"role": "user", "content": "untagged"}])
    assert (log.calls[-1].kind, log.calls[-1].agent) == ("", "")

"""The LLM policy's pure parts: the decision schema, turning JSON into actions, salvaging cut-off replies."""

from __future__ import annotations

from pathlib import Path

from storyworld.actions import ActOn, Move, Observe, Say
from storyworld.llm import Completion, schema_problems
from storyworld.minds import MAX_SPEECH, _salvage, decision_schema, to_action
from storyworld.perception import perceive
from storyworld.simulation import initial_state
from storyworld.world import load_world

TINY = Path(__file__).parent / "data" / "worlds" / "tiny.toml"


def _perception(agent="tobin"):
    world = load_world(TINY)
    return world, perceive(world, initial_state(world, "arrival"), agent)


def test_schema_enums_list_only_what_is_possible_here():
    world, p = _perception()
    schema = decision_schema(world, p)
    props = schema["properties"]
    assert set(props["place"]["enum"]) == {"", "tavern", "lighthouse"}
    assert set(props["to"]["enum"]) == {"", "maren", "silas"}
    assert "letter" in props["target"]["enum"]
    assert list(props)[-1] == "text"  # free text last


def test_to_action_turns_valid_json_into_actions_and_invalid_into_observe():
    _, p = _perception()
    base = {"to": "", "place": "", "target": "", "verb": "", "text": ""}
    assert to_action("tobin", {**base, "action": "move", "place": "tavern"}, p)[0] == Move(actor="tobin", to="tavern")
    action, problem = to_action("tobin", {**base, "action": "say", "text": "hello", "to": "maren"}, p)
    assert action == Say(actor="tobin", text="hello", to="maren") and not problem
    action, problem = to_action("tobin", {**base, "action": "act_on", "target": "letter", "verb": "read"}, p)
    assert isinstance(action, ActOn) and not problem
    for bad in ({**base, "action": "move", "place": "moon"}, {**base, "action": "say"}, {**base, "action": "fly"}):
        action, problem = to_action("tobin", bad, p)
        assert isinstance(action, Observe) and problem


def test_a_reply_cut_inside_its_text_is_salvaged_when_every_choice_is_valid():
    world, p = _perception()
    schema = decision_schema(world, p)
    cut = '{"action": "say", "to": "maren", "place": "", "target": "", "verb": "", "text": "' + "x" * 300
    obj = _salvage(Completion(text=cut, finish_reason="length"), schema)
    assert obj["action"] == "say" and len(obj["text"]) == MAX_SPEECH
    assert not schema_problems(obj, schema)
    bad = '{"action": "say", "to": "hamlet", "place": "", "target": "", "verb": "", "text": "hi'
    assert _salvage(Completion(text=bad, finish_reason="length"), schema) is None
    assert _salvage(Completion(text="garbage", finish_reason="length"), schema) is None
    closed = '{"action": "say", "to": "maren", "place": "", "target": "", "verb": "", "text": "Look there."'
    assert _salvage(Completion(text=closed, finish_reason="length"), schema)["text"] == "Look there."

"""The small JSON-schema validator used to check every decision the model returns."""

from __future__ import annotations

import pytest

from storyworld.llm import schema_problems

DECISION = {
    "type": "object",
    "properties": {
        "action": {"enum": ["say", "move", "wait"]},
        "to": {"enum": ["hall", "garden"]},
        "text": {"type": "string", "maxLength": 10},
        "count": {"type": "integer", "minimum": 0, "maximum": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
        "same": {"type": "boolean"},
    },
    "required": ["action"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"action": "say"}, []),
        ({"action": "move", "to": "garden", "text": "hi", "count": 2, "tags": ["a"], "same": True}, []),
        ({}, ["missing required field 'action'"]),
        ({"action": "fly"}, ["'fly' is not one of"]),
        ({"action": "say", "to": "moon"}, ["'moon' is not one of"]),
        ({"action": "say", "extra": 1}, ["unexpected field 'extra'"]),
        ({"action": "say", "text": "x" * 11}, ["longer than 10"]),
        ({"action": "say", "count": 4}, ["> maximum 3"]),
        ({"action": "say", "count": True}, ["expected integer"]),
        ({"action": "say", "count": 1.5}, ["expected integer"]),
        ({"action": "say", "same": 1}, ["expected boolean"]),
        ({"action": "say", "tags": ["a", "b", "c"]}, ["more than 2 items"]),
        ({"action": "say", "tags": ["a", 3]}, ["$.tags[1]: expected string"]),
        (["action"], ["expected object"]),
        ("say", ["expected object"]),
    ],
)
def test_decision_schema(value, expected):
    problems = schema_problems(value, DECISION)
    assert len(problems) == len(expected), problems
    for problem, fragment in zip(problems, expected):
        assert fragment in problem


def test_enum_keeps_true_apart_from_one():
    assert schema_problems(True, {"enum": [1, 2]})
    assert not schema_problems(1, {"enum": [1, 2]})
    assert not schema_problems(1.0, {"enum": [1, 2]})


def test_any_of_and_nullable_type():
    schema = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert not schema_problems(None, schema)
    assert not schema_problems("x", schema)
    assert schema_problems(3, schema)
    assert not schema_problems(None, {"type": ["string", "null"]})


def test_unsupported_keyword_is_refused_not_ignored():
    with pytest.raises(ValueError, match="format"):
        schema_problems("x", {"type": "string", "format": "date"})


def test_a_raw_newline_inside_a_string_still_parses():
    from storyworld.llm.base import Completion, parse_json_reply

    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    reply = Completion(text='{"text": "to your mind,\n" }', finish_reason="stop")
    assert parse_json_reply(reply, schema, "m") == {"text": "to your mind,\n"}
    assert parse_json_reply(Completion(text='{"text": 3}'), schema, "m") is None


def test_a_pattern_is_checked_as_the_grammar_enforces_it():
    schema = {"type": "string", "pattern": "^Horatio, [^{}]{3,20}$"}
    assert schema_problems("Horatio, come up to the walls", schema) == []
    assert schema_problems("Marcellus, come up", schema)  # wrong start
    assert schema_problems("Horatio, {x}", schema)  # a character the pattern excludes

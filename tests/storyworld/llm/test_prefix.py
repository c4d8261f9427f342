"""The beginning of a constrained reply that can be written into the prompt (no model needed)."""

from __future__ import annotations

import pytest

from storyworld.llm.shortlist import forced_prefix


def _obj(key, value, required=True):
    return {"type": "object", "properties": {key: value}, "required": [key] if required else []}


@pytest.mark.parametrize(("schema", "prefix"), [
    # a line spoken to someone: the vocative is fixed, the space after the comma is left to the model
    (_obj("line", {"type": "string", "pattern": "^Horatio, (I|you) [^x]{12,200}$"}), '{"line": "Horatio,'),
    (_obj("line", {"type": "string", "pattern": "^The Ghost, \\(x"}), '{"line": "The Ghost,'),  # mid-word: cut
    (_obj("line", {"type": "string", "pattern": "^Wait\\."}), '{"line": "Wait.'),  # an escaped metacharacter
    (_obj("line", {"type": "string", "pattern": "^[A-Z][^x]{12,200}$"}), '{"line": "'),
    # an enum: the values' common start, cut where a word ends
    (_obj("do", {"enum": ["speak to Laertes", "speak to Polonius"]}), '{"do": "speak to'),
    (_obj("do", {"enum": ["look around", "listen"]}), '{"do": "'),
    (_obj("do", {"enum": ["wait"]}), '{"do": "wait'),
    (_obj("pick", {"enum": [1, 2, 3]}), '{"pick":'),  # the space before a number is the model's to write
    (_obj("same", {"type": "boolean"}), ""),  # nothing fixed after the key the grammar may space
    (_obj("line", {"type": "string"}, required=False), ""),  # an optional key may be left out
    ({"oneOf": [_obj("a", {"const": "x"})]}, ""),
    (_obj("line", {"type": "string", "pattern": "^ab?c"}), '{"line": "'),  # 'b' is optional: 'a' is mid-word
    (_obj("line", {"type": "string", "pattern": '^Say "no"'}), '{"line": "Say'),  # JSON escapes are the grammar's
])
def test_the_forced_prefix_is_what_every_reply_begins_with(schema, prefix):
    assert forced_prefix(schema) == prefix

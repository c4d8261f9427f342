"""The equivalence judge: asks the language model whether two statements say the same thing."""

from __future__ import annotations

import logging
from collections.abc import Callable

from storyworld.llm import LanguageModel, ModelError

log = logging.getLogger("storyworld.llm")

Judge = Callable[[str, str], "bool | None"]

JUDGE_SCHEMA = {
    "type": "object",
    "properties": {"same": {"type": "boolean"}},
    "required": ["same"],
    "additionalProperties": False,
}

JUDGE_SYSTEM = (
    "You compare two statements from a story. Answer same=true only if both describe the same "
    "fact or event (same who, same what), even in different words. Answer same=false if they "
    "differ in who, what, where or when, or if one contradicts the other."
)


def judge_messages(text_a: str, text_b: str) -> list[dict[str, str]]:
    """The chat prompt asking whether `text_a` and `text_b` are the same fact."""
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {
            "role": "user",
            "content": f"Statement A: {text_a}\nStatement B: {text_b}\n"
            'Do A and B state the same fact? Reply as JSON: {"same": true} or {"same": false}.',
        },
    ]


def make_judge(lm: LanguageModel, seed: int = 0, max_tokens: int = 12) -> Judge:
    """A `judge(text_a, text_b) -> bool | None` on `lm`; None when the model gave no usable answer.

    Decoding is greedy (temperature 0), so a pair always gets the same verdict from one model.
    """

    def judge(text_a: str, text_b: str) -> bool | None:
        """True if the model says the two statements are the same fact, None if it could not say."""
        try:
            obj, _ = lm.complete_json(
                judge_messages(text_a, text_b), JUDGE_SCHEMA, max_tokens=max_tokens, temperature=0.0, seed=seed
            )
        except ModelError as exc:
            # asked in the middle of a store's write: a failing model must not leave it half written;
            # no verdict keeps the two apart (never merge on doubt), and the log says why
            log.warning("judge: the model failed (%s); %r and %r kept apart", exc, text_a[:60], text_b[:60])
            return None
        if obj is None:
            log.info("judge: no verdict for %r / %r", text_a[:60], text_b[:60])
            return None
        return bool(obj["same"])

    return judge

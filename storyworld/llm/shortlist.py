"""Grammar-constrained sampling that checks the model's top candidates first.

llama-cpp-python runs the JSON grammar over the whole vocabulary (49,152 tokens for SmolLM2)
before every sampled token, which costs about as much as the forward pass of a small model.
This checks a shortlist of the highest-logit tokens instead and falls back to the whole
vocabulary only when the shortlist cannot decide. The idea is llama.cpp's own (common_sampler
samples first and re-checks against the grammar only on a miss); llama-cpp-python lacks it.

When the shortlist decides, the tokens that can be drawn are the same as with the full check:
greedy decoding needs only the best valid token, which is in the shortlist if any valid token
is; sampling keeps only the top_k best valid tokens, and every valid token outside the shortlist
ranks below every one inside it, so top_k valid tokens in the shortlist are exactly those. With
fewer, the shortlist still decides when its lowest logit is below max_valid_logit + ln(min_p):
the tokens it leaves out are ones the min_p stage removes anyway (they can only nudge where the
top_p stage cuts; on our decision prompts the outputs were identical).
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from llama_cpp._internals import LlamaSampler

# llama-cpp-python's objects as storyworld drives them: methods swapped for one call (create_completion,
# _init_sampler), private fields read (_ctx, _is_recurrent), replies indexed as dicts; its own stubs type none of it
Patched = Any  # see above: a llama_cpp object or reply, patched or read past its stubs (here and in llm.local)
TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])


class ShortlistGrammar:
    """A grammar sampler for one generation; `apply` is the chain's first stage."""

    def __init__(self, llama: Patched, grammar: Patched, top_k: int, min_p: float, greedy: bool, shortlist: int = 256,
                 forced: int = 0) -> None:
        """Build the grammar state for `llama`'s vocabulary; `top_k`, `min_p`, `greedy` as the chain samples.

        `shortlist` 0 checks the whole vocabulary at every step. `forced`: how many tokens at the end of
        the prompt are the reply's own beginning, written there instead of generated (`forced_prefix`);
        the grammar accepts them before the first sample.
        """
        import llama_cpp.llama_cpp as low_level

        self._c = low_level
        self._llama = llama
        self._sampler = low_level.llama_sampler_init_grammar(
            llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not self._sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        self._margin = math.log(min_p) if min_p > 0 else -math.inf
        self._greedy = greedy
        self._top_k = top_k if top_k > 0 else shortlist + 1  # top_k <= 0 means no top-k stage
        self._size = shortlist
        self._data = (low_level.llama_token_data * max(shortlist, 1))()
        self._rows = np.frombuffer(self._data, dtype=TOKEN_DATA)  # type: ignore[call-overload]  # a ctypes array is a buffer; numpy's stubs omit it
        self._array = low_level.llama_token_data_array(data=self._data, size=shortlist, selected=-1, sorted=False)
        self._forced = forced
        self._start: int | None = None
        self._accepted = 0
        self.steps = 0
        self.full_checks = 0
        self.seconds = 0.0  # in the grammar stage, for `bench round`'s breakdown

    def _accept_new_tokens(self) -> None:
        """Advance the grammar over tokens sampled (and evaluated) since the last call."""
        llama = self._llama
        if self._start is None:
            self._start = llama.n_tokens - self._forced  # the prompt is evaluated before the first sample
        generated = llama._input_ids[self._start + self._accepted : llama.n_tokens]
        for token in generated:
            self._c.llama_sampler_accept(self._sampler, int(token))
        self._accepted += len(generated)

    def apply(self, cur_p: Patched) -> None:
        """Set every token the grammar forbids to -inf in `cur_p` (llama.cpp's candidate array)."""
        started = time.perf_counter()
        try:
            self._apply(cur_p)
        finally:
            self.seconds += time.perf_counter() - started

    def _apply(self, cur_p: Patched) -> None:
        """`apply` without the timing."""
        self._accept_new_tokens()
        self.steps += 1
        if self._size <= 0:
            self.full_checks += 1
            self._c.llama_sampler_apply(self._sampler, cur_p)
            return
        candidates = cur_p.contents
        size = int(candidates.size)
        rows = np.frombuffer(  # type: ignore[call-overload]  # a ctypes array is a buffer; numpy's stubs omit it
            (self._c.llama_token_data * size).from_address(ctypes.addressof(candidates.data.contents)),
            dtype=TOKEN_DATA,
        )
        logits = rows["logit"]
        k = min(self._size, size)
        top = np.argpartition(logits, size - k)[size - k :]
        small = self._rows[:k]
        small["id"] = rows["id"][top]
        small["logit"] = logits[top]
        small["p"] = 0.0
        self._array.size = k
        self._array.selected = -1
        self._array.sorted = False
        self._c.llama_sampler_apply(self._sampler, ctypes.byref(self._array))
        allowed = np.isfinite(small["logit"])
        n_allowed = int(allowed.sum())
        if n_allowed:
            best_allowed = float(small["logit"][allowed].max())
            lowest_listed = float(logits[top].min())
            if self._greedy or n_allowed >= self._top_k or lowest_listed < best_allowed + self._margin:
                kept = small["logit"][allowed].copy()
                logits[:] = -np.inf
                logits[top[allowed]] = kept
                return
        self.full_checks += 1
        self._c.llama_sampler_apply(self._sampler, cur_p)

    def close(self) -> None:
        """Free the grammar state."""
        if self._sampler:
            self._c.llama_sampler_free(self._sampler)
            self._sampler = None


def chain_with_shortlist(llama: Patched, shortlist: ShortlistGrammar, kwargs: dict[str, Patched]) -> LlamaSampler:
    """The sampler chain llama-cpp-python would build, with `shortlist` in place of its grammar stage.

    Same order as Llama._init_sampler (llama-cpp-python 0.3.x): grammar, then top-k, typical,
    top-p, min-p, temperature, draw; penalties are left out because storyworld never sets them.
    """
    from llama_cpp import _internals as internals

    chain = internals.LlamaSampler()  # type: ignore[no-untyped-call]  # llama_cpp._internals leaves it unannotated
    chain.add_custom(shortlist.apply)
    temp = kwargs.get("temp", 0.8)
    if temp <= 0.0:
        chain.add_greedy()  # type: ignore[no-untyped-call]  # unannotated in llama_cpp._internals
        return chain
    min_keep = 1
    chain.add_top_k(kwargs["top_k"])
    chain.add_typical(kwargs.get("typical_p", 1.0), min_keep)
    chain.add_top_p(kwargs.get("top_p", 0.95), min_keep)
    chain.add_min_p(kwargs["min_p"], min_keep)
    chain.add_temp(temp)
    chain.add_dist(llama._seed)
    return chain


def forced_prefix(schema: Mapping[str, Any]) -> str:  # a JSON schema: its values are checked as read
    """The beginning every reply to `schema` may share, as llama-cpp-python's grammar writes JSON.

    An object's first required property opens the reply: `{"line": "`, and for a string the literal
    start of its pattern (`^Horatio, (...)` gives `Horatio, `) or the common start of its enum values.
    Written into the prompt, these tokens are evaluated with it in one batch instead of generated one
    by one; the grammar ('{' then an optional space, the key, ':' and an optional space) admits them.
    "" when the schema does not fix a beginning.
    """
    properties = schema.get("properties")
    required = schema.get("required") or []
    if schema.get("type") != "object" or not isinstance(properties, dict):
        return ""
    # the grammar writes required properties first, in the schema's order
    first = next((key for key in properties if key in required), None)
    if first is None or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", first):
        return ""
    value = properties[first]
    opening: str = '{"' + first + '": '
    if value.get("type") == "string" and isinstance(value.get("pattern"), str) and set(value) <= {"type", "pattern"}:
        return opening + '"' + _word_end(_pattern_start(value["pattern"]))
    enum = value.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum) and set(value) <= {"type", "enum"}:
        common = _plain(os.path.commonprefix(enum))
        return opening + '"' + (common if common in enum else _word_end(common))
    # other values may follow the colon with or without the space: it is left to the model
    return opening if value.get("type") == "string" else opening.rstrip() if enum else ""


def _word_end(text: str) -> str:
    """`text` cut where a word ends, without the space after it.

    Tokenizers join a space to the word after it (" Laertes"): a prefix ending in a space or in the
    middle of a word would make the model go on from a token boundary it never saw in training.
    """
    if not text or text[-1].isspace():
        return text.rstrip()
    if text[-1].isalnum():
        cut = text.rfind(" ")
        return text[:cut] if cut >= 0 else ""
    return text


def _pattern_start(pattern: str) -> str:
    """The literal text a regular expression anchored with ^ must start with ("" if none)."""
    if not pattern.startswith("^"):
        return ""
    out = []
    i = 1
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            out.append(pattern[i + 1])
            i += 2
            continue
        if c in ".^$*+?()[]{}|\\":
            break
        out.append(c)
        i += 1
    # a quantifier after the last literal ("ab?") makes that literal optional
    if i < len(pattern) and pattern[i] in "*+?{" and out:
        out.pop()
    return _plain("".join(out))


def _plain(text: str) -> str:
    """`text` up to its first character JSON would escape (the grammar writes escapes its own way)."""
    return re.split(r'["\\\x00-\x1f\x7f-\U0010ffff]', text, maxsplit=1)[0]

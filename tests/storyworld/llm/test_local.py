"""The bundled GGUF in process: constrained JSON decisions, determinism, clear load errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from storyworld.errors import UserError
from storyworld.llm import LlamaModel, ModelError, load_model
from storyworld.llm.validation import schema_problems
from tests.support.fixtures_llm import ACTION_SCHEMA, action_messages, bundled_lm  # noqa: F401  (fixture)
from tests.support.paths import REPO

pytestmark = pytest.mark.real_model

WHO = ["Hamlet", "Horatio", "Ophelia", "Polonius", "Laertes"]


def test_constrained_decisions_always_parse_and_respect_enums(bundled_lm):
    before = bundled_lm.stats()
    for index in range(10):
        obj, completion = bundled_lm.complete_json(
            action_messages(WHO[index % 5], ["hall", "garden"][index % 2]),
            ACTION_SCHEMA, max_tokens=40, temperature=0.9, seed=index,
        )
        assert obj is not None, completion.text
        assert obj["action"] in ("say", "move", "wait") and obj["to"] in ("hall", "garden", "tower")
        assert not schema_problems(obj, ACTION_SCHEMA)
        assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    after = bundled_lm.stats()
    assert after["json_calls"] - before["json_calls"] == 10
    assert after["failures"] == before["failures"]


def test_same_seed_same_output_even_after_other_calls(bundled_lm):
    messages = action_messages("Ophelia")
    first = bundled_lm.complete(messages, ACTION_SCHEMA, max_tokens=40, temperature=1.0, seed=123)
    bundled_lm.complete(action_messages("Polonius", "garden"), ACTION_SCHEMA, max_tokens=40, seed=5)
    second = bundled_lm.complete(messages, ACTION_SCHEMA, max_tokens=40, temperature=1.0, seed=123)
    assert first.text == second.text
    texts = {bundled_lm.complete(messages, None, max_tokens=12, temperature=1.0, seed=s).text for s in range(4)}
    assert len(texts) > 1, "different seeds at temperature 1 should not all agree"


def test_free_text_and_token_counting(bundled_lm):
    completion = bundled_lm.complete(
        [{"role": "user", "content": "Say hello."}], max_tokens=8, temperature=0.0
    )
    assert completion.text and completion.completion_tokens <= 8
    assert bundled_lm.count_tokens("hello world") in (2, 3)
    assert "SmolLM2" in bundled_lm.name


def test_prompt_longer_than_the_context_is_a_logged_failure(bundled_lm):
    huge = "word " * 3000  # the fixture's n_ctx is 1024
    obj, completion = bundled_lm.complete_json([{"role": "user", "content": huge}], ACTION_SCHEMA)
    assert obj is None and completion.text == ""


def test_missing_model_file_is_one_clear_line(tmp_path):
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelError) as caught:
        load_model(model_path=missing)
    message = str(caught.value)
    assert isinstance(caught.value, UserError)
    assert str(missing) in message and "no such model file" in message and "\n" not in message


@pytest.mark.parametrize("content", [b"", b"not a model at all", b"GGUF" + b"\0" * 64])
def test_invalid_model_file_is_one_clear_line(tmp_path, content):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(content)
    with pytest.raises(ModelError) as caught:
        LlamaModel(bad)
    assert str(bad) in str(caught.value) and "\n" not in str(caught.value)


def test_directory_as_model_is_refused(tmp_path):
    with pytest.raises(ModelError, match="not a file"):
        load_model(model_path=tmp_path)


def test_model_and_server_together_are_refused(tmp_path):
    with pytest.raises(ModelError, match="not both"):
        load_model(model_path=tmp_path / "x.gguf", server_url="http://127.0.0.1:1")


def test_importing_the_layer_does_not_load_llama_cpp():
    code = "import sys, storyworld.llm, storyworld.llm.equivalence_judge; assert 'llama_cpp' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_grammar_shortlist_gives_what_the_full_check_gives(bundled_lm):
    backend = bundled_lm.unwrap()
    assert backend.shortlist > 0
    outputs = {}
    try:
        for shortlist in (backend.shortlist, 0):
            backend.shortlist = shortlist
            outputs[shortlist] = [
                backend.complete(action_messages(who), ACTION_SCHEMA, max_tokens=40, temperature=temp, seed=3).text
                for who, temp in (("Laertes", 0.0), ("Ophelia", 0.8))
            ]
    finally:
        backend.shortlist = max(outputs)
    assert outputs[backend.shortlist] == outputs[0]
    assert backend.stats()["grammar_steps"] > 0


def test_prefix_reuse_gives_bit_identical_logits(bundled_lm):
    """Reusing the KV cache of a shared prompt prefix must not change the next token's logits."""
    import numpy as np

    llama = bundled_lm.unwrap()._llama

    def tokens(text):
        return llama.tokenize(text.encode(), add_bos=False, special=True)

    shared = tokens("<|im_start|>system\nYou are in a story. Reply with JSON only.<|im_end|>\n" * 3)
    first, other = tokens("You are in the hall with Horatio."), tokens("You are in the garden, alone at night.")
    llama.reset()
    llama.eval(shared + first)
    full = np.array(llama.scores[llama.n_tokens - 1])
    llama.reset()
    llama.eval(shared + other)
    assert llama._ctx.kv_cache_seq_rm(-1, len(shared), -1)
    llama.n_tokens = len(shared)
    llama.eval(first)
    reused = np.array(llama.scores[llama.n_tokens - 1])
    llama.reset()
    assert np.array_equal(full, reused), float(np.abs(full - reused).max())


def test_model_loads_after_a_vector_index_was_opened():
    """usearch links its own C++ runtime; opened first, it used to break llama.cpp's vocabulary load."""
    script = (
        "from memory.index import VectorIndex\n"
        "VectorIndex(8)\n"
        "from storyworld.llm import load_model\n"
        "lm = load_model(n_ctx=256)\n"
        "print(lm.complete([{'role': 'user', 'content': 'Say hi.'}], max_tokens=4, seed=1).completion_tokens)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.strip().splitlines()[-1]) > 0


LINE_SCHEMA = {"type": "object", "properties": {"line": {"type": "string", "pattern": "^Horatio, [^\"\\n{}]{8,80}$"}},
               "required": ["line"]}
SYSTEM = "You say one line of a play again in a character's own voice: the same facts and names, nothing added."


def _line_messages(who: str, line: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f'{who} says to Horatio: "Horatio, {line}"'}]


def _alternating_calls(lm):
    """Choice and line prompts of several agents, interleaved as a round interleaves them."""
    out = []
    for turn in range(3):
        for who in ("Marcellus", "Barnardo", "Francisco"):
            out.append(lm.complete(action_messages(who, ["hall", "garden"][turn % 2]), ACTION_SCHEMA,
                                   max_tokens=24, temperature=0.8, seed=turn).text)
            out.append(lm.complete(_line_messages(who, f"we saw it {turn + 1} times upon the platform."),
                                   LINE_SCHEMA, max_tokens=32, temperature=0.8, seed=turn).text)
    return out


def test_the_prefix_cache_evaluates_less_and_answers_the_same(bundled_lm):
    """Restoring an earlier prompt's saved cells changes no reply; it only spares evaluating them again."""
    cached = bundled_lm.unwrap()
    plain = LlamaModel(cached.path, n_ctx=cached.n_ctx, reuse_prefix=False)
    try:
        before = cached.stats()
        with_cache = _alternating_calls(cached)
        after = cached.stats()
        without = _alternating_calls(plain)
        assert with_cache == without
        evaluated = after["prompt_tokens_evaluated"] - before["prompt_tokens_evaluated"]
        assert evaluated < 0.6 * plain.stats()["prompt_tokens_evaluated"]
        assert after["prefix_restores"] > before["prefix_restores"]
        assert after["prefix_saved_mb"] <= 256
    finally:
        plain.close()


def test_a_restored_prefix_gives_bit_identical_logits(bundled_lm):
    """The next token's logits after a restored prefix equal those of evaluating the whole prompt."""
    import numpy as np

    backend = bundled_lm.unwrap()
    llama = backend._llama
    n_vocab = llama.n_vocab()

    def last_logits():
        return np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(n_vocab,)).copy()

    shared = backend.prompt_tokens(_line_messages("Marcellus", "the ghost walked upon the platform."))
    first = llama.tokenize(b" It was cold.", add_bos=False, special=False)
    other = llama.tokenize(b" The watch was long and dark.", add_bos=False, special=False)
    with backend._lock:
        backend.prefix_cache.clear()
        llama.reset()
        llama.eval(shared + first)
        full = last_logits()
        llama.reset()
        llama.eval(shared + other)
        backend.prefix_cache.save(llama)
        llama.reset()
        llama.eval(llama.tokenize(b"<|im_start|>user\nSomething else entirely.", add_bos=False, special=True))
        assert backend.prefix_cache.restore(llama, shared + first) == len(shared)
        assert llama._ctx.kv_cache_seq_rm(-1, len(shared), -1)
        llama.n_tokens = len(shared)
        llama.eval(first)
        reused = last_logits()
        llama.reset()
    assert np.array_equal(full, reused), float(np.abs(full - reused).max())


def test_prompt_tokens_are_what_the_model_evaluates_and_the_reply_begins_in_the_prompt(bundled_lm):
    backend = bundled_lm.unwrap()
    messages = _line_messages("Barnardo", "the night is bitter cold tonight.")
    expected = backend.prompt_tokens(messages, LINE_SCHEMA)
    completion = backend.complete(messages, LINE_SCHEMA, max_tokens=32, seed=4)
    assert backend._llama.last_prompt == expected
    assert completion.text.startswith('{"line": "Horatio,')  # written into the prompt, not generated
    assert completion.prompt_tokens == len(expected)
    assert backend._llama.detokenize(expected).decode().endswith('assistant\n{"line": "Horatio,')


def test_the_vocabulary_alone_gives_the_same_tokens_with_or_without_the_reply_begun(bundled_lm):
    from storyworld.llm import gguf_path
    from storyworld.llm.local import ChatTokenizer

    backend = bundled_lm.unwrap()
    messages = _line_messages("Barnardo", "the night is bitter cold tonight.")
    tokenizer = ChatTokenizer(gguf_path(None))
    try:
        begun = tokenizer.prompt_tokens(messages, LINE_SCHEMA)
        plain = tokenizer.prompt_tokens(messages, LINE_SCHEMA, prefill=False)
    finally:
        tokenizer.close()
    # a llama-server generates the fixed beginning, so the bench's floor counts it there, not in the prompt
    assert begun == backend.prompt_tokens(messages, LINE_SCHEMA)
    assert begun[:len(plain)] == plain and len(begun) > len(plain)
    assert backend._llama.detokenize(plain).decode().endswith("assistant\n")


def test_the_cli_makes_openmp_wait_passively_before_the_embedder_can_load_it():
    # libgomp reads OMP_WAIT_POLICY once; torch loads it before the model when a simulation starts first
    code = ("import os, sys; from storyworld.cli import main; main(['check', 'tests/data/worlds/tiny.toml']); "
            "print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "PASSIVE False"

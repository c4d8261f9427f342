"""What batching several sequences in one in-process llama.cpp context gains (option (a) of issue 16).

Evaluates N different decision-sized prompts, then generates T tokens for each, two ways in one
llama-cpp-python context through the low-level API: one sequence after another, and all N
sequences in one batch per step (one llama_decode per step with N tokens, one per sequence).
Sampling is greedy from the logits in Python (no grammar), so the figures are the decoding
floor that an in-process multi-sequence implementation could reach before adding per-sequence
grammars; `bench round` measures llama-server, which does all of it in C++.

    python scripts/measure_batch_decode.py [--n 4] [--tokens 48] [--threads 2] [--json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import time

import numpy as np


def main() -> int:
    """Time sequential against batched decoding of N prompts."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import llama_cpp
    import llama_cpp.llama_cpp as c

    from storyworld.llm.local import plain_cpu_buffers
    from storyworld.locations import default_gguf

    with plain_cpu_buffers(llama_cpp):
        llama = llama_cpp.Llama(str(default_gguf()), n_ctx=512, n_batch=512,
                                n_threads=args.threads, n_threads_batch=args.threads, verbose=False)
    # llama-cpp-python's Llama holds a one-sequence context; make one with room for N sequences
    params = llama.context_params
    params.n_ctx, params.n_batch, params.n_ubatch = 4096, 1024, 512
    params.n_seq_max, params.kv_unified = args.n, True
    ctx, vocab = c.llama_init_from_model(llama._model.model, params), llama._model.vocab
    n_vocab = c.llama_vocab_n_tokens(vocab)
    prompts = [llama.tokenize(
        (f"<|im_start|>system\nYou are agent {i} in Elsinore. Your goal: learn the truth about the ghost. "
         "Stay in character. Answer with one JSON action.<|im_end|>\n<|im_start|>user\nRound 3. You are in the "
         f"great hall with {i + 2} others. Exits: battlements, chapel. Someone said the king drinks. "
         "Choose: say, move, observe or wait.<|im_end|>\n<|im_start|>assistant\n").encode(), add_bos=False, special=True)
        for i in range(args.n)]
    batch = c.llama_batch_init(1024, 0, args.n)

    def fill(entries: list[tuple[int, int, int, bool]]) -> None:
        """Put (token, pos, seq, wants_logits) entries into the batch."""
        batch.n_tokens = len(entries)
        for k, (tok, pos, seq, logits) in enumerate(entries):
            batch.token[k] = tok
            batch.pos[k] = pos
            batch.n_seq_id[k] = 1
            batch.seq_id[k][0] = seq
            batch.logits[k] = logits

    def check(status: int) -> None:
        if status != 0:
            raise SystemExit(f"llama_decode failed: {status}")

    def argmax(index: int) -> int:
        """The greedy next token from the logits of batch entry `index`."""
        row = c.llama_get_logits_ith(ctx, index)
        return int(np.argmax(np.ctypeslib.as_array(ctypes.cast(row, ctypes.POINTER(ctypes.c_float)), (n_vocab,))))

    def clear() -> None:
        c.llama_memory_clear(c.llama_get_memory(ctx), True)

    # sequential: each prompt, then its tokens one at a time
    clear()
    t0 = time.perf_counter()
    prompt_s = 0.0
    for seq, tokens in enumerate(prompts):
        p0 = time.perf_counter()
        fill([(t, i, seq, i == len(tokens) - 1) for i, t in enumerate(tokens)])
        check(c.llama_decode(ctx, batch))
        prompt_s += time.perf_counter() - p0
        tok, pos = argmax(len(tokens) - 1), len(tokens)
        for _ in range(args.tokens):
            fill([(tok, pos, seq, True)])
            check(c.llama_decode(ctx, batch))
            tok, pos = argmax(0), pos + 1
    sequential_s = time.perf_counter() - t0
    sequential_gen_s = sequential_s - prompt_s

    # batched: all prompts in one batch, then one step per token for all sequences together
    clear()
    t0 = time.perf_counter()
    entries, last = [], []
    for seq, tokens in enumerate(prompts):
        entries += [(t, i, seq, i == len(tokens) - 1) for i, t in enumerate(tokens)]
        last.append(len(entries) - 1)
    fill(entries)
    check(c.llama_decode(ctx, batch))
    batched_prompt_s = time.perf_counter() - t0
    toks = [argmax(i) for i in last]
    poss = [len(p) for p in prompts]
    for _ in range(args.tokens):
        fill([(toks[s], poss[s], s, True) for s in range(args.n)])
        check(c.llama_decode(ctx, batch))
        toks = [argmax(s) for s in range(args.n)]
        poss = [p + 1 for p in poss]
    batched_s = time.perf_counter() - t0
    c.llama_batch_free(batch)
    c.llama_free(ctx)
    result = {
        "sequences": args.n, "tokens_each": args.tokens, "prompt_tokens_each": round(sum(map(len, prompts)) / args.n),
        "threads": args.threads, "load_1m": round(os.getloadavg()[0], 2),
        "sequential_s": round(sequential_s, 3), "sequential_prompt_s": round(prompt_s, 3),
        "sequential_generation_s": round(sequential_gen_s, 3),
        "batched_s": round(batched_s, 3), "batched_prompt_s": round(batched_prompt_s, 3),
        "batched_generation_s": round(batched_s - batched_prompt_s, 3),
        "speedup": round(sequential_s / batched_s, 3),
        "generation_speedup": round(sequential_gen_s / (batched_s - batched_prompt_s), 3),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

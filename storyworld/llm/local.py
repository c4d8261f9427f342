"""LlamaModel: a GGUF file run in process by llama-cpp-python (imported only when loaded)."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn

from storyworld.llm.base import (
    ModelStats,
    Completion,
    LanguageModel,
    Message,
    ModelError,
    PromptTooLongError,
    Schema,
)
from storyworld.llm.probe import probe as probe_in_child

if TYPE_CHECKING:  # numpy and llama-cpp-python load with the model only
    import numpy as np
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar

    from storyworld.llm.shortlist import Patched, ShortlistGrammar

    Tokens = Sequence[int] | np.ndarray  # token ids, as a list or llama.cpp's own array

GGUF_MAGIC = b"GGUF"
# llama-cpp-python's sampling defaults, passed explicitly because the grammar shortlist relies on them.
TOP_K = 40
MIN_P = 0.05

# llama.cpp's "extra buffer types" (AMX tiles, repacked weights) crash on machines whose CPU
# advertises AMX but whose hypervisor cannot run it (this project's build VM: ldtilecfg faults
# inside libggml-cpu). Plain CPU buffers are as fast for small models, so they are the default.
_PARAMS_LOCK = threading.Lock()


@contextlib.contextmanager
def plain_cpu_buffers(llama_cpp_module: ModuleType) -> Iterator[None]:
    """While open, models load with `use_extra_bufts = False` (llama-cpp-python has no argument)."""
    low_level = llama_cpp_module.llama_cpp
    with _PARAMS_LOCK:
        original = low_level.llama_model_default_params

        def without_extra_buffers() -> object:
            params = original()
            params.use_extra_bufts = False
            return params

        low_level.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            low_level.llama_model_default_params = original


SMALL_MODEL_BYTES = 1 << 30


def default_threads() -> int:
    """Threads for prompt evaluation: the cores there are, at most 4 (a small model gains little beyond)."""
    return max(1, min(4, os.cpu_count() or 1))


def default_decode_threads(path: Path) -> int:
    """Threads for generating tokens: one for a small model, else as for prompts.

    A token of a sub-gigabyte model is a few milliseconds of arithmetic split into hundreds of
    operations, each ending at a thread barrier; with passive waiting every barrier is a sleep and
    a wake-up. Measured with SmolLM2-135M on 2 cores: 24 ms per token on one thread, 43 ms on two.
    Prompts are evaluated in batches, where the second thread does pay: 1.2 s vs 2.2 s for 346 tokens.
    """
    try:
        small = path.stat().st_size < SMALL_MODEL_BYTES
    except OSError:
        small = False
    return 1 if small else default_threads()


def check_gguf(path: Path) -> None:
    """Raise ModelError with one line naming `path` unless it is a readable GGUF file."""
    if not path.exists():
        raise ModelError(f"{path}: no such model file (give --model PATH to a .gguf file)")
    if not path.is_file():
        raise ModelError(f"{path}: not a file (give --model PATH to a .gguf file)")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model file: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelError(f"{path}: not a GGUF model file (it does not start with 'GGUF')")


# A restore costs a copy of the saved cells; below this many extra shared tokens it is not worth it.
MIN_RESTORE_GAIN = 4


def shared_prefix(a: Tokens, b: Tokens) -> int:
    """How many leading tokens two token arrays share."""
    import numpy as np

    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(differ[0]) if len(differ) else n


class PrefixCache:
    """Saved KV cells of earlier prompts (llama.cpp sequence 0), keyed by the tokens they hold.

    Before a prompt is evaluated, the saved state that shares the longest prefix with it is restored
    when it shares more than the live context does; llama-cpp-python then evaluates only the rest.
    A character's choice and line prompts alternate with everyone else's, so the live context alone
    shares little more than the chat template's first tokens with the next call; the saved states
    keep each prompt's stable part (the system text and the worked example, a character's own
    situation) for its next turn. Least recently used states go first once `capacity_bytes` is full.
    """

    def __init__(self, capacity_bytes: int) -> None:
        """An empty cache holding at most `capacity_bytes` of saved state."""
        import numpy as np

        self._np = np
        self.capacity_bytes = capacity_bytes
        # token bytes -> (tokens, the state's buffer, its length); buffers are kept as llama.cpp wrote them
        self._entries: OrderedDict[bytes, tuple[np.ndarray, ctypes.Array[ctypes.c_uint8], int]] = OrderedDict()
        self.bytes = 0
        self.saves = 0
        self.restores = 0
        self.restored_tokens = 0
        self.seconds = 0.0  # saving, finding and restoring states

    def __len__(self) -> int:
        return len(self._entries)

    def best(self, tokens: Tokens) -> tuple[bytes | None, int]:
        """The saved state sharing the longest prefix with `tokens`, and how many tokens it shares."""
        best_key, best_shared = None, 0
        for key, (saved, _, _) in self._entries.items():
            shared = shared_prefix(saved, tokens)
            if shared > best_shared:
                best_key, best_shared = key, shared
        return best_key, best_shared

    def restore(self, llama: Llama, tokens: Tokens) -> int:
        """Load into `llama` the saved state that shares most with `tokens`, if it beats the live context.

        Returns how many tokens the restored state shares with `tokens` (0: nothing restored).
        """
        import llama_cpp.llama_cpp as low_level

        started = time.perf_counter()
        try:
            key, shared = self.best(tokens)
            live = shared_prefix(llama.input_ids[: llama.n_tokens], tokens)
            if key is None or shared < live + MIN_RESTORE_GAIN:
                return 0
            saved, buffer, size = self._entries[key]
            self._entries.move_to_end(key)
            llama._ctx.kv_cache_seq_rm(0, 0, -1)
            if not low_level.llama_state_seq_set_data(llama._ctx.ctx, buffer, size, 0):
                # the cells could not be placed: evaluate the whole prompt as without a cache
                llama.reset()  # type: ignore[no-untyped-call]  # Llama.reset is unannotated in llama_cpp
                return 0
            llama.input_ids[: len(saved)] = saved
            llama.n_tokens = len(saved)
            llama._requires_eval = True  # the logits are not the restored state's: evaluate at least one token
            self.restores += 1
            self.restored_tokens += shared - live
            return shared
        finally:
            self.seconds += time.perf_counter() - started

    def save(self, llama: Llama) -> None:
        """Save `llama`'s live context (the last prompt and what was generated after it)."""
        import llama_cpp.llama_cpp as low_level

        started = time.perf_counter()
        try:
            tokens = self._np.array(llama.input_ids[: llama.n_tokens], dtype=self._np.intc)
            if len(tokens) == 0:
                return
            key = tokens.tobytes()
            for other, (saved, _, _) in list(self._entries.items()):
                if len(saved) >= len(tokens) and shared_prefix(saved, tokens) == len(tokens):
                    self._entries.move_to_end(other)  # already held by a longer state
                    return
                if shared_prefix(saved, tokens) == len(saved):
                    self._drop(other)  # this state holds all of that one and more
            size = low_level.llama_state_seq_get_size(llama._ctx.ctx, 0)
            if size <= 0 or size > self.capacity_bytes:
                return
            buffer = (ctypes.c_uint8 * size)()
            written = low_level.llama_state_seq_get_data(llama._ctx.ctx, buffer, size, 0)
            if not written:
                return
            while self._entries and self.bytes + written > self.capacity_bytes:
                self._drop(next(iter(self._entries)))
            self._entries[key] = (tokens, buffer, written)
            self.bytes += written
            self.saves += 1
        finally:
            self.seconds += time.perf_counter() - started

    def _drop(self, key: bytes) -> None:
        _, _, size = self._entries.pop(key)
        self.bytes -= size

    def clear(self) -> None:
        """Forget every saved state."""
        self._entries.clear()
        self.bytes = 0


def _cached_llama_class(llama_cpp_module: ModuleType) -> Patched:
    """llama_cpp.Llama whose `generate` first restores the best saved prefix from its `prefix_cache`."""
    base = llama_cpp_module.Llama

    class PrefixCachedLlama(base):  # type: ignore[misc, valid-type]
        prefix_cache: PrefixCache | None = None
        last_prompt: list[int] = []

        def generate(self, tokens: Sequence[int], *args: object, **kwargs: object) -> Iterator[int]:
            tokens = list(tokens)
            self.last_prompt = tokens
            if self.prefix_cache is not None:
                self.prefix_cache.restore(self, tokens)
            yield from super().generate(tokens, *args, **kwargs)  # Llama.generate returns nothing

    return PrefixCachedLlama


class _Formatted(Exception):
    """Raised by the stand-in for create_completion once the chat handler has tokenized the prompt."""

    def __init__(self, tokens: list[int]) -> None:
        super().__init__("formatted")
        self.tokens = tokens


def chat_prompt_tokens(llama: Patched, messages: list[Message], schema: Schema | None = None, *,
                       prefill: bool = True) -> list[int]:
    """The tokens a call with `messages` (and `schema`) evaluates: the chat handler's own formatting and
    tokenization, then the reply's fixed beginning. Nothing is evaluated; `llama` may be vocabulary-only.
    """
    from storyworld.llm.shortlist import forced_prefix

    def formatted(prompt: Sequence[int], **kwargs: object) -> NoReturn:
        raise _Formatted(list(prompt))

    llama.create_completion = formatted
    try:
        llama.create_chat_completion(messages=messages, max_tokens=1)
    except _Formatted as done:
        tokens = done.tokens
    else:  # pragma: no cover - a chat handler that never asks for a completion
        raise ModelError("the chat handler did not ask for a completion")
    finally:
        del llama.create_completion
    begun = forced_prefix(schema) if schema is not None and prefill else ""
    if begun:
        tokens += llama.tokenize(begun.encode("utf-8"), add_bos=False, special=False)
    return tokens


class ChatTokenizer:
    """A GGUF's vocabulary and chat template only: the tokens of a prompt, as LlamaModel would evaluate them."""

    def __init__(self, model_path: str | os.PathLike[str]) -> None:
        """Load the vocabulary of the GGUF at `model_path` (no weights, no context)."""
        path = Path(model_path).expanduser()
        check_gguf(path)
        import llama_cpp

        self._llama = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
        self._lock = threading.Lock()

    def prompt_tokens(self, messages: list[Message], schema: Schema | None = None, *,
                      prefill: bool = True) -> list[int]:
        """The tokens of the prompt for `messages`, with `prefill` the reply's fixed beginning for `schema` too."""
        with self._lock:
            return chat_prompt_tokens(self._llama, messages, schema, prefill=prefill)

    def close(self) -> None:
        """Free the vocabulary."""
        self._llama.close()


class LlamaModel(LanguageModel):
    """A local GGUF model; schema-constrained decoding through a grammar built from the schema.

    With `reuse_prefix` (the default) a call re-evaluates only the part of its prompt that differs
    from the previous call's, as llama-cpp-python does, or from the earlier prompt sharing most with
    it that the prefix cache saved (`prefix_cache_mb` of saved state; 0 turns the cache off). On
    this build the logits are bit-identical to a full re-evaluation (tests/storyworld/llm/test_local.py checks
    it), so a decision stays a function of (prompt, seed) alone and a resumed run replays exactly;
    `reuse_prefix=False` forces the full re-evaluation for builds where that check fails.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        n_ctx: int = 2048,
        seed: int = 0,
        threads: int | None = None,
        reuse_prefix: bool = True,
        extra_buffers: bool = False,
        shortlist: int = 256,
        probe: bool = True,
        prefix_cache_mb: int = 256,
        prefill: bool = True,
    ) -> None:
        """Load the GGUF at `model_path`; ModelError if it is missing or not a model.

        With `probe` a file not seen before is first loaded in a child process (storyworld.llm.probe):
        a damaged file that makes llama.cpp abort is refused in one line instead of taking the game down.
        """
        path = Path(model_path).expanduser()
        check_gguf(path)
        if probe:
            probe_in_child(path)
        # libgomp reads this once, when llama.cpp's CPU backend loads. Its default spin-waiting
        # makes 2 decoding threads ten times slower as soon as anything else wants the cores
        # (the embedder's torch threads, a second process): measured 4 s vs 40-50 s per judge call.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError as exc:  # the dependency is declared; this is a broken install
            raise ModelError(f"llama-cpp-python is not importable ({exc}); reinstall storyworld") from exc
        self.path = path
        self.n_ctx = n_ctx
        self.threads = threads or default_threads()
        # an explicit `threads` means the caller has chosen for both phases
        self.decode_threads = threads or default_decode_threads(path)
        self.reuse_prefix = reuse_prefix
        self.shortlist = shortlist  # 0: the grammar checks the whole vocabulary at every step
        self.prefill = prefill  # a constrained reply's fixed beginning goes into the prompt
        self.grammar_steps = 0
        self.grammar_full_checks = 0
        self.grammar_s = 0.0
        self.calls_s = 0.0  # wall seconds inside complete(), for the breakdown in stats()
        self.name = path.stem
        self._grammars: dict[str, LlamaGrammar] = {}
        self._lock = threading.Lock()  # one llama context cannot decode two prompts at once
        loading = contextlib.nullcontext() if extra_buffers else plain_cpu_buffers(llama_cpp)
        try:
            with loading:
                self._llama = _cached_llama_class(llama_cpp)(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    seed=seed,
                    n_threads=self.decode_threads,
                    n_threads_batch=self.threads,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"{path}: cannot load the model: {exc}") from exc
        self._llama_cpp = llama_cpp
        # a recurrent model's state cannot be cut back to a prefix, so there is nothing to restore into
        cacheable = reuse_prefix and prefix_cache_mb > 0 and not (
            # llama-cpp-python's private flags, absent from older versions
            getattr(self._llama, "_is_recurrent", False) or getattr(self._llama, "_is_hybrid", False))
        self.prefix_cache = PrefixCache(prefix_cache_mb << 20) if cacheable else None
        self._llama.prefix_cache = self.prefix_cache
        self.prompt_tokens_seen = 0  # prompt tokens of every call, evaluated or reused

    def _grammar(self, schema: Schema) -> LlamaGrammar:
        """The grammar for `schema`, built once per distinct schema (building costs milliseconds)."""
        key = json.dumps(schema)  # order matters: see below
        grammar = self._grammars.get(key)
        if grammar is None:
            try:
                # the grammar fixes properties in the schema's order (free text last, so a reply cut
                # at the token limit has made its choices); the sorted key would reorder them
                grammar = self._llama_cpp.llama_grammar.LlamaGrammar.from_json_schema(key, verbose=False)
            except (ValueError, RuntimeError, KeyError, NotImplementedError) as exc:
                # A schema the converter cannot express is a programming error: say so loudly
                # rather than fall back to unconstrained JSON as llama-cpp-python would.
                raise ValueError(f"JSON schema not convertible to a grammar: {exc}") from exc
            self._grammars[key] = grammar
        return grammar

    def complete(
        self,
        messages: list[Message],
        schema: Schema | None = None,
        max_tokens: int = 128,
        temperature: float = 0.7,
        seed: int = 0,
    ) -> Completion:
        """The reply to `messages`; grammar-constrained to `schema` when given.

        A constrained reply's fixed beginning (`{"line": "Horatio,`: shortlist.forced_prefix) is
        written at the end of the prompt and evaluated with it, rather than generated token by token.
        """
        grammar = self._grammar(schema) if schema is not None else None
        with self._lock:
            started = time.perf_counter()
            if not self.reuse_prefix:
                self._llama.reset()
            shortlist = None
            if grammar is not None:
                from storyworld.llm.shortlist import ShortlistGrammar, chain_with_shortlist, forced_prefix

                prefill = forced_prefix(schema) if self.prefill and schema is not None else ""
                forced = self._llama.tokenize(prefill.encode("utf-8"), add_bos=False, special=False) if prefill else []
                shortlist = ShortlistGrammar(
                    self._llama, grammar, TOP_K, MIN_P, temperature <= 0, self.shortlist, forced=len(forced)
                )
                # Llama.generate builds its sampler chain through this method; shadow it for one call.
                self._llama._init_sampler = lambda **kwargs: chain_with_shortlist(self._llama, shortlist, kwargs)
                if forced:
                    # the chat handler tokenizes the formatted prompt and calls this: the reply's fixed
                    # beginning goes after the prompt, and back in front of the text that comes out
                    complete_tokens = self._llama.create_completion

                    def begun(prompt: Sequence[int], **kwargs: object) -> Patched:
                        result = complete_tokens(prompt=[*prompt, *forced], **kwargs)
                        result["choices"][0]["text"] = prefill + result["choices"][0]["text"]
                        return result

                    self._llama.create_completion = begun
                grammar = None
            try:
                result = self._llama.create_chat_completion(
                    messages=messages,
                    grammar=grammar,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_k=TOP_K,
                    min_p=MIN_P,
                    seed=seed,
                )
            except ValueError as exc:
                if "exceed context window" in str(exc):
                    raise PromptTooLongError(f"{self.name}: {exc}") from exc
                raise
            except RuntimeError as exc:  # llama_decode failed (out of memory, a broken context): the model is down
                raise ModelError(f"{self.name}: the model failed: {exc}") from exc
            finally:
                if shortlist is not None:
                    self._unhook(shortlist)
            if self.prefix_cache is not None:
                self.prefix_cache.save(self._llama)
            seconds = time.perf_counter() - started
            self.calls_s += seconds
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        self.prompt_tokens_seen += int(usage.get("prompt_tokens", 0))
        return Completion(
            text=choice["message"].get("content") or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
            finish_reason=choice.get("finish_reason") or "",
        )

    def _unhook(self, shortlist: ShortlistGrammar) -> None:
        """Undo one call's sampler and prompt hooks, free its grammar and count what it did."""
        del self._llama._init_sampler
        if "create_completion" in vars(self._llama):
            del self._llama.create_completion
        self._llama._sampler = None  # its first stage points at the grammar freed next
        shortlist.close()
        self.grammar_steps += shortlist.steps
        self.grammar_full_checks += shortlist.full_checks
        self.grammar_s += shortlist.seconds

    def stats(self) -> ModelStats:
        """Grammar shortlist counters, and where the time of the calls went (cumulative seconds).

        prompt_s and generation_s are llama.cpp's own timers (evaluating prompt tokens, evaluating
        generated tokens); grammar_s is the grammar stage of sampling; the rest of calls_s is the
        other samplers, detokenising, the chat template and Python around them.
        """
        out: ModelStats = {"grammar_steps": self.grammar_steps, "grammar_full_checks": self.grammar_full_checks,
                               "grammar_s": round(self.grammar_s, 3), "calls_s": round(self.calls_s, 3)}
        llama = getattr(self, "_llama", None)  # a load that failed never set it; a second close finds None
        if llama is not None:
            perf = self._llama_cpp.llama_cpp.llama_perf_context(llama._ctx.ctx)
            out.update(prompt_s=round(perf.t_p_eval_ms / 1000, 3), prompt_tokens_evaluated=int(perf.n_p_eval),
                       generation_s=round(perf.t_eval_ms / 1000, 3), tokens_generated=int(perf.n_eval),
                       prompt_tokens_cached=max(0, self.prompt_tokens_seen - int(perf.n_p_eval)))
        cache = self.prefix_cache
        if cache is not None:
            out.update(prefix_restores=cache.restores, prefix_restored_tokens=cache.restored_tokens,
                       prefix_saved=len(cache), prefix_saved_mb=round(cache.bytes / (1 << 20), 1),
                       prefix_cache_s=round(cache.seconds, 3))
        return out

    def prompt_tokens(self, messages: list[Message], schema: Schema | None = None) -> list[int]:
        """The tokens a call with `messages` and `schema` evaluates (formatted and tokenized, not evaluated)."""
        with self._lock:
            return chat_prompt_tokens(self._llama, messages, schema, prefill=self.prefill)

    def count_tokens(self, text: str) -> int:
        """Exact token count of `text` under this model's tokenizer."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def close(self) -> None:
        """Free the model and its context now rather than at garbage collection."""
        llama = getattr(self, "_llama", None)  # a load that failed never set it; a second close finds None
        if llama is not None:
            llama.close()
            self._llama = None

